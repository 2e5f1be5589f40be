"""quantile, percentile, median and nanmedian: numpy's signatures and results.

Each slice (api/slices.py: axis None, an int or a tuple) needs at most two order
statistics per q, found on the GPU by the selection primitives (api/order_statistics.py:
wgprim.kth_smallest, or wgprim.partition and a gather), never by sorting the data where a
few ranks are asked for; only those values come back. The host then finishes as numpy
does, with numpy's own arithmetic on the same dtypes, so the results are numpy's bit for
bit:
- quantile/percentile: numpy's virtual index for the method, its neighbours and gamma,
  and numpy's `_lerp` (a + (b - a) * t, or b - (b - a) * (1 - t) for t >= 0.5), in
  float64 for integer input (float32 input and a Python float q stay float32, as numpy's
  weak promotion; lower, higher, nearest and the discrete methods keep the input's
  dtype). A slice holding a NaN gives NaN (its max is NaN: one read per slice).
- median: numpy's mean of the one or two middle elements (float64 for integers).
- nanmedian: the same of each slice's non-NaN elements (their count per slice from
  api/order_statistics.nan_counts), following numpy's two formulas: numpy computes
  (lo + hi) / 2 with lo == hi for an odd count where it takes its "small" path (an axis
  of fewer than 600 elements of an n-D input), which differs from lo only where lo + lo
  overflows. An all-NaN slice gives NaN with numpy's RuntimeWarning.
Keys: uint32, int32, float32, uint64, int64, float64 (the selection's dtypes).
"""
from __future__ import annotations

import warnings

import numpy as np

from wgprim.api.order_statistics import at_ranks, nan_counts, rows_with_nan
from wgprim.api.slices import deliver, kept_shape, normalize_axes, result_shape, rows
from wgprim.array import Array
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.topk import KEY_DTYPES

KEYS = "uint32, int32, float32, uint64, int64 or float64 (the selection primitives' keys)"


# -- numpy's methods (Hyndman and Fan's, and numpy's own five) ---------------------------
def _virtual_index(n: int, q: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def _gamma_mask(shape, default_value, conditioned_value, where):
    out = np.full(shape, default_value)
    np.copyto(out, conditioned_value, where=where, casting="unsafe")
    return out


def _discrete(index: np.ndarray, condition) -> np.ndarray:
    previous = np.floor(index)
    gamma = index - previous
    res = _gamma_mask(index.shape, previous + 1, previous, condition(gamma, index)).astype(np.intp)
    res[res < 0] = 0
    return res


def _continuous(alpha: float, beta: float):
    return lambda n, q: _virtual_index(n, q, alpha, beta), lambda gamma, _: gamma


# method -> (virtual index of (n, q), gamma fix or None for methods that take one rank)
METHODS = {
    "inverted_cdf": (lambda n, q: _discrete(n * q - 1, lambda g, _: g == 0), None),
    "averaged_inverted_cdf": (lambda n, q: n * q - 1,
                              lambda gamma, _: _gamma_mask(gamma.shape, 1.0, 0.5, gamma == 0)),
    "closest_observation": (lambda n, q: _discrete(n * q - 1 - 0.5,
                                                   lambda g, i: (g == 0) & (np.floor(i) % 2 == 1)), None),
    "interpolated_inverted_cdf": _continuous(0, 1),
    "hazen": _continuous(0.5, 0.5),
    "weibull": _continuous(0, 0),
    "linear": (lambda n, q: (n - 1) * q, lambda gamma, _: gamma),
    "median_unbiased": _continuous(1 / 3.0, 1 / 3.0),
    "normal_unbiased": _continuous(3 / 8.0, 3 / 8.0),
    "lower": (lambda n, q: np.floor((n - 1) * q).astype(np.intp), None),
    "higher": (lambda n, q: np.ceil((n - 1) * q).astype(np.intp), None),
    "midpoint": (lambda n, q: 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q)),
                 lambda gamma, index: _gamma_mask(gamma.shape, 0.5, 0.0, index % 1 == 0)),
    "nearest": (lambda n, q: np.around((n - 1) * q).astype(np.intp), None),
}


def _neighbours(virtual: np.ndarray, n: int, inexact: bool) -> tuple[np.ndarray, np.ndarray]:
    """numpy's previous and next ranks of each virtual index (-1: the last element)."""
    previous = np.floor(virtual, out=...)
    following = np.add(previous, 1, out=...)
    above = virtual >= n - 1
    previous[above], following[above] = -1, -1
    below = virtual < 0
    previous[below], following[below] = 0, 0
    if inexact:
        nan = np.isnan(virtual)
        previous[nan], following[nan] = -1, -1
    return previous.astype(np.intp), following.astype(np.intp)


def _lerp(a, b, t):
    """numpy's linear interpolation, operation for operation."""
    diff_b_a = b - a
    lerp_interpolation = np.add(a, diff_b_a * t, out=...)
    np.subtract(b, diff_b_a * (1 - t), out=lerp_interpolation, where=t >= 0.5, casting="unsafe",
                dtype=type(lerp_interpolation.dtype))
    return lerp_interpolation


def _valid(q: np.ndarray) -> bool:
    if q.ndim == 1 and q.size < 10:
        return all(0.0 <= q[i] <= 1.0 for i in range(q.size))
    return bool(q.min() >= 0 and q.max() <= 1)


# -- the front doors ---------------------------------------------------------------------
def _table(a, axis):
    """(input Array, its slices as rows, reduced axes)."""
    arr = as_input(a, KEY_DTYPES)
    axes = normalize_axes(axis, arr.ndim)
    return arr, rows(arr, axes), axes


def _refuse_weights(weights) -> None:
    if weights is not None:
        raise NotImplementedError("weights= is not supported: wgprim's quantiles are unweighted "
                                  "(numpy takes weights only with method='inverted_cdf')")


def quantile(a, q, axis=None, out: Array | None = None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights=None) -> Array:
    """numpy.quantile: the q-th quantiles (q in [0, 1], a scalar or an array of up to two
    dimensions) of each slice along `axis` (None: all; an int or a tuple), by numpy's
    `method` (linear, the default; lower, higher, nearest, midpoint; and Hyndman and Fan's
    inverted_cdf, averaged_inverted_cdf, closest_observation, interpolated_inverted_cdf,
    hazen, weibull, median_unbiased, normal_unbiased). The result's shape is q's followed
    by the slices'; its dtype and bits are numpy's (module docstring). A slice with a NaN
    gives NaN; an empty slice raises IndexError as numpy. `overwrite_input` is accepted
    (the input is never changed); `out=` must have the result's shape and dtype."""
    check_flag("overwrite_input", overwrite_input)
    _refuse_weights(weights)
    weak_q = type(q) in (int, float)
    q = np.asanyarray(q)
    if not _valid(q):
        raise ValueError("Quantiles must be in the range [0, 1]")
    return _quantile(a, q, axis, out, method, keepdims, weak_q)


def percentile(a, q, axis=None, out: Array | None = None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights=None) -> Array:
    """numpy.percentile: quantile of q / 100 (q in [0, 100]), numpy's division included."""
    check_flag("overwrite_input", overwrite_input)
    _refuse_weights(weights)
    weak_q = type(q) in (int, float)
    q = np.true_divide(q, 100, out=...)
    if not _valid(q):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return _quantile(a, q, axis, out, method, keepdims, weak_q)


def _quantile(a, q: np.ndarray, axis, out, method, keepdims, weak_q: bool) -> Array:
    keepdims = check_flag("keepdims", keepdims)
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    if method not in METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {METHODS.keys()}")
    arr, table, axes = _table(a, axis)
    count, n = table.shape
    shape = q.shape + result_shape(arr.shape, axes, keepdims)
    if count == 0:  # no slice, so no element: numpy's empty result, of its dtype
        like = np.quantile(np.zeros(arr.shape, arr.dtype), q.item() if weak_q else q, axis=axis, method=method)
        return deliver(np.zeros(shape, np.asarray(like).dtype), shape, arr.device, out)
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    alone = q.ndim == 0 and not kept_shape(arr.shape, axes) and out is None
    return deliver(_quantile_rows(table, q, method, weak_q, alone), shape, arr.device, out)


def _quantile_rows(table: Array, q: np.ndarray, method: str, weak_q: bool, alone: bool) -> np.ndarray:
    """numpy's _quantile of each row (shape q.shape + (rows,)), on the order statistics.
    alone: the result is one value (numpy then returns a NaN slice's own NaN, of the
    input's dtype whatever the result's would be)."""
    count, n = table.shape
    inexact = table.dtype.kind == "f"
    virtual_index, fix_gamma = METHODS[method]
    virtual = np.asanyarray(virtual_index(n, q))
    if fix_gamma is None or (method == "linear" and np.issubdtype(virtual.dtype, np.integer)):
        picked = at_ranks(table, np.where(virtual < 0, virtual + n, virtual).ravel())  # (rows, q.size)
        result = np.moveaxis(picked, 0, -1).reshape(virtual.shape + (count,))
    else:
        previous_index, next_index = _neighbours(virtual, n, inexact)
        wanted = np.concatenate([previous_index.ravel(), next_index.ravel()])
        picked = at_ranks(table, np.where(wanted < 0, wanted + n, wanted))
        previous = np.moveaxis(picked[:, :virtual.size], 0, -1).reshape(virtual.shape + (count,))
        following = np.moveaxis(picked[:, virtual.size:], 0, -1).reshape(virtual.shape + (count,))
        gamma = np.asanyarray(fix_gamma(np.asanyarray(virtual - previous_index), virtual), dtype=virtual.dtype)
        gamma = float(gamma) if weak_q else gamma.reshape(virtual.shape + (1,))
        result = _lerp(previous, following, gamma)
    if inexact:
        nan = rows_with_nan(table)
        if nan.any():
            if alone:
                return np.array([np.nan], table.dtype)
            result[..., nan] = np.nan
    return result


def _middle_ranks(m: np.ndarray) -> np.ndarray:
    """The ranks of the one or two middle elements of slices of m elements (rows, 2)."""
    return np.stack([np.maximum(m - 1, 0) // 2, m // 2], axis=-1)


def _mean_of_middles(values: np.ndarray, odd: np.ndarray) -> np.ndarray:
    """numpy's median of each row from its middle elements (rows, 2): the mean of one of
    them (odd count) or of both."""
    result = np.empty(values.shape[0], np.mean(values[:0], axis=-1).dtype)
    result[odd] = np.mean(values[odd, :1], axis=-1)
    result[~odd] = np.mean(values[~odd], axis=-1)
    return result


def median(a, axis=None, out: Array | None = None, overwrite_input: bool = False, keepdims: bool = False) -> Array:
    """numpy.median along `axis` (None: all; an int or a tuple): the mean of the middle
    element or two (numpy's mean of them, float64 for integers), bit for bit as numpy's.
    NaN in a slice gives NaN; an empty slice gives NaN with numpy's RuntimeWarning."""
    check_flag("overwrite_input", overwrite_input)
    keepdims = check_flag("keepdims", keepdims)
    arr, table, axes = _table(a, axis)
    count, n = table.shape
    shape = result_shape(arr.shape, axes, keepdims)
    dt = np.mean(np.zeros(1, arr.dtype)).dtype
    if count == 0 or n == 0:
        if count:
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        return deliver(np.full(count, np.nan, dt), shape, arr.device, out)
    ranks = _middle_ranks(np.array([n]))[0]
    result = _mean_of_middles(at_ranks(table, ranks), np.full(count, n % 2 == 1))
    result[rows_with_nan(table)] = np.nan
    return deliver(result, shape, arr.device, out)


def nanmedian(a, axis=None, out: Array | None = None, overwrite_input: bool = False, keepdims: bool = False) -> Array:
    """numpy.nanmedian: the median of each slice's non-NaN elements, bit for bit as numpy's
    (module docstring: numpy's two formulas); an all-NaN slice gives NaN with numpy's
    RuntimeWarning, an empty input NaN with its "Mean of empty slice" warning."""
    check_flag("overwrite_input", overwrite_input)
    keepdims = check_flag("keepdims", keepdims)
    arr = as_input(a, KEY_DTYPES)
    if arr.dtype.kind != "f":  # no NaN: numpy's nanmedian of integers is their median
        return median(arr, axis, out, keepdims=keepdims)
    arr, table, axes = _table(arr, axis)
    count, n = table.shape
    shape = result_shape(arr.shape, axes, keepdims)
    if arr.size == 0:
        if count:
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        return deliver(np.full(count, np.nan, arr.dtype), shape, arr.device, out)
    m = n - nan_counts(table)
    values = at_ranks(table, _middle_ranks(m))
    odd = m % 2 == 1
    # numpy's "small" path: slices shorter than 600 with axes kept (its masked median)
    if axes is not None and kept_shape(arr.shape, axes) and n < 600:
        high = np.where(odd, values[:, 0], values[:, 1])
        with np.errstate(over="ignore"):  # numpy's overflow is its warning, not ours
            result = np.true_divide(np.add(values[:, 0], high), 2.0)
    else:
        result = _mean_of_middles(values, odd)
    if (m == 0).any():
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
    result[m == 0] = np.nan
    return deliver(result, shape, arr.device, out)
