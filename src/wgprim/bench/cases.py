"""What `wgprim bench` measures: the entries of wgprim.registry marked for the bench
(one list for the demo, the bench and the README's table), and the target rows."""
from __future__ import annotations

from wgprim.registry import TARGETS, Primitive, entries

__all__ = ["Primitive", "TARGETS", "primitives"]


def primitives() -> dict[str, Primitive]:
    """The bench's entries by name (those whose function is missing included: the
    command skips them and says why)."""
    return {p.name: p for p in entries("bench")}
