"""Helpers shared by the rules."""
from __future__ import annotations

from ..findings import Finding
from ..model import ACCUMULATING_RMW, EntryAnalysis, LoopReport, Site

COUNTING_RMW = ACCUMULATING_RMW | {"atomicExchange", "atomicCompareExchangeWeak"}


def finding(rule_id: str, severity: str, site: Site, message: str, hint: str) -> Finding:
    return Finding("", site.line, site.column, site.end_line, site.end_column, rule_id,
                   severity, message, hint)


def arrival_counter(entry: EntryAnalysis, loop: LoopReport):
    """The atomic read-modify-write, outside the loop, on what the loop waits for: the
    loop is then waiting for every workgroup to arrive (a hand-made global barrier)."""
    for access in entry.accesses:
        if (access.kind == "rmw" and access.op in COUNTING_RMW and loop.key not in access.loops
                and any(src.loc.overlaps(access.loc) for src in loop.waited)):
            return access
    return None
