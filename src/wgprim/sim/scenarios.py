"""The built-in scenarios, each with the exact condition under which it deadlocks.

Notation: n workgroups per dispatch, S = compute units × resident slots, π the start order
chosen by the policy (π[p] is the p-th workgroup to start, counting from 0). Every
compute step takes 1 time unit. `predict` evaluates the condition without simulating; the
tests check that the simulator agrees with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .machine import Machine
from .program import AtomicAdd, Compute, Scenario, SetFlag, WaitCounter, WaitFlag

WORK = Compute(1.0)  # one shared step object for every workgroup


@dataclass(frozen=True)
class Builtin:
    name: str
    summary: str
    condition: str
    build: Callable[[int, int], Scenario]          # (n, tries) -> Scenario
    # (n, machine, start orders) -> (deadlocks?, how the condition evaluates here)
    predict: Callable[[int, Machine, list[list[int]]], tuple[bool, str]]


# -- spin-lock ------------------------------------------------------------------------
def build_spin_lock(n: int, tries: int = 0) -> Scenario:
    waiter = (WaitFlag("ready"), WORK)
    setter = (WORK, SetFlag("ready"))
    return Scenario("spin-lock", [[waiter] * (n - 1) + [setter]],
                    "every workgroup spins until flag 'ready' is set; the last one sets it")


def predict_spin_lock(n: int, machine: Machine, orders) -> tuple[bool, str]:
    p = orders[0].index(n - 1)
    s = machine.slots
    return p >= s, (f"{p} workgroup{'s' if p != 1 else ''} start before the setter "
                    f"{n - 1}, and there {'are' if s != 1 else 'is'} {s} slot{'s' if s != 1 else ''}")


# -- two-dispatch ---------------------------------------------------------------------
def build_two_dispatch(n: int, tries: int = 0) -> Scenario:
    first = [(WORK,)] * (n - 1) + [(WORK, SetFlag("ready"))]
    second = [(WaitFlag("ready"), WORK)] * n
    return Scenario("two-dispatch", [first, second],
                    "the flag is set in dispatch 1 and waited for in dispatch 2")


def predict_never(n: int, machine: Machine, orders) -> tuple[bool, str]:
    return False, "no wait can outlive what it waits for"


# -- global-barrier -------------------------------------------------------------------
def build_global_barrier(n: int, tries: int = 0) -> Scenario:
    program = (WORK, AtomicAdd("arrived"), WaitCounter("arrived", n), WORK)
    return Scenario("global-barrier", [[program] * n],
                    "every workgroup counts its arrival and waits until all n have arrived")


def predict_global_barrier(n: int, machine: Machine, orders) -> tuple[bool, str]:
    s = machine.slots
    return n > s, f"n = {n} {'>' if n > s else '<='} S = {s}"


# -- chained-scan ---------------------------------------------------------------------
def _inclusive(i: int) -> str:
    return f"inclusive[{i}]"


def build_chained_scan(n: int, tries: int = 0) -> Scenario:
    programs = [(WORK, SetFlag(_inclusive(0)), WORK)]
    programs += [(WORK, WaitFlag(_inclusive(i - 1)), SetFlag(_inclusive(i)), WORK)
                 for i in range(1, n)]
    return Scenario("chained-scan", [programs],
                    "each workgroup waits for its predecessor's inclusive total, then "
                    "publishes its own")


def predict_chained_scan(n: int, machine: Machine, orders) -> tuple[bool, str]:
    # When π[p] is next to start, the smallest unstarted index m = min(π[p:]) blocks every
    # workgroup ahead of it with a larger index; all indices below m are ahead of it too,
    # so p - m workgroups ahead of π[p] hold their slots until m publishes, which needs a slot.
    order, s = orders[0], machine.slots
    suffix_min = [0] * n
    m = n
    for p in range(n - 1, -1, -1):
        m = suffix_min[p] = min(m, order[p])
    worst = max(p - suffix_min[p] for p in range(n))
    if worst < s:
        return False, (f"at most {worst} workgroup{'s' if worst != 1 else ''} ahead of any "
                       f"workgroup in the start order wait on one not yet started, fewer "
                       f"than the {s} slots")
    p = next(p for p in range(n) if p - suffix_min[p] >= s)
    return True, (f"{p - suffix_min[p]} of the {p} workgroups ahead of workgroup {order[p]} "
                  f"in the start order wait (directly or down the chain) on workgroup "
                  f"{suffix_min[p]}, not yet started, and there are {s} slots")


# -- decoupled-fallback ---------------------------------------------------------------
READ_TILE = Compute(1.0)   # reading and reducing one tile (the kernel's first phase)
WRITE_TILE = Compute(1.0)  # scanning it again from its prefix and writing it out


def build_decoupled_fallback(n: int, tries: int = 4) -> Scenario:
    """What kernels/chained_lookback.wgsl does, with `tries` its spin budget: a workgroup
    reads its tile, looks at its predecessor's state once and then up to `tries` more
    times (poll count = tries + 1), and if it is still not there reads the predecessor's
    tile itself (the fallback costs one tile read, the same as its own first phase), then
    publishes its inclusive value and writes its tile. The kernel's look-back then goes on
    to earlier tiles; the model stops at the predecessor, which is exact whenever that
    one's value is the last one missing."""
    programs = [(READ_TILE, SetFlag(_inclusive(0)), WRITE_TILE)]
    programs += [(READ_TILE, WaitFlag(_inclusive(i - 1), tries=tries + 1, fallback=READ_TILE),
                  SetFlag(_inclusive(i)), WRITE_TILE)
                 for i in range(1, n)]
    return Scenario("decoupled-fallback", [programs],
                    f"chained-scan, but each look-back polls at most {tries + 1} times (a spin "
                    f"budget of {tries}) and then reads the predecessor's tile itself")


SCENARIOS: dict[str, Builtin] = {b.name: b for b in [
    Builtin(
        "spin-lock",
        "every workgroup spins until a flag is set; the last workgroup sets it",
        "deadlocks iff at least S workgroups start before workgroup n-1, the one that sets "
        "the flag: they spin in every slot and n-1 cannot become resident while they hold "
        "them. In dispatch order (in-order, and adversarial, which starts the setter last) "
        "that is n > S; under random it is whether the setter is at position >= S of the "
        "seeded order.",
        build_spin_lock, predict_spin_lock),
    Builtin(
        "two-dispatch",
        "the same dependency through a dispatch boundary: set in dispatch 1, read in 2",
        "never deadlocks: dispatch 2 starts only after all of dispatch 1 has finished, so "
        "the flag is already set when any workgroup of dispatch 2 looks at it.",
        build_two_dispatch, predict_never),
    Builtin(
        "global-barrier",
        "every workgroup counts its arrival with an atomic and waits for all",
        "deadlocks iff n > S, under every policy: the counter reaches n only when all n "
        "workgroups have arrived and none leaves before that, so all n must be resident "
        "at once.",
        build_global_barrier, predict_global_barrier),
    Builtin(
        "chained-scan",
        "each workgroup waits for its predecessor's published total (look-back)",
        "deadlocks iff for some position p of the start order, p - min(π[p:]) >= S: "
        "before π[p] starts, every started workgroup with an index above the smallest "
        "unstarted index m waits (directly or down the chain) for m, and there are p - m "
        "of them. In dispatch order this never happens; in the adversarial order "
        "(last workgroup first) it happens iff n > S; under random it depends on the seed.",
        build_chained_scan, predict_chained_scan),
    Builtin(
        "decoupled-fallback",
        "chained-scan, but a look-back polls at most k + 1 times (spin budget k) and then "
        "reads the predecessor's tile itself",
        "never deadlocks: every wait gives up after k + 1 polls, so each workgroup finishes "
        "in bounded time whatever the others do, and the queue always drains.",
        build_decoupled_fallback, predict_never),
]}
