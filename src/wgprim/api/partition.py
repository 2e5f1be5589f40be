"""partition, argpartition (numpy's) and kth_smallest: the front doors. The building blocks
are in ops/partition.py (the split) and ops/topk.py (the radix select).

Semantics, numpy's (`np.partition(a, kth, axis=-1)`):
- `kth` an int or a sequence of ints, negative ones counted from the end; each out of
  range raises ValueError, a bool or a float TypeError/ValueError as numpy.
- The element at every k-th position is the one a stable sort puts there, bit for bit
  (its own bits: -0.0 stays -0.0, NaN payloads are kept); elements before it are not
  greater, elements after it not smaller, and the result holds the input's elements.
  NaN sorts last; -0.0 and +0.0 are equal.
- n-D input: along `axis` (default -1; None flattens); another axis than the last is
  moved last on the GPU and back.
- argpartition returns uint32 indices (numpy: intp).

1-D: the k-th keys by the radix select of top-k, then one stable split (ops/partition.py);
more than ops/partition.MAX_PIVOTS k-ths, a stable sort (a sorted array is every
partition). Rows that fit one workgroup, and many long rows, are sorted along the axis
(ops/segmented.py: in workgroup memory, or the segmented radix sort): a sorted row is a
valid partition and one read and write of it is the least a partition does. A few long
rows are selected and split one at a time.
"""
from __future__ import annotations

import numpy as np

from wgprim.api.sort import argsort, argsort_with_keys, sort_pairs
from wgprim.array import Array, empty
from wgprim.ops import partition as partition_ops
from wgprim.ops import numpy_options
from wgprim.ops.axis import move_axis, normalize_axis
from wgprim.ops.common import as_input
from wgprim.ops.gather import record_gather
from wgprim.ops.partition import PartitionPolicy
from wgprim.ops.segmented import _copy
from wgprim.ops.topk import KEY_DTYPES, U32, Selection, take_rows
from wgprim.program import Program
from wgprim.recordings import run_recorded
from wgprim.tuning import policy



def _rows_sorted_together(device, length: int, rows: int) -> bool:
    """Whether rows of `length` are partitioned by sorting them all (short rows, or many),
    rather than by selecting and splitting one row at a time."""
    shape = policy(PartitionPolicy, device)
    return length <= shape.short_row or rows > shape.rows_one_at_a_time


def _kths(kth, n: int, check_bounds: bool) -> list[int]:
    """numpy's k-ths: sorted, distinct, non-negative."""
    ks = np.asarray(kth)
    if ks.dtype == np.bool_:
        raise ValueError("Booleans unacceptable as partition index")
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if ks.ndim > 1:
        raise ValueError(f"kth must be an int or a 1-D sequence of ints, got shape {ks.shape}")
    out = set()
    for k in ks.ravel().tolist():
        k = k + n if k < 0 else k
        if check_bounds and not 0 <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
        out.add(k)
    return sorted(out)


def _options(function: str, kind, order) -> None:
    if not isinstance(kind, str):
        raise TypeError(f"select kind must be str, not {type(kind).__name__}")
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    numpy_options.refuse(function, {"order": order}, numpy_options.SORT)


def partition(a, kth, axis=-1, kind: str = "introselect", order=None) -> Array:
    """np.partition(a, kth, axis): a copy with the element a stable sort puts at each k-th
    in place, the not-greater before it and the not-smaller after it (module docstring).
    Keys uint32, int32, float32, uint64, int64, float64."""
    _options("partition", kind, order)
    return _along_axis("values", a, kth, axis)


def argpartition(a, kth, axis=-1, kind: str = "introselect", order=None) -> Array:
    """np.argpartition(a, kth, axis): uint32 indices that partition `a` as partition does
    (along an axis: positions within each line)."""
    _options("argpartition", kind, order)
    return _along_axis("indices", a, kth, axis)


def kth_smallest(x, k, axis=-1) -> tuple[Array, Array]:
    """(value, index) of the k-th smallest element along `axis`, counting from 0 as numpy's
    kth (negative: from the end): the value np.sort(x, kind="stable")[k] (its own bits) and
    its position np.argsort(x, kind="stable")[k], NaN largest; torch.kthvalue's job with
    numpy's 0-based k. Results drop the axis (0-d Arrays for 1-D input); index uint32."""
    if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
        raise TypeError(f"k must be an int, not {type(k).__name__}")
    arr = as_input(x, KEY_DTYPES)
    if axis is None:
        arr, axis = arr.ravel(), 0
    ax = normalize_axis(axis, arr.ndim)
    length = arr.shape[ax]
    kk = int(k) + length if k < 0 else int(k)
    if not 0 <= kk < length:
        raise ValueError(f"k = {k} is out of range for {length} elements")
    if ax != arr.ndim - 1:
        arr = move_axis(arr, ax)
    shape = arr.shape[:-1]
    dev = arr.device
    values, indices = empty(shape, arr.dtype, dev), empty(shape, U32, dev)
    if arr.size == 0:
        return values, indices
    if arr.ndim == 1:
        def record(p, keys, value, index):
            Selection(p, keys, kk + 1, False, mode="element").record_kth(value, index)

        run_recorded(dev, ("kth smallest", kk), (arr, values, indices), record, "kth smallest")
        return values, indices
    flat, rows = arr.ravel(), arr.size // length
    if _rows_sorted_together(dev, length, rows):
        positions = argsort(arr, axis=-1).ravel()  # rows sorted: column k
        v, i = take_rows(flat, length, positions, length, kk, 1)
        return v.reshape(shape), i.reshape(shape)
    row = empty((length,), arr.dtype, dev)
    for r in range(rows):
        _copy(dev, flat, row, r * length, 0, length)
        v, i = kth_smallest(row, kk)
        _copy(dev, v.ravel(), values.ravel(), 0, r, 1)
        _copy(dev, i.ravel(), indices.ravel(), 0, r, 1)
    return values, indices


def _along_axis(what: str, a, kth, axis) -> Array:
    arr = as_input(a, KEY_DTYPES)
    if axis is None:
        arr, axis = arr.ravel(), 0
    ax = normalize_axis(axis, arr.ndim)
    length = arr.shape[ax]
    kths = _kths(kth, length, arr.size > 0)
    dt = arr.dtype if what == "values" else U32
    if arr.size == 0:
        return empty(arr.shape, dt, arr.device)
    if arr.ndim == 1:
        return _partition_1d(what, arr, kths)
    last = ax == arr.ndim - 1
    moved = arr if last else move_axis(arr, ax)
    out = _partition_rows(what, moved, kths)
    return out if last else move_axis(out, ax, back=True, shape=arr.shape)


def _partition_1d(what: str, arr: Array, kths: list[int]) -> Array:
    dev, n = arr.device, arr.size
    out = empty((n,), arr.dtype if what == "values" else U32, dev)
    if len(kths) > partition_ops.MAX_PIVOTS:  # a stable sort is the partition
        order = argsort_with_keys(arr)[0]
        if what == "indices":
            return order
        p = Program(dev, label="partition by sorting")
        record_gather(p, arr, order, out)
        p.run()
        return out

    def record(p, keys, out):
        pivots = partition_ops.record_pivots(p, keys, kths)
        partition_ops.record_split(p, keys, pivots, len(kths), out if what == "values" else None,
                                   out if what == "indices" else None)

    run_recorded(dev, ("partition", what, tuple(kths)), (arr, out), record, "partition")
    return out


def _partition_rows(what: str, arr: Array, kths: list[int]) -> Array:
    """Every row (the last axis) of the n-D `arr` partitioned at kths."""
    dev, length = arr.device, arr.shape[-1]
    rows, flat = arr.size // length, arr.ravel()
    if _rows_sorted_together(dev, length, rows):
        if what == "indices":
            return argsort(arr, axis=-1)
        bits = arr.alias(arr.shape, np.uint64 if arr.itemsize == 8 else np.uint32)  # carried: their own bits
        return sort_pairs(arr, bits, axis=-1)[1].alias(arr.shape, arr.dtype)
    out = empty(arr.shape, arr.dtype if what == "values" else U32, dev)
    row = empty((length,), arr.dtype, dev)
    for r in range(rows):
        _copy(dev, flat, row, r * length, 0, length)
        _copy(dev, _partition_1d(what, row, kths), out.ravel(), 0, r * length, length)
    return out
