"""The building blocks of topk(x, k, axis=-1, largest=True, sorted=True) -> (values,
indices), as torch.topk (its front door is in api/topk.py), and the radix select that
partition and kth_smallest take their k-th keys from (ops/partition.py).

Ties are broken by the lower index; NaN counts as larger than every number (as numpy's
sort orders it); -0.0 and +0.0 are equal keys. Values are the input's own bits (the keys
only order them). Indices are uint32. The result is always sorted (best first);
sorted=False is accepted and gives the same order. Keys of 4 and 8 bytes.

1-D (kernels/topk_select.wgsl, Selection): a radix select, not a sort. Digit steps of 12,
12 and 8 bits of each word of the order key (two words for 64-bit keys), then of the
index among ties with the k-th key when only some are taken, each a histogram pass and a
one-workgroup pick on the GPU; the first pass that starts with at most CAP matching
elements copies them to a candidate buffer, and later steps read only that. A long array
is read two or three times. The k chosen (key, index) pairs are then ranked, each against
all (record_rank, up to RANK_MAX), else sorted by two stable radix sorts; arrays of up to
RANK_ALL_UP_TO elements are ranked whole. One Program, no read-back.
Rows (n-D along the last axis): rows up to ROWS_MAX_LENGTH with k <= ROWS_MAX_K are
selected where they are held, in registers (kernels/topk_rows.wgsl, one read); other
rows that fit a workgroup are sorted in workgroup memory by the bitonic top-k, keeping
the first k; longer rows (and rows of 64-bit keys) are selected one at a time.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from wgprim.array import Array, empty
from wgprim.ops import order_key
from wgprim.ops.common import chunks
from wgprim.ops.gather import record_gather
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.tuning import policy

WG = 256
U32, U64 = np.dtype(np.uint32), np.dtype(np.uint64)
CAP = 16384  # candidates kept after a pass (kernels/topk_select.wgsl)
MAX_STEPS = 9  # three levels (two key words and the index) of three digits
STATE_WORDS = 16
STATE_FIXED_BYTES = 4 * 8  # where the fixed words (key words, then the index) start in the state
HIST_WORDS = MAX_STEPS * 4096 + 2  # + 2 append counters
# The chosen are ranked by comparing each with all (kernels/topk_select.wgsl, topk_rank)
# up to this many; more go through two stable sorts (api/topk.py).
RANK_MAX = 4096
# A 1-D array this short is ranked whole, in one dispatch (no select).
RANK_ALL_UP_TO = 2048
KEY_DTYPES = tuple(np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64))
_WGSL = {"u": "u32", "i": "i32", "f": "f32"}


@dataclasses.dataclass(frozen=True)
class TopkPolicy:
    """top-k's choices (read where its steps are recorded; wgprim.tuning). Measurements
    of the rows' shape: docs/axis_segmented_topk.md."""

    # Select workgroups, each looping over the keys: topk of 2^28 f32 on an H200 took
    # 0.84 ms (512: 0.93, 2048: 0.88).
    max_groups: int = 1024
    # Rows (kernels/topk_rows.wgsl): elements per invocation aimed at (fewer barriers per
    # element than 8 or 4), and invocations per row at least (rows per workgroup at most
    # WG / rows_min_lanes).
    rows_per_lane: int = 16
    rows_min_lanes: int = 16

_NARROW = """alias Raw = u32;
const KEY_WORDS: u32 = 1u;
const PER_VEC: u32 = 4u;
fn raw_in(v: vec4<u32>, c: u32) -> Raw { return v[c]; }
fn key_word(k: OrderKey, level: u32) -> u32 { return k; }
fn key_less(a: OrderKey, b: OrderKey) -> bool { return a < b; }
"""
_WIDE = """alias Raw = vec2<u32>;
const KEY_WORDS: u32 = 2u;
const PER_VEC: u32 = 2u;
fn raw_in(v: vec4<u32>, c: u32) -> Raw { return select(v.zw, v.xy, c == 0u); }
fn key_word(k: OrderKey, level: u32) -> u32 { return select(k.x, k.y, level == 0u); }
fn key_less(a: OrderKey, b: OrderKey) -> bool { return key64_less(a, b); }
"""


def select_preamble(dt: np.dtype) -> str:
    """What kernels/topk_select.wgsl expects of the preamble, for keys of dtype dt: the
    order keys of ops/order_key.py over the values' bits (64-bit values: two words)."""
    dt = np.dtype(dt)
    wide = dt.itemsize == 8
    t = "vec2<u32>" if wide else _WGSL[dt.kind]
    return (f"alias T = {t};\n" + order_key.preamble(dt) + (_WIDE if wide else _NARROW)
            + "fn raw_key(r: Raw) -> OrderKey { let k = key(bitcast<T>(r)); return select(k, ~k, DESCENDING); }\n")


def _pipeline(device, dt, entry: str, **constants):
    return get_pipeline(device, "topk_select", select_preamble(dt), entry, {"WG": WG, **constants})


class Selection:
    """The steps of one radix select recorded into a Program (kernels/topk_select.wgsl):
    its state (the fixed words: key, then index) and the (raw key, index) pairs it chose.
    Arrays beyond one storage binding are read window by window."""

    def __init__(self, p: Program, keys: Array, k: int, largest: bool = False, cap: int = CAP,
                 mode: str = "topk"):
        """mode "topk": the k best are appended to `chosen` (unsorted); "key": only the k-th
        key is fixed (state words FIXED..); "element": the k-th key and its index (the
        element a stable sort puts at rank k)."""
        dev, n, dt = keys.device, keys.size, keys.dtype
        chosen_policy = policy(TopkPolicy)
        self.program, self.keys, self.k, self.dtype = p, keys, k, dt
        key_only, write_out = mode == "key", mode == "topk"
        levels = (2 if dt.itemsize == 8 else 1) + (0 if key_only else 1)
        self.hist, self.state = p.temp(HIST_WORDS * 4), p.temp(STATE_WORDS * 4)
        cand_keys, cand_index = p.temp(dt.itemsize * cap), p.temp(4 * cap)
        chosen = k if write_out else 1
        self.chosen_keys = Array(p.temp(dt.itemsize * chosen), dt, (chosen,), dev)
        self.chosen_index = Array(p.temp(4 * chosen), U32, (chosen,), dev)
        # Each entry gets the constants it reads (fewer pipelines to compile): the passes
        # and the take the direction, capacity and appends; the pick the levels and the stop.
        self.constants = {"DESCENDING": bool(largest), "CAP": cap, "WRITE_OUT": write_out}
        self.pick_constants = {"KEY_ONLY": key_only, "EARLY_STOP": mode == "topk", "CAP": cap}
        pairs = {2: self.hist, 3: self.state, 4: cand_keys, 5: cand_index, 6: self.chosen_keys.buffer,
                 7: self.chosen_index.buffer}
        windows = []  # (params, bindings) of each window's pass and take
        for c in chunks(n, dt.itemsize, WG, dev):
            groups = min(-(-c.count // (WG * 16)), chosen_policy.max_groups)
            windows.append((groups, {0: p.params(c.count, k, groups, c.start, n), 1: c.view(keys), **pairs}))
        # The entries that never read a value compile once for every dtype of a width.
        plain = U64 if dt.itemsize == 8 else U32
        clear = {0: p.params(n, k, 0, 0, n), 2: self.hist, 3: self.state}
        p.dispatch("select clear", _pipeline(dev, plain, "topk_clear"), clear, -(-HIST_WORDS // WG))
        pick = _pipeline(dev, plain, "topk_pick", **self.pick_constants)
        for step in range(3 * levels):
            for groups, bound in windows:
                p.dispatch("select pass", self._pipe("topk_pass", STEP=step), bound, groups)
            p.dispatch("select pick", pick, {0: p.params(0, 0, 0, 0, 0, step), 2: self.hist, 3: self.state}, 1)
        if write_out:
            for groups, bound in windows:
                p.dispatch("select take", self._pipe("topk_take"), bound, groups)

    def _pipe(self, entry: str, **more):
        return _pipeline(self.program.device, self.dtype, entry, **self.constants, **more)

    def record_kth(self, value: Array, index: Array) -> None:
        """Write the element the select fixed (mode "element") into value[0], index[0]."""
        p = self.program
        plain = U64 if self.dtype.itemsize == 8 else U32
        p.dispatch("select kth", _pipeline(p.device, plain, "select_kth"), {3: self.state, 7: index.buffer}, 1)
        record_gather(p, self.keys, index.ravel(), value.ravel())


def record_rank(p: Program, keys: Array, k: int, largest: bool, values: Array, indices: Array,
                chosen: "Selection | None" = None) -> None:
    """Write the k best of keys (or of the pairs a Selection chose), best first and ties by
    lower index, into values (their bits) and indices: each ranked against all."""
    dev, dt = keys.device, keys.dtype
    rank_all = chosen is None
    m = keys.size if rank_all else k
    if rank_all:  # keys at most RANK_ALL_UP_TO: one binding
        pairs = {1: keys.buffer, 6: p.temp(16), 7: p.temp(16)}
    else:  # the kernel names `keys` but reads only the chosen pairs
        pairs = {1: {"buffer": keys.buffer, "offset": 0, "size": 16},
                 6: chosen.chosen_keys.buffer, 7: chosen.chosen_index.buffer}
    pipe = _pipeline(dev, dt, "topk_rank", DESCENDING=bool(largest), RANK_ALL=rank_all)
    p.dispatch("topk rank", pipe, {0: p.params(keys.size, k, 0, 0, keys.size), **pairs, 8: values.buffer,
                                   9: indices.buffer}, -(-m // WG))


ROWS_MAX_K = 64         # kernels/topk_rows.wgsl: slots per row
ROWS_MAX_LENGTH = 4096  # rows held by at most WG invocations of 16 elements


def rows_shape(length: int) -> tuple[int, int]:
    """(invocations per row, elements per invocation) of kernels/topk_rows.wgsl: about
    TopkPolicy.rows_per_lane elements each (up to ROWS_MAX_LENGTH / WG when WG invocations
    hold a row)."""
    chosen = policy(TopkPolicy)
    lanes = 1 << max(0, (-(-length // chosen.rows_per_lane) - 1).bit_length())
    lanes = min(WG, max(chosen.rows_min_lanes, lanes))
    return lanes, -(-length // lanes)


def _rows_shared_bytes(lanes: int, kmax: int, key_bytes: int = 4) -> int:
    """Workgroup memory of kernels/topk_rows.wgsl: per row 48 bins, a counter, kmax slots
    of (key, index)."""
    return (WG // lanes) * (48 * 4 + 4 + kmax * (key_bytes + 4))


# The digits of a row's keys, 4 bits a step (kernels/topk_rows.wgsl), per key width.
_ROW_DIGITS = {
    4: """const KEY_STEPS: u32 = 8u;
fn key_digit(k: OrderKey, s: u32) -> u32 { return (k >> (28u - 4u * s)) & 15u; }
fn key_with_digit(k: OrderKey, s: u32, d: u32) -> OrderKey { return k | (d << (28u - 4u * s)); }
fn key_top_eq(a: OrderKey, b: OrderKey, s: u32) -> bool {
  let fixed = 4u * s;
  return fixed == 0u || (a >> (32u - fixed)) == (b >> (32u - fixed));
}
fn key_top_le(a: OrderKey, b: OrderKey, s: u32) -> bool {
  let shift = 28u - 4u * s;
  return (a >> shift) <= (b >> shift);
}
""",
    # (low, high) words: steps 0-7 the high word, 8-15 the low one
    8: """const KEY_STEPS: u32 = 16u;
fn key_digit(k: OrderKey, s: u32) -> u32 { return (select(k.x, k.y, s < 8u) >> (28u - 4u * (s % 8u))) & 15u; }
fn key_with_digit(k: OrderKey, s: u32, d: u32) -> OrderKey {
  let add = d << (28u - 4u * (s % 8u));
  return select(vec2<u32>(k.x | add, k.y), vec2<u32>(k.x, k.y | add), s < 8u);
}
fn key_top_eq(a: OrderKey, b: OrderKey, s: u32) -> bool {
  let fixed = 4u * s;
  if (fixed <= 32u) {
    return fixed == 0u || (a.y >> (32u - fixed)) == (b.y >> (32u - fixed));
  }
  return a.y == b.y && (a.x >> (64u - fixed)) == (b.x >> (64u - fixed));
}
fn key_top_le(a: OrderKey, b: OrderKey, s: u32) -> bool {
  let top = 4u * (s + 1u);
  if (top <= 32u) {
    return (a.y >> (32u - top)) <= (b.y >> (32u - top));
  }
  return a.y < b.y || (a.y == b.y && (a.x >> (64u - top)) <= (b.x >> (64u - top)));
}
""",
}


def select_rows(arr: Array, length: int, k: int, largest: bool) -> tuple[Array, Array]:
    """Top k of every row of `length` of the flat `arr`, one read (kernels/topk_rows.wgsl)."""
    dev, dt = arr.device, arr.dtype
    rows = arr.size // length
    lanes, per_lane = rows_shape(length)
    kmax = max(16, 1 << (k - 1).bit_length())
    while _rows_shared_bytes(lanes, kmax, dt.itemsize) > dev.max_workgroup_storage and lanes < WG:
        lanes *= 2  # fewer rows per workgroup
        per_lane = -(-length // lanes)
    values, indices = empty((rows * k,), dt, dev), empty((rows * k,), U32, dev)
    preamble = select_preamble(dt) + _ROW_DIGITS[dt.itemsize] + f"const E: u32 = {per_lane}u;\n"
    pipe = get_pipeline(dev, "topk_rows", preamble, "topk_rows",
                        {"WG": WG, "TPR": lanes, "R": WG // lanes, "DESCENDING": bool(largest), "KMAX": kmax})
    idx_steps = -(-max(0, (length - 1).bit_length()) // 4)
    p = Program(dev, label="topk rows")
    p.dispatch("topk rows", pipe, {0: p.params(rows, length, k, idx_steps, 0, 0), 1: arr.buffer,
                                   2: values.buffer, 3: indices.buffer}, -(-rows // (WG // lanes)))
    p.run()
    return values, indices


def take_rows(arr: Array, length: int, positions: Array, stride: int, first: int, k: int) -> tuple[Array, Array]:
    """(values, positions) of k columns (from `first` on) of the row positions `positions`
    (`stride` per row) of every row of `length` of the flat `arr`: the elements' own bits
    (kernels/topk_rows.wgsl, take_rows)."""
    dev, rows = arr.device, arr.size // length
    values, indices = empty((rows * k,), arr.dtype, dev), empty((rows * k,), U32, dev)
    preamble = select_preamble(arr.dtype) + _ROW_DIGITS[arr.itemsize] + "const E: u32 = 1u;\n"
    pipe = get_pipeline(dev, "topk_rows", preamble, "take_rows", {"WG": WG})
    p = Program(dev, label="take rows")
    p.dispatch("take rows", pipe, {0: p.params(rows, length, k, 0, stride, first), 1: arr.buffer,
                                   2: values.buffer, 3: indices.buffer, 4: positions.buffer}, -(-rows * k // WG))
    p.run()
    return values, indices
