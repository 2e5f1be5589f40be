"""The discrete-event loop.

Time only advances through events on a heap: a compute step ending, or a bounded wait
timing out. A waiting workgroup does not poll in the simulation: it is parked on its
resource and woken by the SET or ADD that satisfies it. So the work is proportional to
the number of steps, not to simulated time, and 100,000 workgroups take about a second.

When there is no event left and workgroups remain, nothing can ever change again: that
is a deadlock (after the adversarial policy has run its starved workgroups, see below).
"""
from __future__ import annotations

import heapq
from collections import deque

from .compiled import ADD, COMPUTE, FALLBACK, SET, WAIT, WORK, Compiled
from .machine import Machine
from .policies import ADVERSARIAL

# Workgroup states.
QUEUED, READY, COMPUTING, WAITING, STARVED, DONE = range(6)
# Kinds of time a slot spends holding a workgroup (segments in a trace); the first two
# are the compute kinds that compiled ops carry.
WAIT_TIME, STARVED_TIME = 2, 3
assert (WORK, FALLBACK) == (0, 1)
KIND_NAMES = ("compute", "fallback", "wait", "starved")


class Engine:
    """One run of one scenario on one machine. Call run() once, then read the fields."""

    def __init__(self, compiled: Compiled, machine: Machine, orders: list[list[int]],
                 policy: str, trace: bool = False):
        n = len(compiled.programs)
        self.compiled, self.machine, self.orders = compiled, machine, orders
        self.unfair = policy == ADVERSARIAL
        self.trace = trace
        self.segments: list[tuple] = []  # (slot, global id, start, end, kind) when tracing
        self.time_by_kind = [0.0] * 4  # slot-time spent per kind

        self.programs = compiled.programs
        self.pc = [0] * n
        self.state = [QUEUED] * n
        self.token = [0] * n  # bumped to cancel a workgroup's pending heap event
        self.slot_of = [-1] * n
        self.started = [0.0] * n
        self.seg_kind = [-1] * n  # the segment a workgroup is in now (-1: none)
        self.seg_start = [0.0] * n
        self.left = [0.0] * n  # remaining compute time of a starved workgroup
        self.wait_since = [0.0] * n

        self.values = [0] * len(compiled.resources)
        self.waiters: list[list] = [[] for _ in compiled.resources]  # heaps of (target, seq, g, token)

        self.slot_wg = [-1] * machine.slots
        self.spinners = [0] * machine.compute_units  # waiting workgroups per compute unit
        self.starved_fifo: deque[int] = deque()

        self.now = 0.0
        self.heap: list = []
        self.ready: deque[int] = deque()
        self.seq = 0
        self.dispatch = -1  # index of the dispatch now running
        self.next_in_queue = 0  # position in orders[dispatch] of the next workgroup to start
        self.left_in_dispatch = 0
        self.done = 0
        self.dispatch_times: list[float] = []  # start time of each dispatch that started
        self.deadlocked = False

    # -- running ---------------------------------------------------------------------
    def run(self) -> "Engine":
        total = len(self.programs)
        self._next_dispatch()
        heap, ready, state, token = self.heap, self.ready, self.state, self.token
        pop = heapq.heappop
        while True:
            while ready or heap:
                if ready:
                    self._step(ready.popleft())
                    continue
                t, _, g, tok = pop(heap)
                if tok != token[g]:
                    continue  # cancelled
                self.now = t
                if state[g] == COMPUTING:
                    self._close(g)
                    self.pc[g] += 1
                    self._step(g)
                else:  # a bounded wait timed out: fall through into the fallback ops
                    self._stop_waiting(g)
                    self.pc[g] += 1
                    self._step(g)
            if self.done == total:
                break
            if self.unfair and self._force_starved():
                continue
            self.deadlocked = True
            for g in self.slot_wg:
                if g >= 0:
                    self._close(g)
            break
        return self

    def _step(self, g: int) -> None:
        """Run workgroup g from its pc until it computes, waits or finishes."""
        ops = self.programs[g]
        pc = self.pc[g]
        values = self.values
        while pc < len(ops):
            op = ops[pc]
            code = op[0]
            if code == COMPUTE:
                self.pc[g] = pc
                self._start_compute(g, op[1], op[2])
                return
            if code == WAIT:
                if values[op[1]] >= op[2]:
                    pc = op[4]
                    continue
                self.pc[g] = pc
                self._start_waiting(g, op)
                return
            if code == SET:
                if not values[op[1]]:
                    values[op[1]] = 1
                    self._notify(op[1])
            else:  # ADD
                values[op[1]] += op[2]
                if op[2] > 0:
                    self._notify(op[1])
            pc += 1
        self.pc[g] = pc
        self._finish(g)

    def _start_compute(self, g: int, duration: float, kind: int) -> None:
        self.left[g] = duration
        if self.unfair and self.spinners[self.slot_of[g] // self.machine.resident]:
            self._starve(g)
            return
        self.state[g] = COMPUTING
        self._open(g, kind)
        self.seq += 1
        heapq.heappush(self.heap, (self.now + duration, self.seq, g, self.token[g]))

    def _start_waiting(self, g: int, op: tuple) -> None:
        self.state[g] = WAITING
        self._open(g, WAIT_TIME)
        self.wait_since[g] = self.now
        self.seq += 1
        heapq.heappush(self.waiters[op[1]], (op[2], self.seq, g, self.token[g]))
        if op[3] is not None:
            heapq.heappush(self.heap, (self.now + op[3], self.seq, g, self.token[g]))
        cu = self.slot_of[g] // self.machine.resident
        self.spinners[cu] += 1
        if self.unfair and self.spinners[cu] == 1:
            self._starve_compute_unit(cu)

    def _stop_waiting(self, g: int) -> None:
        """g leaves its wait (woken or timed out); its parked entries become stale."""
        self.token[g] += 1
        self._close(g)
        self.state[g] = READY
        cu = self.slot_of[g] // self.machine.resident
        self.spinners[cu] -= 1
        if self.unfair and self.spinners[cu] == 0:
            self._resume_compute_unit(cu)

    def _notify(self, rid: int) -> None:
        """Wake the workgroups parked on rid whose target its value now reaches."""
        parked = self.waiters[rid]
        value = self.values[rid]
        while parked and parked[0][0] <= value:
            _, _, g, tok = heapq.heappop(parked)
            if tok != self.token[g] or self.state[g] != WAITING:
                continue
            self._stop_waiting(g)
            self.pc[g] = self.programs[g][self.pc[g]][4]  # past the fallback
            self.ready.append(g)

    def _finish(self, g: int) -> None:
        self.state[g] = DONE
        self.done += 1
        self.left_in_dispatch -= 1
        slot = self.slot_of[g]
        self.slot_wg[slot] = -1
        order = self.orders[self.dispatch]
        if self.next_in_queue < len(order):  # never leave a slot empty while work is queued
            self._start(order[self.next_in_queue], slot)
            self.next_in_queue += 1
        elif self.left_in_dispatch == 0:
            self._next_dispatch()

    def _next_dispatch(self) -> None:
        """The dispatch boundary: all of dispatch N has finished, start dispatch N+1."""
        while self.dispatch + 1 < len(self.orders):
            self.dispatch += 1
            self.dispatch_times.append(self.now)
            order = self.orders[self.dispatch]
            self.left_in_dispatch = len(order)
            self.next_in_queue = 0
            for slot in self.machine.fill_order():
                if self.next_in_queue == len(order):
                    break
                self._start(order[self.next_in_queue], slot)
                self.next_in_queue += 1
            if order:
                return

    def _start(self, g: int, slot: int) -> None:
        self.slot_wg[slot] = g
        self.slot_of[g] = slot
        self.state[g] = READY
        self.started[g] = self.now
        self.ready.append(g)

    # -- the adversarial scheduler's unfairness --------------------------------------
    # While a compute unit has a spinning workgroup, it spends its time on the spinners and
    # its computing workgroups make no progress ("starved"). It never idles, though: when
    # no event is left anywhere, it lets the longest-starved workgroup finish its step.
    def _starve(self, g: int) -> None:
        self.state[g] = STARVED
        self._open(g, STARVED_TIME)
        self.starved_fifo.append(g)

    def _starve_compute_unit(self, cu: int) -> None:
        r = self.machine.resident
        for g in self.slot_wg[cu * r:(cu + 1) * r]:
            if g >= 0 and self.state[g] == COMPUTING:
                left = self._compute_end(g) - self.now
                if left <= 0:
                    continue  # it ends at this very moment; its event is already due
                self.token[g] += 1  # cancel its end-of-compute event
                self.left[g] = left
                self._close(g)
                self._starve(g)

    def _resume_compute_unit(self, cu: int) -> None:
        r = self.machine.resident
        for g in self.slot_wg[cu * r:(cu + 1) * r]:
            if g >= 0 and self.state[g] == STARVED:
                self._resume(g)

    def _resume(self, g: int) -> None:
        self._close(g)
        op = self.programs[g][self.pc[g]]
        self.state[g] = COMPUTING
        self._open(g, op[2])
        self.seq += 1
        heapq.heappush(self.heap, (self.now + self.left[g], self.seq, g, self.token[g]))

    def _force_starved(self) -> bool:
        while self.starved_fifo:
            g = self.starved_fifo.popleft()
            if self.state[g] == STARVED:
                self._resume(g)
                return True
        return False

    def _compute_end(self, g: int) -> float:
        # The segment began when this stretch of computing did, with left[g] still to do.
        return self.seg_start[g] + self.left[g]

    # -- accounting ------------------------------------------------------------------
    def _open(self, g: int, kind: int) -> None:
        self.seg_kind[g] = kind
        self.seg_start[g] = self.now

    def _close(self, g: int) -> None:
        kind = self.seg_kind[g]
        if kind < 0:
            return
        self.seg_kind[g] = -1
        start = self.seg_start[g]
        self.time_by_kind[kind] += self.now - start
        if self.trace and self.now > start:
            self.segments.append((self.slot_of[g], g, start, self.now, kind))
