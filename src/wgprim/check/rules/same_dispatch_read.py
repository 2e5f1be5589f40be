"""same-dispatch-read: reading an atomic accumulator in the dispatch that accumulates it."""
from __future__ import annotations

from .. import indices
from ._common import COUNTING_RMW, finding, other_phases, touches

ID = "same-dispatch-read"
SUMMARY = "atomic accumulator (counter, histogram bin, global min/max) read as final in the dispatch that accumulates it"
SEVERITY = "error"
HINT = ("read the accumulated value in the next dispatch; to reserve slots in an append buffer, "
        "use the value atomicAdd returns instead of loading the counter")
DOC = """\
**What it flags.** An `atomicLoad` of a storage location that the same dispatch also
accumulates into with `atomicAdd`, `atomicSub`, `atomicMax`, `atomicMin`, `atomicAnd`,
`atomicOr`, `atomicXor` or a compare-exchange loop: a counter, a histogram bin, a global
minimum or maximum read as if it were final.

Not flagged: using the value *returned* by `atomicAdd` (an append-buffer reservation: each
invocation gets its own slot), workgroup-memory atomics (the workgroup's own barrier makes
them final), the load at the top of a compare-exchange loop, loads whose value is never
used, `atomicAdd(&x, 0u)` (a read, not an accumulation), another constant index of the same
array (`bump[1]` while `bump[0]` is added to), another region of one flat buffer
(`ctl[ARGS + 1u]` while `ctl[COUNTERS + gid.x % 16u]` is added to: the ranges never
meet; or `counts[pass * 256u + lid.x]`, with `pass < 4u`, while every workgroup adds to
`counts[1024u + wid.x * 256u + lid.x]`: the workgroup ids are bounded; `pass` may be
loaded from storage when every store of it in the module is bounded, as in
`info.pass = (info.pass + 1u) % 2u`), this workgroup's own region of a buffer (`hist[wid.x][lid.x]` after
`atomicAdd(&hist[wid.x][bin], 1u)`, or flat: `hist[wid.x * 64u + lid.x]` after
`atomicAdd(&hist[wid.x * 64u + (key & 63u)], 1u)` in a workgroup of 64), and bits masked
out of a flag word that this
dispatch only ORs other bits into (`atomicLoad(&failed) & EARLIER_STAGES` while the stage
does `atomicOr(&failed, THIS_STAGE)`, directly or through a `let`), an
entry point written for a one-invocation dispatch (workgroup size 1, no address built from an
id: it reads back its own updates in program order), and an append buffer's
capacity check (`if (atomicLoad(&count) >= CAP) { return; }` where the slot itself comes
from the value `atomicAdd(&count, 1u)` returns: the counter only grows, so the test can
only be late, never wrong), and a bounded rendezvous: a count that only grows, polled by a
loop with a bound of its own until it reaches a limit (`if (polls == 1024u || seen >= N)
{ break; }` with `seen = atomicAdd(&arrivals, 0u)`), whatever the spelling (a variable, a
helper that returns the count). The value must serve only as the larger side of `>=` or
`>`: stored or compared otherwise, it is a partial total. Nor a read and an accumulation in
branches on different values of one dispatch-uniform selector (`switch (params.phase)`,
see `global-barrier`): separate dispatches. Nor a lock holder's release: a load of the
word this invocation locked (a compare-exchange, exchange or OR on it guards the load, as
after `if (!try_lock(t)) { return; }`) whose value it stores back (`atomicStore(&info[t],
cur & ~LOCKED)`). Nor a read that only one workgroup makes (`if (wid.x == 0u)`) inside
its own window of a buffer that every workgroup adds into by windows (`hist[wid.x * 256u +
d]`): the first workgroup of a scatter reading the totals a previous dispatch left in
partition 0.

**Why it is wrong.** Atomics make the total exact, not early: while this workgroup reads,
workgroups that have not run yet (or are running now) have still to add their part. The
value read is some partial sum, and which one changes from run to run.

**What to write instead.** Accumulate in dispatch N and read the result in dispatch N+1
(or on the CPU after the submit): the end of a dispatch makes every atomic update visible.

```wgsl
// flagged
atomicAdd(&hist[bin], 1u);
storageBarrier();
out[lid.x] = atomicLoad(&hist[lid.x]);   // other workgroups are still counting
```
"""


def _grows(add) -> bool:
    """Whether an update can only make the counter larger (an add of a constant that is not
    a wrapped-around subtraction, a maximum, an OR)."""
    if add.op == "atomicAdd":
        return add.operand_const is None or add.operand_const < 0x80000000
    return add.op in ("atomicMax", "atomicOr")


def _capacity_check(entry, read, adds) -> bool:
    """`if (atomicLoad(&count) >= CAP) { return; }` before reserving a slot with the value
    `atomicAdd(&count, 1u)` returns: the counter only grows, so a partial value that is
    already over the bound stays over it, and one under it only lets the invocation go on to
    the reservation, whose own returned value decides."""
    return (read.source in entry.lower_bound_reads
            and all(a.op in ("atomicAdd", "atomicMax") for a in adds)
            and any(a.op == "atomicAdd" and a.result_used for a in adds))


def _best_effort(entry, read, adds) -> bool:
    """A counter that only grows, compared as a lower bound by the exit of a loop that is
    bounded on its own (a rendezvous polling the arrivals at most 1024 times): the test can
    only be late, never wrong, and the loop ends either way."""
    return read.source in entry.best_effort_reads and all(_grows(a) for a in adds)


def _other_workgroups_miss(entry, read, add) -> bool:
    """Whether only one workgroup k makes the read (`if (wid.x == 0u)`), every workgroup adds
    inside its own window (`hist[wid.x * 256u + d]`, d < 256), and the read stays in window
    k: the only adds it can meet are its own workgroup's, none of another."""
    if entry.phases is None or len(read.ref.index_shapes) != 1 or len(add.ref.index_shapes) != 1:
        return False
    only = entry.phases.workgroup_of(read.site)
    r, a = read.ref.index_shapes[0], add.ref.index_shapes[0]
    if not (r is not None and a is not None and r.interval and a.known and len(a.terms) == 1):
        return False
    (key, coef), = a.terms
    if not (isinstance(key, tuple) and key[0] == indices.WORKGROUP and key[1] in only and coef > 0):
        return False
    if a.hi - a.lo >= coef:
        return False  # the windows of two workgroups may meet
    base = only[key[1]] * coef
    return base + a.lo <= r.lo and r.hi <= base + a.hi


_ACQUIRING = ("atomicCompareExchangeWeak", "atomicExchange", "atomicOr")


def _own_lock_release(entry, read) -> bool:
    """A lock holder's release: the load runs only once this invocation took the lock in
    that very word (a compare-exchange, exchange or OR on it guards the load), and its value
    is stored back into the word (`atomicStore(&w[i], cur & ~LOCKED)`). Nor a read that only one workgroup makes (`if (wid.x == 0u)`) inside
its own window of a buffer that every workgroup adds into by windows (`hist[wid.x * 256u +
d]`): the first workgroup of a scatter reading the totals a previous dispatch left in
partition 0. While it holds the
    lock the others only try it and fail: the value is not a partial total."""
    held = any(g.rmw in _ACQUIRING and (ref := entry.load_refs.get(g)) is not None
               and ref.same_place(read.ref) and ref.index_texts == read.ref.index_texts
               for g in read.guards)
    return held and any(
        w.kind == "write" and w.atomic and w.seq > read.seq and read.source in w.operand_deps
        and w.ref.same_place(read.ref) and w.ref.index_texts == read.ref.index_texts
        for w in entry.accesses)


def check(entries):
    for entry in entries:
        if entry.single_invocation:
            continue  # one invocation reads back its own updates, in program order
        accumulated = [a for a in entry.accesses
                       if a.kind == "rmw" and a.op in COUNTING_RMW - {"atomicExchange"}
                       and a.loc.writable_storage]
        waited = {src for loop in entry.spin_loops for src in loop.waited}
        # atomic reads used as a flag for ordinary reads of other data: flag-publish's case
        flags = {g for a in entry.accesses if a.kind == "read" and not a.atomic
                 for g in a.guards if not g.loc.overlaps(a.loc)}
        for read in entry.accesses:
            if read.kind != "read" or not read.atomic or not read.loc.writable_storage:
                continue
            if read.source in waited or read.source in flags:
                continue  # spin-wait, global-barrier or flag-publish says more
            if not read.result_used:
                continue  # a load whose value nobody looks at reads nothing as final
            adds = [a for a in accumulated if a.ref.same_place(read.ref) and touches(a, read.mask)
                    and not a.ref.own_workgroup_index(read.ref) and not other_phases(entry, a, read)
                    and not _other_workgroups_miss(entry, read, a)]
            if not adds:
                continue
            if any(read.source in a.operand_deps or set(a.loops) & set(read.loops) for a in adds):
                continue  # the old value a compare-exchange loop starts from
            if _capacity_check(entry, read, adds) or _best_effort(entry, read, adds):
                continue
            if _own_lock_release(entry, read):
                continue
            yield finding(
                ID, SEVERITY, read.site,
                f"`{read.loc}` is accumulated with {adds[0].op} (line {adds[0].site.line}) by the "
                "workgroups of this same dispatch: this atomicLoad sees a partial value", HINT)
