"""Reductions against numpy: every operator and dtype, awkward sizes, NaN, errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.api.reduce import ReducePlan
from wgprim.ops.reduce import prod_error_bound, sum_error_bound

from support import AWKWARD_SIZES, informative, random_values

DTYPES = [np.float32, np.int32, np.uint32]
BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def numpy_reduce(x, op):
    if op == "sum":
        return x.sum(dtype=x.dtype) if x.dtype.kind in "iu" else x.astype(np.float64).sum()
    if op == "prod":
        return x.prod(dtype=x.dtype) if x.dtype.kind in "iu" else x.astype(np.float64).prod()
    if op in BITWISE:
        return BITWISE[op].reduce(x)
    return getattr(np, op)(x)


def assert_reduce(x, op, got):
    ref = numpy_reduce(x, op)
    if x.dtype.kind == "f" and op == "sum":
        assert abs(float(got) - float(ref)) <= sum_error_bound(x.size, np.abs(x.astype(np.float64)).sum())
    elif x.dtype.kind == "f" and op == "prod":
        assert abs(float(got) - float(ref)) <= prod_error_bound(x.size) * abs(float(ref)) + 1e-38
    else:
        assert got == ref, (op, x.dtype, x.size, got, ref)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [s for s in AWKWARD_SIZES if s])
def test_every_operator_at_awkward_sizes(n, dtype, rng):
    ops = ["sum", "min", "max", "argmin", "argmax"] + ([] if dtype == np.float32 else list(BITWISE) + ["prod"])
    for op in ops:
        x = informative(rng, n, dtype, op)
        assert_reduce(x, op, wgprim.reduce(x, op).item())


def test_informative_data_is_informative(rng):
    # The data above must not make the integer checks trivially 0 == 0.
    x = informative(rng, 4097, np.uint32, "prod")
    assert x.prod(dtype=np.uint32) not in (0, 1)
    assert np.bitwise_or.reduce(informative(rng, 4097, np.uint32, "bitwise_or")) not in (0, 2**32 - 1)
    assert np.bitwise_and.reduce(informative(rng, 100, np.uint32, "bitwise_and")) not in (0, 2**32 - 1)


@pytest.mark.parametrize("n", [1, 257, 4097, 100_003])
def test_float_prod_within_bound(n, rng):
    x = rng.uniform(0.99, 1.01, n).astype(np.float32)
    assert_reduce(x, "prod", wgprim.prod(x).item())


def test_large_input_needs_an_intermediate_level(rng):
    # More partials than the final workgroup takes (8192): one reduce_partials level.
    n = 2048 * 4096 * 5 + 17
    x = rng.integers(-50, 50, n).astype(np.int32)
    assert wgprim.sum(x).item() == x.sum()
    assert wgprim.argmax(x).item() == np.argmax(x)


def test_integer_sum_wraps_modulo_2_32():
    x = np.full(1000, 2**31 - 1, np.int32)
    assert wgprim.sum(x).item() == x.sum(dtype=np.int32)
    u = np.full(1000, 2**32 - 1, np.uint32)
    assert wgprim.sum(u).item() == u.sum(dtype=np.uint32)


def test_arg_ties_give_first_index():
    x = np.zeros(10_000, np.int32)
    x[[17, 5000, 9000]] = 7
    x[[33, 6000]] = -7
    assert wgprim.argmax(x).item() == 17
    assert wgprim.argmin(x).item() == 33


@pytest.mark.parametrize("n", [5, 4097, 70_000])
def test_nan_propagates_like_numpy(n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    x[[n // 3, n - 1]] = np.nan
    assert np.isnan(wgprim.min(x).item()) and np.isnan(wgprim.max(x).item())
    assert wgprim.argmin(x).item() == np.argmin(x) == n // 3
    assert wgprim.argmax(x).item() == np.argmax(x) == n // 3
    assert np.isnan(wgprim.sum(x).item())


def test_infinities_and_extremes():
    x = np.array([1, np.inf, -np.inf, 3], np.float32)
    assert wgprim.max(x).item() == np.inf and wgprim.min(x).item() == -np.inf
    assert wgprim.argmin(x).item() == 2
    i = np.array([0, np.iinfo(np.int32).min, np.iinfo(np.int32).max], np.int32)
    assert wgprim.min(i).item() == i.min() and wgprim.max(i).item() == i.max()
    # A lone extreme value equals the identity of min/max: still found at its index.
    assert wgprim.argmax(np.array([np.iinfo(np.int32).min] * 3, np.int32)).item() == 0
    assert wgprim.argmin(np.array([np.inf, np.inf], np.float32)).item() == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_input(dtype):
    x = np.zeros(0, dtype)
    assert wgprim.sum(x).item() == 0
    assert wgprim.prod(x).item() == 1
    for f in (wgprim.min, wgprim.max, wgprim.argmin, wgprim.argmax):
        with pytest.raises(ValueError):
            f(x)


def test_custom_monoid():
    x = np.arange(1, 10_001, dtype=np.uint32)
    maxabs = wgprim.Monoid("max(abs(a), abs(b))", identity=0)
    y = np.array([3, -9, 4], np.int32)
    assert wgprim.reduce(y, maxabs).item() == 9
    assert wgprim.reduce(x, wgprim.Monoid("a + b", identity=0)).item() == x.sum(dtype=np.uint32)
    with pytest.raises(ValueError):
        wgprim.Monoid("a + b; }", identity=0)
    with pytest.raises(wgprim.WgprimError):
        wgprim.reduce(x, wgprim.Monoid("a +* b", identity=0))


def test_multidimensional_input_reduces_everything(rng):
    x = random_values(rng, 3 * 5 * 7, np.int32).reshape(3, 5, 7)
    assert wgprim.max(x).item() == x.max()
    assert wgprim.argmax(x).item() == x.argmax()


def test_errors():
    with pytest.raises(TypeError, match="supported"):
        wgprim.sum(np.zeros(4, np.int8))
    with pytest.raises(TypeError):
        wgprim.sum(np.zeros(4, bool))
    with pytest.raises(TypeError):
        wgprim.reduce(np.zeros(4, np.float32), "bitwise_and")
    with pytest.raises(ValueError, match="unknown operator"):
        wgprim.reduce(np.zeros(4, np.float32), "median")


def test_chunked_input_larger_than_one_binding(rng):
    x = random_values(rng, 50_001, np.int32)
    with binding_limit(16384 * 2):  # two tiles per binding: 7 chunks
        assert wgprim.sum(x).item() == x.sum(dtype=np.int32)
        assert wgprim.argmin(x).item() == x.argmin()
        assert wgprim.max(x).item() == x.max()


def test_plan_reuses_pipelines_and_buffers(device, rng):
    x = random_values(rng, 100_000, np.uint32)
    plan = ReducePlan(x.size, np.uint32, "max")
    gx = wgprim.asarray(x)
    assert plan(gx).item() == x.max()
    pipelines = len(device.cache("pipelines"))
    held = list(plan._plan.program.held)
    for _ in range(3):
        y = random_values(rng, x.size, np.uint32)
        assert plan(y).item() == y.max()
    assert len(device.cache("pipelines")) == pipelines
    assert sorted(id(b) for b in plan._plan.program.held) == sorted(id(b) for b in held)
    with pytest.raises(ValueError):
        plan(np.zeros(5, np.uint32))


def test_profile_reports_each_step(device, rng):
    plan = ReducePlan(10_000, np.float32, "sum")
    out, times = plan(rng.standard_normal(10_000).astype(np.float32), profile=True)
    if device.has_timestamps:
        assert [t.label for t in times] == ["reduce tiles", "reduce final"]
        assert all(t.ms >= 0 for t in times)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=3000),
       st.sampled_from(["sum", "min", "max", "argmin", "argmax", "bitwise_xor"]))
def test_hypothesis_int32(values, op):
    x = np.array(values, np.int32)
    assert_reduce(x, op, wgprim.reduce(x, op).item())


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32) | st.just(float("nan")), min_size=1, max_size=3000),
       st.sampled_from(["sum", "min", "max", "argmin", "argmax"]))
def test_hypothesis_float32(values, op):
    x = np.array(values, np.float32)
    got = wgprim.reduce(x, op).item()
    ref = numpy_reduce(x, op)
    if np.isnan(ref):
        assert np.isnan(got)
    else:
        assert_reduce(x, op, got)


@pytest.mark.parametrize("dtype", DTYPES)
def test_min_max_atomic_method_matches_tree(dtype, rng):
    x = random_values(rng, 70_001, dtype)
    assert wgprim.min(x, method="atomic").item() == wgprim.min(x).item() == x.min()
    assert wgprim.max(x, method="atomic").item() == x.max()
    with pytest.raises(ValueError, match="method"):
        wgprim.min(x, method="fastest")


def test_denormals_and_signed_zeros_compare_like_numpy():
    # Some drivers flush denormals to zero in float compares; wgprim compares keys built
    # from the bits, so these stay exact everywhere.
    tiny = np.float32(1.4e-45)
    x = np.array([0.0, -tiny, tiny, -0.0, 3 * tiny], np.float32)
    assert wgprim.min(x).item() == -tiny and wgprim.argmin(x).item() == 1
    assert wgprim.max(x).item() == 3 * tiny and wgprim.argmax(x).item() == 4
    z = np.array([0.0, -0.0, 0.0], np.float32)  # equal numbers: the first index, as numpy
    assert wgprim.argmin(z).item() == np.argmin(z) == 0
    assert wgprim.argmax(z).item() == np.argmax(z) == 0
    np.testing.assert_array_equal(wgprim.scan(x, "min").numpy(), np.minimum.accumulate(x))


def test_plan_calls_queued_in_one_batch_keep_their_own_inputs(rng):
    plan = ReducePlan(10_000, np.int32, "sum")
    a, b = (wgprim.asarray(random_values(rng, 10_000, np.int32)) for _ in range(2))
    out_a, out_b = wgprim.empty((), np.int32), wgprim.empty((), np.int32)
    with wgprim.batch():
        plan(a, out=out_a)
        plan(b, out=out_b)
    assert out_a.item() == a.numpy().sum(dtype=np.int32)
    assert out_b.item() == b.numpy().sum(dtype=np.int32)


def test_plan_out_is_checked():
    plan = ReducePlan(100, np.int32)
    x = wgprim.asarray(np.arange(100, dtype=np.int32))
    with pytest.raises(ValueError, match="out must hold"):
        plan(x, out=wgprim.empty((), np.float32))
    with pytest.raises(ValueError, match="out must hold"):
        plan(x, out=wgprim.empty((3,), np.int32))


def test_identity_must_be_exact_in_the_dtype():
    x = np.arange(5, dtype=np.int32)
    for bad in (np.inf, 0.5, 2**40):
        with pytest.raises(ValueError, match="identity"):
            wgprim.reduce(x, wgprim.Monoid("min(a, b)", bad))


# -- 64-bit dtypes: vec2<u32> in kernels, integer arithmetic of kernels/int64.wgsl -----------
INT64 = [np.int64, np.uint64]
SIZES64 = [1, 2, 3, 255, 2047, 2048, 2049, 2048 * 5 + 3, 70_001]  # 2048: a tile of 64-bit elements


@pytest.mark.parametrize("dtype", INT64)
@pytest.mark.parametrize("n", SIZES64)
def test_64_bit_integers_every_operator(n, dtype, rng):
    for op in ["sum", "prod", "min", "max", "argmin", "argmax", *BITWISE]:
        x = informative(rng, n, dtype, op)
        assert_reduce(x, op, wgprim.reduce(x, op).item())


@pytest.mark.parametrize("dtype", INT64)
def test_64_bit_extremes_wrap_modulo_2_64(dtype, rng):
    info = np.iinfo(dtype)
    x = np.array([info.max, info.max, info.min, 1, info.max - 1, info.min + 1, 0xFFFFFFFF, 2**32] * 700, dtype)
    rng.shuffle(x)
    for op in ["sum", "prod", "min", "max", "argmin", "argmax", *BITWISE]:
        assert_reduce(x, op, wgprim.reduce(x, op).item())
    carries = np.full(5001, 0xFFFFFFFF, dtype)  # every addition carries out of the low word
    assert wgprim.sum(carries).item() == carries.sum(dtype=dtype) == 5001 * 0xFFFFFFFF
    cross = np.array([2**32 + 3, 2**33 - 1, 0xFFFFFFFF, 7 << 40, 0xDEADBEEF12345678 % info.max], dtype)
    assert wgprim.prod(cross).item() == cross.prod(dtype=dtype)  # products of high and low words


def test_float64_min_max_argmin_argmax_exactly(rng):
    x = rng.standard_normal(70_001)
    x[rng.choice(x.size, 50)] = [5e-324, -5e-324, 2.2e-308, np.inf, -np.inf] * 10  # denormals, infinities
    for op in ("min", "max", "argmin", "argmax"):
        got = wgprim.reduce(x, op).numpy()
        assert got.tobytes() == np.asarray(getattr(np, op)(x)).astype(got.dtype).tobytes(), op
    x[[123, 4567]] = np.nan
    assert np.isnan(wgprim.min(x).item()) and np.isnan(wgprim.max(x).item())
    assert wgprim.argmin(x).item() == wgprim.argmax(x).item() == 123


def test_float64_arithmetic_is_refused_naming_the_alternatives():
    # float64 sums are exact (tests/api/test_exact_sum.py); the rest names what works.
    x = np.ones(10)
    for call in (wgprim.prod, wgprim.cumsum, lambda x: wgprim.scan(x, "prod"),
                 lambda x: wgprim.ReducePlan(x.size, np.float64), lambda x: wgprim.ScanPlan(x.size, np.float64)):
        with pytest.raises(TypeError, match=r"no float64 type.*wgprim\.sum, wgprim\.mean.*astype\(np\.float32\).*or numpy"):
            call(x)
    with pytest.raises(TypeError, match="bitwise_or takes"):
        wgprim.reduce(x, "bitwise_or")


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64])
def test_custom_monoid_on_64_bit_dtypes_names_the_operators_that_work(dtype):
    with pytest.raises(TypeError, match="built-in operators sum, prod, min, max" if dtype != np.float64
                       else "built-in operators min, max"):
        wgprim.reduce(np.ones(5, dtype), wgprim.Monoid("max(a, b)", identity=0))


@pytest.mark.parametrize("dtype", INT64 + [np.float64])
def test_64_bit_empty_input(dtype):
    x = np.zeros(0, dtype)
    if dtype != np.float64:
        assert wgprim.sum(x).item() == 0 and wgprim.sum(x).dtype == dtype
        assert wgprim.prod(x).item() == 1
        assert wgprim.reduce(x, "bitwise_and").item() == np.bitwise_and.reduce(x)  # all ones
    for f in (wgprim.min, wgprim.max, wgprim.argmin, wgprim.argmax):
        with pytest.raises(ValueError):
            f(x)


def test_64_bit_chunked_input_larger_than_one_binding(rng):
    x = random_values(rng, 50_001, np.int64)
    with binding_limit(16384 * 2):  # two tiles of 2048 int64 per binding: 13 chunks
        assert wgprim.sum(x).item() == x.sum(dtype=np.int64)
        assert wgprim.argmin(x).item() == x.argmin()
        assert wgprim.max(x).item() == x.max()
        y = random_values(rng, 50_001, np.float64)
        assert wgprim.argmax(y).item() == y.argmax() and wgprim.min(y).item() == y.min()


def test_64_bit_intermediate_levels(rng):
    from wgprim.device import get_device
    from wgprim.ops.reduce import ReducePolicy, reduce_recorder
    from wgprim.tuning import using

    x = random_values(rng, 2048 * 9 + 7, np.uint64)
    with using(ReducePolicy, final_max=3, partials_per_group=2):  # 10 partials -> 5 -> 3 -> the result
        assert reduce_recorder(get_device(), x.size, x.dtype, "sum").temp_bytes()[1] == 5 * 8
        for op in ("sum", "argmin", "max", "bitwise_xor"):
            assert_reduce(x, op, wgprim.reduce(x, op).item())


def test_64_bit_plan(rng):
    plan = ReducePlan(5000, np.int64, "sum")
    for _ in range(2):
        x = random_values(rng, 5000, np.int64)
        assert plan(x).item() == x.sum(dtype=np.int64)


def test_min_max_method_atomic_refuses_64_bit_naming_the_tree():
    for dtype in (np.int64, np.uint64, np.float64):
        with pytest.raises(TypeError, match="method='tree'"):
            wgprim.min(np.ones(5, dtype), method="atomic")
    assert wgprim.max(np.arange(5, dtype=np.int64), method="tree").item() == 4


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=5000),
       st.sampled_from(["sum", "prod", "min", "max", "argmin", "argmax", "bitwise_or", "bitwise_xor"]),
       st.booleans())
def test_hypothesis_64_bit_integers(values, op, unsigned):
    x = np.array(values, np.int64)
    x = x.view(np.uint64) if unsigned else x
    assert_reduce(x, op, wgprim.reduce(x, op).item())
