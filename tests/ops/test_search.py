"""searchsorted against numpy's: every key dtype, both sides, awkward sizes, queries equal to
elements / between / outside / NaN / ±0, 64-bit extremes, sorter, mixed dtypes (compared as
numpy compares them), the splitter table and the windows of arrays beyond one binding."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import search as search_ops
from wgprim.ops.search import SearchPolicy, bound_in
from wgprim.tuning import using

DTYPES = [np.uint32, np.int32, np.float32, np.float16, np.uint64, np.int64, np.float64]
SIZES = [0, 1, 2, 3, 255, 256, 257, 4095, 4097]


def _skip_f16(device, dt):
    if np.dtype(dt) == np.float16 and not device.has_f16:
        pytest.skip("no shader-f16")


def sample(rng, dt, n):
    """n values of dt with repeats, and for floats ±0, ±inf, NaNs of several payloads and
    denormals among them."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        x = (rng.standard_normal(n) * 100).astype(dt)
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], dt)
        tiny = np.array([np.finfo(dt).smallest_subnormal, -np.finfo(dt).smallest_subnormal], dt)
        payload = np.array([0x7FC00001 if dt.itemsize == 4 else 0x7E01 if dt.itemsize == 2 else 0x7FF8000000000001],
                           {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]).view(dt)
        pool = np.concatenate([specials, tiny, payload])
        where = rng.random(n) < 0.1
        x[where] = rng.choice(pool, where.sum())
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        where = rng.random(n) < 0.1
        x[where] = rng.choice(np.array([info.min, info.max, 0, 1], dt), where.sum())
    repeat = rng.random(n) < 0.2
    if n:
        x[repeat] = x[rng.integers(0, n, repeat.sum())]
    return x


def queries_for(rng, a, m):
    """Queries: every element, its neighbours, values between and outside, and random ones."""
    dt = a.dtype
    parts = [a, sample(rng, dt, m)]
    if dt.kind == "f" and a.size:
        finite = a[np.isfinite(a)]
        parts += [np.nextafter(finite, dt.type(np.inf)), np.nextafter(finite, dt.type(-np.inf))]
    elif a.size:
        info = np.iinfo(dt)
        parts += [np.where(a < info.max, a + dt.type(1), a), np.where(a > info.min, a - dt.type(1), a)]
    q = np.concatenate(parts)
    return q[rng.permutation(q.size)]


def check(a, v, side="left", sorter=None, **kw):
    got = wgprim.searchsorted(a, v, side=side, sorter=sorter, **kw)
    want = np.searchsorted(np.asarray(a), v, side=side, sorter=None if sorter is None else np.asarray(sorter))
    assert got.dtype == np.uint32
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got.numpy().astype(np.int64), want)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_every_dtype_and_size(device, rng, dt, n):
    _skip_f16(device, dt)
    a = np.sort(sample(rng, dt, n))
    q = queries_for(rng, a, 300)
    for side in ("left", "right"):
        check(a, q, side)


@pytest.mark.parametrize("dt", DTYPES)
def test_ranges_in_global_memory(device, rng, dt):
    # a table of 16 splitters: the search leaves workgroup memory (ranges of up to 512)
    _skip_f16(device, dt)
    with using(SearchPolicy, table_bytes=16 * (8 if np.dtype(dt).itemsize == 8 else 4)):
        assert search_ops.search_recorder(device, dt, "left").table == 16
        for n in (17, 1000, 5003):
            a = np.sort(sample(rng, dt, n))
            q = queries_for(rng, a, 500)
            for side in ("left", "right"):
                check(a, q, side)


def test_nan_and_signed_zero_follow_numpy():
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 0.0, 1.0, np.inf, np.nan, np.nan], np.float32)
    nan_payload = np.array([0x7FC00001, 0xFFC00000], np.uint32).view(np.float32)
    q = np.concatenate([a, nan_payload, np.array([-0.0, 0.0, 2.0, -2.0], np.float32)])
    for dt in (np.float32, np.float64):
        for side in ("left", "right"):
            check(a.astype(dt), q.astype(dt), side)


def test_64_bit_extremes():
    for dt in (np.int64, np.uint64):
        info = np.iinfo(dt)
        a = np.array(sorted({info.min, info.min + 1, 0, 1, 2**53, 2**53 + 1, info.max - 1, info.max}), dt)
        q = np.concatenate([a, np.array([info.min, info.max, 2**40, 2**32, 2**32 - 1], dt)])
        for side in ("left", "right"):
            check(a, q, side)
    big = np.array([2.0**1000, 5e-324, -5e-324, 1.7976931348623157e308], np.float64)
    a = np.sort(np.concatenate([big, -big, [0.0, np.nan]]))
    check(a, np.concatenate([a, [np.inf, -np.inf, 1e-320]]), "right")


def test_shapes_scalars_and_empty(rng):
    a = np.sort(rng.standard_normal(50).astype(np.float32))
    v = rng.standard_normal((3, 4)).astype(np.float32)
    check(a, v)
    check(a, np.float32(0.5), "right")  # a 0-d result
    got = wgprim.searchsorted(a, np.float32(0.5))
    assert got.shape == () and int(got.item()) == np.searchsorted(a, np.float32(0.5))
    check(a, np.zeros((0, 3), np.float32))
    check(np.zeros(0, np.float32), v)
    check(wgprim.asarray(a), wgprim.asarray(v))  # Arrays in, as numpy arrays


def test_sorter(rng):
    x = rng.standard_normal(3000).astype(np.float32)
    x[::7] = np.nan
    order = np.argsort(x, kind="stable")
    q = queries_for(rng, x, 200)
    for side in ("left", "right"):
        check(x, q, side, sorter=order)
        check(x, q, side, sorter=wgprim.asarray(order.astype(np.uint32)))
        check(x, q, side, sorter=wgprim.argsort(x))
    ints = rng.integers(-5, 5, 999).astype(np.int64)
    check(ints, np.arange(-6, 7), "left", sorter=wgprim.asarray(np.argsort(ints).astype(np.int32)))


def test_errors_as_numpy(rng):
    a = np.arange(4, dtype=np.float32)
    with pytest.raises(ValueError, match="side"):
        wgprim.searchsorted(a, 1.0, side="middle")
    with pytest.raises(ValueError, match="side"):
        wgprim.searchsorted(a, 1.0, side="L")
    with pytest.raises(ValueError, match="1-D"):
        wgprim.searchsorted(a.reshape(2, 2), 1.0)
    with pytest.raises(ValueError, match="out of range"):
        wgprim.searchsorted(a, 1.0, sorter=[0, 1, 2, 4])
    with pytest.raises(ValueError, match="out of range"):
        wgprim.searchsorted(a, 1.0, sorter=wgprim.asarray(np.array([0, 1, -1, 2], np.int32)))
    with pytest.raises(ValueError, match="size"):
        wgprim.searchsorted(a, 1.0, sorter=[0, 1])
    with pytest.raises(TypeError, match="integers"):
        wgprim.searchsorted(a, 1.0, sorter=[0.0, 1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="uint32 or int32"):
        wgprim.searchsorted(a, 1.0, sorter=wgprim.asarray(np.arange(4, dtype=np.float32)))
    with pytest.raises(TypeError, match="numbers"):
        wgprim.searchsorted(a, ["a"])
    with pytest.raises(TypeError, match="float32"):
        wgprim.searchsorted(wgprim.asarray(a), wgprim.asarray(np.ones(2, np.int32)))
    with pytest.raises(TypeError, match="supported"):
        wgprim.searchsorted(a.astype(np.int8), 1)
    assert wgprim.searchsorted(a, 2.5).item() == 3  # usable afterwards


MIXED = [
    (np.float32, [0.1, 1e300, -1e300, np.nan, -0.0, 2.0**-149 / 3]),   # Python floats: float64
    (np.float16, [0.1, 65520.0, 1e-8, np.nan, 70000]),
    (np.uint32, [-1, 2**40, 1.5, -0.5, np.nan, 2**32 - 0.5, 2**32 - 1]),
    (np.int32, [2**31, -(2**31) - 1, 2.5, np.nan, -np.inf, np.inf]),
    (np.uint64, [-1, 2**53, 2**53 + 1, 2.0**64, 1.5, np.nan]),        # Python ints: compared in float64
    (np.int64, [2**53 + 1, 2.0**63, -(2.0**63), 0.5, np.nan]),
    (np.float64, [np.float32(0.1), np.float16(0.1)]),
]


@pytest.mark.parametrize("dt, queries", MIXED, ids=[np.dtype(d).name for d, _ in MIXED])
def test_queries_of_other_dtypes_compare_as_numpy(device, dt, queries):
    _skip_f16(device, dt)
    dt = np.dtype(dt)
    if dt.kind == "f":
        a = np.sort(np.array([-np.inf, -1.0, -0.0, 0.1, 1.0, 2.0**-149, 65504.0, np.inf, np.nan]).astype(dt))
    elif dt.kind == "u":
        a = np.array([0, 1, 2, 2**32 - 1, 2**53, 2**53 + 1, 2**63, 2**64 - 1][:4 if dt.itemsize == 4 else 8], dt)
    else:
        a = np.array([-(2**31), -1, 0, 2, 2**31 - 1] if dt.itemsize == 4 else
                     [-(2**63), -(2**53) - 1, 0, 2**53, 2**53 + 1, 2**63 - 1], dt)
    for side in ("left", "right"):
        for q in queries:
            for a_in in (a, wgprim.asarray(a)):
                got = wgprim.searchsorted(a_in, q, side=side).item()
                assert got == np.searchsorted(a, q, side=side), (dt, q, side)
        check(a, np.array(queries, dtype=np.result_type(*[np.asarray(q).dtype for q in queries])), side)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["uint32", "int32", "float32", "uint64", "int64", "float64"]),
       st.sampled_from(["uint32", "int32", "float32", "float64", "int64", "uint64", "bool", "int8", "float16"]),
       st.integers(0, 2**32 - 1), st.sampled_from(["left", "right"]))
def test_hypothesis_mixed_dtypes(a_dt, v_dt, seed, side):
    rng = np.random.default_rng(seed)
    a = np.sort(sample(rng, a_dt, 40)).astype(a_dt)
    v = sample(rng, np.float64 if np.dtype(v_dt).kind == "f" else np.int64, 30)
    with np.errstate(over="ignore", invalid="ignore"):
        v = v.astype(v_dt) if v_dt != "bool" else v > 0
        v = np.concatenate([v, a.astype(v_dt) if v_dt != "bool" else a > 0])
    check(a, v, side)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["float32", "float64", "int32", "uint64"]), st.integers(1, 3000), st.integers(0, 2**32 - 1),
       st.sampled_from([16, 64, 4096]))
def test_hypothesis_salted(a_dt, n, seed, table):
    rng = np.random.default_rng(seed)
    a = np.sort(sample(rng, a_dt, n))
    q = queries_for(rng, a, 100)
    with using(SearchPolicy, table_bytes=table * np.dtype(a_dt).itemsize):
        for side in ("left", "right"):
            check(a, q, side)


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.float16])
def test_arrays_and_queries_beyond_one_binding(device, rng, dt):
    # 8 KiB bindings and 256-byte tables: the sorted array and the queries span several windows
    _skip_f16(device, dt)
    a = np.sort(sample(rng, dt, 9000))
    q = queries_for(rng, a[::3], 3000)
    with binding_limit(8192), using(SearchPolicy, table_bytes=256):
        for side in ("left", "right"):
            check(a, q, side)
            check(a, q, side, sorter=np.argsort(a, kind="stable"))


def test_bound_in_is_numpy_comparison(rng):
    # the host's thresholds: "x < v" in the common dtype <=> key(x) < key(t) for every x
    from wgprim.ops.order_key import host_keys

    for dt, ct in [(np.float32, np.float64), (np.int32, np.float64), (np.uint64, np.float64), (np.int64, np.float64),
                   (np.float16, np.float32), (np.uint32, np.int64), (np.float32, np.longdouble)]:
        xs = np.unique(sample(rng, dt, 200))
        vs = xs.astype(ct)
        if np.dtype(ct).kind == "f":
            more = np.concatenate([sample(rng, np.float64, 50), [np.nan, np.inf, -np.inf, 0.5, -0.0, 1e30, -1e30]])
            with np.errstate(invalid="ignore", over="ignore"):
                vs = np.concatenate([vs, more.astype(ct), (xs.astype(ct) + ct(0.5))])
        for side in ("left", "right"):
            t, found = bound_in(vs, dt, side)
            kx, kt = host_keys(xs)[:, None], host_keys(t)[None, :]
            ref = np.searchsorted(np.sort(xs).astype(ct), vs, side=side)
            got = np.where(found, ((kx < kt) if side == "left" else (kx <= kt)).sum(axis=0),
                           xs.size if side == "left" else 0)
            np.testing.assert_array_equal(got, ref, err_msg=f"{dt} {ct} {side}")


def test_repeated_calls_make_no_gpu_object(device, rng):
    # the forms the registry's entries do not reach: a sorter (numpy's and an Array, checked
    # by a min/max pass), queries of another dtype with answers fixed by the host, a scalar
    from tests.test_calls import counting

    a = rng.standard_normal(5000).astype(np.float32)
    order = wgprim.asarray(np.argsort(a).astype(np.uint32))
    ints = np.sort(rng.integers(0, 100, 3000).astype(np.uint32))
    calls = [lambda: wgprim.searchsorted(a, a[:700], sorter=np.argsort(a)),
             lambda: wgprim.searchsorted(a, a[:700], side="right", sorter=order),
             lambda: wgprim.searchsorted(ints, np.array([-1, 5, 2**40, 7]), side="right"),
             lambda: wgprim.searchsorted(a, 0.25)]
    for call in calls:
        for _ in range(3):
            call().numpy()
        with counting(device) as made:
            for _ in range(3):
                call().numpy()
        assert dict(made) == {}
