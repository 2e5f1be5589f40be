"""topk(x, k, axis=-1, largest=True, sorted=True) -> (values, indices), as torch.topk: the
front door. The radix select, the rows kernel and their constants are in ops/topk.py
(which states the semantics and the paths); the sorts of the chosen pairs are
SegmentSorter (ops/segmented.py) and sort_pairs (api/sort.py).
"""
from __future__ import annotations

import numpy as np

from wgprim.api.sort import sort_pairs
from wgprim.array import Array, empty
from wgprim.ops import topk as topk_ops
from wgprim.ops.axis import move_axis, normalize_axis
from wgprim.ops.common import as_input
from wgprim.ops.segmented import (SORT_KEY_DTYPES, VALUES_CARRIED, VALUES_POSITION, SegmentSorter, _copy, sort_rows,
                                  tile_size)
from wgprim.ops.topk import CAP, U32, record_select, select_rows
from wgprim.program import Program, queued, run_recorded


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
    if n <= tile_size(dev):
        # One workgroup sorts all of keys by (key, index) and keeps the first k.
        def record_row(p, keys, values, indices):
            P = 1 << max(0, (n - 1).bit_length())
            SegmentSorter(keys, largest, VALUES_POSITION).record_small(p, 1, P, values, None, indices, length=n, keep=k)

        run_recorded(dev, ("topk, one workgroup", largest, k), (keys, values, indices), record_row, "topk")
        return values, indices
    if k <= tile_size(dev):
        # The radix select, then the k chosen sorted by (key, index) in one workgroup.
        def record_chosen(p, keys, values, indices):
            chosen_keys, chosen_index = record_select(p, keys, k, largest, cap)
            P = 1 << max(0, (k - 1).bit_length())
            SegmentSorter(chosen_keys, largest, VALUES_CARRIED).record_small(
                p, 1, P, values, chosen_index, indices, length=k)

        run_recorded(dev, ("topk select", largest, k, cap), (keys, values, indices), record_chosen, "topk select")
        return values, indices
    p = Program(dev, label="topk select")
    chosen_keys, chosen_index = record_select(p, keys, k, largest, cap)
    p.transient = False  # the chosen pairs live on into the sorts below
    p.run()
    by_index, keys_by_index = sort_pairs(chosen_index, chosen_keys)  # lower index first among ties
    values, indices = sort_pairs(keys_by_index, by_index, descending=largest)
    if queued(p):  # waiting in a batch: the batch gives the pairs back once it has submitted them
        p.transient = True
    else:
        p.release()
    return values, indices


def topk(x, k, axis=-1, largest: bool = True, sorted: bool = True) -> tuple[Array, Array]:  # noqa: A002
    """The k largest (or smallest) elements along `axis` and their uint32 indices, best
    first, ties by lower index, NaN largest; as torch.topk. Keys uint32, int32, float32.
    n-D arrays: along any axis (the last is native; another is moved last on the GPU)."""
    if not isinstance(sorted, bool) or not isinstance(largest, bool):
        raise TypeError("largest and sorted must be True or False")
    arr = as_input(x, SORT_KEY_DTYPES)
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
    if k <= topk_ops.ROWS_MAX_K and length <= topk_ops.ROWS_MAX_LENGTH:  # module settings of ops/topk.py
        values, indices = select_rows(arr.ravel(), length, k, largest)
        return values.reshape(shape), indices.reshape(shape)
    if length <= tile_size(dev):
        values, indices = sort_rows(arr.ravel(), length, largest, VALUES_POSITION, keep=k)
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
