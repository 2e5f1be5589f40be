"""The single-pass scan's look-back as the kernel runs it, under a driver that caps loops.

Mesa's llvmpipe ends every loop of an invocation once that invocation has run 65,535 loop
iterations in all (docs/scan.md, "The loop cap"). This module models one workgroup of the
chained scan with decoupled fallback (kernels/chained_lookback.wgsl) as a sequence of
atomic actions on the tile states, and counts the loop iterations each one costs:

1. read its tile (one tile read), then publish its aggregate;
2. look back a window at a time: the nearest `window` predecessors' states, nearest first,
   combining aggregates up to the first NOT READY state (excluded) or INCLUSIVE one
   (included: the look-back is finished; past the dispatch's first tile the chunk carry
   counts as inclusive). A window that moves nothing is a poll; after SPIN_BUDGET + 1 polls
   of the same predecessor the workgroup falls back: it reduces that tile's input itself
   (one tile read), combines it, publishes it as the tile's aggregate (integer operators
   and min/max only) and goes on before it;
3. publish its inclusive value, then write its tile.

A tile's state is two words, aggregate and inclusive, each a flag and its value in one
atomic word: a reader sees a whole value or nothing. Values are symbolic: (a, b) is the
combination of tiles a .. b-1 in order, None the identity; combining two parts that do
not meet is MISORDERED. So a tile is right iff it holds exactly (0, t + 1).

Once a workgroup's next window or fallback would take its count past the cap, its loops
end there: the look-back stops, nothing more is published, and its tile is written as
zeros (ZEROS). Its aggregate was published before the look-back, so its successors can
still be right: the failure seen on lavapipe, one tile of zeros.
"""
from __future__ import annotations

from dataclasses import dataclass

from wgprim.device import LLVMPIPE_LOOP_CAP
from wgprim.ops.chained_scan import SPIN_BUDGET, lookback_tiles

MISORDERED = "misordered"  # a combination of parts that do not meet: a protocol error
ZEROS = "zeros"            # what a tile whose loops were cut holds

# Durations, in reads of one tile. A window is a few atomic loads per lane, far less.
TILE_READ = 1.0
TILE_WRITE = 1.0
WINDOW_TIME = 1 / 64


def combine(left, right):
    """`left` then `right` (the kernel's chain_combine, kept in order)."""
    if left is None:
        return right
    if right is None:
        return left
    if isinstance(left, tuple) and isinstance(right, tuple) and left[1] == right[0]:
        return (left[0], right[1])
    return MISORDERED


@dataclass(frozen=True)
class Protocol:
    """What a look-back costs in loop iterations, and how the host splits its dispatches."""

    name: str
    window_iterations: int    # loop iterations of one window (measured on lavapipe: ~5)
    fallback_iterations: int  # of one fallback
    split: bool               # dispatches of at most lookback_tiles() tiles on a capped driver
    summary: str


OLD = Protocol("old", 5, 80, False,
               "all tiles in one dispatch (the model gives no storage binding a limit); the "
               "fallback reduces a tile with loops over subgroups (about 80 loop iterations)")
NEW = Protocol("new", 5, 1, True,
               "dispatches of at most lookback_tiles() tiles where the driver caps loops; "
               "the fallback runs no loop (1 iteration: its round of the look-back loop)")
# Half of the fix, to show that the other half is needed: the loop-free fallback without
# the split. Right where llvmpipe's ranges decide the walk, wrong under an adversary.
LOOP_FREE = Protocol("loop-free", 5, 1, False,
                     "the loop-free fallback (1 iteration), but all tiles in one dispatch: "
                     "the walk is bounded only by the dispatch")
PROTOCOLS = {p.name: p for p in (OLD, NEW, LOOP_FREE)}


class CappedDriver:
    """What lookback_tiles() reads of a device: its loop cap (None: none known)."""

    def __init__(self, loop_cap: int | None):
        self.loop_cap = loop_cap


@dataclass(frozen=True)
class Case:
    """One scan: `tiles` tiles under `protocol` on a driver with `loop_cap` (None: no cap)."""

    tiles: int
    protocol: Protocol = NEW
    spin_budget: int = SPIN_BUDGET
    window: int = 8                  # predecessors per window (lavapipe's subgroups: 8 lanes)
    loop_cap: int | None = LLVMPIPE_LOOP_CAP
    publish_fallback: bool = True    # integer operators and min/max publish what they reduce

    def __post_init__(self):
        for name in ("tiles", "window"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.spin_budget < 0:
            raise ValueError(f"spin_budget must be >= 0, got {self.spin_budget}")
        if self.loop_cap is not None and self.loop_cap < 1:
            raise ValueError(f"loop_cap must be >= 1 or None, got {self.loop_cap}")

    def dispatch_tiles(self) -> int:
        """Tiles per look-back dispatch: ops.chained_scan.lookback_tiles() for the new
        protocol on a capped driver, else all of them."""
        if self.protocol.split:
            most = lookback_tiles(CappedDriver(self.loop_cap), self.spin_budget)
            if most is not None:
                return min(most, self.tiles)
        return self.tiles

    def dispatches(self) -> list[range]:
        """The global tiles of each dispatch, in order."""
        per = self.dispatch_tiles()
        return [range(s, min(s + per, self.tiles)) for s in range(0, self.tiles, per)]

    def walk_bound(self, walked: int) -> int:
        """The most loop iterations a look-back that walks back over `walked` tiles can
        cost: per tile at most SPIN_BUDGET + 1 windows and one fallback, and at most
        SPIN_BUDGET + 1 windows for the last (the one that ends it)."""
        p, windows = self.protocol, self.spin_budget + 1
        return (walked + 1) * windows * p.window_iterations + walked * p.fallback_iterations


# Phases of a workgroup: the kind of its next action.
START, PUBLISH, LOOK, FALL, FALLEN, FINISH, DONE = range(7)


class Shared:
    """Memory that workgroups share: tile states, chunk carries, the output tiles."""

    __slots__ = ("aggregate", "inclusive", "carry", "output")

    def __init__(self, tiles: int, dispatches: int):
        self.aggregate = [None] * tiles   # None: NOT READY
        self.inclusive = [None] * tiles
        self.carry = [None] * (dispatches + 1)  # carry[d]: what dispatch d starts from
        self.output = [None] * tiles

    def copy(self) -> "Shared":
        other = Shared.__new__(Shared)
        other.aggregate, other.inclusive = self.aggregate[:], self.inclusive[:]
        other.carry, other.output = self.carry[:], self.output[:]
        return other

    def key(self) -> tuple:
        return (tuple(self.aggregate), tuple(self.inclusive), tuple(self.carry),
                tuple(self.output))


class Workgroup:
    """The workgroup that owns global tile `tile` of dispatch `dispatch` (tiles from `base`)."""

    __slots__ = ("case", "tile", "base", "dispatch", "last", "phase", "end", "acc", "polls",
                 "iterations", "windows", "fallbacks", "cut")

    def __init__(self, case: Case, tile: int, dispatch: range, index: int):
        self.case, self.tile, self.base, self.dispatch = case, tile, dispatch.start, index
        self.last = tile == dispatch.stop - 1
        self.phase = START
        self.end = tile   # tiles [end, tile) are combined into acc
        self.acc = None
        self.polls = 0
        self.iterations = self.windows = self.fallbacks = 0
        self.cut = False

    def copy(self) -> "Workgroup":
        other = Workgroup.__new__(Workgroup)
        other.case, other.tile, other.base, other.dispatch = self.case, self.tile, self.base, self.dispatch
        other.last, other.phase, other.end, other.acc = self.last, self.phase, self.end, self.acc
        other.polls, other.iterations, other.windows = self.polls, self.iterations, self.windows
        other.fallbacks, other.cut = self.fallbacks, self.cut
        return other

    def key(self) -> tuple:
        return (self.phase, self.end, self.acc, self.polls, self.iterations, self.cut)

    @property
    def done(self) -> bool:
        return self.phase == DONE

    @property
    def walked(self) -> int:
        """Tiles looked back over so far."""
        return self.tile - self.end

    def act(self, mem: Shared) -> float:
        """Run the next atomic action on `mem`; return how long until the one after it."""
        phase = self.phase
        if phase == START:  # read and reduce its own tile
            self.phase = PUBLISH
            return TILE_READ
        if phase == PUBLISH:
            mem.aggregate[self.tile] = (self.tile, self.tile + 1)
            self.phase = LOOK
            return 0.0
        if phase == LOOK:
            return self._window(mem)
        if phase == FALL:  # reduce the predecessor's input itself
            if self._loops_cut(self.case.protocol.fallback_iterations, mem):
                return 0.0
            self.fallbacks += 1
            self.phase = FALLEN
            return TILE_READ
        if phase == FALLEN:
            tile = self.end - 1
            self.acc = combine((tile, tile + 1), self.acc)
            if self.case.publish_fallback:
                mem.aggregate[tile] = (tile, tile + 1)
            self.end = tile
            self.phase = LOOK
            return 0.0
        if phase == FINISH:
            inclusive = combine(self.acc, (self.tile, self.tile + 1))
            mem.inclusive[self.tile] = inclusive
            if self.last:
                mem.carry[self.dispatch + 1] = inclusive
            mem.output[self.tile] = inclusive
            self.phase = DONE
            return TILE_WRITE
        raise RuntimeError(f"workgroup {self.tile} has finished")

    def _window(self, mem: Shared) -> float:
        if self._loops_cut(self.case.protocol.window_iterations, mem):
            return 0.0
        self.windows += 1
        moved = 0
        for j in range(self.end - 1, self.end - 1 - self.case.window, -1):
            if j < self.base:  # the chunk carry: everything before this dispatch
                self.acc = combine(mem.carry[self.dispatch], self.acc)
                self.phase = FINISH
                return WINDOW_TIME
            if mem.inclusive[j] is not None:
                self.acc = combine(mem.inclusive[j], self.acc)
                self.phase = FINISH
                return WINDOW_TIME
            if mem.aggregate[j] is None:
                break
            self.acc = combine(mem.aggregate[j], self.acc)
            moved += 1
        if moved:
            self.end -= moved
            self.polls = 0
        else:
            self.polls += 1
            if self.polls > self.case.spin_budget:
                self.polls = 0
                self.phase = FALL
        return WINDOW_TIME

    def _loops_cut(self, cost: int, mem: Shared) -> bool:
        """Count `cost` iterations; past the cap the invocation's loops end: its tile is
        written as zeros and it publishes nothing more."""
        cap = self.case.loop_cap
        if cap is not None and self.iterations + cost > cap:
            self.cut = True
            mem.output[self.tile] = ZEROS
            self.phase = DONE
            return True
        self.iterations += cost
        return False


def expected(tile: int) -> tuple:
    """What tile `tile` of an inclusive scan holds: tiles 0 .. tile combined."""
    return (0, tile + 1)


def wrong_tiles(output: list) -> list[int]:
    """The tiles whose output is not the scan's (the checker)."""
    return [t for t, value in enumerate(output) if value != expected(t)]


def describe_value(tile: int, value) -> str:
    if value == ZEROS:
        return "written as zeros"
    if value == MISORDERED:
        return "a combination of tiles out of order"
    if value is None:
        return "never written"
    return f"holds tiles {value[0]}..{value[1] - 1} combined, not 0..{tile}"
