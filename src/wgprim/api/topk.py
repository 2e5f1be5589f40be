"""topk(x, k, axis=-1, largest=True, sorted=True) -> (values, indices), as torch.topk, and
the array API's top_k: the front doors. The radix select, the rank of the chosen, the
rows kernel and their constants are in ops/topk.py (which states the semantics and the
paths); more chosen than one rank takes are sorted by sort_pairs (api/sort.py), and the
rows that fit a workgroup by sort_rows (ops/segmented.py).
"""
from __future__ import annotations

import numpy as np

from wgprim.api.sort import sort_pairs
from wgprim.array import Array, empty
from wgprim.ops import topk as topk_ops
from wgprim.ops.axis import move_axis, normalize_axis
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.segmented import VALUES_POSITION, _copy, sort_rows, tile_size
from wgprim.ops.gather import record_gather
from wgprim.ops.topk import CAP, U32, Selection, record_rank, select_rows, take_rows
from wgprim.batching import queued
from wgprim.program import Program
from wgprim.recordings import run_recorded


def _check_k(k, n: int) -> int:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"k must be an int, not {type(k).__name__}")
    if not 0 <= k <= n:
        raise ValueError(f"k = {k} is out of range for {n} elements (0 <= k <= {n})")
    return int(k)


def _select_1d(keys: Array, k: int, largest: bool, cap: int = CAP) -> tuple[Array, Array]:
    dev, n = keys.device, keys.size
    values = empty((k,), keys.dtype, dev)
    indices = empty((k,), U32, dev)
    if n <= topk_ops.RANK_ALL_UP_TO:
        # Every element ranked against all, the first k written: one dispatch.
        run_recorded(dev, ("topk, ranked whole", largest, k), (keys, values, indices),
                     lambda p, keys, values, indices: record_rank(p, keys, k, largest, values, indices), "topk")
        return values, indices
    if k <= topk_ops.RANK_MAX:
        # The radix select, then the k chosen ranked among themselves.
        def record_chosen(p, keys, values, indices):
            chosen = Selection(p, keys, k, largest, cap)
            record_rank(p, keys, k, largest, values, indices, chosen)

        run_recorded(dev, ("topk select", largest, k, cap), (keys, values, indices), record_chosen, "topk select")
        return values, indices
    p = Program(dev, label="topk select")
    chosen = Selection(p, keys, k, largest, cap)
    p.transient = False  # the chosen pairs live on into the sorts below
    p.run()
    by_index, keys_by_index = sort_pairs(chosen.chosen_index, chosen.chosen_keys)  # lower index first among ties
    _, indices = sort_pairs(keys_by_index, by_index, descending=largest)
    program = Program(dev, label="topk values")
    record_gather(program, keys, indices, values)  # the input's own bits
    program.run()
    if queued(p):  # waiting in a batch: the batch gives the pairs back once it has submitted them
        p.transient = True
    else:
        p.release()
    return values, indices


def topk(x, k, axis=-1, largest: bool = True, sorted: bool = True) -> tuple[Array, Array]:  # noqa: A002
    """The k largest (or smallest) elements along `axis` and their uint32 indices, best
    first, ties by lower index, NaN largest; as torch.topk. The values are the input's own
    bits (-0.0 stays -0.0, NaN payloads are kept). Keys uint32, int32, float32, uint64,
    int64, float64. n-D arrays: along any axis (the last is native; another is moved last
    on the GPU)."""
    largest, sorted = check_flag("largest", largest), check_flag("sorted", sorted)
    arr = as_input(x, topk_ops.KEY_DTYPES)
    if arr.ndim == 0:
        raise ValueError("topk needs at least one dimension")
    ax = normalize_axis(axis, arr.ndim)
    if ax != arr.ndim - 1:  # along a middle axis: move it last on the GPU, select, move back
        _check_k(k, arr.shape[ax])
        values, indices = topk(move_axis(arr, ax), k, -1, largest, sorted)
        shape = arr.shape[:ax] + (int(k),) + arr.shape[ax + 1:]
        return move_axis(values, ax, True, shape), move_axis(indices, ax, True, shape)
    length = arr.shape[-1]
    k = _check_k(k, length)
    rows = arr.size // length if length else 0
    shape = arr.shape[:-1] + (k,)
    dev = arr.device
    if k == 0 or rows == 0:
        return empty(shape, arr.dtype, dev), empty(shape, U32, dev)
    if arr.ndim == 1:
        return _select_1d(arr, k, largest)
    narrow = arr.itemsize == 4
    if k <= topk_ops.ROWS_MAX_K and length <= topk_ops.ROWS_MAX_LENGTH:  # settings of ops/topk.py
        values, indices = select_rows(arr.ravel(), length, k, largest)
        return values.reshape(shape), indices.reshape(shape)
    if narrow and length <= tile_size(dev):  # the bitonic top-k: positions, then the values there
        positions = sort_rows(arr.ravel(), length, largest, VALUES_POSITION, keep=k)[1]
        values, indices = take_rows(arr.ravel(), length, positions, k, 0, k)
        return values.reshape(shape), indices.reshape(shape)
    # Long rows: one selection per row.
    values, indices = empty(shape, arr.dtype, dev), empty(shape, U32, dev)
    row = empty((length,), arr.dtype, dev)
    for r in range(rows):
        _copy(dev, arr, row, r * length, 0, length)
        v, i = _select_1d(row, k, largest)
        _copy(dev, v, values, 0, r * k, k)
        _copy(dev, i, indices, 0, r * k, k)
    return values, indices


TOP_K_MODES = ("largest", "smallest")


def top_k(x, k, /, *, axis=None, mode: str = "largest") -> tuple[Array, Array]:
    """The array API's top_k: (values, indices) of the k largest (mode="largest") or
    smallest (mode="smallest") elements along `axis` (None: of the flattened x), as topk:
    best first, ties by lower index, NaN largest; indices uint32."""
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a str, not {type(mode).__name__}")
    if mode not in TOP_K_MODES:
        raise NotImplementedError(f"top_k(mode={mode!r}) is not supported: mode is 'largest' or 'smallest'")
    arr = as_input(x, topk_ops.KEY_DTYPES)
    if axis is None:
        arr, axis = arr.ravel(), -1
    return topk(arr, k, axis=axis, largest=mode == "largest")
