"""sort / argsort / sort_pairs / SortPlan against numpy's stable sort."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wgprim.array import asarray
from wgprim.device import binding_limit, get_device
from wgprim.ops.sort_policy import SortPolicy
from wgprim.tuning import policy, using
from wgprim.api.sort import SortPlan, argsort, sort, sort_pairs
from wgprim.ops.radix_sort import radix_sorter as _radix

from support import forced_ranking_path

DTYPES = [np.uint32, np.int32, np.float32]
SIZES = [0, 1, 2, 3, 255, 256, 257, 1023, 1025, 4095, 4096, 4097, 8193, 65535, 65537]


def random_keys(n, dtype, rng, low=None, high=None):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (rng.standard_normal(n) * 1e3).astype(dt)
    info = np.iinfo(dt)
    low = info.min if low is None else low
    high = info.max if high is None else high
    return rng.integers(low, high, n, dtype=np.int64, endpoint=True).astype(dt)


def stable_order(x, descending=False):
    """numpy's stable order; descending: largest first, ties in input order, NaN first."""
    if not descending:
        return np.argsort(x, kind="stable")
    n = x.size
    return (n - 1 - np.argsort(x[::-1], kind="stable"))[::-1]


def bits(a):
    """The bits of 32-bit values: sorts return the input's own (-0.0 and NaN payloads too)."""
    return np.ascontiguousarray(a).view(np.uint32)


def check_all(x, descending=False, method="radix"):
    order = stable_order(x, descending)
    np.testing.assert_array_equal(bits(sort(x, descending=descending, method=method).numpy()), bits(x[order]))
    if method == "radix":
        np.testing.assert_array_equal(argsort(x, descending=descending).numpy(), order)
        values = np.arange(x.size, dtype=np.int32) * 3 - 7
        keys_out, vals_out = sort_pairs(x, values, descending=descending)
        np.testing.assert_array_equal(bits(keys_out.numpy()), bits(x[order]))
        np.testing.assert_array_equal(vals_out.numpy(), values[order])


@pytest.fixture(params=["match", "splits", "no-subgroups"])
def ranking_path(request):
    """Every ranking path of the radix scatter."""
    with forced_ranking_path(request.param):
        yield request.param


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_random_sizes(n, dtype, ranking_path):
    x = random_keys(n, dtype, np.random.default_rng(n))
    check_all(x)
    check_all(x, descending=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_millions(dtype):
    x = random_keys(2_000_000 + 3, dtype, np.random.default_rng(7))
    order = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(bits(sort(x).numpy()), bits(x[order]))
    if dtype == np.float32:
        np.testing.assert_array_equal(argsort(x).numpy(), order)


def test_millions_pairs_descending():
    x = random_keys(3_000_001, np.int32, np.random.default_rng(8), -1000, 1000)  # many duplicates
    values = np.random.default_rng(9).standard_normal(x.size).astype(np.float32)
    order = stable_order(x, descending=True)
    keys_out, vals_out = sort_pairs(x, values, descending=True)
    np.testing.assert_array_equal(keys_out.numpy(), x[order])
    np.testing.assert_array_equal(vals_out.numpy(), values[order])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [300, 20_000])
def test_patterns(n, dtype):
    rng = np.random.default_rng(3)
    x = random_keys(n, dtype, rng)
    for pattern in (
        np.sort(x),                                 # already sorted
        np.sort(x)[::-1].copy(),                    # reversed
        np.full(n, x[0]),                           # all equal (every pass skipped but one)
        random_keys(n, dtype, rng, 0, 3) if dtype != np.float32 else rng.integers(0, 3, n).astype(dtype),
        random_keys(n, dtype, rng, 0, 70_000) if dtype != np.float32 else x.round(),  # some digits constant
    ):
        check_all(pattern)
        check_all(pattern, descending=True)


def test_integer_extremes():
    rng = np.random.default_rng(4)
    for dtype in (np.int32, np.uint32):
        info = np.iinfo(dtype)
        specials = np.array([info.min, info.max, 0, 1, info.min + 1, info.max - 1], dtype=np.int64).astype(dtype)
        x = rng.choice(specials, 10_000)
        check_all(x)
        check_all(x, descending=True)


@pytest.mark.parametrize("n", [17, 5000, 100_000])
def test_float_specials(n, ranking_path):
    rng = np.random.default_rng(n)
    specials = np.concatenate([NAN_PAYLOADS, np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0,
                                                       np.finfo(np.float32).max, np.finfo(np.float32).min,
                                                       np.finfo(np.float32).tiny, -np.finfo(np.float32).tiny,
                                                       1e-45, -1e-45], np.float32)])
    x = rng.choice(specials, n).astype(np.float32)
    x[::3] = rng.standard_normal(x[::3].size)
    check_all(x)
    check_all(x, descending=True)
    s = sort(x).numpy()
    nan = np.isnan(x)
    assert bits(s[-nan.sum():]).tolist() == bits(x[nan]).tolist()  # NaN last, each its own, in input order
    assert bits(s[s == 0]).tolist() == bits(x[x == 0]).tolist()  # the zeros in input order, signs kept
    assert bits(sort(x, descending=True).numpy()[:nan.sum()]).tolist() == bits(x[nan]).tolist()  # NaN first


def test_signed_zeros_keep_input_order():
    x = np.array([0.0, -0.0, 1.0, -0.0, 0.0, -1.0] * 1000, np.float32)
    np.testing.assert_array_equal(argsort(x).numpy(), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(argsort(x, descending=True).numpy(), stable_order(x, True))


NAN_PAYLOADS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FBEEF00], np.uint32).view(np.float32)

finite_or_special = st.one_of(
    st.floats(width=32, allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, float("inf"), float("-inf"), 1e-45, -1e-45] + list(NAN_PAYLOADS)),
)


@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(np.float32, st.integers(0, 600), elements=finite_or_special), descending=st.booleans())
def test_hypothesis_float(x, descending):
    check_all(x, descending)
    check_all(x, descending, method="bitonic")


@settings(max_examples=10, deadline=None)
@given(x=hnp.arrays(np.float32, st.tuples(st.integers(1, 4), st.integers(1, 300)), elements=finite_or_special),
       descending=st.booleans(), cut=st.floats(0, 1))
def test_hypothesis_float_rows_and_segments(x, descending, cut):
    """Along either axis and segment by segment: the input's own bits in each line's stable
    order."""
    import wgprim

    for axis in (-1, 0):
        moved = np.moveaxis(x, axis, -1)
        order = np.apply_along_axis(lambda row: stable_order(row, descending), -1, moved)
        want = np.moveaxis(np.take_along_axis(moved, order, -1), -1, axis)
        np.testing.assert_array_equal(bits(sort(x, axis=axis, descending=descending).numpy()), bits(want))
    flat = x.ravel()
    offsets = [0, int(cut * flat.size), flat.size]
    want = np.concatenate([flat[a:b][stable_order(flat[a:b], descending)] for a, b in zip(offsets, offsets[1:])])
    np.testing.assert_array_equal(bits(wgprim.segment_sort(flat, offsets, descending=descending).numpy()), bits(want))


@settings(max_examples=8, deadline=None)
@given(x=hnp.arrays(np.float32, st.integers(2049, 9000), elements=finite_or_special), descending=st.booleans())
def test_hypothesis_float_radix_passes(x, descending):
    """Past one workgroup (the radix passes, partial last tile), the plan too."""
    check_all(x, descending)
    plan = SortPlan(x.size, np.float32, what="keys", descending=descending)
    np.testing.assert_array_equal(bits(plan(x).numpy()), bits(x[stable_order(x, descending)]))


@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(np.int32, st.integers(0, 5000), elements=st.integers(-5, 5)), descending=st.booleans())
def test_hypothesis_duplicates(x, descending):
    check_all(x, descending)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 255, 4096, 4097, 20_000, 100_003])
def test_bitonic(n, dtype):
    x = random_keys(n, dtype, np.random.default_rng(n + 1))
    if dtype == np.float32 and n > 4:
        x[::5] = np.nan
        x[1::7] = -0.0
        x[2::11] = np.inf
    check_all(x, method="bitonic")
    check_all(x, descending=True, method="bitonic")


def test_value_dtypes_and_gpu_inputs():
    rng = np.random.default_rng(5)
    keys = random_keys(10_000, np.uint32, rng, 0, 50)
    order = np.argsort(keys, kind="stable")
    for values in (np.arange(keys.size, dtype=np.uint32), rng.standard_normal(keys.size).astype(np.float32),
                   rng.integers(-(2**31), 2**31 - 1, keys.size).astype(np.int32)):
        k, v = sort_pairs(asarray(keys), asarray(values))
        assert v.dtype == values.dtype
        np.testing.assert_array_equal(v.numpy(), values[order])
        np.testing.assert_array_equal(k.numpy(), keys[order])
    assert argsort(keys).dtype == np.uint32


def test_binding_limit():
    x = random_keys(40_000, np.uint32, np.random.default_rng(6))
    with binding_limit(4 * 40_000 + 256):  # the keys just fit one binding; the scan is chunked
        np.testing.assert_array_equal(sort(x).numpy(), np.sort(x))
    with binding_limit(64 * 1024):  # 16384 keys a binding: the radix sort's output spans three
        np.testing.assert_array_equal(sort(x).numpy(), np.sort(x))
        with pytest.raises(ValueError, match="storage binding"):
            sort(x, method="bitonic")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [16_385, 32_768, 50_001, 70_000])
def test_keys_in_several_bindings(n, dtype, ranking_path):
    # Reads in binding-sized chunks (16384 keys), the output bound as two windows per
    # scatter dispatch: one dispatch up to 32768 keys, one per pair of windows beyond.
    rng = np.random.default_rng(n)
    x = random_keys(n, dtype, rng)
    if dtype == np.float32:
        x[rng.integers(0, n, 50)] = np.nan
        x[rng.integers(0, n, 50)] = -0.0
    few = (x.view(np.uint32) % 7).astype(dtype) if dtype != np.float32 else np.round(x)
    with binding_limit(64 * 1024):
        np.testing.assert_array_equal(bits(sort(x).numpy()), bits(x[np.argsort(x, kind="stable")]))
        np.testing.assert_array_equal(argsort(few).numpy(), np.argsort(few, kind="stable"))
        values = np.arange(n, dtype=np.uint32)[::-1].copy()
        k, v = sort_pairs(few, values, descending=True)
        order = np.argsort(-few.astype(np.float64), kind="stable") if dtype != np.uint32 else \
            np.argsort(np.iinfo(np.uint32).max - few.astype(np.int64), kind="stable")
        if dtype == np.float32:  # NaN first when descending
            order = np.concatenate([np.flatnonzero(np.isnan(few)), order[~np.isnan(few[order])]])
        np.testing.assert_array_equal(v.numpy(), values[order])
        plan = SortPlan(n, dtype, what="argsort")
        np.testing.assert_array_equal(plan(few).numpy(), np.argsort(few, kind="stable"))


def test_larger_than_the_largest_buffer(monkeypatch):
    monkeypatch.setitem(get_device().limits, "max-buffer-size", 4096)
    with pytest.raises(ValueError, match="largest"):
        _radix(get_device(), np.dtype(np.uint32), False).check_size(2000)


def test_errors():
    for bad in (np.zeros(4, np.bool_), np.zeros(4, np.float16), np.zeros(4, np.int16), [True, False]):
        with pytest.raises(TypeError):
            sort(bad)
        with pytest.raises(TypeError):
            argsort(bad)
    with pytest.raises(TypeError):
        sort_pairs(np.zeros(4, np.uint32), np.zeros(4, np.int16))
    assert sort(np.zeros((2, 3), np.float32)).shape == (2, 3)  # n-D: along an axis (tests/ops/test_axis.py)
    assert argsort(np.float32(1.0)).numpy().tolist() == [0]  # numpy's answer for 0-d (tests/test_bad_input.py)
    with pytest.raises(np.exceptions.AxisError):
        sort(np.float32(1.0))
    with pytest.raises(ValueError, match="differ in length"):
        sort_pairs(np.zeros(4, np.uint32), np.zeros(5, np.uint32))
    with pytest.raises(ValueError, match="method"):
        sort(np.zeros(4, np.uint32), method="quick")


def test_plan_runs_many_times_without_new_pipelines():
    rng = np.random.default_rng(10)
    n = 50_000
    plan = SortPlan(n, np.float32, what="argsort")
    x = asarray(random_keys(n, np.float32, rng))
    plan(x)
    pipelines = len(get_device().cache("pipelines"))
    temps = list(plan._temps.values())
    for _ in range(3):
        host = random_keys(n, np.float32, rng)
        get_device().device.queue.write_buffer(x.buffer, 0, host)
        np.testing.assert_array_equal(plan(x).numpy(), np.argsort(host, kind="stable"))
    assert len(get_device().cache("pipelines")) == pipelines
    assert list(plan._temps.values()) == temps
    assert len(plan._programs) == 1  # same buffers: recorded once


def test_plan_pairs_skip_digits_and_profile():
    rng = np.random.default_rng(11)
    n = 30_000
    keys = random_keys(n, np.uint32, rng, 0, 1000)  # two digits vary
    values = rng.standard_normal(n).astype(np.float32)
    plan = SortPlan(n, np.uint32, what="pairs", descending=True, skip_digits=True)
    (k, v), times = plan(keys, values, profile=True)
    order = stable_order(keys, True)
    np.testing.assert_array_equal(k.numpy(), keys[order])
    np.testing.assert_array_equal(v.numpy(), values[order])
    if times is not None:
        labels = {t.label for t in times}
        assert labels == {"radix count", "radix scan", "radix scatter"}
        # Keys below 1000 (inverted for descending: the high bytes are 0xff in every key):
        # only the two low digits get a pass.
        assert sum(t.label == "radix scatter" for t in times) == 2
    keys_plan = SortPlan(n, np.uint32)
    np.testing.assert_array_equal(keys_plan(keys).numpy(), np.sort(keys))
    with pytest.raises(ValueError):
        keys_plan(keys[:-1])
    with pytest.raises(TypeError):
        SortPlan(n, np.int16)


@pytest.mark.parametrize("items", [4, 8, 12, 16])
def test_match_tile_sizes(items):
    """The match path with every supported number of keys per invocation (the default is
    covered above): partial last tiles, duplicates, pairs, argsort, both directions."""
    with using(SortPolicy, match_items=items):
        sorter = _radix(get_device(), np.dtype(np.float32), False)
        if not sorter.match:
            pytest.skip("no match path on this adapter")
        assert sorter.tile == 256 * items
        rng = np.random.default_rng(items)
        x = random_keys(3 * 256 * items + 77, np.float32, rng)
        x[::4] = np.round(x[::4] / 100)  # many duplicates
        x[1::9] = np.nan
        x[2::13] = -0.0
        check_all(x)
        check_all(x, descending=True)
        y = random_keys(5000, np.int32, rng, -3, 3)
        check_all(y, descending=True)


def test_policy_values_are_checked():
    """A policy refuses shapes its kernels do not have, and using() names a field that
    does not exist."""
    for bad in (dict(match_items=10), dict(match_wg=128), dict(split_items=16), dict(onesweep="keys"),
                dict(scan_method="serial")):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SortPolicy(**bad)
    with pytest.raises(TypeError, match="no field match_item"):
        with using(SortPolicy, match_item=8):
            pass


def test_policy_is_part_of_the_sorter_key():
    """A sorter is made for the policy in force: a changed field gets another sorter, the
    same fields the same one, and leaving the block the default one again."""
    dev = get_device()
    default = _radix(dev, np.dtype(np.uint32), False)
    assert default.policy == policy(SortPolicy, dev) == SortPolicy.for_device(dev)
    with using(SortPolicy, offsets_by_tile=True):
        changed = _radix(dev, np.dtype(np.uint32), False)
        assert changed is not default and changed.policy.offsets_by_tile
        with using(SortPolicy, offsets_by_tile=True):
            assert _radix(dev, np.dtype(np.uint32), False) is changed
    assert _radix(dev, np.dtype(np.uint32), False) is default
    assert _radix(dev, np.dtype(np.uint32), False, SortPolicy.for_device(dev)) is default


def test_small_workgroup_memory(monkeypatch):
    """Devices with only WebGPU's minimum 16 KiB of workgroup memory get the largest match
    tile that fits there, or 1024-key tiles of the split ranking."""
    from wgprim.ops.radix_sort import RadixSorter
    from wgprim.ops.sort_policy import match_shared_bytes, subgroups_per_workgroup
    from wgprim.program import Program

    dev = get_device()
    monkeypatch.setitem(dev.limits, "max-compute-workgroup-storage-size", 16384)
    assert SortPolicy.for_device(dev).split_items == 4
    sorter = RadixSorter(dev, np.dtype(np.float32), descending=True)
    if sorter.match:
        subgroups = subgroups_per_workgroup(dev)
        fitting = [k for k in (20, 16, 12, 8, 4) if match_shared_bytes(k, subgroups) <= 16384]
        assert sorter.items == fitting[0] < SortPolicy().match_items
        assert sorter.tile == SortPolicy().match_wg * sorter.items
    else:
        assert sorter.tile == 1024
    x = random_keys(10_001, np.float32, np.random.default_rng(12))
    out = asarray(np.zeros(x.size, np.float32))
    idx = asarray(np.zeros(x.size, np.uint32))
    program = Program(dev)
    sorter.record(program, asarray(x), out, None, idx, index_values=True)
    program.run()
    np.testing.assert_array_equal(idx.numpy(), stable_order(x, True))


def test_plan_refuses_its_own_result_as_input():
    import wgprim
    plan = SortPlan(1000, np.int32)
    out = plan(np.arange(1000, dtype=np.int32)[::-1].copy())
    with pytest.raises(ValueError, match="own result"):
        plan(out)


def test_pairs_plan_refuses_its_own_results_as_values():
    plan = SortPlan(1000, np.uint32, what="pairs", skip_digits=True)
    keys = np.random.default_rng(3).integers(0, 1 << 20, 1000).astype(np.uint32)
    plan(keys, np.arange(1000, dtype=np.uint32))
    with pytest.raises(ValueError, match="own result"):
        plan(asarray(keys), plan.keys)


@pytest.mark.parametrize("n", [1, 4097, 33 * 4096 + 5, 70_001])
def test_offsets_by_tile(n, ranking_path):
    """The multi-pass scatter reading the scan's offsets transposed to tile-major (tile
    counts that are and are not multiples of the transpose's 32-tile blocks; keys beyond
    one binding)."""
    with using(SortPolicy, onesweep=False, offsets_by_tile=True):
        rng = np.random.default_rng(n)
        for dtype in DTYPES:
            x = random_keys(n, dtype, rng)
            check_all(x, descending=dtype == np.float32)
        x = random_keys(40_000, np.uint32, rng)
        with binding_limit(64 * 1024):
            check_all(x)


def test_default_policy():
    """By default every sort takes the multi-pass schedule (measured faster on an H200 since
    its passes' loads go out together); the one-sweep passes are there when asked for."""
    sorter = _radix(get_device(), np.dtype(np.uint32), False)
    assert sorter.policy.onesweep is False
    assert not sorter.uses_onesweep(100_000, pairs=True) and not sorter.uses_onesweep(100_000)



def test_probe_finds_the_varying_digits():
    """The probe (one read-only dispatch and 8 bytes read back) names the digits that
    differ between keys, after the keys' transform; inside a batch, where nothing runs
    before the end, it answers every digit without running."""
    from wgprim.program import batch

    dev = get_device()
    rng = np.random.default_rng(17)
    u = _radix(dev, np.dtype(np.uint32), False)
    n = 3 * u.tile + 5
    x = random_keys(n, np.uint32, rng)
    assert u.probe(asarray(x)) == (0, 1, 2, 3)
    shifted = (x & np.uint32(0xFF)) << np.uint32(8)  # only digit 1 varies
    assert u.probe(asarray(shifted)) == (1,)
    assert u.probe(asarray(np.full(n, 7, np.uint32))) == ()
    small = random_keys(n, np.int32, rng, -300, 300)  # two's complement around 0: every digit
    assert _radix(dev, np.dtype(np.int32), False).probe(asarray(small)) == (0, 1, 2, 3)
    assert _radix(dev, np.dtype(np.int32), False).probe(asarray(np.abs(small))) == (0, 1)
    with batch():
        assert u.probe(asarray(shifted)) == (0, 1, 2, 3)
        out = sort(x)
    np.testing.assert_array_equal(out.numpy(), np.sort(x))


@pytest.mark.parametrize("method", ["single-pass", "reduce-then-scan"])
def test_count_scan_methods(method):
    """The multi-pass sort's digit counts scanned by either scan (by default the scan's own
    rule picks by size: the single pass from 4097 counts, 17 tiles, on)."""
    with using(SortPolicy, scan_method=method):
        sorter = _radix(get_device(), np.dtype(np.float32), False)
        rng = np.random.default_rng(len(method))
        for n in (sorter.tile + 1, 20 * sorter.tile + 3):
            x = random_keys(n, np.float32, rng)
            x[::7] = np.round(x[::7] / 100)  # duplicates
            check_all(x)
            check_all(x, descending=True)


def test_flags_axes_and_methods_are_checked():
    """A flag takes True or False only (a truthy string must not switch it on); axes as
    numpy (AxisError, TypeError); an unknown method is refused on every path; wgprim stays
    usable afterwards."""
    import wgprim

    x = np.arange(6, dtype=np.float32)[::-1].copy()
    for bad in ("False", "yes", 1, None, [1]):
        for call in (lambda: sort(x, descending=bad), lambda: argsort(x, descending=bad),
                     lambda: sort_pairs(x, x, descending=bad), lambda: SortPlan(6, np.float32, descending=bad),
                     lambda: wgprim.segment_sort(x, [0, 6], descending=bad),
                     lambda: sort(x.reshape(2, 3), descending=bad)):
            with pytest.raises(TypeError, match="descending"):
                call()
    for bad in ("False", 0, [1]):
        with pytest.raises(TypeError, match="stable"):
            sort(x, stable=bad)
        with pytest.raises(TypeError, match="stable"):
            argsort(x, stable=bad)
        with pytest.raises(TypeError, match="skip_digits"):
            SortPlan(6, np.float32, skip_digits=bad)
    for bad in ("yes", None, 1):
        with pytest.raises(TypeError, match="exclusive"):
            wgprim.segment_scan(x, [0, 6], exclusive=bad)
    with pytest.raises(TypeError):
        SortPlan(5.5, np.float32)
    for call in (lambda: sort(x, axis=5), lambda: argsort(x, axis=-2), lambda: sort_pairs(x, x, axis=1),
                 lambda: sort(x.reshape(2, 3), axis=2)):
        with pytest.raises(np.exceptions.AxisError):
            call()
    for bad in ("x", 1.0, True):
        with pytest.raises(TypeError, match="axis"):
            sort(x, axis=bad)
    for shape, axis in (((6,), 0), ((6,), None), ((2, 3), 0), ((2, 3), -1)):
        with pytest.raises(ValueError, match="radix, bitonic"):
            sort(x.reshape(shape), axis=axis, method="bogus")
    np.testing.assert_array_equal(sort(x, axis=0, stable=None).numpy(), np.sort(x))
    np.testing.assert_array_equal(wgprim.segment_scan(x, [0, 6], exclusive=True).numpy(),
                                  np.concatenate([[0], np.cumsum(x)[:-1]]))
