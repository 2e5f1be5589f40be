"""topk against a stable numpy reference: ties by lower index, NaN largest, both
directions, k at the edges, the chosen ranked whole, after the select and beyond (two
sorts), rows; values bit for bit the input's, every key dtype (64-bit too)."""
import numpy as np
import pytest

import wgprim
from wgprim.ops.order_key import host_keys
from wgprim.ops import topk as topk_ops
from wgprim.ops.topk import TopkPolicy
from wgprim.tuning import using
from wgprim.ops.segmented import tile_size


def reference(x, k, largest):
    """Indices of torch.topk with ties broken by lower index (NaN largest): numpy's order
    keys (±0 one key, every NaN one key above +inf), exact for 64-bit values too."""
    keys = host_keys(x)
    if largest:
        keys = ~keys
    order = np.lexsort((np.broadcast_to(np.arange(x.shape[-1]), x.shape), keys), axis=-1)
    return order[..., :k]


def bits(a):
    a = np.asarray(a)
    return a.view(np.uint64 if a.itemsize == 8 else np.uint32)


def assert_topk(x, k, largest=True):
    v, i = wgprim.topk(x, k, largest=largest)
    idx = reference(x, k, largest)
    np.testing.assert_array_equal(i.numpy(), idx)
    np.testing.assert_array_equal(bits(v.numpy()), bits(np.take_along_axis(x, idx, -1)))  # the input's bits


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


@pytest.mark.parametrize("shape", [(6000,), (2, 6000)], ids=str)
def test_candidates_beyond_one_workgroup_inside_a_batch(shape, rng):
    """More chosen than one workgroup sorts (they go through sort_pairs), 1-D and long rows,
    inside wgprim.batch() and followed there by another call: the chosen pairs stay the
    selection's until the batch has run (the next call must not take their buffers)."""
    x = rng.standard_normal(shape).astype(np.float32)
    z = rng.standard_normal(777).astype(np.float32)
    k = topk_ops.RANK_MAX + 452
    with wgprim.batch():
        v, i = wgprim.topk(x, k)
        small, _ = wgprim.topk(z, 5)
    idx = reference(x, k, True)
    np.testing.assert_array_equal(i.numpy(), idx)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(x, idx, -1))
    np.testing.assert_array_equal(small.numpy(), np.sort(z)[::-1][:5])


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
        wgprim.topk(np.zeros(4, np.float16), 1)
    for flag in ("largest", "sorted"):
        for value in ("False", [1], None):
            with pytest.raises(TypeError, match=flag):
                wgprim.topk(x, 1, **{flag: value})
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


# ---- the radix select's paths: candidates gathered early, late, or never --------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from wgprim.api import topk as topk_api  # noqa: E402


def assert_select_1d(x, k, largest, cap=topk_ops.CAP):
    """The 1-D select with a given candidate capacity: a small one forces the passes over
    the whole array (heavy ties), the default takes the candidate path."""
    v, i = topk_api._select_1d(wgprim.asarray(x), k, largest, cap)
    idx = reference(x, k, largest)
    np.testing.assert_array_equal(i.numpy(), idx)
    np.testing.assert_array_equal(v.numpy(), x[idx])


def _values(rng, kind, n, dtype):
    """Value sets that steer the select: spread, crowded top bits, few distinct, special floats."""
    dtype = np.dtype(dtype)
    if kind == "spread":
        x = rng.standard_normal(n) * 1e3 if dtype.kind == "f" else rng.integers(-(2**31), 2**31, n)
    elif kind == "unit":  # floats in [0, 1): the top 12 key bits hold few values
        x = rng.random(n) if dtype.kind == "f" else rng.integers(2**31 - 2**20, 2**31, n)
    elif kind == "few":
        x = rng.integers(0, 4, n)
    else:
        x = rng.choice(np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40, 1.0, -1.0])
                       if dtype.kind == "f" else np.array([0, 1, 2**31 - 1, 2**31, 2**32 - 1]), n)
    if dtype == np.uint32:
        return np.asarray(x, np.int64).astype(np.uint32)
    return np.asarray(x).astype(dtype)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 40_000),
    k_frac=st.floats(0, 1),
    dtype=st.sampled_from([np.float32, np.int32, np.uint32]),
    kind=st.sampled_from(["spread", "unit", "few", "special"]),
    largest=st.booleans(),
    cap=st.sampled_from([1, 5, 300, topk_ops.CAP]),
    seed=st.integers(0, 2**31),
)
def test_select_1d_hypothesis(n, k_frac, dtype, kind, largest, cap, seed):
    rng = np.random.default_rng(seed)
    x = _values(rng, kind, n, dtype)
    k = max(1, min(n, int(k_frac ** 3 * n)))  # mostly small k, sometimes all
    assert_select_1d(x, k, largest, cap)


@pytest.mark.parametrize("cap", [1, 64, topk_ops.CAP])
@pytest.mark.parametrize("n", [1, 4, 5, 1023, 262_147])
def test_select_1d_edges(n, cap, rng):
    # k = 1 and k = n, lengths around the vec4 loads and the multi-workgroup loop
    x = rng.random(n).astype(np.float32)
    for k in sorted({1, min(n, 3), n if n <= 5000 else 100}):
        assert_select_1d(x, k, True, cap)
        assert_select_1d(x, k, False, cap)


def test_select_1d_ties_cross_the_candidate_capacity(rng):
    # 1000 copies of the k-th value, of which some are taken: gathered at the index steps
    # (cap above 1000) or resolved over the whole array (cap below).
    x = rng.standard_normal(50_000).astype(np.float32)
    x[rng.choice(x.size, 1000, replace=False)] = 7.5
    for cap in (64, 2000, topk_ops.CAP):
        assert_select_1d(x, 10, True, cap)
        assert_select_1d(x, 1010, True, cap)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
def test_topk_unit_floats_large(dtype, rng):
    # Crowded top bits (floats in [0, 1)): three passes, the third gathering.
    x = _values(rng, "unit", 1 << 20, dtype)
    assert_topk(x, 100)
    assert_topk(x, 100, largest=False)


# ---- rows: one workgroup owns whole rows ------------------------------------------------
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(1, 40),
    length=st.integers(1, topk_ops.ROWS_MAX_LENGTH),
    k_frac=st.floats(0, 1),
    dtype=st.sampled_from([np.float32, np.int32, np.uint32, np.float64, np.uint64]),
    kind=st.sampled_from(["spread", "unit", "few", "special"]),
    largest=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_topk_rows_hypothesis(rows, length, k_frac, dtype, kind, largest, seed):
    rng = np.random.default_rng(seed)
    x = _values(rng, kind, rows * length, dtype).reshape(rows, length)
    k = max(1, min(length, topk_ops.ROWS_MAX_K, int(k_frac * 70)))
    assert_topk(x, k, largest)


@pytest.mark.parametrize("length", [1, 15, 16, 17, 129, 256, 257, 4096])
def test_topk_rows_lane_shapes(length, rng):
    # every (invocations per row, elements per invocation) shape, k at its limits
    lanes, per_lane = topk_ops.rows_shape(length)
    assert lanes * per_lane >= length and per_lane <= TopkPolicy().rows_per_lane
    x = rng.integers(0, 3, (5, length)).astype(np.float32)
    x[:, ::7] = np.nan
    for k in sorted({1, min(length, 16), min(length, topk_ops.ROWS_MAX_K)}):
        assert_topk(x, k)
        assert_topk(x, k, largest=False)


def test_topk_rows_more_rows_than_one_grid_dimension(rng):
    lanes, _ = topk_ops.rows_shape(16)
    x = rng.integers(0, 1000, ((wgprim.get_device().max_groups_per_dim + 1) * (256 // lanes) + 3, 16))
    assert_topk(x.astype(np.float32), 4)


@pytest.mark.parametrize("per_lane,min_lanes", [(32, 4), (4, 1)])
def test_topk_rows_other_lane_shapes(per_lane, min_lanes, rng):
    # fewer invocations per row than bins (4 < 16), and many rows per workgroup
    with using(TopkPolicy, rows_per_lane=per_lane, rows_min_lanes=min_lanes):
        assert topk_ops.rows_shape(1000)[1] <= per_lane and topk_ops.rows_shape(1)[0] == min_lanes
        for length in (1, 5, 33, 256, 1000):
            x = rng.integers(0, 4, (11, length)).astype(np.float32)
            x[:, ::9] = np.nan
            for k in sorted({1, min(length, 16), min(length, topk_ops.ROWS_MAX_K)}):
                assert_topk(x, k, largest=bool(k % 2))


@pytest.mark.parametrize("groups", [1, 3])
def test_topk_with_few_select_workgroups(groups, rng):
    # each select workgroup loops over many tiles of the keys
    with using(TopkPolicy, max_groups=groups):
        x = rng.standard_normal(300_001).astype(np.float32)
        x[::11] = np.round(x[::11])  # ties
        assert_topk(x, 100)
        assert_topk(x, 7, largest=False)


# ---- the input's own bits, 64-bit keys, the array API's top_k ------------------------
NAN32 = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FC0BEEF]
NAN64 = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF80000DEADBEEF]


def awkward(rng, n, dtype):
    """Floats salted with both zeros, NaNs with payloads, denormals and infinities;
    integers with their dtype's extremes."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[rng.random(n) < 0.3] = info.max
        x[rng.random(n) < 0.2] = info.min
        return x
    x = (rng.standard_normal(n) * 1e3).astype(dtype)
    nans = np.array(NAN64, np.uint64) if dtype.itemsize == 8 else np.array(NAN32, np.uint32)
    tiny = np.finfo(dtype).smallest_subnormal
    specials = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, tiny, -tiny], dtype), nans.view(dtype)])
    pick = rng.random(n) < 0.5
    x[pick] = rng.choice(specials, int(pick.sum()))
    return x


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 6000), k_frac=st.floats(0, 1),
       dtype=st.sampled_from([np.float32, np.float64, np.int64, np.uint64]), largest=st.booleans(),
       seed=st.integers(0, 2**31))
def test_values_are_the_inputs_bits(n, k_frac, dtype, largest, seed):
    # ranked whole (n <= 2048), or the select then the rank; ±0 and NaN payloads as given
    x = awkward(np.random.default_rng(seed), n, dtype)
    assert_topk(x, max(1, int(k_frac ** 2 * min(n, 300))), largest)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_64_bit_keys_along_any_axis(dtype, rng):
    big = awkward(rng, 2 * 5000, dtype)  # more chosen than one rank takes: two sorts of the pairs
    assert_topk(big, topk_ops.RANK_MAX + 100)
    x = awkward(rng, 3 * 40 * 5, dtype).reshape(3, 40, 5)
    for ax in (1, -1):
        moved = np.moveaxis(x, ax, -1)
        v, i = wgprim.topk(x, 3, axis=ax)
        idx = np.moveaxis(reference(moved, 3, True), -1, ax)
        np.testing.assert_array_equal(i.numpy(), idx)
        np.testing.assert_array_equal(bits(v.numpy()), bits(np.take_along_axis(x, idx, ax)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_rows_keep_the_inputs_bits(dtype, rng):
    x = awkward(rng, 40 * 300, dtype).reshape(40, 300)
    for k in (5, 64):  # the rows kernel (64-bit keys: 16 key digits)
        assert_topk(x, k)
        assert_topk(x, k, largest=False)


def test_rows_of_the_bitonic_top_k_keep_the_inputs_bits(rng):
    x = awkward(rng, 40 * 300, np.float32).reshape(40, 300)
    assert_topk(x, 100)
    assert_topk(x, 100, largest=False)


def test_top_k(rng):
    x = awkward(rng, 6 * 7, np.float32).reshape(6, 7)
    v, i = wgprim.top_k(x, 4)  # axis=None: the flattened x
    idx = reference(x.ravel(), 4, True)
    np.testing.assert_array_equal(i.numpy(), idx)
    np.testing.assert_array_equal(bits(v.numpy()), bits(x.ravel()[idx]))
    v, i = wgprim.top_k(x, 2, axis=0, mode="smallest")
    np.testing.assert_array_equal(i.numpy(), np.moveaxis(reference(x.T, 2, False), -1, 0))
    with pytest.raises(NotImplementedError, match="'largest' or 'smallest'"):
        wgprim.top_k(x, 2, mode="median")
    with pytest.raises(TypeError):
        wgprim.top_k(x, 2, mode=True)
