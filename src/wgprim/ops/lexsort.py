"""Sorts by several 32-bit words: 64-bit keys, several keys (lexsort), 64-bit segments.

WGSL has no 64-bit integers, and the radix passes (ops/radix_sort.py) are tuned for 32-bit
keys. A sort by a key of several 32-bit words is a chain of stable 32-bit sorts, least
significant word first (LSD over words, as an LSD radix sort is over digits):

    perm = argsort(word 0)                           the indices ride along the passes
    perm = perm[argsort(word 1[perm])]               gather word 1 by perm, sort it
    ...                                              carrying perm as its values

After the sort by word j the order is by (word j, ..., word 0), ties in input order,
because every sort is stable. The words, least significant first:
- a 64-bit key: the low and high word of its order key (kernels/key_words.wgsl; the order
  key's unsigned order is numpy's order, -0.0 == +0.0, every NaN one key above +inf);
- lexsort's keys: the words of each key, the first key's first (numpy's lexsort sorts by
  the last key first);
- a segmented sort (segment_sort, sort along an axis): the keys' words, then the segment
  of each element, so that the most significant word keeps every element in its segment.
Each step is one Program's worth of dispatches recorded into the caller's (ops/sorting.py:
one workgroup or the radix passes), so a whole chain is one submit.

Results come out through ops/gather, bit for bit: a float64 key's order key has forgotten
-0.0's sign and NaN payloads, the input it gathers from has not. The exception is the sort
of uint64 or int64 keys alone: their order key is a bijection, so the two sorts carry the
other word of the key as their values instead of indices, and the sorted words are turned
back into values (no gather: per key 16 bytes read and written by each of the 8 scatter
passes, the same as radix passes that move both words; docs/sort.md weighs the designs).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array
from wgprim.ops import order_key
from wgprim.ops.common import chunks
from wgprim.ops.gather import record_gather
from wgprim.ops.radix_sort import radix_sorter
from wgprim.ops.segmented import _pipe as segment_pipe
from wgprim.ops.sorting import one_workgroup, record_sort
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256
U32, I32, F32 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32))
U64, I64, F64 = order_key.WIDE
WORD_DTYPES = (U32, I32, F32)  # keys the 32-bit sort takes as they are
KEY_DTYPES = WORD_DTYPES + order_key.WIDE


def _temp(p: Program, n: int, dtype) -> Array:
    dtype = np.dtype(dtype)
    return Array(p.temp(max(16, n * dtype.itemsize)), dtype, (n,), p.device)


def _words_pipe(device, dtype, entry: str):
    pre = "alias T = vec2<u32>;\n" + order_key.preamble(dtype)
    return get_pipeline(device, "key_words", pre, entry, {"WG": WG})


def _record_words(p: Program, entry: str, label: str, values: Array, lo: Array, hi: Array) -> None:
    pipe = _words_pipe(p.device, values.dtype, entry)
    side = 1 if entry == "key_words" else 4
    for c in chunks(values.size, 8, WG, p.device):
        groups = -(-c.count // WG)
        p.dispatch(label, pipe, {0: p.params(c.count, groups, 0, 0), side: c.view(values), 2: c.view(lo),
                                 3: c.view(hi)}, groups)


def record_key_words(p: Program, x: Array, lo: Array, hi: Array) -> None:
    """Add the dispatches writing the low and high words of the 64-bit x's order keys."""
    _record_words(p, "key_words", "key words", x, lo, hi)


def record_from_words(p: Program, lo: Array, hi: Array, out: Array) -> None:
    """Add the dispatches writing the values (out's dtype, uint64 or int64) of the keys
    (lo, hi): key_words inverted, exact where the order key is a bijection."""
    _record_words(p, "from_key_words", "key words", out, lo, hi)


def words(p: Program, key: Array) -> list[Array]:
    """The chain's words of one 1-D key, least significant first: a 32-bit key is its own
    word (the sort takes its dtype's order), a 64-bit key the words of its order key
    (temporaries of `p`, written by dispatches added to it)."""
    if key.dtype in WORD_DTYPES:
        return [key]
    lo, hi = _temp(p, key.size, U32), _temp(p, key.size, U32)
    record_key_words(p, key, lo, hi)
    return [lo, hi]


def record_argsort_words(p: Program, keys_words: list[Array], perm_out: Array, descending: bool = False,
                         segments: dict | None = None) -> Array | None:
    """Add the chain of stable sorts leaving in perm_out the permutation that sorts by the
    words (least significant first; descending: every word descending, ties still in input
    order). `segments` (rows: {"length": L}; CSR: {"offsets": Array of the relative
    offsets, "slots": segments}) adds the segment of each element as the most significant
    word: every segment sorted on its own. Returns the sorted segment ids (a temporary)
    when there are segments."""
    n, dev = perm_out.size, perm_out.device
    steps = len(keys_words) + (segments is not None)
    spare = _temp(p, n, U32) if steps > 1 else None
    perms = [perm_out, spare]
    scratch = p.temp(4 * n)  # the sorted words, not needed after their step
    gathered = p.temp(4 * n) if steps > 1 else None
    prev = None
    for i in range(steps):
        dst = perms[(steps - 1 - i) % 2]
        if i == len(keys_words):  # the segment of each element, in the current order
            word = Array(gathered, U32, (n,), dev)
            record_segment_of(p, prev, word, segments)
            sorted_ids = Array(scratch, U32, (n,), dev)
            record_sort(p, word, sorted_ids, prev, dst)  # ascending: segments stay in place
            return sorted_ids
        w = keys_words[i]
        out = Array(scratch, w.dtype, (n,), dev)
        if prev is None:
            record_sort(p, w, out, None, dst, index_values=True, descending=descending)
        else:
            word = Array(gathered, w.dtype, (n,), dev)
            record_gather(p, w, prev, word)
            record_sort(p, word, out, prev, dst, descending=descending)
        prev = dst
    return None


def record_segment_of(p: Program, positions: Array, ids: Array, segments: dict) -> None:
    """ids[j] = the segment of element positions[j] (kernels/segmented_sort.wgsl)."""
    n = positions.size
    groups = -(-n // WG)
    length = segments.get("length", 0)
    offsets = segments.get("offsets")
    p.dispatch("segment of", segment_pipe(p.device, "segment_of"), {
        0: p.params(segments.get("slots", 0), length, int(offsets is None), 0, 0, 0, groups, n, 1),
        1: positions.buffer, 3: offsets.buffer if offsets is not None else p.temp(16), 6: ids.buffer}, groups)


def record_segment_positions(p: Program, perm: Array, sorted_ids: Array, out: Array, segments: dict) -> None:
    """out[j] = perm[j] minus the start of its segment (sorted_ids[j]): argsort's indices
    inside each segment."""
    n = perm.size
    groups = -(-n // WG)
    offsets = segments.get("offsets")
    p.dispatch("segment positions", segment_pipe(p.device, "segment_positions"), {
        0: p.params(segments.get("slots", 0), segments.get("length", 0), int(offsets is None), 0, 0, 0, groups, n, 1),
        1: perm.buffer, 6: out.buffer, 7: sorted_ids.buffer, 8: offsets.buffer if offsets is not None else p.temp(16)},
        groups)


def record_sort_wide(p: Program, keys: Array, out: Array, descending: bool = False) -> None:
    """Add the stable sort of the 1-D 64-bit keys into out (the input's own bits)."""
    n = keys.size
    if keys.dtype == F64:  # the order key forgets bits: sort the indices, gather the values
        perm = _temp(p, n, U32)
        record_argsort_words(p, words(p, keys), perm, descending)
        record_gather(p, keys, perm, out)
        return
    lo, hi = words(p, keys)
    lo2, hi2 = _temp(p, n, U32), _temp(p, n, U32)
    record_sort(p, lo, lo2, hi, hi2, descending=descending)  # by the low word, the high one along
    record_sort(p, hi2, hi, lo2, lo, descending=descending)  # by the high word, the low one along
    record_from_words(p, lo, hi, out)


def record_any_sort(p: Program, keys: Array, keys_out: Array | None, vals_in: Array | None = None,
                    vals_out: Array | None = None, index_values: bool = False, descending: bool = False) -> None:
    """Add the stable sort of the 1-D `keys` (any dtype of KEY_DTYPES) into `keys_out`
    (None: not wanted), with values along as ops/sorting.record_sort (`vals_in` gathered
    into `vals_out`, or the indices with `index_values`); values may be 4 or 8 bytes.
    32-bit keys with 32-bit values take record_sort itself."""
    n = keys.size
    if n == 0:
        return
    if keys.dtype in WORD_DTYPES and (vals_in is None or vals_in.itemsize == 4):
        record_sort(p, keys, keys_out if keys_out is not None else _temp(p, n, keys.dtype), vals_in, vals_out,
                    index_values=index_values, descending=descending)
        return
    if vals_out is None:
        record_sort_wide(p, keys, keys_out, descending)
        return
    perm = vals_out if index_values else _temp(p, n, U32)
    if keys.dtype in WORD_DTYPES:  # 32-bit keys, 8-byte values
        record_sort(p, keys, keys_out if keys_out is not None else _temp(p, n, keys.dtype), None, perm,
                    index_values=True, descending=descending)
    else:
        record_argsort_words(p, words(p, keys), perm, descending)
        if keys_out is not None:
            record_gather(p, keys, perm, keys_out)
    if not index_values:
        record_gather(p, vals_in, perm, vals_out)


def record_segmented_sort(p: Program, keys: Array, keys_out: Array, vals_in: Array | None, vals_out: Array | None,
                          positions: bool, descending: bool, segments: dict) -> None:
    """Add the sort of every segment of the 1-D `keys` on its own (rows of
    segments["length"] covering all keys, or the CSR segments of segments["offsets"],
    relative offsets from 0 to keys.size): keys into keys_out, and vals_in gathered into
    vals_out, or with `positions` each key's index inside its segment."""
    n = keys.size
    if n == 0:
        return
    perm = _temp(p, n, U32)
    sorted_ids = record_argsort_words(p, words(p, keys), perm, descending, segments)
    record_gather(p, keys, perm, keys_out)
    if positions:
        record_segment_positions(p, perm, sorted_ids, vals_out, segments)
    elif vals_out is not None:
        record_gather(p, vals_in, perm, vals_out)


def sort_key(device, dtypes, n: int, descending: bool) -> tuple:
    """What a recording of these chains depends on besides its arrays and the settings: the
    32-bit sorts of every word dtype (64-bit keys sort uint32 words)."""
    word_dtypes = sorted({dt if dt in WORD_DTYPES else U32 for dt in map(np.dtype, dtypes)} | {U32}, key=str)
    if one_workgroup(device, n):
        return ("sort chain, one workgroup", tuple(map(np.dtype, dtypes)), bool(descending))
    return ("sort chain", tuple(map(np.dtype, dtypes)), bool(descending),
            tuple(radix_sorter(device, dt, d) for dt in word_dtypes for d in ((False, True) if descending else (False,))))
