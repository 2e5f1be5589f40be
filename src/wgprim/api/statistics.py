"""The statistics: `mean` (float64 exact; float32 fast or, with `exact=True`, exact). The
exact sums and means are ops/exact_sum.py's (where the structure and the semantics are
stated); `wgprim.sum` of float64, and of float32 with `exact=True`, reaches them from
api/reduce.py.

Results are the correctly rounded value of the exact sum (mean: of the exact sum divided
by n), computed by the GPU in integers and rounded once on the host: the same bits for any
order of the input, any chunking and any device. A call reads its integer sums back (one
sync, like `.item()`) and returns them as a new Array.
"""
from __future__ import annotations

import warnings

import numpy as np

from wgprim.api.reduce import sum as fast_sum
from wgprim.array import Array, asarray
from wgprim.ops import numpy_options
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.exact_sum import EXACT_DTYPES, F64, axis_view, exact_reduce

MEAN = {name: numpy_options.REDUCTION[name] for name in ("dtype", "out", "where")}
MEAN["dtype"] = (None, "float64 means are float64, float32 means float32; convert the input first")


def mean(x, axis=None, *, keepdims: bool = False, exact: bool = False, **numpy_kw) -> Array:
    """Arithmetic mean, as numpy.mean: of every element (a 0-d Array) or along `axis` (an
    int) with `keepdims`. float64: the correctly rounded value of the exact sum divided by
    n, the same bits in any order and on any device (it never overflows where the mean
    itself does not: the mean of [1.7e308, 1.7e308] is 1.7e308). float32: the fast float32
    sum divided by n (within wgprim.ops.reduce.sum_error_bound / n), or with `exact=True`
    the correctly rounded float32 mean. An empty input gives NaN with numpy's
    RuntimeWarning. numpy's dtype=, out= and where= are refused with a message."""
    numpy_options.refuse("mean", numpy_kw, MEAN)
    arr = as_input(x)
    if arr.dtype not in EXACT_DTYPES:
        raise TypeError(f"mean takes float64 or float32 arrays, not {arr.dtype}; convert the input first, "
                        "e.g. x.astype(np.float64) (exact)")
    if check_flag("exact", exact) or arr.dtype == F64:
        return exact_reduce(arr, axis, keepdims, mean=True)
    return _fast_mean(arr, axis, keepdims)


def _fast_mean(arr: Array, axis, keepdims: bool) -> Array:
    """float32 mean by the fast tree sum, divided in float32 as numpy's is."""
    check_flag("keepdims", keepdims)
    _, length, _, _ = axis_view(arr, axis)
    total = fast_sum(arr, axis, keepdims=keepdims).numpy()
    if length == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
        return asarray(np.full(total.shape, np.nan, arr.dtype))
    return asarray((total / np.float32(length)).astype(arr.dtype))

