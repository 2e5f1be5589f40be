"""The one-sweep radix passes (kernels/radix_onesweep.wgsl): exact results whatever the
look-back finds, including when every look-back falls back (no polls) and when chosen
tiles never publish their state, on every ranking path, on lavapipe and on wgpu's GL
backend (a subprocess)."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from wgprim.array import asarray
from wgprim.device import binding_limit, get_device
from wgprim.ops import radix_sort
from wgprim.ops.sort_policy import SortPolicy
from wgprim.ops.unique_dense import UniqueDensePolicy
from wgprim.api.sort import SortPlan, argsort, sort, sort_pairs
from wgprim.ops.radix_sort import radix_sorter as _radix
from wgprim.profiling import profile
from wgprim.tuning import using

from support import forced_ranking_path, run_on_gl

DTYPES = [np.uint32, np.int32, np.float32]
# spin: polls before falling back (0: every look-back falls back); fault: tiles t with
# t % fault == fault - 1 never publish, so their successors must count their keys; claim:
# tiles taken from a counter (else by workgroup index).
LOOKBACKS = {"default": (SortPolicy().spin, 0, True), "always-fallback": (0, 0, True),
             "always-fallback-by-index": (0, 0, False), "one-poll": (1, 0, True),
             "every-2nd-silent": (64, 2, True), "every-3rd-silent": (0, 3, False),
             "every-5th-silent": (256, 5, True)}


def random_keys(n, dtype, rng):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = (rng.standard_normal(n) * 1e3).astype(dt)
        x[rng.integers(0, n, max(1, n // 50))] = np.nan
        x[rng.integers(0, n, max(1, n // 50))] = np.uint32(0xFFC0BEEF).view(np.float32)  # sign and payload
        x[rng.integers(0, n, max(1, n // 50))] = -0.0
        return x
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=np.int64, endpoint=True).astype(dt)


def stable_order(x, descending=False):
    if not descending:
        return np.argsort(x, kind="stable")
    n = x.size
    return (n - 1 - np.argsort(x[::-1], kind="stable"))[::-1]


def check_all(x, descending=False):
    order = stable_order(x, descending)
    bits = x[order].view(np.uint32)  # the input's own bits
    np.testing.assert_array_equal(sort(x, descending=descending).numpy().view(np.uint32), bits)
    np.testing.assert_array_equal(argsort(x, descending=descending).numpy(), order)
    values = (np.arange(x.size, dtype=np.int64) * 7 - 11).astype(np.int32)
    k, v = sort_pairs(x, values, descending=descending)
    np.testing.assert_array_equal(k.numpy().view(np.uint32), bits)
    np.testing.assert_array_equal(v.numpy(), values[order])


@pytest.fixture(autouse=True)
def onesweep_everywhere():
    """These tests run the one-sweep passes for every sort (by default none takes them:
    test_sort.py::test_default_policy)."""
    with using(SortPolicy, onesweep=True):
        yield


@pytest.fixture(params=["match", "splits", "no-subgroups"])
def ranking(request):
    with forced_ranking_path(request.param) as sorter:
        assert sorter.uses_onesweep(100_000)
        yield request.param


# Every dtype with every look-back falling back; the other modes each take one dtype (all
# three are covered across them), which keeps the file's run time reasonable.
MODE_DTYPES = [(mode, dtype) for i, mode in enumerate(LOOKBACKS) for dtype in DTYPES
               if mode == "always-fallback" or DTYPES.index(dtype) == i % 3]


@pytest.mark.parametrize("lookback_mode,dtype", MODE_DTYPES)
def test_lookback_modes(lookback_mode, dtype, ranking):
    spin, fault, claim = LOOKBACKS[lookback_mode]
    with using(SortPolicy, spin=spin, silent_every=fault, claim_tiles=claim):
        sorter = _radix(get_device(), np.dtype(dtype), False)
        rng = np.random.default_rng([list(LOOKBACKS).index(lookback_mode), len(ranking), DTYPES.index(dtype)])
        for n in (1, sorter.tile - 1, 7 * sorter.tile + 77):
            x = random_keys(n, dtype, rng)
            check_all(x)
            check_all(x, descending=True)
        dup = rng.integers(-3, 3, 5 * sorter.tile + 5).astype(dtype)  # few digit values: long runs
        check_all(dup, descending=True)


@pytest.mark.parametrize("n", [100_003, 1_000_001])
def test_larger_inputs_fall_back_everywhere(n):
    with using(SortPolicy, spin=0 if n < 500_000 else 2, silent_every=4):
        x = random_keys(n, np.float32, np.random.default_rng(n))
        check_all(x)


@pytest.mark.parametrize("claim", [True, False])
def test_repeated_runs_with_every_lookback_falling_back(claim):
    """Scheduling varies from run to run: many runs of a small two-pass sort, every
    look-back counting its predecessors (this once caught workgroup memory left over from
    another kernel), with tiles claimed from a counter or by workgroup index."""
    with using(SortPolicy, spin=0, claim_tiles=claim):
        rng = np.random.default_rng(12)
        sorter = _radix(get_device(), np.dtype(np.uint32), False)
        x = rng.integers(0, 65536, 16 * sorter.tile + 9).astype(np.uint32)
        expected = np.sort(x)
        for _ in range(25):
            np.testing.assert_array_equal(sort(x).numpy(), expected)


def test_onesweep_steps_and_skipped_digits():
    x = np.random.default_rng(1).integers(0, 1000, 50_000).astype(np.uint32)  # two digits vary
    sorter = _radix(get_device(), np.dtype(np.uint32), False)
    assert sorter.uses_onesweep(x.size)
    with profile() as times:  # a one-shot sort probes nothing: every digit's pass
        np.testing.assert_array_equal(sort(x).numpy(), np.sort(x))
    if times:
        labels = [t.label for t in times if t.label.startswith("radix")]
        # clear + histogram, bins, one pass per digit
        assert labels == ["radix count", "radix count", "radix scan"] + ["radix scatter"] * 4
    plan = SortPlan(x.size, np.uint32, skip_digits=True)
    with profile() as times:  # the plan that asks for the probe: one pass per varying digit
        np.testing.assert_array_equal(plan(x).numpy(), np.sort(x))
    if times:
        labels = [t.label for t in times if t.label.startswith("radix") and t.label != "radix probe"]
        assert labels == ["radix count", "radix count", "radix scan", "radix scatter", "radix scatter"]


def test_multipass_beyond_the_state_words():
    """Counts that would not fit the state words' 30 bits take the multi-pass sort (here
    forced at a small size)."""
    with using(SortPolicy, onesweep_max_keys=10_000):
        sorter = _radix(get_device(), np.dtype(np.int32), False)
        assert sorter.uses_onesweep(10_000) and not sorter.uses_onesweep(10_001)
        x = random_keys(30_001, np.int32, np.random.default_rng(2))
        check_all(x)
        check_all(x, descending=True)


def test_multipass_beyond_one_binding():
    sorter = _radix(get_device(), np.dtype(np.uint32), False)
    x = random_keys(40_000, np.uint32, np.random.default_rng(3))
    with binding_limit(64 * 1024):
        assert not sorter.uses_onesweep(x.size)
        check_all(x)
    assert sorter.uses_onesweep(x.size)


def test_plan_with_fallbacks():
    rng = np.random.default_rng(4)
    n = 70_001
    with using(SortPolicy, spin=0, silent_every=3):  # the plan keeps the sorter made for these
        plan = SortPlan(n, np.int32, what="pairs", descending=True, skip_digits=True)
    assert plan.sorter.policy.silent_every == 3
    for high in (100, 1 << 20, 1 << 30):
        keys = rng.integers(-high, high, n).astype(np.int32)
        values = rng.standard_normal(n).astype(np.float32)
        k, v = plan(asarray(keys), asarray(values))
        order = stable_order(keys, True)
        np.testing.assert_array_equal(k.numpy(), keys[order])
        np.testing.assert_array_equal(v.numpy(), values[order])


def test_unique_rides_on_the_sort():
    import wgprim

    # Narrow ranges skip the sort unless the bitmap path is off.
    with using(SortPolicy, spin=0), using(UniqueDensePolicy, enabled=False):
        x = np.random.default_rng(5).integers(0, 5000, 60_000).astype(np.uint32)
        np.testing.assert_array_equal(wgprim.unique(x).numpy(), np.unique(x))


def test_gl_backend_subprocess():
    """wgpu's GL backend (no subgroups: split ranking), every look-back falling back and
    some tiles silent."""
    script = textwrap.dedent("""
        import numpy as np
        from wgprim.device import get_device
        from wgprim.api.sort import argsort, sort, sort_pairs
        from wgprim.ops.radix_sort import radix_sorter as _radix
        from wgprim.ops.sort_policy import SortPolicy
        from wgprim.tuning import using
        rng = np.random.default_rng(6)
        ran = 0
        for spin, fault in ((0, 0), (0, 3), (32, 2), (256, 0)):
            with using(SortPolicy, onesweep=True, spin=spin, silent_every=fault):  # keys alone too
                for dtype in (np.uint32, np.int32, np.float32):
                    sorter = _radix(get_device(), np.dtype(dtype), False)
                    assert sorter.uses_onesweep(20_000)
                    for n in (1, sorter.tile + 3, 9 * sorter.tile + 1):
                        x = (rng.standard_normal(n) * 1e4).astype(dtype)
                        order = np.argsort(x, kind="stable")
                        assert np.array_equal(sort(x).numpy(), x[order])
                        assert np.array_equal(argsort(x).numpy(), order)
                        k, v = sort_pairs(x, np.arange(n, dtype=np.uint32), descending=True)
                        d = (n - 1 - np.argsort(x[::-1], kind="stable"))[::-1]
                        assert np.array_equal(v.numpy(), d)
                        ran += 1
        print("GL", get_device().has_subgroups, ran)
        # The multi-pass sort with the scan's offsets transposed (offsets_by_tile).
        with using(SortPolicy, onesweep=False, offsets_by_tile=True):
            for n in (1, 4097, 40 * 1024 + 3):
                x = (rng.standard_normal(n) * 1e4).astype(np.float32)
                order = np.argsort(x, kind="stable")
                assert np.array_equal(sort(x).numpy(), x[order])
                assert np.array_equal(sort_pairs(x, np.arange(n, dtype=np.uint32))[1].numpy(), order)
        print("by tile ok")
    """)
    stdout = run_on_gl(script)
    assert "GL False 36" in stdout
    assert "by tile ok" in stdout


def test_pass_pipelines_by_what_they_compile():
    """The key transforms and argsort's index flag are pipeline constants: a sort of
    ascending u32 keys (identity transforms) runs every pass on one pipeline, an i32 sort
    has its own first and last pass, an f32 sort (raw bits, every pass takes its digit from
    the key) one pipeline of its own for every pass; the results stay exact (with the
    output stored whole and through windows)."""
    dev = get_device()
    rng = np.random.default_rng(21)
    u = _radix(dev, np.dtype(np.uint32), False)
    i = _radix(dev, np.dtype(np.int32), False)
    f = _radix(dev, np.dtype(np.float32), True)
    first, middle, last = radix_sort.TRANSFORM_IN, 0, radix_sort.TRANSFORM_OUT
    assert u.pipe("keys", first) is u.pipe("keys", middle) is u.pipe("keys", last)
    assert u.pipe("pairs", first | radix_sort.INDEX_VALUES) is not u.pipe("pairs", first)
    assert len({id(i.pipe("keys", flags)) for flags in (first, middle, last, first | last)}) == 4
    assert i.pipe("keys", middle) is u.pipe("keys", middle)  # an integer mode matters only to a transform
    assert f.pipe("keys", first) is f.pipe("keys", middle) is f.pipe("keys", last) is not u.pipe("keys", middle)
    assert u.pipe("radix_scatter_keys", middle, windows=True) is not u.pipe("radix_scatter_keys", middle)
    x = rng.standard_normal(70_001).astype(np.float32)
    x[::97] = np.nan
    x[::101] = -0.0
    order = (x.size - 1 - np.argsort(x[::-1], kind="stable"))[::-1]  # NaN first, then largest, ties in order
    assert np.array_equal(sort(x, descending=True).numpy().view(np.uint32), x[order].view(np.uint32))
    assert np.array_equal(argsort(x).numpy(), np.argsort(x, kind="stable"))


def test_pairs_policy():
    """onesweep="pairs": the one-sweep passes sort pairs and argsort; keys alone take the
    multi-pass sort."""
    with using(SortPolicy, onesweep="pairs"):
        sorter = _radix(get_device(), np.dtype(np.uint32), False)
        assert sorter.uses_onesweep(100_000, pairs=True) and not sorter.uses_onesweep(100_000)
        x = random_keys(50_001, np.uint32, np.random.default_rng(13))
        check_all(x)
        check_all(x, descending=True)


@pytest.mark.parametrize("items", [24])
@pytest.mark.parametrize("onesweep", [True, False])
def test_larger_match_tiles(items, onesweep):
    """The match ranking with 24 keys per invocation (20 is the default; 16 and fewer:
    test_sort.py::test_match_tile_sizes), one-sweep and multi-pass."""
    with using(SortPolicy, match_items=items, onesweep=onesweep, spin=2):
        sorter = _radix(get_device(), np.dtype(np.float32), False)
        if not sorter.match or sorter.items != items:
            pytest.skip("no match path with these tiles on this adapter")
        assert sorter.uses_onesweep(20_000) == onesweep
        rng = np.random.default_rng(items)
        x = random_keys(3 * 256 * items + 77, np.float32, rng)
        x[::4] = np.round(x[::4] / 100)
        check_all(x)
        check_all(x, descending=True)


# Match-path shapes and variants (SortPolicy fields), each in both schedules with
# look-backs that fall back: workgroups larger than the radix (invocations without a digit),
# late publication (after the ranking), direct writes, the item-by-item ranking.
MATCH_VARIANTS = {
    "late": dict(onesweep_early=False),
    "wg384": dict(match_wg=384),
    "wg384x8-late": dict(match_wg=384, match_items=8, onesweep_early=False),
    "wg512x4": dict(match_wg=512, match_items=4),
    "direct-writes": dict(shuffle=False),
    "serial-ranking": dict(serial_ranking=True),
}


# Each variant in both schedules (one-sweep with look-backs that fall back), but the serial
# ranking: the ranking is the same step in both, the multi-pass row tests it.
VARIANT_CASES = [(variant, *schedule) for variant in MATCH_VARIANTS
                 for schedule in [(True, 0, 0), (True, 1, 3), (False, 0, 0)]
                 if not (variant == "serial-ranking" and schedule[0])]


@pytest.mark.parametrize("variant,onesweep,spin,fault", VARIANT_CASES)
def test_match_variants(variant, onesweep, spin, fault):
    if not get_device().has_subgroups:
        pytest.skip("adapter has no subgroups")
    with using(SortPolicy, **MATCH_VARIANTS[variant], onesweep=onesweep, spin=spin, silent_every=fault):
        sorter = _radix(get_device(), np.dtype(np.float32), False)
        if not sorter.match:
            pytest.skip("the adapter's subgroups do not fit this shape's workgroup memory")
        assert sorter.tile == sorter.policy.match_wg * sorter.items
        assert sorter.uses_onesweep(sorter.tile * 3) == onesweep
        rng = np.random.default_rng([len(variant), spin, fault])
        for dtype in DTYPES:
            x = random_keys(5 * sorter.tile + 123, dtype, rng)
            check_all(x, descending=dtype == np.int32)
        dup = rng.integers(-3, 3, 3 * sorter.tile + 5).astype(np.int32)  # long runs of one digit
        check_all(dup)
