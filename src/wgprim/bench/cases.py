"""What `wgprim bench` measures: the entries of wgprim.registry marked for the bench
(one list for the demo, the bench and the README's table), the target rows, and the per-call
grid."""
from __future__ import annotations

from wgprim.registry import TARGETS, Primitive, entries

__all__ = ["CALLS_GRID_PRIMITIVES", "CALLS_GRID_SIZES", "Primitive", "TARGETS", "calls_grid", "primitives"]


def primitives() -> dict[str, Primitive]:
    """The bench's entries by name (those whose function is missing included: the
    command skips them and says why)."""
    return {p.name: p for p in entries("bench")}


# The per-call grid (`wgprim bench --calls-grid`): what a one-shot call of each of these
# costs a user, at every size, against PyTorch and CuPy in the same run.
CALLS_GRID_PRIMITIVES = ("sum", "cumsum", "sort", "argsort", "compact", "unique", "histogram", "topk")
CALLS_GRID_SIZES = (2**10, 2**16, 2**20, 2**24, 2**28)
# Its point is the per-call columns: a lighter GPU-time protocol keeps the whole grid
# within a few minutes on an H200 (flags given on the command line win).
CALLS_GRID_PROTOCOL = {"rounds": 3, "round_ms": 10.0, "warmup_ms": 200.0}


def calls_grid(names=CALLS_GRID_PRIMITIVES, sizes=CALLS_GRID_SIZES) -> list[tuple[Primitive, int]]:
    """(entry, n) of the grid, size by size; within a size, entries that share an input
    generator follow each other (sum, cumsum, histogram and topk of float32 make their
    input once)."""
    from wgprim.registry import BY_NAME

    chosen = [BY_NAME[name] for name in CALLS_GRID_PRIMITIVES if name in names]
    groups: dict = {}
    for p in chosen:
        groups.setdefault((p.make, p.dtypes[0]), []).append(p)
    ordered = [p for group in groups.values() for p in group]
    return [(p, n) for n in sizes for p in ordered]
