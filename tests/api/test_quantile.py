"""quantile, percentile, median and nanmedian against numpy, bit for bit: every method,
every key dtype, awkward sizes, axis None / int / tuple, keepdims, out=, NaN slices,
array q of one and two dimensions and numpy's result dtypes (weak Python-float q)."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.api.quantile import METHODS

from support import random_values

DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64]
BASIC = ["linear", "lower", "higher", "nearest", "midpoint"]


def data(rng, shape, dtype, repeats=False):
    """Random values; with repeats, drawn from few distinct ones (ties at the ranks)."""
    n = int(np.prod(shape))
    x = random_values(rng, n, dtype)
    if repeats and n:
        x = rng.choice(x[: max(1, n // 50)], n)
    if np.dtype(dtype).kind == "f":  # one zero's sign: the stable sort's pick of equal zeros may differ from numpy's
        x[x == 0] = 0
    return x.reshape(shape)


def same_bits(got, want, context=""):
    """Equal dtype, shape and bits (NaN: any NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (context, got.dtype, want.dtype)
    assert got.shape == want.shape, (context, got.shape, want.shape)
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=str(context))
        got, want = got[~nan], want[~nan]
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8), err_msg=str(context))


def both(name, x, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same_bits(getattr(wgprim, name)(x, *args, **kwargs).numpy(), getattr(np, name)(x, *args, **kwargs),
                  (name, x.dtype, x.shape, args, kwargs))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 256, 257, 5000, 100003])
def test_one_dimension(rng, dtype, n):
    x = data(rng, (n,), dtype, repeats=n > 300)
    both("quantile", x, [0.0, 0.25, 0.5, 0.75, 1.0])
    both("quantile", x, 0.37)
    both("percentile", x, 99.9)
    both("median", x)
    if n <= 257:
        for method in BASIC:
            both("quantile", x, [0.1, 0.5, 0.95], method=method)


@pytest.mark.parametrize("dtype", [np.float32, np.int64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("method", list(METHODS))
def test_every_method(rng, dtype, method):
    for n in (1, 2, 3, 10, 11):
        x = data(rng, (n,), dtype)
        both("quantile", x, [0.0, 0.1, 0.25, 0.5, 0.5 + 1e-9, 0.75, 0.99, 1.0], method=method)
        both("quantile", x, 0.4, method=method)
        both("percentile", x, [5, 50], method=method)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 1, 7), (6, 2500), (1, 5)])
def test_axes(rng, dtype, shape):
    x = data(rng, shape, dtype)
    forms = [None, 0, -1, tuple(range(len(shape)))] + ([1, (0, 2)] if len(shape) == 3 else [])
    for axis in forms:
        for keepdims in (False, True):
            both("quantile", x, [0.2, 0.5], axis=axis, keepdims=keepdims)
            both("median", x, axis=axis, keepdims=keepdims)
        both("percentile", x, 30, axis=axis, method="nearest")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_nan_slices(rng, dtype):
    x = data(rng, (5, 9), dtype)
    x[1, 3] = np.nan
    x[4, :] = np.nan
    for axis in (None, 0, 1):
        both("quantile", x, [0.3, 0.5], axis=axis)
        both("quantile", x, 0.5, axis=axis, method="lower")
        both("median", x, axis=axis)
    one = data(rng, (100,), dtype)
    one[17] = np.nan
    both("quantile", one, 0.5)
    both("quantile", one, np.float64(0.5))  # numpy's scalar result is the slice's own NaN
    both("median", one)


def test_specials_and_dtypes():
    for values in ([np.inf, -np.inf], [np.inf, np.inf, 1], [-np.inf, 1.0], [3e38, 3e38], [-3e38, 3e38],
                   [1e-45, 2e-45, 0.0], [-0.0, -0.0]):
        for dtype in (np.float32, np.float64):
            x = np.array(values, dtype)
            for q in (0.5, 0.75, [0.5], np.float32(0.5), np.float64(0.3), 1, 0):
                both("quantile", x, q)
                both("quantile", x, q, method="midpoint")
            both("median", x)
    extremes = np.array([-2**63, 2**63 - 1, 5], np.int64)
    both("quantile", extremes, [0.25, 0.5])  # numpy's int64 difference wraps; so does ours, as numpy's
    both("median", extremes)
    both("quantile", np.array([0, 2**64 - 1], np.uint64), 0.5)


def test_q_shapes_and_types(rng):
    x = data(rng, (4, 30), np.float32)
    for q in (0.5, [0.5], [[0.1, 0.2], [0.9, 1.0]], np.array([0.5], np.float32), np.float64(0.5), 1, [0, 1]):
        both("quantile", x, q, axis=1)
        both("quantile", x, q)
    both("percentile", x, [[10, 20]], axis=0, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape, axis", [((11,), None), ((3, 12), 1), ((3, 13), 0), ((2, 3, 4), (0, 2)),
                                         ((2, 3, 4), None), ((2, 700), 1), ((4, 5), ()), ((5000,), 0)])
def test_nanmedian(rng, dtype, shape, axis):
    x = data(rng, shape, dtype)
    flat = x.reshape(-1)
    flat[rng.random(flat.size) < 0.3] = np.nan
    both("nanmedian", x, axis=axis)
    both("nanmedian", x, axis=axis, keepdims=True)
    big = np.full(shape, np.finfo(dtype).max / 1.5, dtype)  # lo + lo overflows: numpy's two formulas
    big.reshape(-1)[::2] = np.nan
    both("nanmedian", big, axis=axis)


def test_nanmedian_warnings_and_integers(rng):
    x = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        got = wgprim.nanmedian(x, axis=1).numpy()
    np.testing.assert_array_equal(got, [np.nan, 1.0])
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(wgprim.nanmedian(np.zeros(0, np.float32)).numpy())
    ints = data(rng, (3, 8), np.int32)
    both("nanmedian", ints, axis=1)
    both("nanmedian", ints)


def test_empty():
    with pytest.raises(IndexError):
        wgprim.quantile(np.zeros(0, np.float32), 0.5)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(wgprim.median(np.zeros(0, np.float32)).numpy())
    for name, args in (("quantile", (0.5,)), ("median", ())):
        both(name, np.zeros((3, 0), np.float32), *args, axis=0)
    both("quantile", np.zeros((3, 0), np.int32), [0.5, 0.1], axis=0)


def test_out_and_errors(rng):
    x = data(rng, (4, 9), np.float64)
    out = wgprim.empty((2, 9), np.float64)
    assert wgprim.quantile(x, [0.2, 0.8], axis=0, out=out) is out
    same_bits(out.numpy(), np.quantile(x, [0.2, 0.8], axis=0))
    med = wgprim.empty((4,), np.float64)
    wgprim.median(x, axis=1, out=med)
    same_bits(med.numpy(), np.median(x, axis=1))
    with pytest.raises(ValueError, match="out must hold"):
        wgprim.median(x, axis=0, out=med)
    with pytest.raises(ValueError, match="range"):
        wgprim.quantile(x, 1.5)
    with pytest.raises(ValueError, match="range"):
        wgprim.percentile(x, -1)
    with pytest.raises(ValueError, match="not a valid method"):
        wgprim.quantile(x, 0.5, method="linaer")
    with pytest.raises(ValueError, match="q must be a scalar"):
        wgprim.quantile(x, np.full((1, 1, 1), 0.5))
    with pytest.raises(NotImplementedError, match="weights"):
        wgprim.quantile(x, 0.5, weights=np.ones_like(x))
    with pytest.raises(TypeError):
        wgprim.median(np.zeros(3, np.bool_))
    both("quantile", x, 0.5, overwrite_input=True)
    np.testing.assert_array_equal(wgprim.asarray(x).numpy(), x)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=200),
       st.lists(st.floats(0, 1), min_size=1, max_size=4), st.sampled_from(BASIC))
def test_random(values, qs, method):
    x = np.array(values, np.float32)
    x[x == 0] = 0
    both("quantile", x, qs, method=method)
    both("median", x)
