"""wgprim.dask on dask's local threaded scheduler: every function against numpy on the
concatenated data, for chunkings with empty chunks, one chunk and uneven chunks."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import wgprim  # noqa: E402
import wgprim.dask as wd  # noqa: E402
from support import informative, random_values  # noqa: E402

DTYPES = [np.uint32, np.int32, np.float32]
N = 3000
# uneven with empty chunks (first, middle, last); many small uneven chunks. One chunk:
# test_one_chunk and the hypothesis test.
CHUNKINGS = {
    "uneven-empty": (0, 700, 0, 1, 1299, 1000, 0),
    "many": (257,) * 5 + (N - 257 * 5,),
}


def compute(d):
    return d.compute(scheduler="threads")


def dask_of(x, chunks):
    return da.from_array(x, chunks=(chunks,), asarray=True)


@pytest.fixture(params=list(CHUNKINGS))
def chunks(request):
    return CHUNKINGS[request.param]


def with_nans_and_zeros(rng, x):
    x = x.copy()
    x[rng.choice(x.size, 5, replace=False)] = np.nan
    x[rng.choice(x.size, 5, replace=False)] = -0.0
    x[rng.choice(x.size, 5, replace=False)] = 0.0
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "bitwise_and", "bitwise_or", "bitwise_xor"])
def test_reduce_whole_array(rng, chunks, dtype, op):
    if op.startswith("bitwise") and dtype == np.float32:
        pytest.skip("bitwise operators take integers")
    x = informative(rng, N, dtype, op)
    got = compute(wd.reduce(dask_of(x, chunks), op, split_every=2))  # a tree of several levels
    if dtype == np.float32 and op == "prod":
        y = (1 + rng.standard_normal(N).astype(np.float32) / 1000)  # a product that stays finite
        got = compute(wd.prod(dask_of(y, chunks)))
        exact = np.prod(y.astype(np.float64))
        assert abs(float(got) - exact) <= 2 * N * np.finfo(np.float32).eps * abs(exact)
        return
    ref = {"sum": lambda a: a.sum(dtype=a.dtype), "prod": lambda a: a.prod(dtype=a.dtype), "min": np.min,
           "max": np.max, "bitwise_and": np.bitwise_and.reduce, "bitwise_or": np.bitwise_or.reduce,
           "bitwise_xor": np.bitwise_xor.reduce}[op](x)
    assert got.shape == () and got.dtype == x.dtype
    if dtype == np.float32 and op == "sum":
        assert abs(float(got) - float(x.astype(np.float64).sum())) <= wd.sum_error_bound(dask_of(x, chunks), np.abs(x).sum(dtype=np.float64))
    else:
        assert got == ref


@pytest.mark.parametrize("op", ["min", "max", "argmin", "argmax"])
def test_float_nan_and_ties(rng, chunks, op):
    x = rng.integers(-3, 4, N).astype(np.float32)  # many ties
    x[rng.choice(N, 5, replace=False)] = -0.0
    got = compute(getattr(wd, op)(dask_of(x, chunks)))
    assert got == getattr(np, op)(x)
    x[rng.choice(N, 3, replace=False)] = np.nan
    got = compute(getattr(wd, op)(dask_of(x, chunks)))
    ref = getattr(np, op)(x)
    assert (np.isnan(got) and np.isnan(ref)) if op in ("min", "max") else got == ref


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["argmin", "argmax"])
def test_arg_reductions(rng, chunks, dtype, op):
    x = random_values(rng, N, dtype)
    got = compute(getattr(wd, op)(dask_of(x, chunks), split_every=2))
    assert got == getattr(np, op)(x) and got.dtype == np.int64


ROW_CHUNKS = [((7,), (9,)), ((3, 0, 4), (2, 7)), ((1, 1, 5), (4, 0, 5))]


@pytest.mark.parametrize("chunks2", ROW_CHUNKS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_axis_reductions(rng, chunks2, axis, keepdims):
    x = random_values(rng, 63, np.int32).reshape(7, 9) % 100
    d = da.from_array(x, chunks=chunks2)
    for op in ("sum", "min", "max"):
        got = compute(getattr(wd, op)(d, axis=axis, keepdims=keepdims))
        ref = getattr(np, op)(x, axis=axis, keepdims=keepdims, **({"dtype": x.dtype} if op == "sum" else {}))
        np.testing.assert_array_equal(got, ref)
        assert got.shape == ref.shape
    if not isinstance(axis, tuple):
        for op in ("argmin", "argmax"):
            got = compute(getattr(wd, op)(d, axis=axis, keepdims=keepdims))
            np.testing.assert_array_equal(got, getattr(np, op)(x, axis=axis, keepdims=keepdims))


def test_float_axis_sum_within_bound(rng):
    x = (rng.standard_normal((40, 33)) * 100).astype(np.float32)
    d = da.from_array(x, chunks=((10, 0, 30), (11, 22)))
    for axis in (0, 1):
        got = compute(wd.sum(d, axis=axis))
        exact = x.astype(np.float64).sum(axis=axis)
        assert np.all(np.abs(got - exact) <= wd.sum_error_bound(d, np.abs(x).astype(np.float64).sum(axis=axis), axis=axis))


def test_custom_monoid(rng, chunks):
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    absmax = wgprim.Monoid("max(abs(a), abs(b))", identity=0)
    assert compute(wd.reduce(dask_of(x, chunks), absmax)) == np.abs(x).max()


def test_empty_and_errors():
    empty = da.zeros((0,), dtype=np.float32, chunks=5)
    assert compute(wd.sum(empty)) == 0
    assert compute(wd.prod(empty)) == 1
    for fn in (wd.min, wd.max, wd.argmin, wd.argmax):
        with pytest.raises(ValueError):
            fn(empty)
    with pytest.raises(TypeError, match="not supported"):
        wd.sum(da.ones(10, dtype=np.float64, chunks=3))
    with pytest.raises(TypeError):
        wd.reduce(da.ones(10, dtype=np.float32, chunks=3), "bitwise_and")
    with pytest.raises(ValueError, match="unknown operator"):
        wd.reduce(da.ones(10, dtype=np.float32, chunks=3), "median")
    with pytest.raises(ValueError):  # numpy's AxisError is a ValueError and an IndexError
        wd.sum(da.ones((2, 3), dtype=np.float32, chunks=2), axis=2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "bitwise_or"])
def test_scans(rng, chunks, dtype, op):
    if op == "bitwise_or" and dtype == np.float32:
        return
    x = informative(rng, N, dtype, op)
    if dtype == np.float32 and op == "prod":
        x = (1 + rng.standard_normal(N) / 1000).astype(np.float32)
    ufunc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum, "bitwise_or": np.bitwise_or}[op]
    ref = ufunc.accumulate(x.astype(np.float64) if dtype == np.float32 else x, dtype=None)
    for exclusive in (False, True):
        got = compute(wd.scan(dask_of(x, chunks), op, exclusive=exclusive))
        assert got.dtype == x.dtype and got.shape == x.shape
        want = ref if not exclusive else np.concatenate([[wgprim.ops.operators.identity_value(op, x.dtype)], ref[:-1]])
        if dtype == np.float32 and op == "sum":
            bound = wd.cumsum_error_bound(dask_of(x, chunks), np.cumsum(np.abs(x).astype(np.float64)))
            bound = bound if not exclusive else np.concatenate([[0], bound[:-1]])
            assert np.all(np.abs(got - want) <= bound)
        elif dtype == np.float32 and op == "prod":
            np.testing.assert_allclose(got, want, rtol=2 * N * np.finfo(np.float32).eps)
        else:
            np.testing.assert_array_equal(got, want.astype(x.dtype))


def test_scan_nan_and_axis(rng):
    x = rng.standard_normal((6, 50)).astype(np.float32)
    x[2, 17] = np.nan
    d = da.from_array(x, chunks=((2, 0, 4), (10, 0, 25, 15)))
    np.testing.assert_array_equal(compute(wd.scan(d, "max", axis=1)), np.maximum.accumulate(x, axis=1))
    np.testing.assert_array_equal(compute(wd.scan(d, "min", axis=0)), np.minimum.accumulate(x, axis=0))
    np.testing.assert_array_equal(compute(wd.scan(d, "max")), np.maximum.accumulate(x.ravel()))
    xi = rng.integers(-50, 50, (6, 50)).astype(np.int32)
    di = da.from_array(xi, chunks=((2, 0, 4), (10, 0, 25, 15)))
    np.testing.assert_array_equal(compute(wd.cumsum(di, axis=0)), np.cumsum(xi, axis=0, dtype=np.int32))
    with pytest.raises(ValueError, match="unknown operator"):
        wd.scan(di, "argmax")


def test_scan_with_a_monoid(rng, chunks):
    """A custom operator's carries are combined on the GPU; this one does not commute
    (keep the later non-zero value), so the order of the carries shows."""
    last_nonzero = wgprim.Monoid("select(a, b, b != 0u)", identity=0)
    x = rng.integers(0, 4, N).astype(np.uint32)
    x[rng.random(N) < 0.9] = 0
    ref = np.maximum.accumulate(np.where(x != 0, np.arange(N), -1))
    want = np.where(ref >= 0, x[np.maximum(ref, 0)], 0).astype(np.uint32)
    np.testing.assert_array_equal(compute(wd.scan(dask_of(x, chunks), last_nonzero)), want)
    np.testing.assert_array_equal(compute(wd.scan(dask_of(x, chunks), last_nonzero, exclusive=True)),
                                  np.concatenate([[0], want[:-1]]).astype(np.uint32))
    m = rng.integers(-9, 9, (5, 40)).astype(np.int32)
    dm = da.from_array(m, chunks=((2, 3), (10, 0, 30)))
    absmax = wgprim.Monoid("max(abs(a), abs(b))", identity=0)
    np.testing.assert_array_equal(compute(wd.scan(dm, absmax, axis=1)), np.maximum.accumulate(np.abs(m), axis=1))
    np.testing.assert_array_equal(compute(wd.scan(dm, absmax, axis=0)), np.maximum.accumulate(np.abs(m), axis=0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_histogram(rng, chunks, dtype):
    x = random_values(rng, N, dtype)
    if dtype == np.float32:
        x = with_nans_and_zeros(rng, x)
    lo, hi = (float(np.nanmin(x)), float(np.nanmax(x))) if dtype != np.float32 else (-150.0, 150.0)
    for bins, rng_ in ((37, (lo, hi)), (np.array([lo, lo / 2 + hi / 2, hi * 0.75 + lo * 0.25, hi]), None)):
        h, edges = wd.histogram(dask_of(x, chunks), bins=bins, range=rng_)
        ref, ref_edges = np.histogram(x, bins=bins, range=rng_)
        np.testing.assert_array_equal(edges, ref_edges)
        np.testing.assert_array_equal(compute(h), ref)
    w = rng.random(N).astype(np.float32)
    h, _ = wd.histogram(dask_of(x, chunks), bins=16, range=(lo, hi), weights=dask_of(w, chunks))
    np.testing.assert_allclose(compute(h), np.histogram(x, 16, (lo, hi), weights=w.astype(np.float64))[0], rtol=1e-5)
    h, _ = wd.histogram(dask_of(x, chunks), bins=16, range=(lo, hi), density=True)
    np.testing.assert_allclose(compute(h), np.histogram(x, 16, (lo, hi), density=True)[0], rtol=1e-12)
    with pytest.raises(ValueError, match="range"):
        wd.histogram(dask_of(x, chunks), bins=10)
    with pytest.raises(NotImplementedError, match="number of bins or a monotonic sequence of edges"):
        wd.histogram(dask_of(x, chunks), bins="auto", range=(lo, hi))


@pytest.mark.parametrize("dtype", [np.uint32, np.int32])
def test_bincount(rng, chunks, dtype):
    x = rng.integers(0, 300, N).astype(dtype)
    d = dask_of(x, chunks)
    np.testing.assert_array_equal(compute(wd.bincount(d)), np.bincount(x))
    np.testing.assert_array_equal(compute(wd.bincount(d, minlength=1000)), np.bincount(x, minlength=1000))
    w = rng.random(N).astype(np.float32)
    np.testing.assert_allclose(compute(wd.bincount(d, weights=dask_of(w, chunks))), np.bincount(x, w), rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique(rng, chunks, dtype):
    x = (rng.integers(0, 200, N) - (100 if dtype != np.uint32 else 0)).astype(dtype)
    if dtype == np.float32:
        x = with_nans_and_zeros(rng, x / 4)
    d = dask_of(x, chunks)
    for split_every in (2, 8):
        values, counts = wd.unique(d, return_counts=True, split_every=split_every)
        ref_values, ref_counts = np.unique(x, return_counts=True)
        np.testing.assert_array_equal(compute(values), ref_values)
        np.testing.assert_array_equal(compute(counts), ref_counts)
        np.testing.assert_array_equal(compute(wd.unique(d, split_every=split_every)), ref_values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_topk(rng, chunks, dtype):
    x = random_values(rng, N, dtype)
    if dtype == np.float32:
        x = with_nans_and_zeros(rng, x)
    for k in (1, 5, 100, -7, N + 5, -(N + 5)):
        got = wd.topk(dask_of(x, chunks), k, split_every=3)
        ref = np.sort(x)[::-1][:k] if k > 0 else np.sort(x)[:-k]
        assert got.shape == ref.shape
        np.testing.assert_array_equal(compute(got), ref)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_argsort(rng, chunks, dtype):
    x = random_values(rng, N, dtype)
    if dtype == np.float32:
        x = with_nans_and_zeros(rng, x)
    x[rng.choice(N, 300)] = x[7]  # a heavy duplicate
    d = dask_of(x, chunks)
    for partitions in (None, 1, 5):
        got = compute(wd.sort(d, partitions=partitions))
        np.testing.assert_array_equal(got, np.sort(x))
        np.testing.assert_array_equal(compute(wd.argsort(d, partitions=partitions)), np.argsort(x, kind="stable"))
    assert wd.argsort(d).dtype == np.int64


def test_sort_chunk_sizes_and_errors(rng):
    x = rng.integers(0, 10, 1000).astype(np.int32)  # few distinct values: skewed partitions
    s = wd.sort(da.from_array(x, chunks=100)).compute_chunk_sizes()
    assert sum(s.chunks[0]) == 1000
    np.testing.assert_array_equal(compute(s), np.sort(x))
    with pytest.raises(ValueError, match="one-dimensional"):
        wd.sort(da.ones((3, 3), dtype=np.float32))
    with pytest.raises(TypeError):
        wd.sort(da.ones(3, dtype=np.int64))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    sizes=st.lists(st.integers(0, 400), min_size=1, max_size=6),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**31),
)
def test_hypothesis_chunkings(sizes, dtype, seed):
    rng = np.random.default_rng(seed)
    x = random_values(rng, sum(sizes), dtype) // (1 if dtype == np.float32 else 2**24)
    x = x.astype(dtype)
    d = da.from_array(x, chunks=(tuple(sizes),))
    total, running = compute(wd.sum(d)), compute(wd.cumsum(d))
    if dtype == np.float32:
        exact = x.astype(np.float64)
        assert abs(total - exact.sum()) <= wd.sum_error_bound(d, np.abs(exact).sum())
        assert np.all(np.abs(running - np.cumsum(exact)) <= wd.cumsum_error_bound(d, np.cumsum(np.abs(exact))))
    else:
        assert total == x.sum(dtype=x.dtype)
        np.testing.assert_array_equal(running, np.cumsum(x, dtype=x.dtype))
    np.testing.assert_array_equal(compute(wd.sort(d)), np.sort(x))
    np.testing.assert_array_equal(compute(wd.unique(d, split_every=2)), np.unique(x))
    if x.size:
        assert compute(wd.argmax(d)) == np.argmax(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_chunk(rng, dtype):
    x = random_values(rng, N, dtype)
    d = dask_of(x, (N,))
    assert compute(wd.min(d)) == x.min() and compute(wd.argmin(d)) == x.argmin()
    if dtype != np.float32:
        assert compute(wd.sum(d)) == x.sum(dtype=x.dtype)
        np.testing.assert_array_equal(compute(wd.cumsum(d)), np.cumsum(x, dtype=x.dtype))
    lo, hi = float(x.min()), float(x.max())
    np.testing.assert_array_equal(compute(wd.histogram(d, bins=50, range=(lo, hi))[0]), np.histogram(x, 50, (lo, hi))[0])
    np.testing.assert_array_equal(compute(wd.sort(d)), np.sort(x))
    np.testing.assert_array_equal(compute(wd.argsort(d)), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(compute(wd.topk(d, -4)), np.sort(x)[:4])
    values, counts = wd.unique(d % 100 if dtype != np.float32 else d, return_counts=True)
    ref = np.unique(x % 100 if dtype != np.float32 else x, return_counts=True)
    np.testing.assert_array_equal(compute(values), ref[0])
    np.testing.assert_array_equal(compute(counts), ref[1])


def test_reused_upload_buffer(rng, monkeypatch):
    """Big chunks go through one kept GPU buffer per process: results stay right when
    chunk after chunk overwrites it (forced here on small chunks)."""
    import wgprim.dask._chunk as chunk_module

    monkeypatch.setattr(chunk_module, "REUSE_BYTES", 0)
    x = random_values(rng, N, np.float32)
    d = dask_of(x, (500,) * 6)
    assert compute(wd.argmax(d)) == np.argmax(x)
    np.testing.assert_array_equal(compute(wd.histogram(d, bins=20, range=(-300, 300))[0]), np.histogram(x, 20, (-300, 300))[0])
    np.testing.assert_array_equal(compute(wd.sort(d)), np.sort(x))
    np.testing.assert_array_equal(compute(wd.argsort(d)), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(compute(wd.max(d.reshape(6, 500), axis=1)), x.reshape(6, 500).max(axis=1))
    np.testing.assert_array_equal(compute(wd.scan(d, "max")), np.maximum.accumulate(x))


@pytest.mark.parametrize("chunks", [(0,), (0, 0, 0)])
def test_all_chunks_empty(chunks):
    d = da.from_array(np.zeros(0, np.int32), chunks=(chunks,))
    assert compute(wd.sum(d)) == 0
    for fn in (wd.sort, wd.argsort, wd.unique, wd.cumsum, lambda a: wd.topk(a, 3), wd.bincount):
        assert compute(fn(d)).size == 0
    values, counts = wd.unique(d, return_counts=True)
    assert compute(values).size == 0 and compute(counts).size == 0
    np.testing.assert_array_equal(compute(wd.histogram(d, bins=4, range=(0, 4))[0]), np.zeros(4))
    np.testing.assert_array_equal(compute(wd.bincount(d, minlength=3)), np.zeros(3))


def test_two_dimensional_inputs_flatten(rng):
    """histogram, unique, topk and cumsum (axis=None) take any shape and flatten, as numpy."""
    x = rng.random((30, 40)).astype(np.float32)
    w = rng.random((30, 40)).astype(np.float32)
    d = da.from_array(x, chunks=((10, 0, 20), (15, 25)))
    dw = da.from_array(w, chunks=((30,), (40,)))  # other chunks than x: rechunked to match
    h, _ = wd.histogram(d, bins=7, range=(0, 1), weights=dw)
    np.testing.assert_allclose(compute(h), np.histogram(x, 7, (0, 1), weights=w.astype(np.float64))[0], rtol=1e-5)
    np.testing.assert_array_equal(compute(wd.histogram(d, bins=7, range=(0, 1))[0]), np.histogram(x, 7, (0, 1))[0])
    np.testing.assert_array_equal(compute(wd.unique(d)), np.unique(x))
    np.testing.assert_array_equal(compute(wd.topk(d, 3)), np.sort(x.ravel())[::-1][:3])
    exact = np.cumsum(x.astype(np.float64))
    assert np.all(np.abs(compute(wd.cumsum(d)) - exact) <= wd.cumsum_error_bound(d, exact))
    assert compute(wd.argmax(d)) == np.argmax(x)
