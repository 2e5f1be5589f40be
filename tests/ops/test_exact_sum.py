"""Exact sums and means of float64 (and float32 with exact=True) against exact rationals:
the result must be the correctly rounded exact value, bit for bit, on adversarial data
(wide exponents, cancellation, subnormals, overflowing partial sums, inf and NaN), the
same bits in any order, along axes, across pieces, chunks and both combine kernels."""
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import exact_sum
from wgprim.ops.exact_rounding import FLOAT64, round_ratio, round_sqrt_ratio

from support import AWKWARD_SIZES

F64, F32 = np.dtype(np.float64), np.dtype(np.float32)
F32_OVERFLOW = Fraction(2**128 - 2**103)  # halfway between float32's max and 2^128: rounds to inf


def round_f32(exact: Fraction) -> float:
    """exact rounded to float32, ties to even, found independently of wgprim's rounding:
    the nearest of the float32 neighbours of a float64 near it."""
    if abs(exact) >= F32_OVERFLOW:
        return math.inf if exact > 0 else -math.inf
    guess = np.float32(float(exact))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    candidates = [c for c in candidates if np.isfinite(c)]
    best = min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.array(c).view(np.uint32)) & 1))
    return float(best)


def reference(x: np.ndarray, mean: bool = False) -> float:
    """The correctly rounded exact sum (or mean) of x, by IEEE's rules for inf and NaN."""
    values = x.ravel().tolist()  # Python floats, or ints exactly
    if any(math.isnan(v) for v in values):
        return math.nan
    if math.inf in values or -math.inf in values:
        return math.nan if (math.inf in values and -math.inf in values) else math.inf if math.inf in values else -math.inf
    if not values:
        return math.nan if mean else 0.0
    exact = sum(map(Fraction, values), Fraction(0)) / (len(values) if mean else 1)
    if x.dtype == F32:
        return round_f32(exact)
    try:
        return float(exact)  # Python's int / int is correctly rounded
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def assert_bits(got, want: float, dtype) -> None:
    got = np.asarray(got)
    want = np.asarray(want, dtype)
    assert got.dtype == dtype
    if np.isnan(want):
        assert np.isnan(got), (got, want)
    else:
        assert got.tobytes() == want.tobytes(), (float(got), float(want))


def check_sum(x: np.ndarray) -> None:
    exact = x.dtype == F32
    assert_bits(wgprim.sum(x, exact=exact).numpy(), reference(x), x.dtype)


# -- data ------------------------------------------------------------------------------

def wide_exponents(rng, n, dtype=F64):
    """Signs and magnitudes from 1e-300 to 1e300 (float32: its own range) mixed."""
    top = 300 if dtype == F64 else 37
    return (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-top, top, n)).astype(dtype)


def random_bits(rng, n, dtype=F64):
    """Every finite bit pattern equally likely (all exponents, subnormals, both zeros),
    the largest scaled down so that most sums do not overflow."""
    word = np.uint64 if dtype == F64 else np.uint32
    x = rng.integers(0, np.iinfo(word).max, n, dtype=word, endpoint=True).view(dtype)
    x = np.where(np.isfinite(x), x, dtype.type(1.5))
    with np.errstate(under="ignore"):
        return np.where(np.abs(x) > np.finfo(dtype).max / 2**20, x * dtype.type(2.0**-40), x)


def cancelling(rng, n, rest, dtype=F64):
    """x, -x and `rest` shuffled: the exact sum is the sum of rest."""
    x = wide_exponents(rng, n, dtype)
    data = np.concatenate([x, -x, np.asarray(rest, dtype)])
    rng.shuffle(data)
    return data


# -- float64 sums ----------------------------------------------------------------------

def test_the_issues_example_has_no_intermediate_overflow():
    x = np.array([1.7e308, 1.7e308, -1.7e308, -1.6e308])
    assert wgprim.sum(x).item() == reference(x) == 9.999999999999996e306
    with pytest.raises(OverflowError):
        math.fsum(x)  # math.fsum overflows in between; the exact sum does not


@pytest.mark.parametrize("n", AWKWARD_SIZES + [2**15 - 1, 2**15, 2**15 + 1, 17 * 2**15 + 5])
def test_float64_sum_is_correctly_rounded_at_awkward_sizes(n, rng):
    for make in (wide_exponents, random_bits):
        check_sum(make(rng, n))


def test_agrees_with_math_fsum(rng):
    for n in (1, 10, 1000, 100_001):
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)
        assert wgprim.sum(x).item() == math.fsum(x)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True), max_size=300))
def test_hypothesis_float64_lists(values):
    x = np.array(values, np.float64)
    check_sum(x)


def test_cancellation_down_to_one_subnormal(rng):
    for rest in ([5e-324], [-5e-324], [2.5e-323, -5e-324], [1e-310], [0.0]):
        x = cancelling(rng, 50_000, rest)
        check_sum(x)
        assert wgprim.sum(x).item() == math.fsum(rest)


def test_a_million_tenths(rng):
    x = np.full(1 << 20, 0.1)
    assert wgprim.sum(x).item() == float(Fraction(0.1) * (1 << 20)) != x.sum()


def test_overflowing_partial_sums_and_overflowing_results():
    big = np.finfo(np.float64).max
    check_sum(np.array([big] * 1000 + [-big] * 999 + [-1e300]))
    assert wgprim.sum(np.array([big, big])).item() == math.inf
    assert wgprim.sum(np.array([-big, -big])).item() == -math.inf
    assert wgprim.sum(np.array([big, 2.0**970])).item() == math.inf  # a tie, to even: 2^1024
    assert wgprim.sum(np.array([big, 2.0**970, -2.0**918])).item() == big  # just below the tie


def test_subnormals_are_exact(rng):
    tiny = (rng.integers(-2**52, 2**52, 100_000) * 5e-324)  # multiples of the smallest subnormal
    check_sum(tiny)
    assert wgprim.sum(tiny).item() == math.fsum(tiny)


def test_inf_and_nan_follow_ieee(rng):
    x = rng.standard_normal(70_000)
    big = np.finfo(np.float64).max
    for specials, want in (([np.inf], np.inf), ([-np.inf, -np.inf], -np.inf), ([np.inf, -np.inf], np.nan),
                           ([np.nan], np.nan), ([np.inf, np.nan], np.nan), ([big, big], np.inf)):
        y = x.copy()
        y[rng.choice(y.size, len(specials), replace=False)] = specials
        assert_bits(wgprim.sum(y).numpy(), want, F64)
        assert_bits(wgprim.sum(y).numpy(), reference(y), F64)


def test_zeros_give_numpys_zero():
    for x in (np.array([-0.0]), np.full(5000, -0.0), np.array([0.0, -0.0]), np.zeros(0)):
        assert_bits(wgprim.sum(x).numpy(), np.sum(x), F64)


def test_permutations_give_the_same_bits(rng):
    x = np.concatenate([wide_exponents(rng, 40_000), random_bits(rng, 40_000), [1e-320, -1e300, 1e300]])
    want = wgprim.sum(x).numpy().tobytes()
    assert np.asarray(reference(x)).tobytes() == want
    for _ in range(3):
        assert wgprim.sum(rng.permutation(x)).numpy().tobytes() == want


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces of 512 elements: many workgroups, and the wide combine, on small data."""
    monkeypatch.setattr(exact_sum, "PIECE", 512)
    monkeypatch.setattr(exact_sum, "WIDE_PIECES", 4)


def test_many_pieces_both_combines_and_chunks(small_pieces, rng):
    for n in (511, 512, 513, 4 * 512, 4 * 512 + 1, 300_001):
        x = random_bits(rng, n)
        check_sum(x)
        with binding_limit(512 * 8 * 3):  # windows of three pieces, each bound on its own
            check_sum(x)
            assert wgprim.sum(rng.permutation(x)).numpy().tobytes() == np.asarray(reference(x)).tobytes()


def test_a_piece_of_the_largest_digits_stays_exact(rng):
    # Every element the same sign and the largest mantissa: each digit's sum is as large
    # as a piece allows (just below 2^31 in i32).
    x = np.full(3 * 2**15 + 7, np.nextafter(2.0, 0.0) * 2.0**1000)
    check_sum(x)
    check_sum(-x)


# -- axes --------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(7, 1000), (3, 4, 257), (1, 5), (40_000, 3), (2, 0), (0, 3)])
def test_along_every_axis(shape, rng):
    x = wide_exponents(rng, int(np.prod(shape))).reshape(shape)
    for axis in [None] + list(range(-1, len(shape))):
        for keepdims in (False, True):
            got = wgprim.sum(x, axis=axis, keepdims=keepdims).numpy()
            want_shape = np.sum(x, axis=axis, keepdims=keepdims).shape
            assert got.shape == want_shape and got.dtype == F64
            if axis is None:
                assert_bits(got.reshape(()), reference(x), F64)
                continue
            moved = np.moveaxis(x, axis, -1)
            rows = moved.reshape(int(np.prod(moved.shape[:-1])), x.shape[axis])
            want = np.array([reference(row) for row in rows], np.float64).reshape(moved.shape[:-1])
            assert got.reshape(want.shape).tobytes() == want.tobytes()


def test_along_an_axis_with_many_pieces(small_pieces, rng):
    x = random_bits(rng, 3 * 5000).reshape(3, 5000)
    for axis in (0, 1):
        got = wgprim.sum(x, axis=axis).numpy()
        want = np.array([reference(r) for r in np.moveaxis(x, axis, -1)])
        assert got.tobytes() == want.tobytes()


def test_reduce_and_zero_d_input(rng):
    x = wide_exponents(rng, 9999)
    assert wgprim.reduce(x, "sum").numpy().tobytes() == wgprim.sum(x).numpy().tobytes()
    assert wgprim.reduce(x.reshape(3, 3333), "sum", axis=1).shape == (3,)
    assert wgprim.sum(np.float64(2.5)).item() == 2.5
    assert wgprim.sum(np.float64(2.5), axis=0).item() == 2.5


def test_inside_a_batch(rng):
    x = wide_exponents(rng, 5000)
    with wgprim.batch():
        a = wgprim.sum(x)
        b = wgprim.max(x)
    assert a.item() == reference(x) and b.item() == x.max()


# -- means -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 3, 255, 4097, 2**15 + 1, 100_003])
def test_float64_mean_is_correctly_rounded(n, rng):
    for make in (wide_exponents, random_bits):
        x = make(rng, n)
        assert_bits(wgprim.mean(x).numpy(), reference(x, mean=True), F64)


def test_mean_never_overflows_where_the_mean_does_not(rng):
    big = np.finfo(np.float64).max
    assert wgprim.mean(np.array([big, big, big])).item() == big
    assert wgprim.mean(np.array([-5e-324, 0.0, 0.0])).numpy().tobytes() == np.float64(-0.0).tobytes()
    x = np.array([1.0, 2.0, 2.0])  # 5/3 rounded once, not (5.0 / 3)
    assert wgprim.mean(x).item() == float(Fraction(5, 3))


def test_mean_along_axes_and_empty(rng):
    x = wide_exponents(rng, 6 * 777).reshape(6, 777)
    got = wgprim.mean(x, axis=1, keepdims=True).numpy()
    assert got.shape == (6, 1)
    assert got.ravel().tobytes() == np.array([reference(r, mean=True) for r in x]).tobytes()
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(wgprim.mean(np.zeros(0)).item())
    with pytest.warns(RuntimeWarning):
        assert np.isnan(wgprim.mean(np.zeros((3, 0)), axis=1).numpy()).all()


# -- float32 with exact=True ------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 257, 4097, 2**15 + 3, 100_001])
def test_float32_exact_sum_and_mean(n, rng):
    for make in (wide_exponents, random_bits):
        x = make(rng, n, F32)
        check_sum(x)
        assert_bits(wgprim.mean(x, exact=True).numpy(), reference(x, mean=True), F32)
        assert wgprim.sum(rng.permutation(x), exact=True).numpy().tobytes() == wgprim.sum(x, exact=True).numpy().tobytes()


def test_float32_exact_specials_and_overflow():
    big = np.finfo(np.float32).max
    x = np.array([big, big, -big, -big * 0.5], np.float32)
    check_sum(x)
    assert wgprim.sum(np.array([big, big], np.float32), exact=True).item() == math.inf
    assert np.isnan(wgprim.sum(np.array([np.inf, -np.inf], np.float32), exact=True).item())
    check_sum(np.full(70_000, np.float32(1e-45)))  # the smallest subnormal, 70,000 times


def test_float32_defaults_stay_fast(rng):
    x = rng.standard_normal(10_000).astype(np.float32)
    assert wgprim.sum(x).numpy().tobytes() == wgprim.reduce(x, "sum").numpy().tobytes()
    assert abs(wgprim.mean(x).item() - float(np.mean(x.astype(np.float64)))) <= 1e-5


# -- the host's rounding, alone ----------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**1200), 2**1200), st.integers(1, 2**40))
def test_round_ratio_matches_python_division(num, den):
    fmt = FLOAT64
    try:
        want = float(Fraction(num, den) * Fraction(2) ** fmt.unit)
    except OverflowError:
        want = math.inf if num > 0 else -math.inf
    assert round_ratio(num, den, fmt) == want


def test_errors_name_the_fix():
    with pytest.raises(TypeError, match="mean takes float64, float32, int32.*astype"):
        wgprim.mean(np.ones(5, bool))
    with pytest.raises(TypeError, match="float64, float32"):
        wgprim.sum(np.arange(5, dtype=np.int32), exact=True)
    with pytest.raises(TypeError, match="exact must be True or False"):
        wgprim.sum(np.ones(3), exact="yes")
    with pytest.raises(NotImplementedError, match="mean\\(dtype="):
        wgprim.mean(np.ones(3), dtype=np.float32)
    with pytest.raises(TypeError, match="wgprim.sum, wgprim.mean"):
        wgprim.prod(np.ones(3))


# -- var and std -------------------------------------------------------------------------

def round_sqrt(v: Fraction, dtype) -> float:
    """sqrt(v) correctly rounded to dtype, found independently: of the dtype's values
    around numpy's sqrt, the two that bracket it, and their midpoint compared exactly."""
    if v == 0:
        return 0.0
    dtype = np.dtype(dtype)
    top = np.finfo(dtype).max
    k = (v.numerator.bit_length() - v.denominator.bit_length()) // 2  # v / 4^k is near 1
    guess = min(dtype.type(math.ldexp(math.sqrt(float(v / Fraction(4) ** k)), k)), top)
    cands = [guess]
    for _ in range(3):
        cands = [np.nextafter(cands[0], dtype.type(0))] + cands + [np.nextafter(cands[-1], dtype.type(np.inf))]
    lower = max(c for c in cands if Fraction(float(c)) ** 2 <= v)
    upper = np.nextafter(lower, dtype.type(np.inf))
    if not np.isfinite(upper):
        upper_value = Fraction(2) ** (np.finfo(dtype).maxexp)
    else:
        upper_value = Fraction(float(upper))
    mid = (Fraction(float(lower)) + upper_value) / 2
    if v < mid * mid or (v == mid * mid and int(np.array(lower).view(np.uint64 if dtype == F64 else np.uint32)) & 1 == 0):
        return float(lower)
    return float(upper)


def reference_var(x: np.ndarray, ddof=0, root=False) -> float:
    values = x.ravel().tolist()  # Python floats, or ints exactly
    n = len(values)
    if not n or any(not math.isfinite(v) for v in values):
        return math.nan
    exact = [Fraction(v) for v in values]
    mean = sum(exact, Fraction(0)) / n
    squares = sum(((v - mean) ** 2 for v in exact), Fraction(0))  # the textbook form, two-pass
    if n - ddof <= 0:
        return math.nan if squares == 0 else math.inf
    var = squares / (n - Fraction(ddof))
    if root:
        return round_sqrt(var, F32 if x.dtype == F32 else F64)
    if x.dtype == F32:
        return round_f32(var)
    try:
        return float(var)
    except OverflowError:
        return math.inf


def moderate(rng, n, dtype=F64):
    top = 150 if dtype == F64 else 15
    return (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-top, top, n)).astype(dtype)


@pytest.mark.parametrize("dtype", [F64, F32])
@pytest.mark.parametrize("n", [1, 2, 3, 257, 2**15 + 1, 70_001])
def test_var_and_std_are_correctly_rounded(n, dtype, rng):
    makes = [moderate, wide_exponents] if n <= 3000 else [moderate]
    for make in makes:
        x = make(rng, n, dtype)
        for ddof in (0, 1) if n > 1 else (0,):
            assert_bits(wgprim.var(x, ddof=ddof).numpy(), reference_var(x, ddof), dtype)
            assert_bits(wgprim.std(x, ddof=ddof).numpy(), reference_var(x, ddof, root=True), dtype)


def test_var_without_cancellation_error(rng):
    # 1e9 plus small noise: sum(x^2) - sum(x)^2 / n in floats loses everything; exact does not.
    x = 1e9 + rng.standard_normal(5000)
    assert_bits(wgprim.var(x).numpy(), reference_var(x), F64)
    assert abs(wgprim.var(x).item() - np.var(x)) <= 1e-6 * np.var(x)
    x = np.full(1000, 0.1)
    assert wgprim.var(x).item() == 0.0 and wgprim.std(x).item() == 0.0


def test_var_of_tiny_and_huge_values(rng):
    check = [rng.standard_normal(300) * 1e-160, rng.standard_normal(300) * 1e-200,  # squares underflow
             rng.standard_normal(300) * 1e200, np.array([5e-324, 0.0, 1e-323])]
    for x in check:
        assert_bits(wgprim.var(x).numpy(), reference_var(x), F64)
        assert_bits(wgprim.std(x).numpy(), reference_var(x, root=True), F64)


def test_var_along_axes_specials_and_ddof(rng, small_pieces):
    x = moderate(rng, 4 * 3000).reshape(4, 3000)
    for axis in (0, 1, -1):
        for keepdims in (False, True):
            got = wgprim.var(x, axis=axis, ddof=1, keepdims=keepdims).numpy()
            assert got.shape == np.var(x, axis=axis, ddof=1, keepdims=keepdims).shape
            want = np.array([reference_var(r, 1) for r in np.moveaxis(x, axis, -1)])
            assert got.ravel().tobytes() == want.tobytes()
    y = rng.standard_normal(100)
    assert_bits(wgprim.var(y, ddof=1.5).numpy(), reference_var(y, 1.5), F64)
    assert wgprim.var(y, correction=1).item() == wgprim.var(y, ddof=1).item() == reference_var(y, 1)
    y[7] = np.inf
    assert np.isnan(wgprim.var(y).item()) and np.isnan(wgprim.std(y).item())
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert wgprim.var(np.array([1.0, 2.0]), ddof=2).item() == math.inf
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(wgprim.var(np.array([3.0]), ddof=1).item())
    with pytest.raises(ValueError, match="ddof and correction"):
        wgprim.var(y, ddof=1, correction=1)
    with pytest.raises(TypeError, match="var takes float64, float32"):
        wgprim.var(np.ones(4, bool))


def test_var_is_the_same_in_any_order(rng):
    x = np.concatenate([wide_exponents(rng, 20_000) * 1e-100, moderate(rng, 20_000)])
    want = wgprim.var(x).numpy().tobytes()
    for _ in range(2):
        assert wgprim.var(rng.permutation(x)).numpy().tobytes() == want


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**2300), st.integers(1, 2**80), st.integers(-1100, 200).map(lambda u: 2 * u))
def test_round_sqrt_ratio_matches_the_bracketing_oracle(num, den, unit):
    v = Fraction(num, den) * Fraction(2) ** unit
    if v >= Fraction(2) ** 2048:
        return  # the root would overflow float64; variances of finite floats never do
    assert round_sqrt_ratio(num, den, FLOAT64, unit) == round_sqrt(v, F64)


# -- integers: mean, var and std in float64, from exact integer sums ----------------------

@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_integer_statistics_are_correctly_rounded_float64(dtype, rng):
    info = np.iinfo(dtype)
    for n in (1, 7, 2**15 + 1, 100_001):
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[: min(n, 3)] = [info.min, info.max, info.min][: min(n, 3)]  # the extremes, -2^63 included
        assert_bits(wgprim.mean(x).numpy(), reference(x, mean=True), F64)
        if n <= 2**15 + 1:
            assert_bits(wgprim.var(x).numpy(), reference_var(x), F64)
            assert_bits(wgprim.std(x, ddof=1 if n > 1 else 0).numpy(), reference_var(x, 1 if n > 1 else 0, True), F64)
        small = (x % 1000).astype(dtype)
        assert abs(wgprim.var(small, axis=0).item() - np.var(small)) <= 1e-12 * np.var(small) + 1e-300
    with pytest.raises(TypeError, match="exact sums take float64, float32"):
        wgprim.sum(np.arange(3, dtype=dtype), exact=True)


def test_float32_fast_mean_along_an_axis(rng):
    x = rng.standard_normal((5, 3001)).astype(np.float32)
    for axis, keepdims in ((0, False), (1, True), (None, True)):
        got = wgprim.mean(x, axis=axis, keepdims=keepdims).numpy()
        want = np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims)
        assert got.dtype == F32 and got.shape == want.shape
        assert np.all(np.abs(got - want) <= 1e-5 * np.mean(np.abs(x.astype(np.float64)), axis=axis, keepdims=keepdims))
