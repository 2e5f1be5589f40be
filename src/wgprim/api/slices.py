"""The slices of a statistic's `axis=` (numpy's: None, an int or a tuple of ints), shared
by the statistics' front doors (api/logic.py, api/quantile.py, api/nanfunctions.py): the
input as rows of one slice each, the result's shape, and the delivery of a result that was
finished on the host (into a new Array, or into the caller's `out=`).

A slice is every element that one result value depends on. `rows()` moves the reduced
axes last on the GPU (ops/axis.move_axis, one copy per axis moved; none when they are
last already) and views the input as (slices, slice length). The reduced axes may end
up in any order: every statistic here depends on the set of a slice's elements only.
"""
from __future__ import annotations

import math

import numpy as np

from wgprim import transfer
from wgprim.api.reduce import reduce
from wgprim.array import Array, asarray
from wgprim.ops.axis import move_axis
from wgprim.ops.common import check_out


def normalize_axes(axis, ndim: int) -> tuple | None:
    """numpy's axis argument as a sorted tuple of distinct non-negative axes (None: every
    axis). numpy's errors: AxisError out of range, ValueError for a repeated axis,
    TypeError for a float or another non-integer."""
    if axis is None:
        return None
    many = isinstance(axis, (tuple, list))
    axes = tuple(axis) if many else (axis,)
    out = []
    for a in axes:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an integer")
        a = int(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return tuple(sorted(out))


def kept_shape(shape: tuple, axes: tuple | None) -> tuple:
    """The shape without the reduced axes."""
    if axes is None:
        return ()
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def result_shape(shape: tuple, axes: tuple | None, keepdims: bool) -> tuple:
    """numpy's shape of a reduction over `axes`: kept axes, and the reduced ones as 1 with
    keepdims."""
    if not keepdims:
        return kept_shape(shape, axes)
    return tuple(1 if axes is None or i in axes else s for i, s in enumerate(shape))


def slice_length(shape: tuple, axes: tuple | None) -> int:
    """Elements of one slice."""
    return math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)


def rows(arr: Array, axes: tuple | None) -> Array:
    """`arr` as a 2-D Array (slices, slice length): the reduced axes moved last (on the GPU
    for 4- and 8-byte elements; 1- and 2-byte ones, bool and float16, are moved on the
    host: the GPU's move takes whole words)."""
    length = slice_length(arr.shape, axes)
    count = math.prod(arr.shape) // length if length else math.prod(kept_shape(arr.shape, axes))
    if axes is None:
        return arr.reshape((1, arr.size))
    order = list(range(arr.ndim))
    keep = len(order) - len(axes)
    if arr.itemsize < 4 and set(order[keep:]) != set(axes):
        host = np.moveaxis(arr.numpy(), axes, range(keep, arr.ndim))
        return asarray(np.ascontiguousarray(host), device=arr.device).reshape((count, length))
    moved = arr
    while set(order[keep:]) != set(axes):
        ax = next(a for a in axes if a in order[:keep])  # a reduced axis still among the kept
        pos = order.index(ax)
        moved = move_axis(moved, pos)
        order.append(order.pop(pos))
    return moved.reshape((count, length))


def deliver(host: np.ndarray, shape: tuple, device, out: Array | None = None) -> Array:
    """The host's result values as an Array of `shape` on `device`, or written into `out`
    (its shape and dtype must be the result's; wgprim does not cast into it)."""
    host = np.array(host, order="C").reshape(shape)  # a C-ordered copy (ascontiguousarray makes 0-d 1-d)
    if out is None:
        return asarray(host, device=device)
    check_out(out, shape, host.dtype)
    if host.size:
        data = host.view(np.uint8).ravel()
        tail = -data.size % 4  # queue writes take whole words: the last one keeps out's bytes
        if tail:
            word = transfer.read(out.device, out.buffer, data.size - data.size % 4, 4)
            data = np.concatenate([data, word[data.size % 4:]])
        transfer.write(out.device, out.buffer, 0, data)
    return out


def row_reduce(table: Array, op) -> np.ndarray:
    """`op` (wgprim.reduce's) over each row of the 2-D `table`, on the host, flat."""
    count = table.shape[0]
    if count == 0:
        return np.zeros(0, table.dtype)
    done = reduce(table, op, axis=-1) if count > 1 else reduce(table, op)
    return np.array(done.numpy().reshape(count))  # writable: callers patch some slices
