"""The building blocks of topk(x, k, axis=-1, largest=True, sorted=True) -> (values,
indices), as torch.topk (its front door is in api/topk.py).

Ties are broken by the lower index; NaN counts as larger than every number (as numpy's
sort orders it); -0.0 and +0.0 are equal (values come back as +0.0, NaNs as the quiet
NaN, as wgprim.sort returns them). Indices are uint32. The result is always sorted
(best first); sorted=False is accepted and gives the same order.

1-D (kernels/topk_select.wgsl): a radix select, not a sort. Digit steps of 12, 12 and 8
bits of the order key (then of the index, among ties with the k-th key, when only some
are taken), each a histogram pass and a one-workgroup pick on the GPU; the first pass
that starts with at most CAP matching elements copies them to a candidate buffer, and
later steps read only that. A long array is read two or three times. The k chosen
(key, index) pairs are then sorted: in workgroup memory (kernels/segmented_sort.wgsl)
when they fit one workgroup, else by two stable radix sorts. One Program, no read-back.
Rows (n-D along the last axis): rows up to ROWS_MAX_LENGTH with k <= ROWS_MAX_K are
selected where they are held, in registers (kernels/topk_rows.wgsl, one read); other
rows that fit a workgroup are sorted in workgroup memory by the bitonic top-k, keeping
the first k; longer rows are selected one at a time.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, empty
from wgprim.ops.segmented import _mode
from wgprim.program import Program, get_pipeline

WG = 256
U32 = np.dtype(np.uint32)
# Select workgroups, each looping over the keys: topk of 2^28 f32 on an H200 took 0.84 ms
# (512: 0.93, 2048: 0.88).
MAX_GROUPS = 1024
CAP = 16384  # candidates kept after a pass (kernels/topk_select.wgsl)
STEPS = 6      # three key digits, three index digits
STATE_WORDS = 16


def record_select(p: Program, keys: Array, k: int, largest: bool, cap: int = CAP) -> tuple[Array, Array]:
    """Record the radix select of the k best of the 1-D `keys` into `p`: returns the k
    chosen (raw key, index) pairs, unsorted (kernels/topk_select.wgsl)."""
    dev, n = keys.device, keys.size
    mode = _mode(keys.dtype, largest)
    hist, state = p.temp((STEPS * 4096 + 2) * 4), p.temp(STATE_WORDS * 4)  # + 2 append counters
    cand_keys, cand_index = p.temp(4 * cap), p.temp(4 * cap)
    out_keys = Array(p.temp(4 * k), keys.dtype, (k,), dev)
    out_index = Array(p.temp(4 * k), U32, (k,), dev)
    groups = min(-(-n // (WG * 16)), MAX_GROUPS)
    params = p.params(n, k, groups)
    constants = {"WG": WG, "MODE": mode, "CAP": cap}
    pipe = lambda entry, step=0: get_pipeline(  # noqa: E731
        dev, ("order_key", "radix_keys", "topk_select"), "", entry, {**constants, "STEP": step})
    bound = {0: params, 1: keys.buffer, 2: hist, 3: state, 4: cand_keys, 5: cand_index,
             6: out_keys.buffer, 7: out_index.buffer}
    p.dispatch("topk clear", pipe("topk_clear"), {0: params, 2: hist, 3: state}, -(-(STEPS * 4096 + 2) // WG))
    for step in range(STEPS):
        p.dispatch("topk pass", pipe("topk_pass", step), bound, groups)
        p.dispatch("topk pick", pipe("topk_pick", step), {2: hist, 3: state}, 1)
    p.dispatch("topk take", pipe("topk_take"), bound, groups)
    return out_keys, out_index


ROWS_MAX_K = 64         # kernels/topk_rows.wgsl: slots per row
ROWS_MAX_LENGTH = 4096  # rows held by at most WG invocations of ROWS_PER_LANE elements
# Elements per invocation aimed at: 16 took (2^20, 256) k = 16 from 5.0 ms (8) to 3.0 ms
# on an H200 (fewer barriers per element); 4: 5.05 ms.
ROWS_PER_LANE = 16
ROWS_MIN_LANES = 16     # invocations per row at least (rows per workgroup at most WG / 16)


def rows_shape(length: int) -> tuple[int, int]:
    """(invocations per row, elements per invocation) of kernels/topk_rows.wgsl: about
    ROWS_PER_LANE elements each (up to ROWS_MAX_LENGTH / WG when WG invocations hold a row)."""
    lanes = 1 << max(0, (-(-length // ROWS_PER_LANE) - 1).bit_length())
    lanes = min(WG, max(ROWS_MIN_LANES, lanes))
    return lanes, -(-length // lanes)


def _rows_shared_bytes(lanes: int, kmax: int) -> int:
    """Workgroup memory of kernels/topk_rows.wgsl: per row 48 bins, a counter, kmax slots."""
    return (WG // lanes) * (48 * 4 + 4 + kmax * 8)


def select_rows(arr: Array, length: int, k: int, largest: bool) -> tuple[Array, Array]:
    """Top k of every row of `length` of the flat `arr`, one read (kernels/topk_rows.wgsl)."""
    dev = arr.device
    rows = arr.size // length
    lanes, per_lane = rows_shape(length)
    kmax = max(16, 1 << (k - 1).bit_length())
    while _rows_shared_bytes(lanes, kmax) > dev.max_workgroup_storage and lanes < WG:
        lanes *= 2  # fewer rows per workgroup
        per_lane = -(-length // lanes)
    values, indices = empty((rows * k,), arr.dtype, dev), empty((rows * k,), U32, dev)
    pipe = get_pipeline(dev, ("order_key", "radix_keys", "topk_rows"), f"const E: u32 = {per_lane}u;\n", "topk_rows",
                        {"WG": WG, "TPR": lanes, "R": WG // lanes, "MODE": _mode(arr.dtype, largest), "KMAX": kmax})
    idx_steps = -(-max(0, (length - 1).bit_length()) // 4)
    p = Program(dev, label="topk rows")
    p.dispatch("topk rows", pipe, {0: p.params(rows, length, k, idx_steps), 1: arr.buffer,
                                   2: values.buffer, 3: indices.buffer}, -(-rows // (WG // lanes)))
    p.run()
    return values, indices
