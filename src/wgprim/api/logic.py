"""any, all and count_nonzero: numpy's and the Array API's (axis None, an int or a tuple;
keepdims; out= for any and all as numpy's). Every dtype an Array holds: uint32, int32,
float32, float16, bool, uint64, int64, float64.

Truth as numpy's: an element is nonzero unless it equals zero, so -0.0 is zero, NaN and
every subnormal are nonzero. The tests run on the elements' bits or order keys, never
on float compares (which a GPU may flush to zero for subnormals):
- any: the bitwise or of each slice's words (the element as an unsigned integer of its
  width, wgprim.reduce "bitwise_or"), nonzero once the float sign bit is cleared;
- all: no zero bits in a slice (the slice's unsigned min is not 0), and for floats no
  -0.0 either (its signed min is not the sign bit alone);
- count_nonzero: per element a 0/1 from searchsorted against the one-element table [0]
  (numpy's order: -0.0 equals 0.0, NaN is above everything), summed per slice
  (wgprim.sum). Integers take one search on their unsigned bits (nonzero: above 0);
  floats two (above 0, and not below it).
float16 any/all, whose 2-byte elements no integer dtype of wgprim views, and bool, count
first. bool counts the positions wgprim.nonzero finds, per slice by wgprim.histogram
over the slices' starts. Results are bool (any, all) and int64 (count_nonzero, as numpy's
count_nonzero gives intp; 0-d for axis=None, where numpy gives a scalar).
"""
from __future__ import annotations

import numpy as np

from wgprim.api.histogram import histogram
from wgprim.api.search import searchsorted
from wgprim.api.select import nonzero
from wgprim.api.slices import deliver, normalize_axes, result_shape, row_reduce, rows
from wgprim.array import Array
from wgprim.ops import numpy_options
from wgprim.ops.common import as_input, check_flag

BOOL, F16 = np.dtype(np.bool_), np.dtype(np.float16)
UNSIGNED = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
SIGNED = {4: np.dtype(np.int32), 8: np.dtype(np.int64)}
LOGIC_OPTIONS = {"where": (True, "select the elements first with wgprim.compact(x, mask)")}


def _bits(table: Array, signed: bool = False) -> Array:
    """The 4- or 8-byte elements of `table` as integers of their width (the same buffer)."""
    return table.alias(table.shape, (SIGNED if signed else UNSIGNED)[table.itemsize])


def nonzero_counts(table: Array) -> np.ndarray:
    """The nonzero elements of each row of the 2-D `table`, as int64 on the host."""
    count, length = table.shape
    if count == 0 or length == 0:
        return np.zeros(count, np.int64)
    if table.dtype == BOOL:
        found = nonzero(table)
        if count == 1:
            return np.array([found.size], np.int64)
        if found.size == 0:
            return np.zeros(count, np.int64)
        per_row, _ = histogram(found, bins=np.arange(count + 1, dtype=np.int64) * length)
        return per_row.numpy().astype(np.int64)
    if table.dtype.kind in "iu":
        bits = table if table.dtype.kind == "u" else _bits(table)
        above = searchsorted(np.zeros(1, bits.dtype), bits, side="left")  # 1 where bits > 0
        return row_reduce(above, "sum").astype(np.int64)
    zero = np.zeros(1, table.dtype)
    above = searchsorted(zero, table, side="left")  # 1 where x > 0 or NaN
    not_below = searchsorted(zero, table, side="right")  # 1 where x >= 0 or NaN
    above_count = row_reduce(above, "sum").astype(np.int64)
    not_below_count = row_reduce(not_below, "sum").astype(np.int64)
    return above_count + (length - not_below_count)


def _any_rows(table: Array) -> np.ndarray:
    count, length = table.shape
    if count == 0 or length == 0:
        return np.zeros(count, bool)
    if table.dtype in (BOOL, F16):
        return nonzero_counts(table) > 0
    ored = row_reduce(_bits(table), "bitwise_or")
    if table.dtype.kind == "f":  # the sign bit alone is -0.0
        ored = ored & ~(ored.dtype.type(1) << ored.dtype.type(8 * table.itemsize - 1))
    return ored != 0


def _all_rows(table: Array) -> np.ndarray:
    count, length = table.shape
    if count == 0 or length == 0:
        return np.ones(count, bool)
    if table.dtype in (BOOL, F16):
        return nonzero_counts(table) == length
    no_zero = row_reduce(_bits(table), "min") != 0
    if table.dtype.kind == "f":  # -0.0 is the smallest signed integer
        lowest = np.iinfo(SIGNED[table.itemsize]).min
        no_zero &= row_reduce(_bits(table, signed=True), "min") != lowest
    return no_zero


def _logic(name: str, per_rows, x, axis, keepdims, out=None, numpy_kw=None) -> Array:
    numpy_options.refuse(name, numpy_kw or {}, LOGIC_OPTIONS)
    keepdims = check_flag("keepdims", keepdims)
    arr = as_input(x)
    axes = normalize_axes(axis, arr.ndim)
    shape = result_shape(arr.shape, axes, keepdims)
    return deliver(per_rows(rows(arr, axes)), shape, arr.device, out)


def any(x, /, axis=None, out: Array | None = None, keepdims: bool = False, **numpy_kw) -> Array:  # noqa: A001
    """Whether any element along `axis` (None: of all; an int or a tuple) is nonzero, as
    numpy.any and the Array API's any: a bool Array (0-d for axis=None), True where a
    slice holds a nonzero (NaN counts, -0.0 does not); False for an empty slice."""
    return _logic("any", _any_rows, x, axis, keepdims, out, numpy_kw)


def all(x, /, axis=None, out: Array | None = None, keepdims: bool = False, **numpy_kw) -> Array:  # noqa: A001
    """Whether every element along `axis` is nonzero, as numpy.all and the Array API's
    all: a bool Array; True for an empty slice."""
    return _logic("all", _all_rows, x, axis, keepdims, out, numpy_kw)


def count_nonzero(x, /, axis=None, *, keepdims: bool = False) -> Array:
    """The number of nonzero elements along `axis` (None: of all; an int or a tuple), as
    numpy.count_nonzero and the Array API's: int64 (numpy's intp), a 0-d Array for
    axis=None (numpy: a scalar; `.item()` gives it). NaN counts, -0.0 does not."""
    return _logic("count_nonzero", nonzero_counts, x, axis, keepdims)
