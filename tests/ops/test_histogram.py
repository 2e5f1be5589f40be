"""histogram and bincount against numpy."""
import numpy as np
import pytest

import wgprim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wgprim.device import binding_limit
from wgprim.api.histogram import bincount, histogram
from wgprim.ops.histogram import HistogramPolicy
from wgprim.tuning import using

DTYPES = [np.uint32, np.int32, np.float32]
WIDE = [np.uint64, np.int64, np.float64]
SIZES = [0, 1, 255, 256, 257, 1023, 1025, 4097, 65537, 300_001]


def data(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 100).astype(dtype)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-1000, 1000, n).astype(dtype)
    return rng.integers(0, 2000, n).astype(dtype)


def check(x, **kw):
    got, edges = histogram(x, **kw)
    want, want_edges = np.histogram(x, **kw)
    np.testing.assert_array_equal(edges, want_edges)
    assert edges.dtype == want_edges.dtype
    if kw.get("weights") is not None and np.asarray(kw["weights"]).dtype.kind == "f":
        w = np.abs(np.asarray(kw["weights"], np.float64))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5 * w.sum() + 1e-6)
    else:
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_auto_range(dtype, n):
    check(data(n, dtype, seed=n), bins=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bins", [1, 3, 256, 1000, 5000, 20000])
def test_bin_counts(dtype, bins):
    # 20000 bins do not fit in workgroup memory on most devices: the global-atomic path
    check(data(50_000, dtype, seed=bins), bins=bins, range=(-150, 1500))


def test_values_on_edges_f32():
    # every edge and its float32 neighbours: numpy's comparisons decide the bin
    for lo, hi, bins in [(0.1, 0.9, 7), (-1.0, 1.0, 256), (0.0, 1e-3, 13), (3.0, 3.0, 5)]:
        _, edges = np.histogram(np.zeros(0, np.float32), bins=bins, range=(lo, hi))
        e = edges.astype(np.float32)
        x = np.concatenate([e, np.nextafter(e, np.float32(np.inf)), np.nextafter(e, np.float32(-np.inf))])
        check(x, bins=bins, range=(lo, hi))
        check(x, bins=bins)


def test_values_on_edges_int():
    x = np.arange(-20, 40, dtype=np.int32)
    for bins, rng in [(7, (0.5, 10.5)), (3, (0, 9)), (10, (-3.3, 30.7)), (64, (-20, 39))]:
        check(x, bins=bins, range=rng)
    check(np.arange(0, 300, dtype=np.uint32), bins=7, range=(10, 200))


def test_float64_range_on_float32_data():
    # numpy scalars of float64 make numpy compare in float64: edges are float64 then
    x = np.linspace(0, 1, 1001, dtype=np.float32)
    check(x, bins=10, range=(np.float64(0.1), np.float64(0.7)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_explicit_edges(dtype):
    x = data(20_000, dtype, seed=3)
    check(x, bins=[-100, -3.5, 0, 0, 2, 17.25, 500, 1000])
    check(x, bins=np.array([0, 1, 1, 1], np.float64))
    check(x, bins=np.array([-50, 7, 900], np.int64))
    check(x, bins=np.linspace(-200, 2000, 333).astype(np.float32))



@pytest.mark.parametrize("dtype", DTYPES)
def test_explicit_evenly_spaced_edges(dtype):
    # evenly spaced edges (exactly, or within a tenth of a bin) take the uniform estimate,
    # checked against the edges themselves; uneven ones the binary search: same answers
    rng = np.random.default_rng(5)
    grid = np.linspace(-150, 1500, 201)
    jittered = grid + rng.uniform(-0.09, 0.09, grid.size) * (grid[1] - grid[0])
    uneven = np.concatenate([grid[:100], grid[100:] + 4 * (grid[1] - grid[0])])
    x = np.concatenate([data(30_000, dtype, seed=6)] + [
        np.clip(np.floor(e) + d, *_limits(dtype)).astype(dtype) for e in (grid, jittered) for d in (-1, 0, 1)])
    for edges in (grid, jittered, grid.astype(np.float32), uneven, np.geomspace(1, 1500, 40)):
        check(x, bins=edges)


def _limits(dtype):
    if np.dtype(dtype).kind == "f":
        return -np.inf, np.inf
    return np.iinfo(dtype).min, np.iinfo(dtype).max

def test_edges_beyond_int_range():
    x = np.array([0, 1, 2**31 - 1, 2**32 - 1], np.uint32)
    check(x, bins=[0, 1, 2**32 - 0.5, 2**33, 2**34])
    check(np.array([-(2**31), 0, 2**31 - 1], np.int32), bins=[-(2**40), -5.0, 2**31 - 1, 2**31 - 0.5, 2**40])


def test_bin_key_ranges_at_the_extremes():
    # the estimate's one-test check per bin must hold at the ends of the key range
    # (wrap-around), for bins the dtype cannot tell apart, and past the kept range
    u = np.array([0, 1, 2, 2**31, 2**32 - 2, 2**32 - 1], np.uint32)
    check(u, bins=1, range=(0, 2**32 - 1))  # one bin holding every key
    check(u, bins=3, range=(0, 2**32 - 1))
    check(u, bins=2, range=(1, 2**32 - 2))
    i = np.array([-(2**31), -(2**31) + 1, -1, 0, 1, 2**31 - 1], np.int32)
    check(i, bins=1, range=(-(2**31), 2**31 - 1))
    check(i, bins=4, range=(-(2**31), 2**31 - 1))
    check(i, bins=[-(2**31) - 0.5, -(2**31) - 0.2, -(2**31) + 0.5, 0])  # thresholds at the key 0
    check(np.arange(-3, 4, dtype=np.int32), bins=[0, 0.4, 0.6])  # a threshold past the last kept value
    check(np.arange(-3, 4, dtype=np.int32), bins=5, range=(0, 0.6))
    # float32 bins narrower than the spacing of the data: many empty bins, estimates off by many
    big = np.float32(1e8) + np.arange(-40, 120, dtype=np.float32) * np.float32(8)
    check(big, bins=256, range=(np.float64(1e8), np.float64(1e8 + 64)))  # float64 edges
    check(big, bins=7, range=(np.float64(1e8), np.float64(1e8 + 17)))
    f = np.array([np.finfo(np.float32).max, -np.finfo(np.float32).max, 0, 1], np.float32)
    top = np.float64(np.finfo(np.float32).max)
    check(f, bins=5, range=(-top, top))
    # NaNs of both signs and with payloads, infinities: never counted
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7F800000, 0xFF800000], np.uint32).view(np.float32)
    check(np.concatenate([nans, np.float32([0.25, 0.5])]), bins=4, range=(0, 1))


@settings(max_examples=30, deadline=None)
@given(
    dtype=st.sampled_from(DTYPES),
    bins=st.integers(1, 300),
    lo=st.integers(-2000, 2000),
    width=st.floats(1e-3, 5000),
    seed=st.integers(0, 2**32 - 1),
)
def test_hypothesis_values_next_to_edges(dtype, bins, lo, width, seed):
    # data at the edges and their neighbours in the data's dtype, where the uniform
    # estimate is checked against the bin's exact key range
    try:
        _, edges = np.histogram(np.zeros(0, dtype), bins=bins, range=(lo, lo + width))
    except ValueError:  # bins narrower than the dtype's spacing: numpy refuses, so must we
        with pytest.raises(ValueError):
            histogram(np.zeros(1, dtype), bins=bins, range=(lo, lo + width))
        return
    if np.dtype(dtype).kind == "f":
        e = edges.astype(np.float32)
        x = np.concatenate([e, np.nextafter(e, np.float32(np.inf)), np.nextafter(e, np.float32(-np.inf))])
    else:
        info = np.iinfo(dtype)
        base = np.clip(np.floor(edges), info.min, info.max).astype(np.int64)
        x = np.clip(np.concatenate([base - 1, base, base + 1]), info.min, info.max).astype(dtype)
    x = np.random.default_rng(seed).permutation(np.repeat(x, 3))
    check(x, bins=bins, range=(lo, lo + width))

def test_outside_range_and_nan_ignored():
    x = np.array([np.nan, -1, 0, 0.5, 1, 2, np.inf, -np.inf], np.float32)
    check(x, bins=4, range=(0, 1))
    with pytest.raises(ValueError):
        histogram(x, bins=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_skewed_one_bin(dtype):
    x = np.full(200_003, 7, dtype)
    check(x, bins=16)
    check(x, bins=256, range=(0, 100))


@pytest.mark.parametrize("wdtype", [np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("bins", [10, 300, 20000])
def test_weights(wdtype, bins):
    x = data(30_001, np.float32, seed=5)
    w = data(30_001, wdtype, seed=6)
    if wdtype == np.uint32:
        w = w % 100
    check(x, bins=bins, range=(-250, 250), weights=w)
    got, _ = histogram(x, bins=bins, range=(-250, 250), weights=w)
    assert got.dtype == np.dtype(wdtype)


def test_weights_skewed_f32():
    x = np.zeros(100_000, np.float32)
    w = np.full(100_000, 0.25, np.float32)
    got, _ = histogram(x, bins=4, range=(-1, 1), weights=w)
    np.testing.assert_array_equal(got.numpy(), [0, 0, 25_000, 0])  # exact: sums of quarters


def test_chunked_path():
    x = data(100_003, np.float32, seed=9)
    w = data(100_003, np.int32, seed=10)
    with binding_limit(64 * 1024):
        check(x, bins=50)
        check(x, bins=50, range=(-10, 10), weights=w)
        check(x, bins=[-5, 0, 5, 300])


def test_errors():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(TypeError):
        histogram(np.arange(10, dtype=np.int16))
    with pytest.raises(TypeError, match="float32"):  # weights: 32-bit
        histogram(x, weights=np.ones(10, np.float64))
    with pytest.raises(TypeError):
        histogram(np.ones(10, bool))
    with pytest.raises(ValueError):
        histogram(x, bins=0)
    with pytest.raises(ValueError):
        histogram(x, bins=[0, 2, 1])
    with pytest.raises(ValueError):
        histogram(x, bins=3, range=(2, 1))
    with pytest.raises(ValueError):
        histogram(x, weights=np.ones(3, np.float32))


@pytest.mark.parametrize("bins", ["auto", "fd", "sturges", "sqrt", "nonsense"])
def test_bin_estimators_not_implemented(bins):
    """numpy's string bins are refused with NotImplementedError naming what is supported."""
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(NotImplementedError, match="number of bins or a monotonic sequence of edges"):
        histogram(x, bins=bins)
    with pytest.raises(NotImplementedError, match=repr(bins)):
        histogram(x, bins=bins, range=(0, 10))


def test_density_not_implemented():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(NotImplementedError, match="density"):
        histogram(x, bins=4, density=True)
    counts, edges = histogram(x, bins=4, density=False)  # numpy's default: accepted
    ref, ref_edges = np.histogram(x, bins=4)
    np.testing.assert_array_equal(counts.numpy(), ref)
    np.testing.assert_array_equal(edges, ref_edges)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(st.floats(-1e4, 1e4, width=32), max_size=3000),
    bins=st.integers(1, 600),
    lo=st.floats(-1e4, 1e4, width=32),
    width=st.floats(0, 1e4, width=32),
)
def test_hypothesis_f32(values, bins, lo, width):
    x = np.array(values, np.float32)
    kw = {"bins": bins, "range": (lo, lo + width)}
    try:
        want = np.histogram(x, **kw)
    except ValueError:  # too many bins for a tiny range: numpy refuses, so must we
        with pytest.raises(ValueError):
            histogram(x, **kw)
        return
    got, edges = histogram(x, **kw)
    np.testing.assert_array_equal(got.numpy(), want[0])


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=2000), bins=st.integers(1, 300))
def test_hypothesis_i32(values, bins):
    check(np.array(values, np.int32), bins=bins)


# -- bincount ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.uint32, np.int32])
@pytest.mark.parametrize("n", SIZES)
def test_bincount(dtype, n):
    x = np.random.default_rng(n).integers(0, 300, n).astype(dtype)
    np.testing.assert_array_equal(bincount(x).numpy(), np.bincount(x))


def test_bincount_minlength_weights_and_many_bins():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 40, 5000).astype(np.int32)
    np.testing.assert_array_equal(bincount(x, minlength=100).numpy(), np.bincount(x, minlength=100))
    w = rng.standard_normal(5000).astype(np.float32)
    np.testing.assert_allclose(bincount(x, weights=w).numpy(), np.bincount(x, weights=w), rtol=1e-5, atol=1e-4)
    wi = rng.integers(-5, 5, 5000).astype(np.int32)
    np.testing.assert_array_equal(bincount(x, weights=wi).numpy(), np.bincount(x, weights=wi).astype(np.int32))
    big = rng.integers(0, 200_000, 10_000).astype(np.uint32)  # global-atomic path
    np.testing.assert_array_equal(bincount(big).numpy(), np.bincount(big))
    skew = np.full(100_000, 3, np.uint32)
    np.testing.assert_array_equal(bincount(skew).numpy(), np.bincount(skew))
    np.testing.assert_array_equal(bincount(np.zeros(0, np.int32), minlength=4).numpy(), np.zeros(4))
    with binding_limit(32 * 1024):
        np.testing.assert_array_equal(bincount(x.repeat(10)).numpy(), np.bincount(x.repeat(10)))


def test_bincount_errors():
    with pytest.raises(ValueError):
        bincount(np.array([1, -1, 2], np.int32))
    with pytest.raises(ValueError):
        bincount(np.array([1, 2], np.int32), minlength=-1)
    with pytest.raises(TypeError):
        bincount(np.array([1.0, 2.0], np.float32))
    with pytest.raises(ValueError):
        bincount(np.array([1, 2], np.int32), weights=np.ones(3, np.float32))


@pytest.mark.parametrize("copies,shared_edges,groups", [(1, False, 2048), (2, True, 3), (8, True, 1056), (256, False, 7)])
def test_private_copies_and_shared_edges(copies, shared_edges, groups):
    # every layout of the private histogram and both places the bin ranges are read
    # from, with few workgroups (each striding over many tiles) and many
    x = data(100_003, np.float32, seed=11)
    with using(HistogramPolicy, max_copies=copies, shared_edges=shared_edges, max_groups=groups):
        check(x, bins=256, range=(-300, 300))
        check(x, bins=[-100, -3.5, 0, 2, 17.25, 500])
        check(np.abs(x), bins=np.geomspace(1e-2, 400, 300))  # uneven edges: the guide table
        with using(HistogramPolicy, guide_cells_per_bin=copies % 4):  # a coarse guide (1, 2 cells per bin) or none
            check(np.abs(x), bins=np.geomspace(1e-2, 400, 300))
        check(np.full(50_001, 7, np.float32), bins=16)
        check(data(20_001, np.int32, seed=12), bins=1000, range=(-3.3, 30.7))  # repeated thresholds
        check(x, bins=10, range=(-250, 250), weights=data(100_003, np.float32, seed=13))
        np.testing.assert_array_equal(bincount(data(30_001, np.uint32, seed=14)).numpy(),
                                      np.bincount(data(30_001, np.uint32, seed=14)))


def test_guide_cells_follow_the_policy():
    """The bins' setup (the guide table of uneven edges) is made for the policy in force."""
    from wgprim.api.histogram import _setup
    from wgprim.device import get_device

    edges = np.geomspace(1e-2, 400, 300)
    dt, dev = np.dtype(np.float32), get_device()
    assert _setup(dt, edges, None, dev)["params"]["cells"] == min(64 * 299, 16384)
    with using(HistogramPolicy, guide_cells_per_bin=2):
        assert _setup(dt, edges, None, dev)["params"]["cells"] == 2 * 299
    with using(HistogramPolicy, guide_cells_per_bin=0):
        assert _setup(dt, edges, None, dev)["params"]["cells"] == 0


def test_denormals_next_to_the_zero_edge():
    # -1.4e-45 < 0.0 for numpy: it belongs below the edge at 0, even on drivers that
    # flush denormals to zero in float compares.
    tiny = np.float32(1.4e-45)
    x = np.array([-tiny, tiny, -0.0, 0.0, -2 * tiny], np.float32)
    got = wgprim.histogram(x, bins=256, range=(-1, 1))[0].numpy()
    np.testing.assert_array_equal(got, np.histogram(x, bins=256, range=(-1, 1))[0])


# -- edge cases numpy handles ---------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES + WIDE)
@pytest.mark.parametrize("bins", [
    [-np.inf, 0, 10, np.inf], [-np.inf, np.inf], [-np.inf, -np.inf, 3, np.inf],
    [5, 20, np.inf], [-np.inf, 7], [np.inf, np.inf], [-np.inf, -np.inf],
])
def test_infinite_outer_edges_count_as_numpy(dtype, bins):
    x = data(10_001, dtype, seed=21)
    check(x, bins=np.array(bins))


@pytest.mark.parametrize("dtype", DTYPES)
def test_no_edges_gives_numpy_empty_result(dtype):
    for x in (data(100, dtype), np.zeros(0, dtype)):
        got, edges = histogram(x, bins=np.array([]))
        want, want_edges = np.histogram(x, bins=np.array([]))
        assert got.numpy().shape == want.shape == (0,) and edges.shape == want_edges.shape == (0,)
        check(x, bins=np.array([1.0]))  # one edge: no bins either


# -- more bins than one storage binding holds -------------------------------------------
@pytest.fixture
def bindings_within_limit(monkeypatch):
    """Fail if any storage binding of a dispatch is larger than the device's binding limit
    (lowered by binding_limit): the windowed paths must really keep within it."""
    from support import check_binding_sizes

    check_binding_sizes(monkeypatch)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64])
def test_bincount_with_more_bins_than_one_binding(dtype, bindings_within_limit):
    rng = np.random.default_rng(31)
    x = rng.integers(0, 5000, 20_003).astype(dtype)  # 5000 bins: 5 windows of 1024
    w = rng.integers(-5, 5, x.size).astype(np.int32)
    wf = rng.standard_normal(x.size).astype(np.float32)
    with binding_limit(1024 * np.dtype(dtype).itemsize):  # 1024 elements: the histogram's tile
        np.testing.assert_array_equal(bincount(x).numpy(), np.bincount(x))
        np.testing.assert_array_equal(bincount(x, minlength=9000).numpy(), np.bincount(x, minlength=9000))
        np.testing.assert_array_equal(bincount(x, weights=w).numpy(), np.bincount(x, weights=w).astype(np.int32))
        np.testing.assert_allclose(bincount(x, weights=wf).numpy(), np.bincount(x, weights=wf), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES + WIDE)
def test_histogram_with_more_bins_than_one_binding(dtype, bindings_within_limit):
    x = data(30_001, dtype, seed=33)
    edges = np.unique(np.concatenate([[-1e6], data(3000, np.float32, seed=34).astype(np.float64) * 3, [1e6]]))
    with binding_limit(1024 * np.dtype(dtype).itemsize):
        check(x, bins=3000)
        check(x, bins=2500, range=(-300, 300))
        check(x, bins=edges)  # uneven edges
        check(x, bins=np.linspace(-300, 300, 2001), weights=data(30_001, np.int32, seed=35))


# -- 64-bit data: the bins by searching the edges as 64-bit order keys ------------------------
@pytest.mark.parametrize("dtype", WIDE)
@pytest.mark.parametrize("n", [0, 1, 257, 4097, 70_001])
def test_wide_data(dtype, n):
    x = data(n, dtype, seed=n)
    check(x, bins=10)
    check(x, bins=[-100, -3.5, 0, 0, 2, 17.25, 500, 1000])
    if n:
        check(x, bins=3000, range=(-150, 1500))  # more bins than the splitter table: global memory
        check(x, bins=np.geomspace(1, 1500, 40), weights=data(n, np.float32, seed=1))
        check(x, bins=64, range=(-4, 4), weights=data(n, np.int32, seed=2))


def test_wide_edges_compare_as_numpy():
    # int64 data is compared with float64 edges after rounding to float64 (as numpy does);
    # float64 data with float64 edges exactly (not rounded to float32)
    big = np.array([2**53 - 1, 2**53, 2**53 + 1, 2**53 + 2, 2**53 + 3, 2**62, -(2**63), 2**63 - 1], np.int64)
    check(big, bins=3, range=(2.0**53, 2.0**53 + 64))
    check(big, bins=[2**53, 2.0**53 + 1, 2.0**53 + 2, 2.0**63])
    check(big, bins=np.array([-(2**63), 2**53 + 1, 2**63 - 1], np.int64))  # int64 edges: exact
    check(big, bins=5)
    check(big.astype(np.uint64) & np.uint64(2**64 - 1), bins=4)
    for lo, hi, bins in [(0.1, 0.9, 7), (-1.0, 1.0, 256), (0.0, 1e-300, 13)]:
        _, edges = np.histogram(np.zeros(0), bins=bins, range=(lo, hi))
        x = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
        check(x, bins=bins, range=(lo, hi))
        check(x.astype(np.float32).astype(np.float64), bins=edges)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1.0], np.float64)
    check(specials, bins=[-np.inf, -1e-320, 0.0, 1e-320, np.inf])
    check(specials, bins=[-1.0, -0.0, 1.0])
    with pytest.raises(ValueError, match="not finite"):
        histogram(specials, bins=3)


def test_wide_chunked_input():
    x = data(50_003, np.float64, seed=41)
    with binding_limit(64 * 1024):  # the input over several bindings, the thresholds too
        check(x, bins=50)
        check(x, bins=9000, range=(-10, 10))


def test_range_in_longdouble_compares_in_longdouble():
    # numpy compares in the range's precision: 1.0 is below the lower edge 1 + eps(longdouble)
    lo = np.longdouble(1) + np.finfo(np.longdouble).eps
    if lo == 1:
        pytest.skip("longdouble is float64 here")
    for dt in DTYPES + WIDE:
        x = np.array([0, 1, 1, 2, 3], dt)
        check(x, bins=2, range=(lo, np.longdouble(3)))
        check(x, bins=np.array([lo, 2, np.longdouble(3) - 2 * np.finfo(np.longdouble).eps]))


def test_weights_of_another_shape_are_refused_as_numpy():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(ValueError, match="same shape"):
        histogram(x, weights=np.ones(6, np.float32))
    check(x, weights=np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="same length"):
        bincount(np.arange(4, dtype=np.int32), weights=np.ones((1, 4), np.float32))


@pytest.mark.parametrize("dtype", WIDE[:2])
def test_wide_bincount(dtype):
    rng = np.random.default_rng(5)
    for n in (1, 4097, 30_001):
        x = rng.integers(0, 3000, n).astype(dtype)
        np.testing.assert_array_equal(bincount(x).numpy(), np.bincount(x))
        np.testing.assert_array_equal(bincount(x, minlength=5000).numpy(), np.bincount(x, minlength=5000))
        w = rng.standard_normal(n).astype(np.float32)
        np.testing.assert_allclose(bincount(x, weights=w).numpy(), np.bincount(x, weights=w), rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="negative"):
        bincount(np.array([3, 2**63 - 1, -(2**63)], np.int64))
    with pytest.raises(MemoryError, match="bins"):
        bincount(np.array([2**40], dtype))
    with pytest.raises(ValueError, match="too big"):
        bincount(np.array([2**62], dtype))
    with binding_limit(64 * 1024):
        x = rng.integers(0, 40, 30_001).astype(dtype)
        np.testing.assert_array_equal(bincount(x).numpy(), np.bincount(x))
    x = rng.integers(0, 200_000, 10_000).astype(dtype)  # global-atomic path
    np.testing.assert_array_equal(bincount(x).numpy(), np.bincount(x))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(WIDE), st.integers(1, 300), st.floats(-1e18, 1e18), st.floats(0, 1e18),
       st.integers(0, 2**32 - 1))
def test_hypothesis_wide_values_next_to_edges(dtype, bins, lo, width, seed):
    # values on every edge and next to it (in the data's dtype), plus random ones
    kw = {"bins": bins, "range": (lo, lo + width)}
    try:
        edges = np.histogram_bin_edges(np.zeros(0, dtype), **kw)
    except ValueError:  # numpy refuses (too many bins for the range): so must we
        with pytest.raises(ValueError):
            histogram(np.zeros(3, dtype), **kw)
        return
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        if dt.kind == "f":
            near = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
        else:
            info = np.iinfo(dt)
            base = np.clip(edges, float(info.min), float(info.max)).astype(dt)
            near = np.concatenate([base, np.where(base < info.max, base + dt.type(1), base),
                                   np.where(base > info.min, base - dt.type(1), base)])
        x = np.concatenate([near.astype(dt), rng.uniform(lo - width, lo + 2 * width, 500).astype(dt)])
    check(x, **kw)


@pytest.mark.parametrize("minlength", [2.7, "3", "foobar", None, True, np.float64(3)])
def test_bincount_minlength_must_be_an_integer(minlength):
    x = np.array([1, 2], np.int32)
    with pytest.raises(TypeError):
        np.bincount(x, minlength=minlength)
    with pytest.raises(TypeError):
        bincount(x, minlength=minlength)
    np.testing.assert_array_equal(bincount(x, minlength=np.int64(4)).numpy(), np.bincount(x, minlength=4))
