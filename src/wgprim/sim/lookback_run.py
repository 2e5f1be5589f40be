"""Running the look-back model (lookback.py): timed on worker threads, or every interleaving.

`run_timed` is llvmpipe's picture: `workers` threads, each running one workgroup at a time
to its end, then the next it is given; dispatches one after another. The policy decides who
gets which workgroup:

- contiguous: llvmpipe's thread pool: each thread a contiguous range of the dispatch's
  workgroups, in order, so each thread's first workgroup starts with its predecessors NOT
  READY (see jobs());
- in-order: one queue in dispatch order, the next workgroup to the first free thread;
- random: one queue in a seeded random order;
- adversarial: one queue, last workgroup first, so every look-back finds its predecessors
  NOT READY and walks back as far as it can.

`explore` is every schedule at once: all interleavings of the workgroups' atomic actions
within each dispatch (any number of threads, any start order: a run on fewer threads is one
of them), searched depth first with the states already seen skipped.
"""
from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

from .lookback import FALL, START, Case, Shared, Workgroup, describe_value, wrong_tiles

LOCAL = (START, FALL)  # a tile read: no shared memory (a cut writes only the tile's own output)

CONTIGUOUS, IN_ORDER, RANDOM, ADVERSARIAL = "contiguous", "in-order", "random", "adversarial"
POLICIES = (CONTIGUOUS, IN_ORDER, RANDOM, ADVERSARIAL)
DESCRIPTIONS = {
    CONTIGUOUS: "each worker a contiguous range of a dispatch's workgroups (llvmpipe's)",
    IN_ORDER: "one queue in dispatch order, the next workgroup to the first free worker",
    RANDOM: "one queue in a seeded random order",
    ADVERSARIAL: "one queue, last workgroup first: every look-back finds its "
                 "predecessors not ready",
}


@dataclass
class Walk:
    """One workgroup's look-back: where it ended and what it cost."""

    tile: int
    dispatch: int
    walked: int       # tiles looked back over
    windows: int
    fallbacks: int
    iterations: int   # loop iterations counted against the cap
    cut: bool         # its loops were cut


@dataclass
class Outcome:
    case: Case
    policy: str
    workers: int
    seed: int
    output: list
    walks: list[Walk]
    makespan: float | None = None
    dispatches: list[range] = field(default_factory=list)

    @property
    def wrong(self) -> list[int]:
        return wrong_tiles(self.output)

    @property
    def right(self) -> bool:
        return not self.wrong

    @property
    def cut(self) -> list[int]:
        return [w.tile for w in self.walks if w.cut]

    def longest(self) -> Walk:
        """The costliest look-back (the first of them)."""
        return max(self.walks, key=lambda w: (w.iterations, -w.tile))

    def why(self, tile: int) -> str:
        return describe_value(tile, self.output[tile])


def _walk(wg: Workgroup) -> Walk:
    return Walk(wg.tile, wg.dispatch, wg.walked, wg.windows, wg.fallbacks, wg.iterations, wg.cut)


def jobs(dispatch: range, policy: str, workers: int, rng: random.Random) -> list[list[int]]:
    """The dispatch's workgroups as jobs, in the order free workers take them; a worker
    runs a job's workgroups one after another.

    contiguous is llvmpipe's thread pool (lp_cs_tpool): a free thread takes the next
    n // workers workgroups at once, and the n % workers left over one at a time. So
    thread k starts with workgroup k * (n // workers)."""
    tiles = list(dispatch)
    if policy == CONTIGUOUS:
        per = len(tiles) // workers
        blocks = [tiles[k * per:(k + 1) * per] for k in range(workers)] if per else []
        return blocks + [[t] for t in tiles[workers * per:]]
    if policy == RANDOM:
        rng.shuffle(tiles)
    elif policy == ADVERSARIAL:
        tiles.reverse()
    elif policy != IN_ORDER:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    return [[t] for t in tiles]


def run_timed(case: Case, policy: str = CONTIGUOUS, workers: int = 2, seed: int = 0) -> Outcome:
    """The scan on `workers` threads under `policy`: the outcome and each look-back's cost."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    dispatches = case.dispatches()
    mem = Shared(case.tiles, len(dispatches))
    rng = random.Random(seed)
    walks: list[Walk] = []
    now = 0.0
    for d, dispatch in enumerate(dispatches):
        queue = jobs(dispatch, policy, workers, rng)
        queue.reverse()  # pop() takes the next job
        mine: list[list[int]] = [[] for _ in range(workers)]  # each worker's job, reversed
        heap = [(now, w, w, None) for w in range(workers)]  # (time, seq, worker, workgroup)
        seq, end = workers, now
        while heap:
            t, _, w, wg = heapq.heappop(heap)
            if wg is None:  # the worker is free: its next workgroup starts
                if not mine[w] and queue:
                    mine[w] = queue.pop()[::-1]
                if not mine[w]:
                    end = max(end, t)
                    continue
                wg = Workgroup(case, mine[w].pop(), dispatch, d)
            duration = 0.0
            while not wg.done and duration == 0.0:
                duration = wg.act(mem)
            if wg.done:
                walks.append(_walk(wg))
                wg = None
            seq += 1
            heapq.heappush(heap, (t + duration, seq, w, wg))
        now = end  # the dispatch boundary: the next starts when all of this one has ended
    walks.sort(key=lambda walk: walk.tile)
    return Outcome(case, policy, workers, seed, mem.output, walks, now, dispatches)


@dataclass
class Exploration:
    """What the interleavings reach: every final output, every finished look-back."""

    case: Case
    states: int               # distinct states visited
    outputs: set[tuple]       # the output tiles at the end, one entry per distinct outcome
    walks: set[tuple]         # (tile, walked, iterations, cut) of every look-back that ended

    def wrong_sets(self) -> set[tuple[int, ...]]:
        """Each distinct set of wrong tiles some interleaving gives (() when right)."""
        return {tuple(wrong_tiles(list(output))) for output in self.outputs}

    def max_iterations(self) -> int:
        return max(walk[2] for walk in self.walks)


def explore(case: Case, max_states: int = 2_000_000) -> Exploration:
    """Every interleaving of `case` (all dispatches); raises if the search passes
    `max_states` (pick fewer tiles or a smaller spin budget)."""
    dispatches = case.dispatches()
    seen: set = set()
    outputs: set = set()
    walks: set = set()
    stack = [(0, Shared(case.tiles, len(dispatches)), None)]
    while stack:
        d, mem, group = stack.pop()
        if group is None:  # a dispatch starts: its workgroups, none started
            if d == len(dispatches):
                outputs.add(tuple(mem.output))
                continue
            group = tuple(Workgroup(case, t, dispatches[d], d) for t in dispatches[d])
        key = (d, mem.key(), tuple(wg.key() for wg in group))
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > max_states:
            raise RuntimeError(f"more than {max_states} states: explore fewer tiles")
        live = [i for i, wg in enumerate(group) if not wg.done]
        if not live:
            stack.append((d + 1, mem, None))
            continue
        for i in live:
            mem2 = mem.copy()
            wg = group[i].copy()
            # Actions that touch no shared memory commute with every other workgroup's:
            # run them together with the next one that does.
            while wg.phase in LOCAL and not wg.done:
                wg.act(mem2)
            if not wg.done:
                wg.act(mem2)
            if wg.done:
                walks.add((wg.tile, wg.walked, wg.iterations, wg.cut))
            stack.append((d, mem2, group[:i] + (wg,) + group[i + 1:]))
    return Exploration(case, len(seen), outputs, walks)
