"""A discrete-event model of how a GPU schedules workgroups.

It makes the reference picture executable: a queue of pending workgroups, compute units
with a few resident slots each, and no channel between workgroups except memory. A
workgroup that waits for another keeps its slot, so a spin-wait deadlocks as soon as the
workgroup it waits for cannot become resident; a dispatch boundary never does.

    from wgprim.sim import Compute, Machine, Scenario, SetFlag, WaitFlag, simulate

    n = 100
    lock = Scenario("my-lock", [[(WaitFlag("go"), Compute(1))] * (n - 1)
                                + [(Compute(1), SetFlag("go"))]])
    result = simulate(lock, Machine(compute_units=2, resident=8), policy="in-order")
    print(result.verdict, result.headline)

The single-pass scan's look-back under a driver's loop cap is modelled apart, with tile
values (lookback.py, lookback_run.py; `wgprim simulate lookback-loop-cap`):

    from wgprim.sim import OLD, LookbackCase, run_lookback
    outcome = run_lookback(LookbackCase(3663, OLD), policy="contiguous", workers=2)
    print(outcome.wrong)   # [1831]: its loops were cut, its tile written as zeros

No GPU is needed. See docs/simulate.md.
"""
from .lookback import NEW, OLD
from .lookback import Case as LookbackCase
from .lookback_run import explore as explore_lookback
from .lookback_run import run_timed as run_lookback
from .machine import Machine, resident_per_cu
from .policies import POLICIES
from .program import AtomicAdd, Compute, Scenario, SetFlag, WaitCounter, WaitFlag
from .result import COMPLETES, DEADLOCK, Result, simulate
from .scenarios import SCENARIOS

__all__ = [
    "AtomicAdd", "Compute", "SetFlag", "WaitCounter", "WaitFlag", "Scenario",
    "Machine", "resident_per_cu", "POLICIES", "simulate", "Result", "COMPLETES", "DEADLOCK",
    "SCENARIOS", "LookbackCase", "OLD", "NEW", "run_lookback", "explore_lookback",
]
