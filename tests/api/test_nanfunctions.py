"""nanmin, nanmax, nanargmin, nanargmax against numpy, exactly: every key dtype, awkward
sizes, axes, keepdims, out=, NaN anywhere (none, some, all of a slice), infinities that
numpy's NaN replacement ties with, and numpy's warnings and errors."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim

from support import random_values

DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64]
NAMES = ["nanmin", "nanmax", "nanargmin", "nanargmax"]


def data(rng, shape, dtype, nan_share=0.2):
    n = int(np.prod(shape))
    x = random_values(rng, n, dtype)
    x = rng.choice(x[: max(1, n // 10)], n)  # repeats: the first of equal extremes counts
    if np.dtype(dtype).kind == "f":
        x[rng.random(n) < nan_share] = np.nan
        x[x == 0] = 1  # which zero numpy's min keeps depends on its loop order
    return x.reshape(shape)


def check(name, x, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(np, name)(x, **kwargs))
        got = getattr(wgprim, name)(x, **kwargs).numpy()
    if name.startswith("nanarg"):
        want = want.astype(np.uint32)  # wgprim's indices are uint32, as its argmin's
    assert got.dtype == want.dtype and got.shape == want.shape, (name, kwargs, got.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=f"{name} {kwargs}")


def check_all(x, axes):
    for axis in axes:
        for keepdims in (False, True):
            for name in NAMES:
                if name.startswith("nanarg") and isinstance(axis, tuple):
                    continue
                if name.startswith("nanarg") and x.dtype.kind == "f":
                    lines = np.isnan(x).all(axis=axis) if x.size else np.zeros(0, bool)
                    if np.any(lines):
                        with pytest.raises(ValueError, match="All-NaN slice"):
                            getattr(wgprim, name)(x, axis=axis, keepdims=keepdims)
                        continue
                check(name, x, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 2, 3, 257, 5000, 100003])
def test_one_dimension(rng, dtype, n):
    check_all(data(rng, (n,), dtype), [None, 0])
    if np.dtype(dtype).kind == "f":
        check_all(data(rng, (n,), dtype, nan_share=0), [None])  # no NaN: the plain reductions
        check_all(data(rng, (n,), dtype, nan_share=0.97), [None])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4, 9), (3, 4, 5), (2, 3000), (40, 3)])
def test_axes(rng, dtype, shape):
    x = data(rng, shape, dtype)
    axes = [None, 0, -1] + ([1, (0, 2)] if len(shape) == 3 else [])
    check_all(x, axes)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_infinities_tie_with_nan(dtype):
    nan, inf = np.nan, np.inf
    for values in ([nan, inf, inf], [inf, nan], [nan, -inf, 3], [-inf, nan, -inf], [nan, 2.0, nan, 2.0],
                   [3.0, nan], [nan, nan, -1.0], [inf, -inf, nan]):
        x = np.array(values, dtype)
        for name in NAMES:
            check(name, x)
    rows = np.array([[nan, -inf, -inf], [1, nan, 1], [inf, nan, inf], [nan, 5, 4]], dtype)
    for name in NAMES:
        check(name, rows, axis=1)


def test_all_nan_slices():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
    for name in ("nanmin", "nanmax"):
        with pytest.warns(RuntimeWarning, match="All-NaN slice"):
            got = getattr(wgprim, name)(x, axis=1).numpy()
        np.testing.assert_array_equal(got, [np.nan, 1.0])
        with pytest.warns(RuntimeWarning, match="All-NaN slice"):
            assert np.isnan(getattr(wgprim, name)(np.full(7, np.nan)).numpy())
    for name in ("nanargmin", "nanargmax"):
        with pytest.raises(ValueError, match="All-NaN slice"):
            getattr(wgprim, name)(x, axis=1)
        crossed = np.array([[np.nan, 2.0], [1.0, np.nan]], np.float32)
        np.testing.assert_array_equal(getattr(wgprim, name)(crossed, axis=0).numpy(), [1, 0])


def test_empty_and_errors():
    for name, message in (("nanmin", "zero-size"), ("nanmax", "zero-size"), ("nanargmin", "empty sequence"),
                          ("nanargmax", "empty sequence")):
        with pytest.raises(ValueError, match=message):
            getattr(wgprim, name)(np.zeros(0, np.float32))
        with pytest.raises(ValueError, match=message):
            getattr(wgprim, name)(np.zeros((0, 3), np.float32), axis=0)
        check(name, np.zeros((3, 0), np.float32), axis=0)
    with pytest.raises(TypeError):
        wgprim.nanargmin(np.ones((2, 2), np.float32), axis=(0, 1))
    with pytest.raises(NotImplementedError, match="initial"):
        wgprim.nanmin(np.ones(3, np.float32), initial=0)
    with pytest.raises(TypeError):
        wgprim.nanmin(np.ones(3, np.bool_))


def test_out(rng):
    x = data(rng, (5, 6), np.float64)
    x[2] = np.nan
    out = wgprim.empty((6,), np.float64)
    assert wgprim.nanmax(x, axis=0, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.nanmax(x, axis=0))
    index = wgprim.empty((6,), np.uint32)
    wgprim.nanargmin(x, axis=0, out=index)
    np.testing.assert_array_equal(index.numpy(), np.nanargmin(x, axis=0))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([1.0, -1.0, 2.5, float("nan"), float("inf"), float("-inf"), 7.0]),
                min_size=1, max_size=60), st.integers(1, 3))
def test_random(values, columns):
    x = np.array(values[: max(columns, len(values) // columns * columns)] * columns, np.float32)
    x = x[: len(x) // columns * columns].reshape(-1, columns)
    check_all(x, [None, 0, 1])
