"""compact, nonzero, unique, run_length_encode against numpy."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops.select import SelectPolicy
from wgprim.ops.unique_dense import UniqueDensePolicy
from wgprim.tuning import using
from wgprim.api.select import compact, nonzero, run_length_encode, unique

DTYPES = [np.uint32, np.int32, np.float32]
# 4096 elements per tile; 4096 tiles make the scan of tile counts take two levels
SIZES = [0, 1, 3, 4, 5, 255, 256, 257, 4095, 4096, 4097, 65535, 65537, 300_001]

try:
    import wgprim.api.sort  # noqa: F401

    HAVE_SORT = True
except ImportError:
    HAVE_SORT = False
needs_sort = pytest.mark.skipif(not HAVE_SORT, reason="wgprim.api.sort is not available yet")


def values(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(0, 2**31 - 1, n).astype(dtype)


def masks(n, seed=0):
    rng = np.random.default_rng(seed + 1)
    yield "half", rng.random(n) < 0.5
    yield "sparse", rng.random(n) < 0.01
    yield "empty", np.zeros(n, bool)
    yield "full", np.ones(n, bool)


# Both ordered methods at every size (by default small inputs take the single pass).
METHODS = ["single-pass", "three-phase"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_compact(dtype, n, method):
    x = values(n, dtype, seed=n)
    for name, m in masks(n, seed=n):
        got = compact(x, m, method=method)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got.numpy(), x[m], err_msg=name)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", SIZES)
def test_nonzero(n, method):
    for name, m in masks(n, seed=n):
        got = nonzero(m, method=method)
        assert got.dtype == np.uint32
        np.testing.assert_array_equal(got.numpy(), np.flatnonzero(m), err_msg=name)


@pytest.mark.parametrize("n", [1, 257, 4097, 300_001])
def test_unordered_is_same_set(n):
    x = np.arange(n, dtype=np.uint32)  # distinct values: the multiset is the set
    for name, m in masks(n, seed=n):
        got = compact(x, m, ordered=False).numpy()
        np.testing.assert_array_equal(np.sort(got), x[m], err_msg=name)
        np.testing.assert_array_equal(np.sort(nonzero(m, ordered=False).numpy()), np.flatnonzero(m), err_msg=name)


def test_several_scan_levels():
    # 2^24 + 5 flags: 4097 tiles, so the tile-count scan recurses once more
    n = 2**24 + 5
    m = np.zeros(n, bool)
    m[::3] = True
    m[-1] = True
    np.testing.assert_array_equal(nonzero(m).numpy(), np.flatnonzero(m))


def test_nd_and_mask_bytes():
    x = values(1000, np.float32).reshape(10, 100)
    m = x > 0
    np.testing.assert_array_equal(compact(x, m).numpy(), x[m])
    np.testing.assert_array_equal(nonzero(m).numpy(), np.flatnonzero(m))
    # a bool byte holding 2..255 (not written by numpy) still counts as True
    raw = np.array([0, 1, 2, 255, 0, 128], np.uint8).view(bool)
    np.testing.assert_array_equal(nonzero(raw).numpy(), [1, 2, 3, 5])


@pytest.mark.parametrize("ordered", [True, False])
def test_chunked_path(ordered):
    n = 100_003
    x = values(n, np.int32, seed=4)
    for name, m in masks(n, seed=4):
        with binding_limit(4096 * 4 * 3):  # three tiles of int32 per binding
            got = compact(x, m, ordered=ordered).numpy()
            idx = nonzero(m, ordered=ordered).numpy()
        if not ordered:
            got, idx = np.sort(got), np.sort(idx)
            np.testing.assert_array_equal(got, np.sort(x[m]), err_msg=name)
        else:
            np.testing.assert_array_equal(got, x[m], err_msg=name)
        np.testing.assert_array_equal(idx, np.flatnonzero(m), err_msg=name)


ANY_DTYPES = [np.bool_, np.float16, np.uint64, np.int64, np.float64]  # besides the 4-byte DTYPES


def any_bits(rng, n, dtype):
    """n elements of dtype with random bits (NaN payloads, -0.0, denormals included)."""
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    return np.frombuffer(rng.bytes(n * np.dtype(dtype).itemsize), dtype).copy()


def same_bytes_any_order(got, want):
    rows = lambda a: np.sort(a.view(np.uint8).reshape(a.size, a.itemsize), axis=0)  # noqa: E731
    np.testing.assert_array_equal(rows(got), rows(want))


@pytest.mark.parametrize("dtype", ANY_DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, 4097, 70_001])
def test_compact_of_every_dtype_is_bitwise(device, rng, dtype, n):
    if dtype == np.float16 and not device.has_f16:
        pytest.skip("no shader-f16")
    x = any_bits(rng, n, dtype)
    for name, m in masks(n, seed=n):
        for method in METHODS:
            got = compact(x, m, method=method)
            assert got.dtype == np.dtype(dtype) and got.numpy().tobytes() == x[m].tobytes(), (name, method)
        same_bytes_any_order(compact(x, m, ordered=False).numpy(), x[m])
    x2 = x[: n // 5 * 5].reshape(5, -1)
    m2 = rng.random(x2.shape) < 0.3
    assert compact(x2, m2).numpy().tobytes() == x2[m2].tobytes()


@pytest.mark.parametrize("dtype", [np.bool_, np.float64])
@pytest.mark.parametrize("ordered", [True, False])
def test_compact_of_every_dtype_beyond_one_binding(rng, dtype, ordered):
    n = 100_003
    x = any_bits(rng, n, dtype)
    m = rng.random(n) < 0.5
    with binding_limit(4096 * 4 * 3):  # three tiles of flags per binding; the gather's windows
        got = compact(x, m, ordered=ordered).numpy()
    if ordered:
        assert got.tobytes() == x[m].tobytes()
    else:
        same_bytes_any_order(got, x[m])


def test_compact_errors():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(TypeError):
        compact(x, np.ones(10, np.int32))
    with pytest.raises(IndexError, match="boolean index did not match"):  # numpy's, for x[mask]
        compact(x, np.ones(9, bool))
    with pytest.raises(TypeError):
        compact(np.arange(10, dtype=np.int16), np.ones(10, bool))
    with pytest.raises(TypeError):
        nonzero(np.arange(10, dtype=np.uint32))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.booleans(), max_size=9000))
def test_hypothesis_nonzero(bits):
    m = np.array(bits, bool)
    np.testing.assert_array_equal(nonzero(m).numpy(), np.flatnonzero(m))


# -- run_length_encode ---------------------------------------------------------------
def rle_reference(x):
    x = np.ravel(x)
    if x.size == 0:
        return x, np.zeros(0, np.int64)
    differ = (x[1:] != x[:-1]) & ~(np.isnan(x[1:]) & np.isnan(x[:-1])) if x.dtype.kind == "f" else x[1:] != x[:-1]
    starts = np.flatnonzero(np.concatenate([[True], differ]))
    return x[starts], np.diff(np.append(starts, x.size))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 257, 4097, 100_001])
def test_run_length_encode(dtype, n):
    rng = np.random.default_rng(n)
    for x in (rng.integers(0, 3, n).astype(dtype), np.full(n, 5, dtype), np.arange(n).astype(dtype)):
        v, c = run_length_encode(x)
        want_v, want_c = rle_reference(x)
        np.testing.assert_array_equal(v.numpy(), want_v)
        np.testing.assert_array_equal(c.numpy(), want_c)


def test_run_length_encode_nan():
    x = np.array([np.nan, np.nan, 1, 1, np.nan, 0.0, -0.0], np.float32)
    v, c = run_length_encode(x)
    np.testing.assert_array_equal(v.numpy(), [np.nan, 1, np.nan, 0.0])
    np.testing.assert_array_equal(c.numpy(), [2, 2, 1, 2])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=5000))
def test_hypothesis_rle(items):
    x = np.array(items, np.int32)
    v, c = run_length_encode(x)
    want_v, want_c = rle_reference(x)
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(c.numpy(), want_c)


# -- unique (needs wgprim.api.sort) --------------------------------------------------
def check_unique(x):
    got = unique(x, return_inverse=True, return_counts=True)
    want = np.unique(x, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(unique(x).numpy(), want[0])


@needs_sort
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 257, 4097, 100_001])
@using(UniqueDensePolicy, enabled=False)  # the sort path (narrow integer ranges take a bitmap: test_unique_dense.py)
def test_unique(dtype, n):
    rng = np.random.default_rng(n)
    check_unique(rng.integers(0, 50, n).astype(dtype))
    check_unique(np.full(n, 7, dtype))  # all equal
    check_unique(rng.permutation(n).astype(dtype))  # all distinct


@needs_sort
def test_unique_nan_and_shape():
    x = np.array([[np.nan, 1, 0.0], [np.nan, -0.0, 1]], np.float32)
    v, inv = unique(x, return_inverse=True)
    want_v, want_inv = np.unique(x, return_inverse=True)
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(inv.numpy(), want_inv)
    assert inv.shape == want_inv.shape


@pytest.mark.parametrize("tiles_per_group", [1, 2, 8])
def test_blocks(tiles_per_group):
    # several tiles per workgroup (a block: one count, one prefix); sizes around block and
    # tile boundaries
    with using(SelectPolicy, tiles_per_group=tiles_per_group):
        check_blocks()


def check_blocks():
    for n in (1, 4095, 4097, 8191, 8193, 32768 + 5, 100_003):
        x = values(n, np.float32, seed=n)
        for name, m in masks(n, seed=n):
            # the blocks are the three-phase path's (the single pass has one tile a workgroup)
            got = compact(x, m, method="three-phase").numpy()
            np.testing.assert_array_equal(got, x[m], err_msg=f"{n} {name}")
            got = nonzero(m, method="three-phase").numpy()
            np.testing.assert_array_equal(got, np.flatnonzero(m), err_msg=f"{n} {name}")
            got = compact(x, m, ordered=False).numpy()
            np.testing.assert_array_equal(np.sort(got), np.sort(x[m]), err_msg=f"{n} {name}")
    # non-numpy bool bytes and a mask tail inside one vec4 of the count
    raw = np.array([0, 1, 2, 255, 0, 128, 7, 0, 0, 3, 1, 0, 9], np.uint8).view(bool)
    np.testing.assert_array_equal(nonzero(raw).numpy(), np.flatnonzero(raw))


# How a tile's kept elements are written (SelectPolicy.emit): "subgroup" (each store instruction
# of a subgroup writes one unbroken run; the default above 2^22 elements where subgroups
# are consecutive invocations, lavapipe included) and "words" (each invocation its own 4
# elements; the GL backend's, the single pass's, and the default below). Masks whose density changes every few elements, so
# that rows of a subgroup, their 4 runs and the lanes below each lane all differ.
@pytest.mark.parametrize("emit", ["subgroup", "words"])
@pytest.mark.parametrize("n", [1, 7, 127, 129, 1023, 1025, 4095, 4097, 3 * 4096 + 100, 100_003])
def test_tile_writes(emit, n):
    with using(SelectPolicy, emit=emit):
        check_tile_writes(n)


def check_tile_writes(n):
    rng = np.random.default_rng(n)
    x = values(n, np.float32, seed=n)
    patterns = dict(masks(n, seed=n))
    patterns["striped"] = rng.random(n) < (np.arange(n) // 5 % 4) / 3.0
    patterns["odd lanes"] = (np.arange(n) // 4 % 2).astype(bool)
    for name, m in patterns.items():
        np.testing.assert_array_equal(compact(x, m, method="three-phase").numpy(), x[m], err_msg=name)
        np.testing.assert_array_equal(nonzero(m, method="three-phase").numpy(), np.flatnonzero(m), err_msg=name)
        got = compact(x, m, ordered=False).numpy()
        np.testing.assert_array_equal(np.sort(got), np.sort(x[m]), err_msg=name)
        got = nonzero(m, ordered=False).numpy()
        np.testing.assert_array_equal(np.sort(got), np.flatnonzero(m), err_msg=name)


@pytest.mark.parametrize("emit", ["subgroup", "words"])
@settings(max_examples=25, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=12000))
def test_hypothesis_tile_writes(emit, bits):
    with using(SelectPolicy, emit=emit):
        m = np.array(bits, bool)
        x = np.arange(m.size, dtype=np.int32) * 3 - 7
        np.testing.assert_array_equal(compact(x, m, method="three-phase").numpy(), x[m])
        np.testing.assert_array_equal(nonzero(m, method="three-phase").numpy(), np.flatnonzero(m))


def test_emit_rule():
    # runs above subgroup_emit_above elements where subgroups allow them, words below
    import wgprim.ops.select as S
    from wgprim.probes import consecutive_subgroups

    dev = wgprim.get_device()
    above = "select_emit_subgroup" if consecutive_subgroups(dev) else "select_emit_words"
    limit = SelectPolicy().subgroup_emit_above
    assert S.emit_fragment(dev, limit) == "select_emit_words"
    assert S.emit_fragment(dev, limit + 1) == above
    with using(SelectPolicy, emit="words"):
        assert S.emit_fragment(dev, 1 << 28) == "select_emit_words"
    with using(SelectPolicy, emit="subgroup"):
        assert S.emit_fragment(dev, 10) == above


def test_emit_setting_is_checked():
    with using(SelectPolicy, emit="rows"):
        with pytest.raises(ValueError, match="emit must be"):
            compact(np.arange(5000, dtype=np.float32), np.ones(5000, bool), method="three-phase")


@pytest.mark.parametrize("tiles", [15, 16, 17, 31, 33])
def test_count_of_sixteen_tiles_per_workgroup(tiles):
    # The three-phase count dispatch counts 16 tiles per workgroup (select_count): sizes around a
    # group of 16, and every tile a different density, so that a count landing on another
    # tile's slot moves the kept elements.
    import wgprim.ops.select as S

    rng = np.random.default_rng(tiles)
    for n in (tiles * S.TILE - 3, tiles * S.TILE, tiles * S.TILE + 5):
        density = (np.arange(n) // S.TILE % 7) / 7.0
        m = rng.random(n) < density
        x = values(n, np.float32, seed=tiles)
        got = compact(x, m, method="three-phase").numpy()
        np.testing.assert_array_equal(got, x[m], err_msg=f"{n}")
        got = nonzero(m, method="three-phase").numpy()
        np.testing.assert_array_equal(got, np.flatnonzero(m), err_msg=f"{n}")


def test_unique_keeps_distinct_denormals_and_merges_signed_zeros():
    tiny = np.float32(1.4e-45)
    x = np.array([tiny, 0.0, -0.0, 2 * tiny, tiny, -tiny, np.nan, np.nan], np.float32)
    values, counts = wgprim.unique(x, return_counts=True)
    ref_values, ref_counts = np.unique(x, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), ref_values)
    np.testing.assert_array_equal(counts.numpy(), ref_counts)


def test_unique_and_inverse_beyond_one_binding(monkeypatch):
    from support import check_binding_sizes

    check_binding_sizes(monkeypatch)
    rng = np.random.default_rng(11)
    x = rng.integers(0, 20_000, 70_000).astype(np.uint32)
    # The sort path (test_unique_dense.py: the bitmap's); 16384 keys a binding: the sort spans five.
    with binding_limit(64 * 1024), using(UniqueDensePolicy, enabled=False):
        values, inverse, counts = unique(x, return_inverse=True, return_counts=True)
    ref = np.unique(x, return_inverse=True, return_counts=True)
    for got, want in zip((values, inverse, counts), ref):
        np.testing.assert_array_equal(got.numpy(), want)


# -- unique and run_length_encode: the input's own bits, 64-bit values, bindings --------
from hypothesis import HealthCheck  # noqa: E402

from support import check_binding_sizes  # noqa: E402

NAN32 = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FC0BEEF]
NAN64 = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF80000DEADBEEF]
RUN_DTYPES = [np.float32, np.int32, np.float64, np.int64, np.uint64]


def bits(a):
    a = np.asarray(a)
    return a.view(np.uint64 if a.itemsize == 8 else np.uint32)


def salted(rng, n, dtype, distinct=50):
    """Few distinct values (runs and repeats), floats salted with both zeros, NaNs of many
    payloads, denormals and infinities; integers with their dtype's extremes."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        info = np.iinfo(dtype)
        pool = np.concatenate([rng.integers(info.min, info.max, distinct, dtype=dtype, endpoint=True),
                               np.array([info.min, info.max, 0], dtype)])
        return rng.choice(pool, n)
    nans = np.array(NAN64, np.uint64) if dtype.itemsize == 8 else np.array(NAN32, np.uint32)
    tiny = np.finfo(dtype).smallest_subnormal
    pool = np.concatenate([rng.standard_normal(distinct).astype(dtype), nans.view(dtype),
                           np.array([0.0, -0.0, np.inf, -np.inf, tiny, -tiny, 2 * tiny], dtype)])
    return rng.choice(pool, n)


def runs_of(x):
    """numpy's runs: starts where an element differs from the one before (NaNs equal)."""
    differ = x[1:] != x[:-1]
    if x.dtype.kind == "f":
        differ &= ~(np.isnan(x[1:]) & np.isnan(x[:-1]))
    return np.flatnonzero(np.concatenate([[True], differ])) if x.size else np.zeros(0, np.int64)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(0, 6000), dtype=st.sampled_from(RUN_DTYPES), run=st.integers(1, 6), seed=st.integers(0, 2**31))
def test_run_length_encode_keeps_the_first_of_each_run(n, dtype, run, seed):
    rng = np.random.default_rng(seed)
    x = np.repeat(salted(rng, -(-n // run), dtype, distinct=3), run)[:n]
    v, c = run_length_encode(x)
    starts = runs_of(x)
    np.testing.assert_array_equal(bits(v.numpy()), bits(x[starts]))  # -0.0 and NaN payloads as given
    np.testing.assert_array_equal(c.numpy(), np.diff(np.append(starts, n)))


@pytest.mark.parametrize("dtype", [np.float32, np.uint64])
def test_run_length_encode_beyond_one_binding(dtype, monkeypatch):
    check_binding_sizes(monkeypatch)
    rng = np.random.default_rng(5)
    x = np.repeat(salted(rng, 40_000, dtype, distinct=3), rng.integers(1, 4, 40_000))[:70_001]
    with binding_limit(4096 * 8):  # 8192 or 4096 elements a binding; runs cross every edge
        v, c = run_length_encode(x)
    starts = runs_of(x)
    np.testing.assert_array_equal(bits(v.numpy()), bits(x[starts]))
    np.testing.assert_array_equal(c.numpy(), np.diff(np.append(starts, x.size)))


def unique_reference(x, equal_nan=True):
    """numpy's unique by its stable sort (what np.unique(return_index=True) runs): the
    first of equal values, its bits; first indices, inverse, counts."""
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                               equal_nan=equal_nan)
    return x.ravel()[index], index, inverse, counts


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 5000), dtype=st.sampled_from([np.float32, np.float64, np.int64]), equal_nan=st.booleans(),
       seed=st.integers(0, 2**31))
def test_unique_values_are_the_first_of_equals(n, dtype, equal_nan, seed):
    x = salted(np.random.default_rng(seed), n, dtype, distinct=max(1, n // 3))
    want = unique_reference(x, equal_nan)
    got = unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    np.testing.assert_array_equal(bits(got[0].numpy()), bits(want[0]))
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(bits(unique(x, equal_nan=equal_nan).numpy()), bits(want[0]))
    np.testing.assert_array_equal(bits(unique(x, return_counts=True)[0].numpy()), bits(unique_reference(x)[0]))


def test_array_api_unique_names(rng):
    x = salted(rng, 3 * 500, np.float32).reshape(3, 500)
    values, index, inverse, counts = unique_reference(x, equal_nan=False)  # each NaN distinct
    got = wgprim.unique_all(x)
    assert type(got).__name__ == "UniqueAllResult" and got._fields == ("values", "indices", "inverse_indices", "counts")
    np.testing.assert_array_equal(bits(got.values.numpy()), bits(values))
    np.testing.assert_array_equal(got.indices.numpy(), index)
    np.testing.assert_array_equal(got.inverse_indices.numpy(), inverse.reshape(x.shape))
    np.testing.assert_array_equal(got.counts.numpy(), counts)
    np.testing.assert_array_equal(bits(wgprim.unique_values(x).numpy()), bits(values))
    c = wgprim.unique_counts(x)
    assert c._fields == ("values", "counts") and np.array_equal(c.counts.numpy(), counts)
    i = wgprim.unique_inverse(x)
    assert i._fields == ("values", "inverse_indices")
    np.testing.assert_array_equal(i.inverse_indices.numpy(), inverse.reshape(3, 500))
    np.testing.assert_array_equal(np.sort(np.asarray(np.unique_values(x))), np.asarray(values))  # numpy's, sorted
    y = rng.integers(0, 40, 777).astype(np.int32)  # integers in a narrow range: the bitmap
    np.testing.assert_array_equal(wgprim.unique_counts(y).counts.numpy(), np.unique_counts(y).counts)
    assert wgprim.unique_all(np.zeros(0, np.float32)).values.shape == (0,)
