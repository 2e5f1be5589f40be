"""Scans against numpy: every operator and dtype, inclusive and exclusive, awkward sizes,
several levels, chunked inputs, both block-scan paths (subgroups and barriers)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.api.scan import ScanPlan
from wgprim.ops.scan import cumsum_error_bound

from support import AWKWARD_SIZES, block_scan_path, informative, random_values

DTYPES = [np.float32, np.int32, np.uint32]
UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
         "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def identity(op, dtype):
    from wgprim.ops.operators import identity_value
    return identity_value(op, np.dtype(dtype))


def numpy_scan(x, op, exclusive):
    inclusive = UFUNC[op].accumulate(x, dtype=x.dtype)
    if not exclusive or x.size == 0:
        return inclusive
    return np.concatenate([[identity(op, x.dtype)], inclusive[:-1]]).astype(x.dtype)


def assert_scan(x, op, exclusive, got):
    if x.dtype.kind == "f" and op == "sum":
        ref = np.cumsum(x.astype(np.float64))
        bound = cumsum_error_bound(np.cumsum(np.abs(x.astype(np.float64))))
        if exclusive:
            ref, bound = np.concatenate([[0.0], ref[:-1]]), np.concatenate([[0.0], bound[:-1]])
        assert np.all(np.abs(got - ref) <= bound)
    else:
        np.testing.assert_array_equal(got, numpy_scan(x, op, exclusive))


@pytest.fixture(params=["subgroups", "barriers"])
def lanes_path(request, device, monkeypatch):
    """Run a test with each block-scan path (the subgroup one only where it exists)."""
    with block_scan_path(device, request.param) as chosen:
        yield chosen


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", AWKWARD_SIZES)
def test_cumsum_awkward_sizes(n, dtype, rng, lanes_path):
    x = random_values(rng, n, dtype)
    got = wgprim.cumsum(x).numpy()
    assert got.shape == (n,) and got.dtype == x.dtype
    assert_scan(x, "sum", False, got)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
@pytest.mark.parametrize("op", ["prod", "min", "max", "bitwise_and", "bitwise_or", "bitwise_xor"])
@pytest.mark.parametrize("exclusive", [False, True])
def test_every_integer_operator(op, dtype, exclusive, rng):
    x = informative(rng, 4096 * 3 + 77, dtype, op)
    assert_scan(x, op, exclusive, wgprim.scan(x, op, exclusive=exclusive).numpy())


@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("exclusive", [False, True])
def test_float_operators(op, exclusive, rng):
    x = random_values(rng, 10_001, np.float32)
    assert_scan(x, op, exclusive, wgprim.scan(x, op, exclusive=exclusive).numpy())


def test_float_prod_near_one(rng):
    x = rng.uniform(0.999, 1.001, 5000).astype(np.float32)
    got = wgprim.scan(x, "prod").numpy().astype(np.float64)
    ref = np.cumprod(x.astype(np.float64))
    assert np.all(np.abs(got - ref) <= np.arange(1, x.size + 1) * np.finfo(np.float32).eps * ref)


def test_nan_propagates_in_min_max_scans():
    x = np.array([3, 1, np.nan, 0, 5], np.float32)
    np.testing.assert_array_equal(wgprim.scan(x, "min").numpy(), np.minimum.accumulate(x))
    np.testing.assert_array_equal(wgprim.scan(x, "max").numpy(), np.maximum.accumulate(x))


def test_three_levels(rng, lanes_path):
    # 4096^2 + 3 elements: tile totals (4097) need a second level, its totals a third.
    n = 4096 * 4096 + 3
    x = rng.integers(-3, 4, n).astype(np.int32)
    np.testing.assert_array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x, dtype=np.int32))


def test_non_commutative_monoid_keeps_order(rng, lanes_path):
    # "last non-zero so far": associative, not commutative.
    last = wgprim.Monoid("select(a, b, b != 0u)", identity=0)
    x = rng.integers(0, 3, 50_000).astype(np.uint32) * rng.integers(0, 2, 50_000).astype(np.uint32)
    idx = np.where(x != 0, np.arange(x.size), 0)
    ref = x[np.maximum.accumulate(idx)]
    ref[: np.argmax(x != 0) if x.any() else x.size] = 0
    np.testing.assert_array_equal(wgprim.scan(x, last).numpy(), ref)


def test_chunked_input_larger_than_one_binding(rng):
    x = random_values(rng, 70_001, np.int32)
    with binding_limit(16384 * 2):  # two tiles per binding
        for exclusive in (False, True):
            assert_scan(x, "sum", exclusive, wgprim.scan(x, exclusive=exclusive).numpy())


def test_empty_and_multidimensional(rng):
    assert wgprim.cumsum(np.zeros(0, np.float32)).numpy().shape == (0,)
    x = random_values(rng, 60, np.int32).reshape(3, 4, 5)
    np.testing.assert_array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x, dtype=np.int32))


def test_errors():
    with pytest.raises(TypeError):
        wgprim.cumsum(np.zeros(3, np.int8))
    with pytest.raises(ValueError):
        wgprim.scan(np.zeros(3, np.float32), "argmin")
    with pytest.raises(TypeError):
        wgprim.scan(np.zeros(3, np.float32), "bitwise_or")


def test_plan_runs_without_new_pipelines_or_buffers(device, rng):
    plan = ScanPlan(50_000, np.uint32, "sum", exclusive=True)
    x = random_values(rng, 50_000, np.uint32)
    assert_scan(x, "sum", True, plan(x).numpy())
    pipelines, held = len(device.cache("pipelines")), sorted(id(b) for b in plan._plan.program.held)
    y = random_values(rng, 50_000, np.uint32)
    assert_scan(y, "sum", True, plan(y).numpy())
    assert len(device.cache("pipelines")) == pipelines
    assert sorted(id(b) for b in plan._plan.program.held) == held


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), max_size=9000), st.booleans(),
       st.sampled_from(["sum", "max", "bitwise_xor"]))
def test_hypothesis_uint32(values, exclusive, op):
    x = np.array(values, np.uint32)
    assert_scan(x, op, exclusive, wgprim.scan(x, op, exclusive=exclusive).numpy())


@pytest.mark.parametrize("n", [1, 4097, 4096 * 5 + 9])
def test_single_tile_and_levels(n, rng):
    x = random_values(rng, n, np.int32)
    for exclusive in (False, True):
        assert_scan(x, "sum", exclusive, wgprim.scan(x, exclusive=exclusive).numpy())


def test_plan_out_is_checked_and_not_the_input():
    plan = ScanPlan(100, np.int32)
    x = wgprim.asarray(np.arange(100, dtype=np.int32))
    with pytest.raises(ValueError, match="must not be an input"):
        plan(x, out=x)
    with pytest.raises(ValueError, match="out must hold"):
        plan(x, out=wgprim.empty((5,), np.int32))


def test_scan_plans_queued_in_one_batch(rng):
    plan = ScanPlan(9000, np.int32)
    a, b = (wgprim.asarray(random_values(rng, 9000, np.int32)) for _ in range(2))
    ra, rb = wgprim.empty((9000,), np.int32), wgprim.empty((9000,), np.int32)
    with wgprim.batch():
        plan(a, out=ra)
        plan(b, out=rb)
    np.testing.assert_array_equal(ra.numpy(), np.cumsum(a.numpy(), dtype=np.int32))
    np.testing.assert_array_equal(rb.numpy(), np.cumsum(b.numpy(), dtype=np.int32))


def test_plan_refuses_its_own_result_as_input():
    plan = ScanPlan(100, np.uint32)
    r = plan(np.arange(100, dtype=np.uint32))
    with pytest.raises(ValueError, match="must not be an input"):
        plan(r)


# -- 64-bit dtypes ------------------------------------------------------------------------
INT64 = [np.int64, np.uint64]


@pytest.mark.parametrize("dtype", INT64)
@pytest.mark.parametrize("n", [1, 2, 5, 2047, 2048, 2049, 4097, 65537])
def test_64_bit_cumsum_awkward_sizes(n, dtype, rng, lanes_path):
    x = random_values(rng, n, dtype)  # the whole range: every sum wraps modulo 2^64
    got = wgprim.cumsum(x).numpy()
    assert got.dtype == dtype
    assert_scan(x, "sum", False, got)


@pytest.mark.parametrize("dtype", INT64)
@pytest.mark.parametrize("method", ["single-pass", "reduce-then-scan"])
@pytest.mark.parametrize("exclusive", [False, True])
def test_64_bit_every_integer_operator(dtype, method, exclusive, rng):
    for op in UFUNC:
        x = informative(rng, 2048 * 3 + 77, dtype, op)
        assert_scan(x, op, exclusive, wgprim.scan(x, op, exclusive=exclusive, method=method).numpy())


def test_64_bit_extremes_and_carries(rng):
    for dtype in INT64:
        info = np.iinfo(dtype)
        x = np.array([info.max, info.min, 1, 0xFFFFFFFF, 2**32, info.max - 1] * 1000, dtype)
        rng.shuffle(x)
        for op in ("sum", "prod", "min", "max"):
            assert_scan(x, op, False, wgprim.scan(x, op).numpy())
        empty = wgprim.scan(np.zeros(0, dtype), "prod", exclusive=True).numpy()
        assert empty.shape == (0,) and empty.dtype == dtype


def test_64_bit_three_levels(rng):
    # 2048^2 + 3 int64: the tile totals (2049) take a second level, theirs a third.
    x = rng.integers(-3, 4, 2048 * 2048 + 3)
    np.testing.assert_array_equal(wgprim.scan(x, method="reduce-then-scan").numpy(), np.cumsum(x))


def test_64_bit_chunked_input_larger_than_one_binding(rng):
    x = random_values(rng, 70_001, np.int64)
    with binding_limit(16384 * 4):  # four reduce-then-scan tiles, two single-pass tiles per binding
        for method in ("single-pass", "reduce-then-scan"):
            for exclusive in (False, True):
                assert_scan(x, "sum", exclusive, wgprim.scan(x, exclusive=exclusive, method=method).numpy())


def test_float64_min_max_scans_and_refused_sums(rng):
    x = rng.standard_normal(10_001)
    x[[3, 5000]] = [np.nan, -0.0]
    for op in ("min", "max"):
        for exclusive in (False, True):
            got = wgprim.scan(x, op, exclusive=exclusive).numpy()
            np.testing.assert_array_equal(got.view(np.uint64), numpy_scan(x, op, exclusive).view(np.uint64))
    for op in ("sum", "prod"):
        with pytest.raises(TypeError, match="float64"):
            wgprim.scan(x, op)


def test_64_bit_plan(rng):
    plan = ScanPlan(9000, np.uint64, "sum", exclusive=True)
    for _ in range(2):
        x = random_values(rng, 9000, np.uint64)
        assert_scan(x, "sum", True, plan(x).numpy())


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=9000), st.booleans(),
       st.sampled_from(["sum", "prod", "max", "bitwise_xor"]))
def test_hypothesis_int64(values, exclusive, op):
    x = np.array(values, np.int64)
    assert_scan(x, op, exclusive, wgprim.scan(x, op, exclusive=exclusive).numpy())


# -- cumulative_sum (the array API's) -------------------------------------------------------
def assert_cumulative(x, got, **kw):
    want = np.cumulative_sum(x, **kw)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    if want.dtype.kind == "f":
        ref = np.cumulative_sum(x, **{**kw, "dtype": np.float64})
        assert np.all(np.abs(got.numpy() - ref) <= 1e-4 * np.cumulative_sum(np.abs(x), **{**kw, "dtype": np.float64}))
    else:
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32])
@pytest.mark.parametrize("shape, axis", [((0,), None), ((1,), None), ((5000,), None), ((70_001,), 0),
                                         ((3, 700), 1), ((300, 5), 0), ((2, 3, 4), -2), ((), None), ((4, 0), 1),
                                         ((4, 0), 0)])
def test_cumulative_sum_matches_numpy(dtype, shape, axis, rng):
    x = random_values(rng, int(np.prod(shape)), dtype).reshape(shape)
    for include_initial in (False, True):
        assert_cumulative(x, wgprim.cumulative_sum(x, axis=axis, include_initial=include_initial),
                          axis=axis, include_initial=include_initial)


def test_cumulative_sum_sums_32_bit_integers_in_64_bits_unless_told():
    x = np.array([2**31 - 1, 7, -2**31, -5, 2**31 - 1] * 1000, np.int32)  # past 2^31 either way
    for dtype in (None, np.int32, np.uint32, np.int64, np.uint64):
        assert_cumulative(x, wgprim.cumulative_sum(x, dtype=dtype), dtype=dtype)
    u = np.full(5000, 2**32 - 1, np.uint32)
    for dtype in (None, np.int64, np.int32):
        assert_cumulative(u, wgprim.cumulative_sum(u, dtype=dtype, include_initial=True), dtype=dtype,
                          include_initial=True)
    assert_cumulative(x.astype(np.int64), wgprim.cumulative_sum(x.astype(np.int64), dtype=np.uint64), dtype=np.uint64)


def test_cumulative_sum_chunked(rng):
    x = random_values(rng, 70_001, np.int32)
    with binding_limit(16384 * 4):
        assert_cumulative(x, wgprim.cumulative_sum(x))  # widened and scanned one binding at a time
        # include_initial: the result shifted by one, in windows of one binding (ops/axis_windows.py)
        assert_cumulative(x, wgprim.cumulative_sum(x, include_initial=True), include_initial=True)


def test_cumulative_sum_refuses_what_it_cannot_do():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    with pytest.raises(ValueError, match="axis"):
        wgprim.cumulative_sum(x)
    for dtype in (np.float32, np.int8, np.float64, "nonsense"):
        with pytest.raises(TypeError, match="dtype=None or one of int32, uint32"):
            wgprim.cumulative_sum(x, axis=1, dtype=dtype)
    with pytest.raises(TypeError, match="int64, not"):  # no narrowing
        wgprim.cumulative_sum(x.astype(np.int64), axis=1, dtype=np.int32)
    with pytest.raises(TypeError, match="float64"):
        wgprim.cumulative_sum(np.ones(3))
    with pytest.raises(TypeError, match="include_initial"):
        wgprim.cumulative_sum(np.ones(3, np.float32), include_initial="yes")
    with pytest.raises(np.exceptions.AxisError):
        wgprim.cumulative_sum(np.ones(3, np.float32), axis=1)
    if wgprim.get_device().has_f16:
        h = np.ones(5, np.float16)
        np.testing.assert_array_equal(wgprim.cumulative_sum(h, include_initial=True).numpy(),
                                      np.cumulative_sum(h, include_initial=True))
