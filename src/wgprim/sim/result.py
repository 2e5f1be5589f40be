"""simulate(): run a scenario and return its verdict as a Result."""
from __future__ import annotations

from dataclasses import dataclass, field

from .compiled import Compiled
from .engine import FALLBACK, STARVED_TIME, WAIT_TIME, WORK, Engine
from .explain import Explanation, Waiter
from .machine import Machine
from .policies import IN_ORDER, start_orders
from .program import Scenario

COMPLETES, DEADLOCK = "completes", "deadlock"


@dataclass
class Result:
    scenario: str
    machine: Machine
    policy: str
    seed: int
    verdict: str                 # COMPLETES or DEADLOCK
    end_time: float              # makespan, or the time the deadlock set in
    workgroups: int
    dispatches: int
    finished: int
    utilization: float | None    # share of slot-time holding a workgroup (None if no time passed)
    busy: float | None           # share of slot-time computing (utilization minus waiting)
    time_by_kind: dict[str, float]
    queued: int = 0              # not started, in the dispatch that deadlocked
    queued_next: list[int] = field(default_factory=list)
    later: int = 0               # not started, in later dispatches
    waiting: list[Waiter] = field(default_factory=list)
    headline: str = ""
    details: list[str] = field(default_factory=list)
    deadlock_dispatch: int | None = None   # 1-based
    dispatch_times: list[float] = field(default_factory=list)
    segments: list[tuple] = field(default_factory=list)  # (slot, label, start, end, kind)
    start_orders: list[list[int]] = field(default_factory=list)  # per dispatch, global ids

    @property
    def deadlocked(self) -> bool:
        return self.verdict == DEADLOCK

    @property
    def makespan(self) -> float | None:
        return None if self.deadlocked else self.end_time

    def to_dict(self) -> dict:
        """The --json object."""
        return {
            "scenario": self.scenario,
            "verdict": self.verdict,
            "makespan": self.makespan,
            "deadlock_time": self.end_time if self.deadlocked else None,
            "deadlock_dispatch": self.deadlock_dispatch,
            "workgroups": self.workgroups,
            "dispatches": self.dispatches,
            "compute_units": self.machine.compute_units,
            "resident": self.machine.resident,
            "slots": self.machine.slots,
            "policy": self.policy,
            "seed": self.seed,
            "finished": self.finished,
            "utilization": _round(self.utilization),
            "busy": _round(self.busy),
            "waiting": [
                {"workgroup": w.workgroup, "dispatch": w.dispatch,
                 "compute_unit": w.compute_unit, "slot": w.slot,
                 "waits_for": w.waits_for(),
                 "on": w.on,
                 "on_count": len(w.needs), "on_state": w.reason}
                for w in self.waiting],
            "queued": self.queued,
            "queued_next": self.queued_next,
            "not_started_later_dispatches": self.later,
            "explanation": self.headline or None,
            "details": self.details,
        }

    def summary(self) -> str:
        """A short human-readable verdict (several lines)."""
        if not self.deadlocked:
            lines = [f"verdict: completes, makespan {_num(self.end_time)}"]
            if self.utilization is not None:
                lines.append(f"slot utilization {self.utilization:.1%} "
                             f"(computing {self.busy:.1%}, the rest waiting or starved)")
            return "\n".join(lines)
        lines = [f"verdict: deadlock at t={_num(self.end_time)} "
                 f"({self.finished} of {self.workgroups} workgroups finished)",
                 "  " + self.headline + "."]
        lines += ["  " + line for line in self.details]
        return "\n".join(lines)


def simulate(scenario: Scenario, machine: Machine | None = None, policy: str = IN_ORDER,
             seed: int = 0, trace: bool = False) -> Result:
    """Run `scenario` on `machine` under a scheduling policy and return the verdict.

    `trace=True` records every segment a slot spends computing, waiting or starved (for
    plots); it costs memory proportional to the number of steps.
    """
    machine = machine or Machine()
    compiled = Compiled(scenario)
    orders = start_orders(compiled, policy, seed)
    engine = Engine(compiled, machine, orders, policy, trace=trace).run()

    kinds = engine.time_by_kind
    end = engine.now
    capacity = machine.slots * end
    result = Result(
        scenario=scenario.name, machine=machine, policy=policy, seed=seed,
        verdict=DEADLOCK if engine.deadlocked else COMPLETES, end_time=end,
        workgroups=len(compiled.programs), dispatches=compiled.dispatches,
        finished=engine.done,
        utilization=sum(kinds) / capacity if capacity else None,
        busy=(kinds[WORK] + kinds[FALLBACK]) / capacity if capacity else None,
        time_by_kind={"compute": kinds[WORK], "fallback": kinds[FALLBACK],
                      "wait": kinds[WAIT_TIME], "starved": kinds[STARVED_TIME]},
        dispatch_times=engine.dispatch_times,
        start_orders=orders,
        segments=[(s, compiled.locate(g)[1], a, b, k) for s, g, a, b, k in engine.segments]
        if trace else [],
    )
    if engine.deadlocked:
        why = Explanation(engine)
        result.waiting = why.waiters
        result.headline = why.headline
        result.details = why.details
        result.queued = len(why.queue)
        result.queued_next = [compiled.locate(g)[1] for g in why.queue[:10]]
        result.later = why.later
        result.deadlock_dispatch = engine.dispatch + 1
    return result


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _num(x: float) -> str:
    return f"{x:g}"
