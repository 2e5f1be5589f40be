"""The statistics: `mean` (float64 exact; float32 fast or, with `exact=True`, exact),
`var` and `std` (exact). The exact sums are ops/exact_sum.py's (where the structure and
the semantics are stated); `wgprim.sum` of float64, and of float32 with `exact=True`,
reaches them from api/reduce.py.

Exact results are the correctly rounded value of an exact rational (mean: the exact sum
divided by n; var: from the exact sums of x and x^2), computed by the GPU in integers and
rounded once on the host: the same bits for any order of the input, any chunking and any
device. A call reads its integer sums back (one sync, like `.item()`) and returns them as
a new Array.
"""
from __future__ import annotations

import warnings

import numpy as np

from wgprim.api.reduce import sum as fast_sum
from wgprim.array import Array, asarray
from wgprim.ops import numpy_options
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.exact_sum import F32, F64, STATISTICS_DTYPES, axis_view, exact_reduce, exact_variance

MEAN = {name: numpy_options.REDUCTION[name] for name in ("dtype", "out", "where")}
MEAN["dtype"] = (None, "means of float32 are float32, of float64 and integers float64; convert the input first")
VAR = {**MEAN, "mean": (None, "the mean is computed exactly with the sums; pass no mean=")}


def _statistics_input(name: str, x) -> Array:
    arr = as_input(x)
    if arr.dtype not in STATISTICS_DTYPES:
        names = ", ".join(str(d) for d in STATISTICS_DTYPES)
        raise TypeError(f"{name} takes {names} arrays, not {arr.dtype}; convert the input first, "
                        "e.g. x.astype(np.float64)")
    return arr


def mean(x, axis=None, *, keepdims: bool = False, exact: bool = False, **numpy_kw) -> Array:
    """Arithmetic mean, as numpy.mean: of every element (a 0-d Array) or along `axis` (an
    int) with `keepdims`. float64: the correctly rounded value of the exact sum divided by
    n, the same bits in any order and on any device (it never overflows where the mean
    itself does not: the mean of [1.7e308, 1.7e308] is 1.7e308). int32, uint32, int64 and
    uint64: the exact integer sum divided by n, rounded once to float64 (numpy's dtype for
    them). float32: the fast float32 sum divided by n (within
    wgprim.ops.reduce.sum_error_bound / n), or with `exact=True` the correctly rounded
    float32 mean. An empty input gives NaN with numpy's RuntimeWarning. numpy's dtype=,
    out= and where= are refused with a message."""
    numpy_options.refuse("mean", numpy_kw, MEAN)
    arr = _statistics_input("mean", x)
    if check_flag("exact", exact) or arr.dtype != F32:
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


def _variance(name: str, x, axis, ddof, correction, keepdims: bool, exact: bool, numpy_kw: dict, root: bool) -> Array:
    numpy_options.refuse(name, numpy_kw, VAR)
    check_flag("exact", exact)
    if correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(ddof, (int, float, np.integer, np.floating)):
        raise TypeError(f"ddof must be a number, not {ddof!r}")
    return exact_variance(_statistics_input(name, x), axis, keepdims, ddof, root)


def var(x, axis=None, *, ddof=0, keepdims: bool = False, correction=None, exact: bool = False,
        **numpy_kw) -> Array:
    """Variance, as numpy.var: of every element (a 0-d Array) or along `axis` (an int) with
    `keepdims`; the sum of squared deviations divided by n - ddof (`correction=`, the Array
    API's name, is the same). float64 and float32 in their dtype, int32, uint32, int64 and
    uint64 in float64 as numpy's (`exact=` is accepted for symmetry with sum and mean:
    there is no faster path); the correctly rounded value of the exact
    (n sum(x^2) - sum(x)^2) / (n (n - ddof)), from the exact sums of x and x^2, the same bits
    in any order and on any device. Any inf or NaN gives NaN; n - ddof <= 0 gives NaN or inf
    with numpy's RuntimeWarning."""
    return _variance("var", x, axis, ddof, correction, keepdims, exact, numpy_kw, root=False)


def std(x, axis=None, *, ddof=0, keepdims: bool = False, correction=None, exact: bool = False,
        **numpy_kw) -> Array:
    """Standard deviation, as numpy.std: the square root of `var` (same arguments), taken
    of the exact variance and rounded once (correctly rounded)."""
    return _variance("std", x, axis, ddof, correction, keepdims, exact, numpy_kw, root=True)
