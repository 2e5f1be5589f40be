"""topk against a stable numpy reference: ties by lower index, NaN largest, both
directions, k at the edges, the candidate sort in one workgroup and beyond, rows."""
import numpy as np
import pytest

import wgprim
from wgprim.ops.segmented import tile_size


def reference(x, k, largest):
    """Indices of torch.topk with ties broken by lower index (NaN largest)."""
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    key = np.where(nan, 0, x).astype(np.float64)
    key = np.where(key == 0, 0.0, key)
    first = ~nan if largest else nan  # lexsort: last key is primary
    order = np.lexsort((np.broadcast_to(np.arange(x.shape[-1]), x.shape), -key if largest else key, first), axis=-1)
    return order[..., :k]


def assert_topk(x, k, largest=True):
    v, i = wgprim.topk(x, k, largest=largest)
    idx = reference(x, k, largest)
    np.testing.assert_array_equal(i.numpy(), idx)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(x, idx, -1))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("n,k", [(1, 1), (10, 3), (1000, 100), (100_003, 100), (5000, 5000), (70_000, 3000), (9, 0)])
def test_topk_1d(n, k, dtype, rng):
    x = rng.integers(0, 50, n).astype(dtype) if n % 2 else (rng.standard_normal(n) * 100).astype(dtype)
    if dtype == np.float32 and n > 10:
        x[[5, 7]] = np.nan
        x[[1, 2, 3]] = [-0.0, 0.0, 1e-40]
    for largest in (True, False):
        assert_topk(x, k, largest)


def test_all_equal_keys_take_the_lowest_indices(rng):
    x = np.full(100_000, 3, np.int32)
    assert_topk(x, 77)
    x[rng.choice(x.size, 50, replace=False)] = 4
    assert_topk(x, 77)
    assert_topk(x, 77, largest=False)


def test_candidates_beyond_one_workgroup(rng):
    n = 4 * tile_size(wgprim.get_device()) + 5
    x = rng.integers(0, 100, 3 * n).astype(np.float32)
    assert_topk(x, n)


@pytest.mark.parametrize("shape,k", [((50, 256), 16), ((7, 3, 33), 5), ((3, 5000), 16), ((4, 1), 1)], ids=str)
def test_topk_rows(shape, k, rng):
    x = rng.integers(0, 20, shape).astype(np.float32)
    x.flat[::17] = np.nan
    for largest in (True, False):
        assert_topk(x, k, largest)


def test_topk_errors():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match="out of range"):
        wgprim.topk(x, 5)
    with pytest.raises(ValueError, match="out of range"):
        wgprim.topk(x, 4, axis=0)
    with pytest.raises(TypeError):
        wgprim.topk(np.zeros(4, np.float64), 1)
    v, i = wgprim.topk(x, 0)
    assert v.shape == (3, 0) and i.dtype == np.uint32


def test_topk_along_any_axis(rng):
    x = rng.integers(0, 9, (6, 40, 5)).astype(np.int32)
    for ax in (0, 1, -3):
        for largest in (True, False):
            v, i = wgprim.topk(x, 3, axis=ax, largest=largest)
            moved = np.moveaxis(x, ax, -1)
            idx = np.moveaxis(reference(moved, 3, largest), -1, ax)
            np.testing.assert_array_equal(i.numpy(), idx)
            np.testing.assert_array_equal(v.numpy(), np.take_along_axis(x, idx, ax))


@pytest.mark.parametrize("length", [1, 2, 3, 17, 64, 100, 256, 1000, 2048])
def test_topk_rows_every_k_shape(length, rng):
    # Sorted blocks of the next power of two >= k, merged pairwise: every k against every
    # padded row length.
    x = rng.integers(0, 7, (9, length)).astype(np.int32)
    for k in sorted({1, 2, 3, length // 3, length // 2 + 1, length}):
        if 1 <= k <= length:
            assert_topk(x, k, largest=bool(k % 2))
