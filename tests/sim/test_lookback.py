"""The look-back model under a loop cap (wgprim.sim.lookback): every interleaving of small
scans, random timed runs, and the checker.

What must hold: the protocol itself is right under every interleaving; with a cap, the old
protocol gives a wrong tile exactly where a look-back's loops pass the cap; the new one
(dispatches of lookback_tiles() tiles, loop-free fallback) never does.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wgprim.ops.chained_scan import lookback_tiles
from wgprim.sim.lookback import (LOOP_FREE, MISORDERED, NEW, OLD, ZEROS, CappedDriver, Case,
                                 combine, wrong_tiles)
from wgprim.sim.lookback_run import POLICIES, explore, jobs, run_timed


def worst_walk(case: Case, tile: int) -> int:
    """Loop iterations of tile `tile`'s look-back when every predecessor stays NOT READY
    until it falls back on it: spin budget + 1 polls and one fallback per predecessor, then
    the window that reads the carry."""
    p, polls = case.protocol, case.spin_budget + 1
    return tile * (polls * p.window_iterations + p.fallback_iterations) + p.window_iterations


def test_checker_reports_what_is_wrong():
    assert combine(None, (0, 2)) == (0, 2) and combine((0, 2), (2, 3)) == (0, 3)
    assert combine((0, 2), (3, 4)) == MISORDERED and combine((2, 3), (0, 2)) == MISORDERED
    assert wrong_tiles([(0, 1), (0, 2), (0, 3)]) == []
    assert wrong_tiles([(0, 1), ZEROS, (1, 3), MISORDERED, None]) == [1, 2, 3, 4]


@pytest.mark.parametrize("protocol, spin_budget, window", [(OLD, 0, 1), (NEW, 0, 1), (OLD, 1, 2)])
def test_every_interleaving_is_right_without_a_cap(protocol, spin_budget, window):
    case = Case(4, protocol, spin_budget=spin_budget, window=window, loop_cap=None)
    found = explore(case)
    assert found.wrong_sets() == {()}
    # The search reached every kind of walk: tile 3 ending at once (on tile 2's inclusive
    # value), and after 1, 2 or all 3 predecessors, falling back on each: the costliest
    # look-back there is.
    walked = {w[1] for w in found.walks if w[0] == 3}
    assert walked == {0, 1, 2, 3}
    for t in range(4):
        assert max(w[2] for w in found.walks if w[0] == t) == worst_walk(case, t)
    assert all(w[2] <= case.walk_bound(w[1]) for w in found.walks)


@pytest.mark.parametrize("spin_budget, window", [(0, 1), (1, 2)])
def test_old_protocol_fails_exactly_where_a_walk_passes_the_cap(spin_budget, window):
    free = Case(4, OLD, spin_budget=spin_budget, window=window, loop_cap=None)
    worst = worst_walk(free, 3)  # tile 3's longest walk, the longest of all
    if spin_budget == 0:  # (each search of the larger case takes seconds)
        at_cap = explore(Case(4, OLD, spin_budget=spin_budget, window=window, loop_cap=worst))
        assert at_cap.wrong_sets() == {()}

    short = Case(4, OLD, spin_budget=spin_budget, window=window, loop_cap=worst - 1)
    found = explore(short)
    assert () in found.wrong_sets() and (3,) in found.wrong_sets()
    cut = {w[0] for w in found.walks if w[3]}
    assert cut == {3}
    for output in found.outputs:  # every wrong tile is one whose loops were cut
        assert all(output[t] == ZEROS for t in wrong_tiles(list(output)))

    if spin_budget == 0:
        # A cap that tiles 2 and 3 can pass: tile 2 alone, and both at once, happen too.
        smaller = explore(Case(4, OLD, spin_budget=spin_budget, window=window,
                               loop_cap=worst_walk(free, 2) - 1))
        assert {(2,), (3,), (2, 3), ()} <= smaller.wrong_sets()


def test_new_protocol_is_right_under_every_interleaving_at_the_same_cap():
    """The cap the old protocol fails at above splits the new one into dispatches of one
    tile (lookback_tiles never gives fewer than 1): right, trivially but truly."""
    free = Case(4, OLD, spin_budget=1, window=2, loop_cap=None)
    case = Case(4, NEW, spin_budget=1, window=2, loop_cap=worst_walk(free, 3) - 1)
    assert case.dispatch_tiles() == 1
    assert explore(case).wrong_sets() == {()}


@pytest.mark.parametrize("spin_budget, window, tiles", [(0, 1, 7), (1, 2, 7), (1, 1, 5)])
def test_new_protocol_split_is_right_under_every_interleaving(spin_budget, window, tiles):
    # The smallest cap at which lookback_tiles() gives 3 tiles per dispatch.
    cap = next(c for c in range(8192, 20000, 2)
               if lookback_tiles(CappedDriver(c), spin_budget) == 3)
    case = Case(tiles, NEW, spin_budget=spin_budget, window=window, loop_cap=cap)
    assert [len(d) for d in case.dispatches()] == [3] * (tiles // 3) + [tiles % 3] * (tiles % 3 > 0)
    found = explore(case)
    assert found.wrong_sets() == {()}
    assert not any(w[3] for w in found.walks)
    # Each look-back stays in its dispatch: at most 2 tiles back, within the bound.
    assert max(w[1] for w in found.walks) == 2
    assert found.max_iterations() <= case.walk_bound(2) <= cap


def test_llvmpipe_hands_each_thread_a_contiguous_range():
    assert jobs(range(3663), "contiguous", 2, None)[:2] == [list(range(1831)),
                                                            list(range(1831, 3662))]
    assert jobs(range(3663), "contiguous", 2, None)[2:] == [[3662]]
    assert jobs(range(3), "contiguous", 4, None) == [[0], [1], [2]]


def test_the_30m_repro():
    """Issue 33's repro: 30,000,000 u32 (3663 tiles of 8192) on 2 threads. Old: the second
    thread's first workgroup, tile 1831 (elements from 14,999,552), falls back on hundreds
    of predecessors, its loops are cut, its tile is zeros. New: right."""
    old = run_timed(Case(3663, OLD), "contiguous", 2)
    assert old.wrong == [1831] and old.cut == [1831]
    assert old.output[1831] == ZEROS and old.longest().walked > 500
    new = run_timed(Case(3663, NEW), "contiguous", 2)
    assert new.right and len(new.dispatches) == 9 and new.case.dispatch_tiles() == 447
    assert new.longest().iterations <= new.case.walk_bound(446) < 65535


def test_the_loop_free_fallback_alone_is_not_enough():
    """Without the split the walk is bounded only by the dispatch: the adversary makes the
    last tiles walk past the cap even with a fallback of one iteration."""
    assert run_timed(Case(3663, LOOP_FREE), "contiguous", 2).right
    adversarial = run_timed(Case(3663, LOOP_FREE), "adversarial", 2)
    assert adversarial.wrong and adversarial.wrong == adversarial.cut


cases = st.tuples(
    st.integers(1, 160),                       # tiles
    st.integers(1, 8),                         # workers
    st.sampled_from(POLICIES),
    st.integers(0, 2**32 - 1),                 # seed
    st.integers(0, 6),                         # spin budget
    st.integers(1, 32),                        # window
    st.integers(8192, 60000),                  # loop cap
    st.booleans(),                             # fallbacks publish
)


@settings(max_examples=60, deadline=None)
@given(config=cases)
def test_timed_runs(config):
    tiles, workers, policy, seed, spin, window, cap, publish = config
    new = Case(tiles, NEW, spin_budget=spin, window=window, loop_cap=cap, publish_fallback=publish)
    run = run_timed(new, policy, workers, seed)
    assert run.right and not run.cut
    assert max(w.iterations for w in run.walks) <= new.walk_bound(new.dispatch_tiles() - 1) <= cap

    # The old protocol at a cap scaled down to these sizes: wrong exactly where cut.
    old = Case(tiles, OLD, spin_budget=spin, window=window, loop_cap=cap // 64,
               publish_fallback=publish)
    run = run_timed(old, policy, workers, seed)
    assert run.wrong == run.cut
    assert all(w.iterations + OLD.fallback_iterations > old.loop_cap for w in run.walks if w.cut)
    assert all(w.iterations <= old.loop_cap for w in run.walks)
    free = Case(tiles, OLD, spin_budget=spin, window=window, loop_cap=None, publish_fallback=publish)
    assert run_timed(free, policy, workers, seed).right
