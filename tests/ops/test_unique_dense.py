"""unique() by a presence bitmap (ops/unique_dense.py): keys in a narrow range."""
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import unique_dense
from wgprim.ops.unique_dense import UniqueDensePolicy
from wgprim.tuning import using

from support import run_on_gl

DTYPES = (np.uint32, np.int32)


@pytest.fixture(autouse=True)
def dense_at_every_size():
    """The bitmap from the first key on (by default only large inputs measure their range)."""
    with using(UniqueDensePolicy, dense_from=0):
        yield


@pytest.fixture
def taken(monkeypatch):
    """The dense_range answers of the calls made while the test runs."""
    class Answers(list):
        spy = None

    answers = Answers()
    decide = unique_dense.dense_range

    def spy(n, bits, counts, device, *more):
        answers.append(decide(n, bits, counts, device, *more))
        spy.bits = bits  # the range the probe measured
        return answers[-1]

    monkeypatch.setattr(unique_dense, "dense_range", spy)
    answers.spy = spy
    return answers


def check(x, inverse=True, counts=True):
    got = wgprim.unique(x, return_inverse=inverse, return_counts=counts)
    want = np.unique(x, return_inverse=inverse, return_counts=counts)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w)


def keys(dtype, n, span, start, seed):
    """n keys of `dtype` in [low, low + span), low = the dtype's minimum + start (wrapped so
    that the span fits)."""
    offsets = np.random.default_rng(seed).integers(0, span, n)
    info = np.iinfo(dtype)
    low = int(info.min) + start % (int(info.max) - int(info.min) - span + 2)
    return (low + offsets).astype(dtype)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dtype=st.sampled_from(DTYPES), n=st.integers(1, 30_000),
       span=st.one_of(st.integers(1, 40), st.integers(1, 3000), st.integers(60_000, 140_000)),
       start=st.integers(0, 2**33), inverse=st.booleans(), counts=st.booleans())
def test_matches_numpy(taken, dtype, n, span, start, inverse, counts):
    # spans around the workgroup-memory limits (2048 counters, 65536 bits) and the
    # bits-per-key limit; the extremes of each integer type included
    x = keys(dtype, n, span, start, seed=n + span)
    check(x, inverse, counts)
    assert taken.spy.bits == int(x.max()) - int(x.min()) + 1  # the probe's range is exact


@pytest.mark.parametrize("dtype", DTYPES)
def test_type_extremes(taken, dtype):
    # the ends of each key range: the largest value with a neighbour, the smallest likewise
    info = np.iinfo(dtype)
    check(np.array([info.max, info.max - 3, info.max], dtype))
    check(np.array([info.min, info.min + 2, info.min], dtype))
    assert taken == [True, True]


@pytest.mark.parametrize("span", [1, 2048, 2049, 65_536, 65_537, 2**20, 2**20 + 1])
def test_both_marks(taken, span):
    # counters: up to 2048 in workgroup memory; bits: up to 65536; wider: global atomics
    # (values alone: counters up to 2^20, bits past it)
    rng = np.random.default_rng(span)
    x = rng.integers(7, 7 + span, 300_003).astype(np.uint32)  # 4n counters reach 2^20
    x[:5000] = 7  # a run of one key, and a heavy hitter: many atomics on one word
    check(x)
    check(x, inverse=False, counts=False)
    assert all(taken)


def test_wide_ranges_and_floats_sort(taken):
    rng = np.random.default_rng(3)
    check(rng.integers(0, 2**31, 5000).astype(np.uint32))  # 2^31 bits for 5000 keys
    check(rng.integers(-2**31, 2**31 - 1, 5000).astype(np.int32))
    assert taken == [False, False]
    check(np.array([2.0, 1.0, np.nan, 2.0, -0.0, 0.0], np.float32))  # floats: no range probe
    assert taken == [False, False]


def test_beyond_one_binding(taken):
    rng = np.random.default_rng(11)
    x = rng.integers(-5000, 5000, 70_000).astype(np.int32).reshape(700, 100)
    with binding_limit(64 * 1024):  # 16384 keys a binding: marks and inverse span five
        check(x)  # counters in global memory
        check(x, inverse=False, counts=False)  # the bitmap in workgroup memory
        check(x, inverse=True, counts=False)
        check(x // 50, counts=True)  # counters in workgroup memory
    with binding_limit(512 * 1024):  # the cache's mark (counters) over three bindings
        check(rng.integers(0, 100_000, 300_000).astype(np.uint32), counts=False)
    assert all(taken)


def test_grid_stride(taken):
    # a few workgroups, each taking many tiles (its cache, or its workgroup-memory bitmap,
    # serving them all), as 2^24 keys and more get by default
    rng = np.random.default_rng(12)
    with using(UniqueDensePolicy, mark_groups=3, local_groups=3):
        for span in (40, 1500, 60_000, 250_000, 1_500_000):
            x = rng.integers(0, span, 100_003).astype(np.uint32)
            x[::7] = 5  # a frequent key
            check(x, counts=span < 400_000)  # 4n counters at most
            check(x, inverse=False, counts=False)
    assert all(taken)


def test_switch_off_sorts(taken):
    with using(UniqueDensePolicy, enabled=False):
        check(np.arange(10, dtype=np.int32) % 3)
    assert taken == []


def test_gl_backend_subprocess():
    """wgpu's GL backend: the marks in workgroup memory (span 1000), through the cache's
    compare-exchange (values) and with global counters (counts), plain and with inverse."""
    script = textwrap.dedent("""
        import numpy as np
        import wgprim
        rng = np.random.default_rng(4)
        for span in (1000, 600_000):
            x = rng.integers(-span // 2, span // 2, 200_003).astype(np.int32)
            x[:5000] = 3
            got = wgprim.unique(x, return_inverse=True, return_counts=True)
            want = np.unique(x, return_inverse=True, return_counts=True)
            assert all(np.array_equal(g.numpy(), w) for g, w in zip(got, want)), span
            assert np.array_equal(wgprim.unique(x).numpy(), want[0]), span
        print("GL unique ok")
    """)
    assert "GL unique ok" in run_on_gl(script)


def test_small_inputs_do_not_measure_their_range(taken, rng):
    with using(UniqueDensePolicy, dense_from=5000):
        x = rng.integers(0, 10, 4999).astype(np.uint32)
        check(x)
        assert taken == []  # the sort path, no probe
        check(rng.integers(0, 10, 5000).astype(np.uint32))
        assert taken == [True]


def test_a_repeated_dense_call_makes_no_gpu_object_and_reads_once(device, rng):
    from support import counting, counting_submits

    x = wgprim.asarray(rng.integers(0, 300, 20_000).astype(np.int32))
    for _ in range(3):
        wgprim.unique(x, return_counts=True)
    with counting(device) as made, counting_submits() as submits:
        values, counts = wgprim.unique(x, return_counts=True)
    assert dict(made) == {}
    assert submits["submits"] == 2  # the range probe, then the steps with the count's copy
    want = np.unique(x.numpy(), return_counts=True)
    np.testing.assert_array_equal(values.numpy(), want[0])
    np.testing.assert_array_equal(counts.numpy(), want[1])


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_64_bit_keys(taken, dtype, monkeypatch):
    # ranges at the ends of the type, across the sign (int64: -1 and 0 differ in the high
    # word of their keys), across a low word's wrap; beyond one binding
    from support import check_binding_sizes

    info = np.iinfo(dtype)
    rng = np.random.default_rng(64)
    starts = [int(info.min), int(info.max) - 2999, 2**32 - 1500] + ([-1500] if dtype == np.int64 else [2**63 - 1500])
    for start in starts:
        x = (np.array(start, object) + rng.integers(0, 3000, 20_001).astype(object)).astype(dtype)
        check(x)
        check(x, inverse=False, counts=False)
    check(np.array([info.max, info.max - 3, info.max], dtype), inverse=False, counts=False)
    check_binding_sizes(monkeypatch)
    x = rng.integers(-2**40, -2**40 + 50_000, 100_003).astype(np.int64).astype(dtype)
    with binding_limit(512 * 1024):  # 65536 keys a binding: the marks, the ranges and the inverse over two
        check(x)
        check(x, counts=False)
    assert all(taken)
