"""any, all and count_nonzero against numpy, exactly: every dtype, awkward sizes, every
axis form (None, int, tuple, ()), keepdims, out=, and the values whose truth float compares
could get wrong (NaN, -0.0, subnormals)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim

from support import random_values

DTYPES = [np.uint32, np.int32, np.float32, np.float16, np.bool_, np.uint64, np.int64, np.float64]
CALLS = [("any", np.any), ("all", np.all), ("count_nonzero", np.count_nonzero)]


def skip_unsupported(device, dtype):
    if np.dtype(dtype) == np.float16 and not device.has_f16:
        pytest.skip("no shader-f16")


def sparse(rng, shape, dtype):
    """Random data where zeros are common (so that all() can be True or False) and, for
    floats, NaN, -0.0, +0.0 and the smallest subnormals appear."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.random(n).reshape(shape) < 0.5
    x = random_values(rng, n, dtype)
    x[rng.random(n) < 0.3] = 0
    if dtype.kind == "f":
        tiny = np.finfo(dtype).smallest_subnormal
        specials = np.array([np.nan, -0.0, 0.0, tiny, -tiny, np.inf, -np.inf], dtype)
        picks = rng.random(n) < 0.2
        x[picks] = rng.choice(specials, int(picks.sum()))
    return x.reshape(shape)


def check(name, reference, x, **kwargs):
    got = getattr(wgprim, name)(x, **kwargs)
    want = np.asarray(reference(x, **kwargs))
    host = got.numpy()
    assert host.dtype == want.dtype, (name, host.dtype, want.dtype)
    assert host.shape == want.shape, (name, kwargs, host.shape, want.shape)
    np.testing.assert_array_equal(host, want, err_msg=f"{name} {kwargs}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 257, 5000, 100003])
def test_every_element(device, rng, dtype, n):
    skip_unsupported(device, dtype)
    x = sparse(rng, (n,), dtype)
    for name, reference in CALLS:
        check(name, reference, x)
    if n:  # every element nonzero: all() is True, count_nonzero is n
        full = x.copy()
        full[full == 0] = 1
        check("all", np.all, full)
        check("count_nonzero", np.count_nonzero, full)
        check("any", np.any, np.zeros_like(x))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 1, 70), (0, 3), (4, 0), (1, 5000)])
def test_axes(device, rng, dtype, shape):
    skip_unsupported(device, dtype)
    x = sparse(rng, shape, dtype)
    forms = [None, 0, -1, (), tuple(range(len(shape)))]
    if len(shape) == 3:
        forms += [1, (0, 2), (2, 0), (1, 2)]
    for axis in forms:
        for keepdims in (False, True):
            for name, reference in CALLS:
                check(name, reference, x, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_zeros_nan_and_subnormals(dtype):
    tiny = np.finfo(dtype).smallest_subnormal
    for values in ([-0.0], [0.0, -0.0], [np.nan], [tiny], [-tiny, 0.0], [-0.0, 1.0], [np.nan, -0.0]):
        x = np.array(values, dtype)
        for name, reference in CALLS:
            check(name, reference, x)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64], ids=lambda d: np.dtype(d).name)
def test_integer_extremes(dtype):
    info = np.iinfo(dtype)
    x = np.array([[info.min, 0, info.max], [1, -1 if info.min else 2, 0], [info.min, info.max, 1]], dtype)
    for axis in (None, 0, 1):
        for name, reference in CALLS:
            check(name, reference, x, axis=axis)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -2.5, float("nan"), 5e-324, float("inf")]), max_size=300),
       st.integers(1, 4))
def test_random_floats(values, columns):
    x = np.array(values[: len(values) // columns * columns], np.float64).reshape(-1, columns)
    for axis in (None, 0, 1):
        for name, reference in CALLS:
            check(name, reference, x, axis=axis)


def test_scalar_and_0d(device):
    for value in (0, 3, -0.0, np.nan):
        x = np.array(value, np.float32)
        for name, reference in CALLS:
            check(name, reference, x)
            check(name, reference, x, axis=())
    with pytest.raises(np.exceptions.AxisError):
        wgprim.any(np.array(1.0, np.float32), axis=0)


def test_out_and_errors(rng):
    x = sparse(rng, (5, 7), np.int32)
    out = wgprim.empty((7,), np.bool_)
    assert wgprim.any(x, axis=0, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.any(x, axis=0))
    wgprim.all(x, axis=0, out=out)
    np.testing.assert_array_equal(out.numpy(), np.all(x, axis=0))
    with pytest.raises(ValueError, match="out must hold"):
        wgprim.any(x, axis=1, out=out)
    with pytest.raises(np.exceptions.AxisError):
        wgprim.count_nonzero(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        wgprim.all(x, axis=(0, 0))
    with pytest.raises(NotImplementedError, match="where"):
        wgprim.any(x, where=x > 0)
    wgprim.any(x, where=True)  # numpy's default is taken


def test_gpu_input_keeps_its_data(rng):
    x = sparse(rng, (6, 9), np.float32)
    a = wgprim.asarray(x)
    for name, reference in CALLS:
        check(name, reference, a.numpy(), axis=0)
        np.testing.assert_array_equal(getattr(wgprim, name)(a, axis=0).numpy(), reference(x, axis=0))
    np.testing.assert_array_equal(a.numpy(), x)
