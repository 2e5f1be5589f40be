"""Scenarios flattened into op tuples that the event loop runs without method calls.

Flags and counters become integer resource ids (flags are 0/1 counters in their own
namespace). A bounded wait becomes a WAIT op followed by its fallback ops: on success the
program jumps past the fallback, on timeout it falls through into it.
"""
from __future__ import annotations

from .program import AtomicAdd, Compute, Scenario, SetFlag, WaitCounter, WaitFlag

# Op codes. Layouts:
#   (COMPUTE, time, kind)                     kind: WORK or FALLBACK (for plots/statistics)
#   (SET, rid)
#   (ADD, rid, value)
#   (WAIT, rid, target, timeout, success_pc)  timeout = tries * poll, or None (forever)
COMPUTE, SET, ADD, WAIT = range(4)
WORK, FALLBACK = 0, 1

FLAG, COUNTER = "flag", "counter"


class Compiled:
    """Every workgroup of every dispatch, numbered globally in dispatch order."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.resources: list[tuple[str, str]] = []  # rid -> (FLAG|COUNTER, name)
        self._rid: dict[tuple[str, str], int] = {}
        self.programs: list[tuple] = []  # global workgroup id -> ops
        self.dispatch_start: list[int] = []  # dispatch index -> first global id
        cache: dict = {}  # identical programs compile once
        for programs in scenario.dispatches:
            self.dispatch_start.append(len(self.programs))
            for program in programs:
                key = tuple(program)
                ops = cache.get(key)
                if ops is None:
                    ops = cache[key] = tuple(self._compile(key, WORK))
                self.programs.append(ops)
        self.dispatch_start.append(len(self.programs))

    @property
    def dispatches(self) -> int:
        return len(self.dispatch_start) - 1

    def dispatch_range(self, d: int) -> range:
        return range(self.dispatch_start[d], self.dispatch_start[d + 1])

    def locate(self, g: int) -> tuple[int, int]:
        """Global id -> (dispatch index, workgroup id within the dispatch)."""
        d = 0
        while self.dispatch_start[d + 1] <= g:
            d += 1
        return d, g - self.dispatch_start[d]

    def resource_id(self, kind: str, name: str) -> int:
        key = (kind, name)
        rid = self._rid.get(key)
        if rid is None:
            rid = self._rid[key] = len(self.resources)
            self.resources.append(key)
        return rid

    def _compile(self, steps, kind: int, base: int = 0) -> list:
        ops: list = []
        for step in steps:
            pc = base + len(ops)
            if isinstance(step, Compute):
                if step.time > 0:  # zero work takes no time and needs no event
                    ops.append((COMPUTE, float(step.time), kind))
            elif isinstance(step, SetFlag):
                ops.append((SET, self.resource_id(FLAG, step.flag)))
            elif isinstance(step, AtomicAdd):
                ops.append((ADD, self.resource_id(COUNTER, step.counter), int(step.value)))
            elif isinstance(step, (WaitFlag, WaitCounter)):
                if isinstance(step, WaitFlag):
                    rid, target = self.resource_id(FLAG, step.flag), 1
                else:
                    rid, target = self.resource_id(COUNTER, step.counter), int(step.at_least)
                timeout = None if step.tries is None else step.tries * float(step.poll)
                fallback = self._compile(step.fallback, FALLBACK, pc + 1)
                ops.append((WAIT, rid, target, timeout, pc + 1 + len(fallback)))
                ops.extend(fallback)
            else:
                raise TypeError(f"{step!r} is not a simulator step")
        return ops
