"""Each built-in scenario's stated deadlock condition agrees with the simulator.

The condition (scenarios.py, docs/simulate.md) is evaluated from n, the slot count and the
policy's start order alone; the simulator runs the event loop. They must always agree.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wgprim.sim import POLICIES, SCENARIOS, Machine, simulate

configs = st.tuples(
    st.integers(1, 120),                  # workgroups
    st.integers(1, 4),                    # compute units
    st.integers(1, 6),                    # resident slots per compute unit
    st.sampled_from(POLICIES),
    st.integers(0, 2**32 - 1),            # seed
    st.integers(1, 6),                    # tries (decoupled-fallback)
)


@pytest.mark.parametrize("name", list(SCENARIOS))
@settings(max_examples=150, deadline=None)
@given(config=configs)
def test_simulator_agrees_with_the_stated_condition(name, config):
    n, cus, resident, policy, seed, tries = config
    builtin = SCENARIOS[name]
    machine = Machine(cus, resident)
    result = simulate(builtin.build(n, tries), machine, policy, seed)
    predicted, why = builtin.predict(n, machine, result.start_orders)
    assert result.deadlocked == predicted, why
    if result.deadlocked:
        assert result.waiting and len(result.waiting) == machine.slots
        assert result.queued > 0  # every built-in deadlock leaves work queued
    else:
        assert result.finished == result.workgroups
        assert 0 < result.utilization <= 1 + 1e-9


@pytest.mark.parametrize("policy", POLICIES)
def test_closed_forms(policy):
    """The special cases the docs state: in-order/adversarial spin-lock and global-barrier
    deadlock iff n > S; chained-scan in order never; adversarially iff n > S."""
    machine = Machine(2, 4)
    for n in (1, 7, 8, 9, 40):
        def verdict(name):
            return simulate(SCENARIOS[name].build(n, 4), machine, policy, seed=1).deadlocked
        assert verdict("global-barrier") == (n > 8)
        assert not verdict("two-dispatch")
        assert not verdict("decoupled-fallback")
        if policy != "random":
            assert verdict("spin-lock") == (n > 8)
        if policy == "in-order":
            assert not verdict("chained-scan")
        if policy == "adversarial":
            assert verdict("chained-scan") == (n > 8)


def test_random_spin_lock_deadlock_rate_matches_setter_position():
    """Under random, spin-lock deadlocks iff the setter is not among the first S to start,
    so over many seeds the rate approaches (n - S) / n."""
    n, machine = 20, Machine(1, 5)
    deadlocks = sum(simulate(SCENARIOS["spin-lock"].build(n), machine, "random", seed).deadlocked
                    for seed in range(400))
    assert abs(deadlocks / 400 - 15 / 20) < 0.08


def test_two_dispatch_makespan_is_two_full_passes():
    n, machine = 37, Machine(3, 2)
    for policy in POLICIES:
        result = simulate(SCENARIOS["two-dispatch"].build(n), machine, policy)
        assert result.makespan == 2 * -(-n // machine.slots)


def test_fallback_costs_time_under_the_adversary():
    machine = Machine(2, 4)
    fair = simulate(SCENARIOS["decoupled-fallback"].build(64, 4), machine, "in-order")
    unfair = simulate(SCENARIOS["decoupled-fallback"].build(64, 4), machine, "adversarial")
    assert not fair.deadlocked and not unfair.deadlocked
    assert fair.time_by_kind["fallback"] == 0
    assert unfair.time_by_kind["fallback"] > 0 and unfair.makespan > fair.makespan


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_hundred_thousand_workgroups_simulate_quickly(name):
    import time

    start = time.perf_counter()
    simulate(SCENARIOS[name].build(100_000, 4), Machine(2, 8), "random", seed=7)
    # A few seconds on a laptop; generous for slow CI machines.
    assert time.perf_counter() - start < 30


def test_decoupled_fallback_models_the_kernel():
    """The scenario is the kernel's shape: read a tile, poll the predecessor once plus the
    spin budget, fall back by reading one tile, publish, write the tile."""
    from wgprim.sim.program import Compute, SetFlag, WaitFlag

    scenario = SCENARIOS["decoupled-fallback"].build(5, 3)
    first, later = scenario.dispatches[0][0], scenario.dispatches[0][3]
    assert [type(s) for s in first] == [Compute, SetFlag, Compute]
    read, wait, publish, write = later
    assert isinstance(wait, WaitFlag) and wait.flag == "inclusive[2]" and wait.tries == 4
    assert wait.fallback == (read,) and read.time == write.time == 1.0
    assert publish == SetFlag("inclusive[3]")
    # Under the adversary every look-back times out: each of the n - 1 fallbacks reads one tile.
    result = simulate(SCENARIOS["decoupled-fallback"].build(40, 4), Machine(1, 1), "adversarial")
    assert not result.deadlocked and result.time_by_kind["fallback"] == 39
