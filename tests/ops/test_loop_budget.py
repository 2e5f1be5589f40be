"""The driver's loop cap (ops/loop_budget.py): llvmpipe ends every loop of an invocation once
it has run 65,535 loop iterations in all, silently. Kernels whose loops grow with the input
bound their work per dispatch where a cap is known.

Two kinds of test: on lavapipe itself (skipped elsewhere), inputs that came out wrong before
the bound, compared with numpy exactly; and on any adapter, a small cap set by
`wgprim.device.loop_cap(n)`: the recorded dispatches keep every invocation's loop within it
(read back from the steps' parameters) and the results stay exact."""
from __future__ import annotations

import numpy as np
import pytest

from wgprim.api.segmented import segment_reduce, segment_scan
from wgprim.api.sort import argsort, sort, sort_pairs
from wgprim.device import LLVMPIPE_LOOP_CAP, get_device, loop_cap
from wgprim.ops import axis, loop_budget, radix_sort
from wgprim.ops.radix_sort import radix_sorter
from wgprim.ops.sort_policy import SortPolicy
from wgprim.tuning import using
from wgprim.program import Program


@pytest.fixture
def steps(monkeypatch):
    """Every dispatch recorded in the test: (label, workgroups, its Params values or None)."""
    seen = []
    dispatch = Program.dispatch

    def spy(self, label, pipeline, bindings, groups):
        dispatch(self, label, pipeline, bindings, groups)
        seen.append((label, groups, _params_of(self.device, bindings.get(0))))

    monkeypatch.setattr(Program, "dispatch", spy)
    return seen


def _params_of(device, buffer):
    """The values a uniform buffer of Program.params holds (the device's table of them)."""
    for values, kept in device.cache("params").items():
        if kept is buffer:
            return values
    return None


def capped_by_driver() -> bool:
    """Whether the device's cap is llvmpipe's own (not one a test or WGPRIM_LOOP_CAP set)."""
    return get_device().loop_cap == LLVMPIPE_LOOP_CAP and "llvmpipe" in get_device().summary.lower()


lavapipe_only = pytest.mark.skipif(not capped_by_driver(), reason="the driver caps no loops")


def one_long_segment(short: int, long: int) -> np.ndarray:
    """CSR offsets of `short` segments of one element, then one of `long`."""
    return np.concatenate([np.arange(short + 1), [short + long]]).astype(np.uint32)


def per_segment(fn, x, offsets, dtype=None):
    return np.array([fn(x[a:b]) for a, b in zip(offsets[:-1], offsets[1:])], dtype=dtype)


def test_budget_follows_the_cap():
    dev = get_device()
    with loop_cap(None):
        assert loop_budget.budget(dev) is None and loop_budget.max_trips(dev, 10) is None
    with loop_cap(1000):
        assert loop_budget.budget(dev) == 500
        assert loop_budget.max_trips(dev, 10, fixed=100) == 40
        assert loop_budget.max_trips(dev, 10_000) == 1  # at least one trip


# -- segment_reduce: a rows workgroup walks its piece of a segment, one trip per 4 * WG ----
@lavapipe_only
@pytest.mark.slow
def test_segment_reduce_of_a_segment_past_the_cap():
    """2048 segments, the last of 2^26 - 2048 float16 elements: one workgroup walked it in
    65,534 trips (and its tail and tree after), and argmax came out wrong."""
    if not get_device().has_f16:
        pytest.skip("no shader-f16")
    n = 1 << 26
    offsets = one_long_segment(2047, n - 2047)
    x = np.random.default_rng(5).standard_normal(n).astype(np.float16)
    got = segment_reduce(x, offsets, "argmax").numpy()
    np.testing.assert_array_equal(got, per_segment(np.argmax, x, offsets))


@pytest.mark.parametrize("op,dtype", [("sum", np.int32), ("argmax", np.float32), ("min", np.uint32)])
def test_segment_reduce_pieces_fit_a_small_cap(op, dtype, steps):
    """With a cap of 400 iterations (200 for the walk), no rows workgroup gets a piece of
    more than 184 trips of 4 * 256 elements, however many segments there are."""
    rng = np.random.default_rng([len(op), np.dtype(dtype).itemsize])
    lengths = rng.integers(1, 50, 3000)
    lengths[[7, 1500, 2999]] = [400_000, 190_001, 1]  # three long ones among many short
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint32)
    x = rng.integers(0, 1000, int(offsets[-1])).astype(dtype)
    with loop_cap(400):
        got = segment_reduce(x, offsets, op).numpy()
    expected = per_segment({"sum": lambda s: np.sum(s, dtype=dtype), "argmax": np.argmax, "min": np.min}[op],
                           x, offsets)
    np.testing.assert_array_equal(got, expected.astype(got.dtype))
    rows = [params for label, _, params in steps if label == "reduce rows"]
    assert rows, "the segments went to the rows kernel"
    for params in rows:
        splits = params[3]
        piece = -(-int(lengths.max()) // splits)
        assert -(-piece // (4 * axis.WG)) <= 200 - 16  # its tail and tree take up to 16 more


def test_segment_reduce_without_a_cap_keeps_its_split(steps):
    """No cap: many segments are not split, whatever their length (a GPU's schedule)."""
    offsets = one_long_segment(2999, 300_000)
    x = np.arange(offsets[-1], dtype=np.int32)
    with loop_cap(None):
        got = segment_reduce(x, offsets, "max").numpy()
    np.testing.assert_array_equal(got, per_segment(np.max, x, offsets))
    assert [p[3] for label, _, p in steps if label == "reduce rows"] == [1]


# -- segment_scan: a scan_rows workgroup walks its segment in tiles of 2048, 10 iterations each
@lavapipe_only
def test_segment_scan_of_a_segment_past_the_cap():
    """2048 segments, the last of 14M elements: its workgroup's tiles from the 6553rd on
    (65,530 iterations) came out wrong."""
    offsets = one_long_segment(2047, 14_000_000)
    x = np.random.default_rng(6).integers(-5, 5, int(offsets[-1])).astype(np.int32)
    got = segment_scan(x, offsets).numpy()
    np.testing.assert_array_equal(got[2047:], np.cumsum(x[2047:], dtype=np.int32))
    np.testing.assert_array_equal(got[:2047], x[:2047])


@pytest.mark.parametrize("exclusive", [False, True])
def test_segment_scan_pieces_fit_a_small_cap(exclusive, steps):
    """A cap of 300 iterations (150 for the walk): segments longer than 14 tiles are cut into
    pieces whatever the number of segments, and every piece fits."""
    rng = np.random.default_rng(int(exclusive))
    lengths = rng.integers(0, 40, 3000)
    lengths[[3, 1234, 2999]] = [100_003, 28_672, 28_673]  # a long one, one piece exactly, one past it
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint32)
    x = rng.integers(-1000, 1000, int(offsets[-1])).astype(np.int32)
    with loop_cap(300):
        got = segment_scan(x, offsets, exclusive=exclusive).numpy()
    expected = np.concatenate([np.cumsum(x[a:b], dtype=np.int32) - (x[a:b] if exclusive else 0)
                               for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_array_equal(got, expected)
    labels = [label for label, _, _ in steps]
    assert "scan row pieces" in labels
    # The last dispatch scans every piece from its prefix, one workgroup each: as many as
    # the segments cut into pieces of at most `walk` elements (the tiles that fit).
    walk = (150 - 4) // axis.ROW_SCAN_TILE_TRIPS * axis.ROW_SCAN_TILE
    assert walk < axis.ROW_PIECE
    label, groups, _ = steps[-1]
    assert label == "scan rows"
    assert groups == int(np.sum(-(-lengths // walk)))


# -- the one-sweep radix sort's look-back ----------------------------------------------
@pytest.fixture
def onesweep():
    with using(SortPolicy, onesweep=True):
        yield


@lavapipe_only
def test_onesweep_polls_fit_the_cap(onesweep):
    """Every second tile never publishes and its successors poll it 70,000 times before
    counting its keys: past the cap, the look-back stopped half way and the sort was wrong."""
    with using(SortPolicy, spin=70_000, silent_every=2):
        x = np.random.default_rng(8).integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32)
        np.testing.assert_array_equal(sort(x).numpy(), np.sort(x))


@pytest.mark.parametrize("claim,fault", [(True, 0), (False, 3), (True, 2)])
def test_onesweep_windows_fit_a_small_cap(claim, fault, onesweep, steps):
    """A cap of 2000 iterations: each one-sweep pass is dispatched in windows of tiles so
    that a look-back over a whole window (every tile unpublished, and one silent tile
    before it) polls and counts within the budget; the sorts stay exact."""
    with using(SortPolicy, claim_tiles=claim, silent_every=fault):
        sorter = radix_sorter(get_device(), np.dtype(np.float32), False)
        rng = np.random.default_rng([int(claim), fault])
        x = (rng.standard_normal(23 * sorter.tile + 5) * 100).astype(np.float32)
        x[::7] = np.round(x[::7])
        values = rng.integers(0, 2**31, x.size).astype(np.int32)
        order = np.argsort(x, kind="stable")
        with loop_cap(2000):
            assert sorter.uses_onesweep(x.size)
            np.testing.assert_array_equal(sort(x).numpy(), x[order])
            np.testing.assert_array_equal(argsort(x).numpy(), order)
            k, v = sort_pairs(x, values)
            np.testing.assert_array_equal(k.numpy().view(np.uint32), x[order].view(np.uint32))
            np.testing.assert_array_equal(v.numpy(), values[order])
        tiles = -(-x.size // sorter.tile)
        passes = []  # each pass: its dispatches' (first tile, workgroups, polls)
        for label, groups, p in steps:
            if label == "radix scatter":
                assert p[2] == groups  # the window's tiles
                if p[6] == 0:
                    passes.append([])
                passes[-1].append((p[6], groups, p[10]))
        assert len(passes) == 3 * 4
        for windows in passes:
            assert len(windows) > 1
            assert [first for first, _, _ in windows] == list(np.cumsum([0] + [g for _, g, _ in windows[:-1]]))
            assert sum(g for _, g, _ in windows) == tiles
            for _, groups, spin in windows:
                assert (groups + 1) * (spin + sorter.items + radix_sort.ONESWEEP_WALK_TRIPS) <= 1000


def test_onesweep_without_a_cap_is_one_dispatch_a_pass(onesweep, steps):
    x = np.random.default_rng(9).integers(0, 2**32, 50_000, dtype=np.uint64).astype(np.uint32)
    with loop_cap(None):
        np.testing.assert_array_equal(sort(x).numpy(), np.sort(x))
    passes = [(groups, p) for label, groups, p in steps if label == "radix scatter"]
    tiles = -(-x.size // radix_sorter(get_device(), np.dtype(np.uint32), False).tile)
    assert [g for g, _ in passes] == [tiles] * 4
    assert all(p[10] == SortPolicy().spin and p[6] == 0 for _, p in passes)
