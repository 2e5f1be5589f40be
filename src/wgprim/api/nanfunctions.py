"""nanmin, nanmax, nanargmin, nanargmax: numpy's, ignoring NaN (nanmedian is in
api/quantile.py). Keys uint32, int32, float32, uint64, int64, float64; integers have no
NaN, so for them these are min, max, argmin and argmax.

Each call first takes the plain reduction (wgprim.min / max / argmin / argmax, one read
of the data); only the slices where it met a NaN (numpy's min propagates NaN, and so
does wgprim's) are done again, in numpy's order where NaN sorts last:
- nanmin: the element at rank 0 (api/order_statistics.at_ranks: kth_smallest or
  partition); nanmax: the one at rank n - 1 - (the slice's NaN count).
- nanargmin: the index of rank 0 (the stable sort's: the first of equal minima, as
  numpy's argmin); nanargmax: the first of the largest by wgprim.topk (best first, ties
  by lower index, NaN largest: after the slice's NaNs). numpy replaces NaN with +inf
  (-inf) and takes argmin (argmax), so a slice whose non-NaN elements are all +inf
  (-inf) answers 0, as numpy's does.
An all-NaN slice gives NaN and numpy's RuntimeWarning (nanmin, nanmax) or numpy's
ValueError (nanargmin, nanargmax). Which of -0.0 and +0.0 comes out where both are the
minimum is wgprim.min's rule (the stable sort's in a slice with a NaN); numpy's depends
on its loop order.
"""
from __future__ import annotations

import warnings

import numpy as np

from wgprim.api.order_statistics import U32, at_ranks, nan_counts, take
from wgprim.api.slices import deliver, normalize_axes, result_shape, row_reduce, rows
from wgprim.api.topk import topk
from wgprim.array import Array
from wgprim.ops import numpy_options
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.topk import KEY_DTYPES

NAN_OPTIONS = {name: numpy_options.REDUCTION[name] for name in ("initial", "where")}


def _prepared(a, axis, keepdims, arg: bool):
    """(input Array, slices as rows, result shape) of a nan-function's arguments."""
    keepdims = check_flag("keepdims", keepdims)
    arr = as_input(a, KEY_DTYPES)
    if arg and isinstance(axis, (tuple, list)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    axes = normalize_axes(axis, arr.ndim)
    return arr, rows(arr, axes), result_shape(arr.shape, axes, keepdims)


def _nan_extreme(name: str, a, axis, out, keepdims, numpy_kw) -> Array:
    numpy_options.refuse(name, numpy_kw, NAN_OPTIONS)
    arr, table, shape = _prepared(a, axis, keepdims, arg=False)
    count, n = table.shape
    if count and n == 0:
        raise ValueError(f"zero-size array to reduction operation {'fmin' if name == 'nanmin' else 'fmax'} "
                         "which has no identity")
    values = row_reduce(table, name[3:])
    nan = np.isnan(values) if arr.dtype.kind == "f" else np.zeros(count, bool)
    if nan.any():
        if name == "nanmin":
            ranks = np.zeros((count, 1), np.int64)
        else:
            ranks = np.maximum(n - 1 - nan_counts(table), 0)[:, None]
        values[nan] = at_ranks(table, ranks)[nan, 0]
        if np.isnan(values).any():
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
    return deliver(values, shape, arr.device, out)


def _nan_arg(name: str, a, axis, out, keepdims) -> Array:
    arr, table, shape = _prepared(a, axis, keepdims, arg=True)
    count, n = table.shape
    if count and n == 0:
        raise ValueError(f"attempt to get {name[3:]} of an empty sequence")
    index = row_reduce(table, name[3:]).astype(np.int64)
    if arr.dtype.kind == "f" and count:
        starts = np.arange(count, dtype=np.int64) * n
        nan = np.isnan(take(table.ravel(), starts + index))  # argmin/argmax found a NaN first
        if nan.any():
            index[nan] = _nan_rows(name, table, starts)[nan]
    return deliver(index.astype(U32), shape, arr.device, out)


def _nan_rows(name: str, table: Array, starts: np.ndarray) -> np.ndarray:
    """numpy's nanargmin / nanargmax of every row of `table` (int64)."""
    count, n = table.shape
    nans = nan_counts(table)
    if (nans == n).any():
        raise ValueError("All-NaN slice encountered")
    if name == "nanargmin":
        index = at_ranks(table, [0], indices=True)[:, 0].astype(np.int64)
        bound = np.inf
    else:  # topk: the row's NaNs first, then the first of the largest
        k = int(nans.max()) + 1
        best = topk(table.reshape((n,)) if count == 1 else table, k, axis=-1, largest=True)[1]
        index = take(best.ravel(), np.arange(count, dtype=np.int64) * k + nans).astype(np.int64)
        bound = -np.inf
    # numpy's NaN stands in as +inf (-inf): where every other element is that, index 0 wins
    index[take(table.ravel(), starts + index) == bound] = 0
    return index


def nanmin(a, axis=None, out: Array | None = None, keepdims: bool = False, **numpy_kw) -> Array:
    """numpy.nanmin: the smallest non-NaN element along `axis` (None: all; an int or a
    tuple), an input's own bits; NaN with numpy's RuntimeWarning for an all-NaN slice."""
    return _nan_extreme("nanmin", a, axis, out, keepdims, numpy_kw)


def nanmax(a, axis=None, out: Array | None = None, keepdims: bool = False, **numpy_kw) -> Array:
    """numpy.nanmax: the largest non-NaN element along `axis`, as nanmin."""
    return _nan_extreme("nanmax", a, axis, out, keepdims, numpy_kw)


def nanargmin(a, axis=None, out: Array | None = None, *, keepdims: bool = False) -> Array:
    """numpy.nanargmin: the index of the smallest non-NaN element (the first of equals)
    along `axis` (None: flat; an int); uint32 as wgprim.argmin (numpy: intp). An all-NaN
    slice raises numpy's ValueError."""
    return _nan_arg("nanargmin", a, axis, out, keepdims)


def nanargmax(a, axis=None, out: Array | None = None, *, keepdims: bool = False) -> Array:
    """numpy.nanargmax: the index of the largest non-NaN element, as nanargmin."""
    return _nan_arg("nanargmax", a, axis, out, keepdims)
