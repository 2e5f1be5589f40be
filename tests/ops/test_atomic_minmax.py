"""Global min/max by atomics against numpy."""
import numpy as np
import pytest

from wgprim.device import binding_limit
from wgprim.ops.atomic_minmax import atomic_min_max, atomic_reduce

DTYPES = [np.uint32, np.int32, np.float32]


def data(n, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 1e6).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 1025, 4097, 2**16 + 1, 1_000_003])
def test_matches_numpy(dtype, n):
    x = data(n, dtype, n)
    assert atomic_reduce(x, "min").item() == x.min()
    assert atomic_reduce(x, "max").item() == x.max()
    np.testing.assert_array_equal(atomic_min_max(x).numpy(), [x.min(), x.max()])
    assert atomic_reduce(x, "min").shape == ()


@pytest.mark.parametrize("dtype", DTYPES)
def test_extremes_of_the_type(dtype):
    if np.dtype(dtype).kind == "f":
        x = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38], np.float32)
    else:
        info = np.iinfo(dtype)
        x = np.array([info.min, info.max, 0, 1], dtype)
    np.testing.assert_array_equal(atomic_min_max(x).numpy(), [x.min(), x.max()])


def test_nan_propagates():
    x = np.arange(10_000, dtype=np.float32)
    for where in (0, 4321, 9999):
        y = x.copy()
        y[where] = np.nan
        assert np.isnan(atomic_reduce(y, "min").item()) and np.isnan(atomic_reduce(y, "max").item())
    y = x.copy()
    y[7] = -np.nan  # a NaN with the sign bit set
    assert np.isnan(atomic_reduce(y, "max").item()) and np.isnan(atomic_reduce(y, "min").item())


def test_chunked_path():
    x = data(100_003, np.int32, 1)
    with binding_limit(16 * 1024):
        np.testing.assert_array_equal(atomic_min_max(x).numpy(), [x.min(), x.max()])


def test_results_are_input_bits_as_the_tree_gives_them():
    import wgprim

    x = np.array([0.0, -0.0, 1.0, -0.0] * 3000, np.float32)
    x[[5, 9000]] = np.array([0x7FC00007, 0x7F800002], np.uint32).view(np.float32)
    for y in (x, x[x == 0], np.full(7, -0.0, np.float32)):
        got = atomic_min_max(y).numpy().view(np.uint32)
        tree = [wgprim.min(y).numpy().view(np.uint32), wgprim.max(y).numpy().view(np.uint32)]
        np.testing.assert_array_equal(got, tree)
        assert set(got) <= set(y.view(np.uint32))
    np.testing.assert_array_equal(atomic_min_max(x).numpy().view(np.uint32), [0x7F800002, 0x7FC00007])
    np.testing.assert_array_equal(atomic_min_max(x[x == 0]).numpy().view(np.uint32), [0x80000000, 0])


def test_errors():
    with pytest.raises(ValueError):
        atomic_reduce(np.zeros(0, np.float32), "min")
    with pytest.raises(ValueError):
        atomic_reduce(np.ones(3, np.float32), "sum")
    for dtype in (np.float64, np.int64, np.uint64):
        with pytest.raises(TypeError, match="method='tree'"):
            atomic_reduce(np.ones(3, dtype), "min")
    with pytest.raises(TypeError):
        atomic_reduce(np.ones(3, np.int8), "min")
