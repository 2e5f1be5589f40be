"""Workgroup programs: the steps a simulated workgroup runs, and scenarios made of them.

A program is a tuple of steps. Steps are immutable, so thousands of workgroups can share
one step object (or one whole program). Shared memory between workgroups is a set of
named flags (0 or 1) and named counters (integers), both starting at 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union


@dataclass(frozen=True)
class Compute:
    """Work for `time` units; the workgroup's slot is busy all that time."""

    time: float = 1.0

    def __post_init__(self):
        if not self.time >= 0:
            raise ValueError(f"Compute time must be >= 0, got {self.time!r}")


@dataclass(frozen=True)
class SetFlag:
    """Set a flag to 1 (an atomic store). Wakes every workgroup waiting for it."""

    flag: str


@dataclass(frozen=True)
class AtomicAdd:
    """Add `value` to a counter (atomicAdd). Wakes workgroups whose target it reaches."""

    counter: str
    value: int = 1


def _check_wait(wait) -> None:
    """Normalize and validate the bounded-wait fields shared by WaitFlag and WaitCounter."""
    fallback = wait.fallback
    if fallback is None:
        fallback = ()
    elif isinstance(fallback, _STEP_TYPES):  # a single step
        fallback = (fallback,)
    object.__setattr__(wait, "fallback", tuple(fallback))
    if wait.tries is not None and (isinstance(wait.tries, bool) or not isinstance(wait.tries, int)
                                   or wait.tries < 1):
        raise ValueError(f"tries must be a positive int or None, got {wait.tries!r}")
    if wait.fallback and wait.tries is None:
        raise ValueError("a fallback needs tries=k: an unbounded wait never gives up")
    if not wait.poll > 0:
        raise ValueError(f"poll must be > 0, got {wait.poll!r}")


# Both waits spin until a condition holds, keeping the slot. With tries=None they spin
# forever; with tries=k they poll k times, `poll` time units apart, then give up and run
# `fallback` instead. Either way the program continues with the step after the wait.

@dataclass(frozen=True)
class WaitFlag:
    """Spin until `flag` is set (the reference text's `loop { if atomicLoad(..) == 1u ..}`)."""

    flag: str
    tries: int | None = None
    fallback: tuple = ()
    poll: float = 1.0

    def __post_init__(self):
        _check_wait(self)


@dataclass(frozen=True)
class WaitCounter:
    """Spin until `counter` >= `at_least`."""

    counter: str
    at_least: int
    tries: int | None = None
    fallback: tuple = ()
    poll: float = 1.0

    def __post_init__(self):
        _check_wait(self)


Step = Union[Compute, SetFlag, AtomicAdd, WaitFlag, WaitCounter]
_STEP_TYPES = (Compute, SetFlag, AtomicAdd, WaitFlag, WaitCounter)
Program = Sequence[Step]


@dataclass
class Scenario:
    """A sequence of dispatches; each dispatch is one program per workgroup.

    Dispatch N+1 starts only when every workgroup of dispatch N has finished: that is the
    only global synchronization a GPU offers. Workgroup ids are local to their dispatch.
    """

    name: str
    dispatches: list[list[Program]]
    description: str = ""

    def __post_init__(self):
        self.dispatches = [list(d) for d in self.dispatches]
        for d, programs in enumerate(self.dispatches, 1):
            for w, program in enumerate(programs):
                for step in program:
                    if not isinstance(step, _STEP_TYPES):
                        raise TypeError(
                            f"dispatch {d} workgroup {w}: {step!r} is not a simulator step "
                            "(Compute, SetFlag, AtomicAdd, WaitFlag, WaitCounter)")

    @property
    def workgroups(self) -> int:
        return sum(len(d) for d in self.dispatches)
