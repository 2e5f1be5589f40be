"""Explain a deadlock: who waits for whom, and why those cannot start or finish.

Runs once, on the frozen state of a deadlocked engine, so it may scan every program.
"""
from __future__ import annotations

from dataclasses import dataclass

from .compiled import ADD, COUNTER, SET
from .engine import DONE, QUEUED, WAITING, Engine

# Why the workgroups a waiter needs cannot help it, from most to least common.
QUEUED_NEED = "queued"            # not started: every slot is taken by a waiter
LATER_NEED = "later dispatch"     # they belong to a dispatch that cannot start yet
WAITING_NEED = "waiting"          # resident, but waiting themselves
NO_NEED = "none"                  # nobody left will write what it waits for
_PRIORITY = (QUEUED_NEED, LATER_NEED, WAITING_NEED, NO_NEED)

MAX_DETAIL_LINES = 6
MAX_IDS = 10


@dataclass
class Waiter:
    """A resident workgroup stuck in a wait at the deadlock."""

    g: int                # global id
    workgroup: int        # id within its dispatch
    dispatch: int         # 1-based
    compute_unit: int
    slot: int
    kind: str             # "flag" or "counter"
    resource: str
    target: int
    value: int
    needs: list[int]      # global ids of unfinished workgroups that would write it
    reason: str           # one of _PRIORITY
    on: list[int]         # ids (within their dispatch) of the first few of `needs`
    since: float          # when it started this wait

    def waits_for(self) -> dict:
        if self.kind == COUNTER:
            return {"counter": self.resource, "at_least": self.target, "value": self.value}
        return {"flag": self.resource}


class Explanation:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.compiled = engine.compiled
        d = engine.dispatch
        order = engine.orders[d]
        self.queue = order[engine.next_in_queue:]
        self.queue_position = {g: i for i, g in enumerate(self.queue)}
        self.later = sum(len(o) for o in engine.orders[d + 1:])
        self.waiters = self._waiters()
        self.headline = self._headline()
        self.details = self._details()

    # -- analysis --------------------------------------------------------------------
    def _waiters(self) -> list[Waiter]:
        e, c = self.engine, self.compiled
        stuck = []
        for slot, g in enumerate(e.slot_wg):
            if g >= 0 and e.state[g] == WAITING:
                stuck.append((slot, g, c.programs[g][e.pc[g]]))
        pending = self._pending_writers({op[1] for _, _, op in stuck})
        waiters = []
        for slot, g, op in sorted(stuck, key=lambda s: s[1]):
            rid, target = op[1], op[2]
            kind, name = c.resources[rid]
            writers = pending.get(rid, [])
            reachable = e.values[rid] + sum(v for _, v in writers if v > 0)
            needs = [w for w, _ in writers] if reachable >= target else []
            d, local = c.locate(g)
            waiters.append(Waiter(g, local, d + 1, e.machine.compute_unit_of(slot), slot,
                                  kind, name, target, e.values[rid], needs,
                                  self._reason(needs),
                                  [c.locate(n)[1] for n in needs[:MAX_IDS]],
                                  e.wait_since[g]))
        return waiters

    def _pending_writers(self, rids: set[int]) -> dict[int, list[tuple[int, int]]]:
        """rid -> [(global id, amount)] for writes not yet executed by unfinished workgroups."""
        e = self.engine
        found: dict[int, list[tuple[int, int]]] = {}
        for g, ops in enumerate(self.compiled.programs):
            state = e.state[g]
            if state == DONE:
                continue
            first = 0 if state == QUEUED else e.pc[g]
            for op in ops[first:]:
                if op[0] in (SET, ADD) and op[1] in rids:
                    found.setdefault(op[1], []).append((g, 1 if op[0] == SET else op[2]))
        return found

    def _reason(self, needs: list[int]) -> str:
        if not needs:
            return NO_NEED
        if any(g in self.queue_position for g in needs):
            return QUEUED_NEED
        if any(self.engine.state[g] == QUEUED for g in needs):
            return LATER_NEED
        return WAITING_NEED

    # -- text ------------------------------------------------------------------------
    def label(self, g: int) -> str:
        d, local = self.compiled.locate(g)
        return f"{local} of dispatch {d + 1}" if self.compiled.dispatches > 1 else str(local)

    def _headline(self) -> str:
        if not self.waiters:
            return "no workgroup can make progress"
        reason = min((w.reason for w in self.waiters), key=_PRIORITY.index)
        w = next(w for w in self.waiters if w.reason == reason)
        who = f"workgroup {self.label(w.g)}"
        slots = self.engine.machine.slots
        if reason == QUEUED_NEED:
            first = min((g for g in w.needs if g in self.queue_position),
                        key=self.queue_position.get)
            k = self.queue_position[first]
            where = "is next in the queue" if k == 0 else \
                f"is queued behind {k} other{'s' if k != 1 else ''}"
            held = (f"all {slots} slots are held by waiting workgroups"
                    if len(self.waiters) == slots else
                    f"{len(self.waiters)} of {slots} slots are held by waiting workgroups")
            return f"{who} waits for {self._needs_text(w, first)}; {self.label(first)} {where}; {held}"
        if reason == LATER_NEED:
            first = min(w.needs)
            later_d = self.compiled.locate(first)[0] + 1
            return (f"{who} waits for {self._needs_text(w, first)}, in dispatch {later_d}; "
                    f"dispatch {later_d} cannot start until dispatch {w.dispatch} has finished, "
                    f"and {who} is in dispatch {w.dispatch}")
        if reason == WAITING_NEED:
            first = min(w.needs)
            other = next((v for v in self.waiters if v.g == first), None)
            then = (f", which is resident and itself waits for {self._what(other)}"
                    if other else ", which is resident and itself waiting")
            return f"{who} waits for {self._needs_text(w, first)}{then}; none of them can finish"
        return f"{who} waits for {self._what(w)}, {self._never(w)}"

    def _needs_text(self, w: Waiter, first: int) -> str:
        others = len(w.needs) - 1
        return self.label(first) + (f" and {others} other{'s' if others != 1 else ''}"
                                    if others else "")

    def _what(self, w: Waiter) -> str:
        if w.kind == COUNTER:
            return f"counter '{w.resource}' to reach {w.target} (it is {w.value})"
        return f"flag '{w.resource}'"

    def _never(self, w: Waiter) -> str:
        if w.kind == COUNTER:
            return "and the adds left in unfinished workgroups cannot get it there"
        return "which no unfinished workgroup sets"

    def _details(self) -> list[str]:
        """One line per group of waiters stuck for the same reason on the same thing."""
        groups: dict[tuple, list[Waiter]] = {}
        for w in self.waiters:
            key = (w.kind, w.resource, w.target, w.reason, tuple(w.needs[:MAX_IDS]), len(w.needs))
            groups.setdefault(key, []).append(w)
        lines = []
        for members in groups.values():
            w = members[0]
            names = format_ids([m.workgroup for m in members])
            plural = len(members) > 1
            subject = f"workgroup{'s' if plural else ''} {names}"
            if w.dispatch > 1 or self.compiled.dispatches > 1:
                subject += f" of dispatch {w.dispatch}"
            lines.append(f"{subject} wait{'' if plural else 's'} for {self._what(w)}; "
                         f"{self._needs_state(w)}")
        if len(lines) > MAX_DETAIL_LINES:
            hidden = len(lines) - MAX_DETAIL_LINES + 1
            lines = lines[:MAX_DETAIL_LINES - 1] + [f"... and {hidden} more like these"]
        e = self.engine
        if self.queue:
            head = [self.compiled.locate(g)[1] for g in self.queue[:MAX_IDS]]
            text = format_ids(head, sort=False)
            if len(self.queue) > MAX_IDS and not text.endswith("..."):
                text += ", ..."
            lines.append(f"{len(self.queue)} workgroup{'s' if len(self.queue) != 1 else ''} "
                         f"of dispatch {e.dispatch + 1} still queued, next: {text}")
        if self.later:
            lines.append(f"{self.later} workgroups of later dispatches never start")
        return lines

    def _needs_state(self, w: Waiter) -> str:
        if w.reason == NO_NEED:
            return self._never(w)
        names = format_ids([self.compiled.locate(g)[1] for g in w.needs[:MAX_IDS]])
        more = f" and {len(w.needs) - MAX_IDS} more" if len(w.needs) > MAX_IDS else ""
        verb = "writes" if w.kind == COUNTER else "sets"
        who = (f"only workgroup {names} {verb} it" if len(w.needs) == 1
               else f"workgroups {names}{more} {'add to' if w.kind == COUNTER else 'set'} it")
        state = {QUEUED_NEED: "queued", LATER_NEED: "in a later dispatch",
                 WAITING_NEED: "resident but waiting"}[w.reason]
        return f"{who} ({state})"


def format_ids(ids: list[int], sort: bool = True, limit: int = 8) -> str:
    """[0, 1, 2, 3, 7] -> '0–3, 7': consecutive runs collapse, long lists are cut."""
    if sort:
        ids = sorted(ids)
    runs: list[list[int]] = []
    for i in ids:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    parts = [str(a) if a == b else f"{a}–{b}" if b > a + 1 else f"{a}, {b}" for a, b in runs]
    if len(parts) > limit:
        parts = parts[:limit] + ["..."]
    return ", ".join(parts)
