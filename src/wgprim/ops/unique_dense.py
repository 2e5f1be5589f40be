"""unique() of keys in a narrow range: a presence bitmap instead of a sort.

When integer keys span few values compared with x's size — labels, ids, small counts,
any integers drawn from a bounded range — the sorted distinct
values need no sort: one pass sets bit (key - smallest key) of a bitmap, a scan of the
words' bit counts gives each present key its position, and the positions are written in
key order (kernels/unique_dense.wgsl). return_counts keeps a counter per key instead
of a bit (and so do values alone in the middle ranges, where a word's bit would take
many keys' atomics); return_inverse reads each key's position from the bitmap and the
scan.

The range is measured first (one atomic min/max pass, ops/atomic_minmax.py, and a read
back: a sync with the GPU, so only from UniqueDensePolicy.dense_from keys on, where the bitmap's saving over
the sort pays for it); ranges too wide for the bitmap to pay (see `dense_range`) and
float keys go to the sort path of ops/select.py. Bit b stands for order key low + b (ops/order_key.py),
so u32 and i32 share one kernel. Counting sort by any other name: the classic answer when keys are
bounded (Knuth, TAOCP vol. 3, 5.2 "distribution counting").
"""
from __future__ import annotations

import dataclasses

import numpy as np

from wgprim.array import Array, empty
from wgprim.ops import atomic_minmax, order_key
from wgprim.ops.common import chunks
from wgprim.ops.scan import scan_recorder
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.recordings import run_recorded
from wgprim.tuning import policy

U32 = np.dtype(np.uint32)
WG = 256
VECS = 4  # vec4 loads per invocation of dense_mark (the kernel's VECS)
# Ranges the workgroup-memory form of the mark takes: 2048 words (8 KiB) of bits, or of
# counters with return_counts. Narrow ranges would send every global atomic to a few words.
LOCAL_WORDS = 2048
# Widest range the bitmap takes: 2^27 bits (16 MiB) and 16 bits per key; with
# return_counts 2^22 counters (16 MiB) and 4 counters per key. Wider ones sort. (On an
# H200, 2^26 keys: 2^24 bits 0.85 ms, 2^27 bits 1.52, the sort 2.1-2.8; 2^24 counters,
# past its 50 MB L2, 2.48 against the sort's 2.35. 2026-12-01.)
MAX_BITS, BITS_PER_KEY = 2**27, 16
MAX_COUNTERS, COUNTERS_PER_KEY = 2**22, 4
# Values alone take counters too for ranges past the workgroup-memory bitmap up to this
# many values: with 2^26 keys in 2^20 values each bitmap word takes about 2048 keys'
# atomics, a counter 64 (H200: 0.81 ms with counters, 1.12 with bits; at 2^22 values bits
# win, 0.91 against 1.16).
VALUES_BY_COUNTERS_UP_TO = 2**20


@dataclasses.dataclass(frozen=True)
class UniqueDensePolicy:
    """The bitmap path's choices (read where unique() decides; wgprim.tuning)."""

    # False: unique always sorts (tests and measurements of the sort path).
    enabled: bool = True
    # Fewest keys for which the range is measured at all. The probe is a sync with the GPU
    # (a map, 0.10-0.14 ms on an H200 through wgpu-py); below this the sort path costs less
    # than the bitmap saves (docs/histogram_select.md). Tests set 0.
    dense_from: int = 2**23
    # Grid-stride workgroups of the local form of the mark: each flushes its words once.
    local_groups: int = 1024
    # Workgroups of the global form (grid-stride over tiles of WG * VECS * 4 keys): each
    # fills and flushes its cache of frequent words once.
    mark_groups: int = 4096


def uses_counters(bits: int, counts: bool) -> bool:
    """Whether the marks count keys (return_counts, and values alone in the middle ranges)
    rather than set bits."""
    return counts or 32 * LOCAL_WORDS < bits <= VALUES_BY_COUNTERS_UP_TO


def dense_range(n: int, bits: int, counts: bool, device, itemsize: int = 4) -> bool:
    """Whether keys spanning `bits` values (n of them, of `itemsize` bytes) take the bitmap."""
    if counts:
        fits = bits <= LOCAL_WORDS or bits <= min(MAX_COUNTERS, COUNTERS_PER_KEY * n)
    else:
        fits = bits <= 32 * LOCAL_WORDS or bits <= min(MAX_BITS, BITS_PER_KEY * n)
    widest = 4 * bits if uses_counters(bits, counts) else bits // 8  # counters or bitmap
    # the result (at most min(n, bits) values) and the counters each fit one binding
    return fits and max(widest, itemsize * min(n, bits)) <= device.max_binding_bytes


# How kernels/unique_dense.wgsl reads keys, four at a time, per width. A 64-bit key's bit
# is the low word of its distance from the smallest key: exact, the range being narrower
# than 2^32.
_NARROW = """alias SrcVec = vec4<T>;
alias Quad = vec4<T>;
fn load_quad(q: u32) -> Quad { return src[q]; }
fn bit_of(x: T) -> u32 { return key(x) - params.low; }
fn quad_bits(x: Quad) -> vec4<u32> { return vec4<u32>(bit_of(x.x), bit_of(x.y), bit_of(x.z), bit_of(x.w)); }
fn value_at(b: u32) -> T { return from_key(params.low + b); }
"""
_WIDE = """alias SrcVec = vec4<u32>;
struct Quad { a: vec4<u32>, b: vec4<u32> }
fn load_quad(q: u32) -> Quad {
  let last = arrayLength(&src) - 1u;
  return Quad(src[min(2u * q, last)], src[min(2u * q + 1u, last)]);
}
fn bit_of(x: T) -> u32 { return key(x).x - params.low; }
fn quad_bits(x: Quad) -> vec4<u32> { return vec4<u32>(bit_of(x.a.xy), bit_of(x.a.zw), bit_of(x.b.xy), bit_of(x.b.zw)); }
fn value_at(b: u32) -> T {
  let lo = params.low + b;
  return from_key(vec2<u32>(lo, params.low_hi + select(0u, 1u, lo < b)));  // the carry into the high word
}
"""


def dense_preamble(dt: np.dtype) -> str:
    """`alias T`, the order keys of dt and how kernels/unique_dense.wgsl reads them."""
    wide = dt.itemsize == 8
    t = "vec2<u32>" if wide else atomic_minmax.WGSL[dt]
    return f"alias T = {t};\n" + order_key.preamble(dt) + (_WIDE if wide else _NARROW)


def _key_range(flat: Array) -> tuple[int, int]:
    """The smallest and largest order key of the integers of `flat`, read back: one atomic
    min/max pass for 32-bit keys, the two of atomic_minmax.key_range64 for 64-bit ones."""
    if flat.itemsize == 8:
        return tuple(int(k) for k in order_key.host_keys(np.array(atomic_minmax.key_range64(flat))))
    probe = Program(flat.device, label="unique key range")
    keys = atomic_minmax.record_key_range(probe, flat)
    probe.run(stage=keys)
    low, high = (int(k) for k in keys.numpy())
    return low, high


def unique_dense(flat: Array, shape, return_inverse: bool, return_counts: bool):
    """(values, inverse or None, counts or None) as numpy.unique gives them, or None when
    the keys' range is too wide for the bitmap (the caller sorts)."""
    dev, n, dt = flat.device, flat.size, flat.dtype
    chosen = policy(UniqueDensePolicy)
    # Integers only: float keys are narrow only for runs of adjacent floats, so measuring
    # their range would only add a pass (0.07 ms at 2^26) before the sort.
    if not chosen.enabled or dt.kind not in "iu" or n < chosen.dense_from:
        return None
    low, high = _key_range(flat)
    bits = high - low + 1
    if not dense_range(n, bits, return_counts, dev, dt.itemsize):
        return None
    words = -(-bits // 32)
    counting = uses_counters(bits, return_counts)
    local = (bits if counting else words) <= LOCAL_WORDS
    consts = {"WG": WG, "COUNTS": counting, "LOCAL_WORDS": LOCAL_WORDS}
    preamble = dense_preamble(dt)
    lo, hi = low & 0xFFFFFFFF, low >> 32  # the smallest key's words (hi: of 64-bit keys)

    def pipe(entry):
        return get_pipeline(dev, "unique_dense", preamble, entry, consts)

    size = min(n, bits)
    values = empty((size,), dt, dev)
    counts = empty((size,), U32, dev) if counting else None
    inverse = empty(tuple(shape), U32, dev) if return_inverse else None
    total = empty((1,), U32, dev)
    outputs = tuple(a for a in (values, total, counts, inverse) if a is not None)

    def record(program, flat, values, total, *rest):
        counts = rest[0] if counting else None
        inverse = rest[-1] if return_inverse else None
        bitmap = program.temp(4 * words)
        # Bindings an entry point names but this mode leaves unused get a 4-byte stand-in
        # (one for read-write and one for read-only uses: a dispatch may not bind a buffer both ways).
        unused_rw, unused_ro = program.temp(4), program.temp(4)
        counters = program.temp(4 * bits) if counting else unused_rw
        word_bits = Array(program.temp(4 * words), U32, (words,), dev)
        prefix = Array(program.temp(4 * words), U32, (words,), dev)
        spread = max(words, bits if counting else 0)
        program.dispatch("unique clear", pipe("dense_clear"),
                         {0: program.params(bits, 0, lo, words, hi), 2: bitmap, 3: counters}, -(-spread // WG))
        for c in chunks(n, dt.itemsize, WG * VECS * 4, dev):
            if local:
                groups = min(chosen.local_groups, -(-c.count // (WG * 4)))
                entry = "dense_mark_local"
            else:
                groups = min(chosen.mark_groups, -(-c.count // (WG * VECS * 4)))
                entry = "dense_mark"
            program.dispatch(f"unique mark{' local' if local else ''}", pipe(entry),
                             {0: program.params(c.count, groups, lo, words, hi), 1: c.view(flat), 2: bitmap,
                              3: counters}, groups)
        # Counting, the bitmap is built here from the counters (one counter per invocation,
        # written through binding 2); else the complete bitmap is read (binding 4).
        groups = -(-(bits if counting else words) // WG)
        program.dispatch("unique words", pipe("dense_words"),
                         {0: program.params(bits, groups, lo, words, hi), 6: word_bits.buffer,
                          2: bitmap if counting else unused_rw, 4: unused_ro if counting else bitmap,
                          10: counters if counting else unused_ro}, groups)
        scan_recorder(dev, U32, "sum", words).record(program, word_bits, prefix, exclusive=True)
        expand = {0: program.params(bits, 0, lo, words, hi), 4: bitmap, 5: prefix.buffer, 7: values.buffer,
                  11: total.buffer, 8: counts.buffer if counting else unused_rw,
                  10: counters if counting else unused_ro}
        program.dispatch("unique expand", pipe("dense_expand"), expand, -(-(32 * words) // WG))
        if inverse is not None:
            for c in chunks(n, dt.itemsize, WG * 4, dev):
                program.dispatch("unique inverse", pipe("dense_inverse"),
                                 {0: program.params(c.count, 0, lo, words, hi), 1: c.view(flat), 4: bitmap,
                                  5: prefix.buffer, 9: c.view(inverse)}, -(-c.count // (WG * 4)))

    # Kept per range and options (the buffers of the call's arrays are part of the key):
    # a repeated call submits the kept steps and reads the count in the same submit.
    key = ("unique dense", low, bits, counting, local, return_inverse, chosen)
    (raw,) = run_recorded(dev, key, (flat, *outputs), record, "unique (bitmap)", reads=[(total.buffer, 0, 4)])
    k = int(raw.view(np.uint32)[0])
    values = values.alias((k,))
    counts = counts.alias((k,)) if return_counts else None
    return values, inverse, counts
