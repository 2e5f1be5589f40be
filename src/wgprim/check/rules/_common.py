"""Helpers shared by the rules."""
from __future__ import annotations

from ..findings import Finding
from ..model import (ACCUMULATING_RMW, NONUNIFORM_BUILTINS, WORKGROUP_IDENTITY_BUILTINS, EntryAnalysis,
                     LoopReport, Site)

COUNTING_RMW = ACCUMULATING_RMW | {"atomicExchange", "atomicCompareExchangeWeak"}


def finding(rule_id: str, severity: str, site: Site, message: str, hint: str) -> Finding:
    return Finding("", site.line, site.column, site.end_line, site.end_column, rule_id,
                   severity, message, hint)


def touches(write, mask) -> bool:
    """Whether an atomic write may change the bits `mask` selects (all bits: None).
    `atomicLoad(&f) & DONE` is final when this dispatch only ORs other bits into `f`; an OR
    of bits just read from the word itself changes nothing."""
    if write.sets_bits is not None:
        return write.sets_bits != 0 if mask is None else write.sets_bits & mask != 0
    if mask is None or write.operand_const is None:
        return True
    if write.op in ("atomicOr", "atomicXor"):
        return write.operand_const & mask != 0
    if write.op == "atomicAnd":
        return ~write.operand_const & mask != 0
    return True


def arrival_counter(entry: EntryAnalysis, loop: LoopReport):
    """The counting read-modify-write (add, sub, ...), before the loop and outside it, on
    what the loop waits for: the loop is then waiting for every workgroup to arrive (a
    hand-made global barrier). An exchange is not an arrival: an exchange before or after
    a loop is a lock being taken or released, and the loop is a spin-wait. Nor is a count
    in workgroup memory: the invocations of one workgroup arrive there, not workgroups.
    Nor is an add into a word chosen by something each workgroup has of its own (its id,
    a tile it claimed): that publishes a value into its slot (a look-back's aggregate);
    every workgroup arrives at the same counter."""
    for access in entry.accesses:
        if (access.kind == "rmw" and access.op in ACCUMULATING_RMW and not access.unchanged
                and loop.key not in access.loops
                and access.loc.space == "storage" and not _own_slot(access.ref)
                and access.seq < loop.seq_start
                and any(_waited_at(entry, src, access) for src in loop.waited)):
            return access
    return None


def _waited_at(entry: EntryAnalysis, src, access) -> bool:
    ref = entry.load_refs.get(src)
    return ref.same_place(access.ref) if ref is not None else src.loc.overlaps(access.loc)


def _own_slot(ref) -> bool:
    """Whether an index depends on what differs between workgroups: an id, or a value read
    from memory that other workgroups write (a claimed tile)."""
    return any(s.kind == "builtin" and (s.name in WORKGROUP_IDENTITY_BUILTINS or s.name in NONUNIFORM_BUILTINS)
               or (s.kind == "load" and s.loc is not None and s.loc.writable_storage)
               for s in ref.index_deps if not s.indirect)


def other_phases(entry: EntryAnalysis, a, b) -> bool:
    """Whether accesses `a` and `b` are in branches on different values of one selector
    fixed for the dispatch (`params.phase == 1u` / `== 3u`), around them or around a call on
    the way to them: never in the same dispatch."""
    return entry.phases is not None and entry.phases.exclusive(_places(a), _places(b))


def _places(access) -> list:
    """The access and the calls on the way to it: a phase branch around any of them counts."""
    return [(access.site.line, access.site.column)] + list(access.context)
