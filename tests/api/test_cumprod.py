"""cumulative_prod against numpy's np.cumulative_prod: integers exactly (numpy's default
64-bit dtype and the dtype= forms, wrapping), floats within the bound of their roundings,
every axis, include_initial, awkward sizes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim

from support import informative

INTEGERS = [np.int32, np.uint32, np.int64, np.uint64]
SIZES = [0, 1, 2, 3, 255, 256, 257, 4097, 5000, 100003]


def near_one(rng, shape, dtype):
    """Products that stay far from overflow and underflow for 10^5 factors."""
    x = rng.uniform(0.99, 1.01, shape) * rng.choice([-1, 1], shape)
    return x.astype(dtype)


def check_float(got, x, axis, include_initial):
    exact = np.cumulative_prod(x.astype(np.float64), axis=axis, include_initial=include_initial)
    length = x.shape[axis if axis is not None else 0] if x.ndim else 1
    # a prefix of k + 1 factors takes at most k roundings of at most eps / 2 each
    bound = 1.01 * max(length, 1) * np.finfo(x.dtype).eps / 2 * np.abs(exact)
    assert got.dtype == x.dtype and got.shape == exact.shape
    assert np.all(np.abs(got.astype(np.float64) - exact) <= bound)


@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_integers_flat(rng, dtype, n):
    x = informative(rng, n, dtype, "prod")
    for include_initial in (False, True):
        got = wgprim.cumulative_prod(x, include_initial=include_initial).numpy()
        want = np.cumulative_prod(x, include_initial=include_initial)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    same_width = wgprim.cumulative_prod(x, dtype=dtype).numpy()
    np.testing.assert_array_equal(same_width, np.cumulative_prod(x, dtype=dtype))


@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3000), (700, 3), (1, 1)])
def test_integers_axes(rng, dtype, shape):
    x = informative(rng, int(np.prod(shape)), dtype, "prod").reshape(shape)
    for axis in range(-len(shape), len(shape)):
        for include_initial in (False, True):
            got = wgprim.cumulative_prod(x, axis=axis, include_initial=include_initial).numpy()
            want = np.cumulative_prod(x, axis=axis, include_initial=include_initial)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_float32_flat(rng, n):
    x = near_one(rng, (n,), np.float32)
    for include_initial in (False, True):
        check_float(wgprim.cumulative_prod(x, include_initial=include_initial).numpy(), x, None, include_initial)


def test_float32_axes_and_specials(rng):
    x = near_one(rng, (4, 6, 50), np.float32)
    for axis in (0, 1, 2):
        check_float(wgprim.cumulative_prod(x, axis=axis).numpy(), x, axis, False)
        check_float(wgprim.cumulative_prod(x, axis=axis, include_initial=True).numpy(), x, axis, True)
    specials = np.array([2.0, np.inf, 0.0, 3.0, np.nan, 1.0], np.float32)
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN, as numpy warns
        want = np.cumulative_prod(specials)
    np.testing.assert_array_equal(wgprim.cumulative_prod(specials).numpy(), want)
    zero = np.array([np.inf, -0.0, 5.0], np.float32)
    with np.errstate(invalid="ignore"):
        want = np.cumulative_prod(zero)
    np.testing.assert_array_equal(wgprim.cumulative_prod(zero).numpy(), want)


def test_0d_and_errors():
    np.testing.assert_array_equal(wgprim.cumulative_prod(np.array(7, np.int32)).numpy(), [7])
    with pytest.raises(ValueError, match="axis"):
        wgprim.cumulative_prod(np.ones((2, 2), np.int32))
    with pytest.raises(TypeError, match="float64"):
        wgprim.cumulative_prod(np.ones(3))
    with pytest.raises(TypeError, match="dtype"):
        wgprim.cumulative_prod(np.ones(3, np.int32), dtype=np.float32)
    got = wgprim.cumulative_prod(np.ones((0, 3), np.int32), axis=0, include_initial=True).numpy()
    np.testing.assert_array_equal(got, np.cumulative_prod(np.ones((0, 3), np.int32), axis=0, include_initial=True))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3000), st.booleans())
def test_random_int64(values, include_initial):
    x = np.array(values, np.int64) | 1
    got = wgprim.cumulative_prod(x, include_initial=include_initial).numpy()
    np.testing.assert_array_equal(got, np.cumulative_prod(x, include_initial=include_initial))
