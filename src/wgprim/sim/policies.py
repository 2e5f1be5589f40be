"""Scheduling policies: the order in which a dispatch's workgroups leave the queue.

Every policy fills a free slot at once while work is queued; they differ in which
workgroup they pick. `adversarial` also differs in how it shares a compute unit among its
resident workgroups (see engine.py); the start order is all that is decided here.
"""
from __future__ import annotations

import random

from .compiled import ADD, SET, WAIT, Compiled

IN_ORDER, RANDOM, ADVERSARIAL = "in-order", "random", "adversarial"
POLICIES = (IN_ORDER, RANDOM, ADVERSARIAL)

DESCRIPTIONS = {
    IN_ORDER: "workgroups start in dispatch order (what GPUs usually do)",
    RANDOM: "workgroups start in a seeded random order",
    ADVERSARIAL: "an unfair scheduler: starts waiters before the workgroups they wait on, "
                 "and runs spinning workgroups instead of the others on their compute unit "
                 "(a starved workgroup runs only when nothing else can)",
}


def start_orders(compiled: Compiled, policy: str, seed: int = 0) -> list[list[int]]:
    """For each dispatch, its global workgroup ids in the order they will start."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    rng = random.Random(seed)
    orders = []
    for d in range(compiled.dispatches):
        ids = list(compiled.dispatch_range(d))
        if policy == RANDOM:
            rng.shuffle(ids)
        elif policy == ADVERSARIAL:
            rng.shuffle(ids)  # the seed only breaks ties between equally bad orders
            ids = _dependents_first(compiled, ids)
        orders.append(ids)
    return orders


def _dependents_first(compiled: Compiled, ids: list[int]) -> list[int]:
    """Order a dispatch so that a workgroup starts before those it waits on, where possible.

    Graph: workgroup -> each resource it waits on -> each workgroup of this dispatch that
    writes that resource. The reverse post-order of a depth-first search puts every
    workgroup before what it depends on (cycles, like a global barrier's, are cut
    somewhere). That is the worst order for a waiter: the workgroups it needs come last.
    """
    writers: dict[int, list[int]] = {}
    waits: dict[int, list[int]] = {}
    for g in ids:
        for op in compiled.programs[g]:
            if op[0] in (SET, ADD):
                writers.setdefault(op[1], []).append(g)
            elif op[0] == WAIT:
                waits.setdefault(g, []).append(op[1])

    post: list[int] = []
    seen_wg: set[int] = set()
    seen_res: set[int] = set()
    for root in ids:
        if root in seen_wg:
            continue
        seen_wg.add(root)
        # Iterative DFS; each stack entry is (workgroup, iterator over its successors).
        stack = [(root, _successors(root, waits, writers, seen_res))]
        while stack:
            g, successors = stack[-1]
            for nxt in successors:
                if nxt not in seen_wg:
                    seen_wg.add(nxt)
                    stack.append((nxt, _successors(nxt, waits, writers, seen_res)))
                    break
            else:
                stack.pop()
                post.append(g)
    post.reverse()
    return post


def _successors(g, waits, writers, seen_res):
    """Workgroups that write what `g` waits on; each resource is expanded only once."""
    for rid in waits.get(g, ()):
        if rid in seen_res:
            continue
        seen_res.add(rid)
        yield from writers.get(rid, ())
