"""flag-publish: an atomic flag used to publish ordinary writes to another workgroup."""
from __future__ import annotations

from .. import indices
from ._common import finding, other_phases, touches

ID = "flag-publish"
SUMMARY = "atomic 'ready' flag used to publish or guard ordinary storage writes (atomics are not ordering)"
SEVERITY = "error"
HINT = ("write the data in one dispatch and read it in the next; if it must travel inside one "
        "dispatch, pack the value into the atomic word itself instead of a separate ordinary write")
DOC = """\
**What it flags.** The message-passing pattern between workgroups:

- on the reading side, an ordinary read of storage that is guarded by an atomic read of a
  *different* location (a flag), when this same dispatch also writes the data with ordinary
  writes — the read is reported;
- on the writing side, an atomic store or read-modify-write of that flag after an ordinary
  write of the data it guards — the atomic is reported.

A lock (taken with a spin loop, inline or in a helper function such as `lock()`) guards
the data the same way: the ordinary read inside the critical section is reported once; the
release that follows is part of the same problem and is not reported again. An entry point
written for a one-invocation dispatch (workgroup size 1, no address built from an id, no
waiting loop) reads back its own writes in program order and is not flagged, nor is a
slot claimed with `atomicAdd` (a work queue) read and written at the index it returned:
the claimer owns it, nor a read of what the invocation or its workgroup wrote itself at an
index built from its ids alone (`out[wid.x] = word & M;` then `atomicStore(&flags[wid.x],
F | out[wid.x])`: no other workgroup's index is `wid.x`), unless the flag is indexed like
the data (`ready[i]` beside `data[i]`, the message-passing shape). Nor is a claim: a word that an `atomicExchange` or
`atomicCompareExchangeWeak` only ever sets to one constant in the dispatch, never back
(`if (atomicExchange(&tag[cell], 1u) == 0u)` to process each cell once): its old value says
who got the cell first, and no one released it after writing data. A word set back
(`atomicStore(&tag[cell], 0u)` after the writes) is a lock, and reported. Also a claim: one
tested for a value that no store of the dispatch writes back (`atomicExchange(&tag, ACTIVE)
== OTHER` while other stores set SOURCE, never OTHER: tags that only move forward). Nor is
a guard on a word this dispatch never sets (or sets only in bits the guard masks out): a
failure bit that earlier dispatches wrote, checked before starting, publishes nothing. ORing
back bits just read from the word (`let failed = atomicLoad(&failures) & EARLIER;` then
`atomicOr(&failures, failed)`, through lets, variables and workgroup memory) passes a
failure on and sets nothing new but the constant bits ORed in with them, when nothing in
the dispatch clears bits of the word.

**Why it is wrong.** Atomics are indivisible, not ordering: that invocation A set the flag
says nothing about whether A's ordinary writes to other addresses are visible to B.
`storageBarrier()` does not fix it either, since it orders only the calling workgroup's own
accesses. The reader may see the flag set and stale data. And waiting for the flag has the
forward-progress problem of `spin-wait`.

**What to write instead.** Publish through the dispatch boundary: the producer writes in
dispatch N, the consumer reads in dispatch N+1. If a design needs the value inside one
dispatch (single-pass scan), make the value travel *inside* the atomic: pack the flag and
the payload in one atomic word (`atomicStore(&state[i], (value << 2u) | READY)`), so there is
no separate ordinary write to publish.

```wgsl
// flagged, both sides
data[i] = compute();            // ordinary write
atomicStore(&ready[i], 1u);     // flag set after it
if (atomicLoad(&ready[j]) == 1u) {
  let v = data[j];              // may read a stale value
}
```
"""


_CLAIMING = ("atomicExchange", "atomicCompareExchangeWeak")


def _only_claimed(entry, guard, ref) -> bool:
    """Whether the word an exchange reads only ever goes one way in this dispatch: every
    write of it is an exchange or compare-exchange storing the same constant, and nothing
    sets it back (no store, no other value). Its old value then tells the invocation only
    whether it claimed the word first (a cell processed once); no one released it after
    writing data, so nothing is published through it."""
    values, exchanges_only = set(), True
    for w in entry.accesses:
        if not (w.atomic and w.kind in ("write", "rmw")) or w.unchanged:
            continue
        if not (w.ref.same_place(ref) if ref is not None else w.loc.overlaps(guard.loc)):
            continue
        if w.operand_const is None or w.op not in _CLAIMING + ("atomicStore",):
            return False
        exchanges_only = exchanges_only and w.op in _CLAIMING
        values.add(w.operand_const)
    if exchanges_only and len(values) == 1:
        return True
    # the value the claimer tests the old word for (`old == FREE`) is never stored back:
    # only the first exchange can find it
    tested = entry.compared.get(guard.direct(), set())
    return bool(tested) and not tested & values


def _flag_guards(entry, read, masks, waited):
    """The atomic reads guarding `read` that can be flags of this dispatch: another word,
    which this dispatch sets (in the bits the guard looks at). A word only earlier
    dispatches wrote, such as a failure bit checked before starting, publishes nothing;
    nor does a counter whose returned value is the read's own index (a slot claimed
    with atomicAdd belongs to the claimer)."""
    flags = []
    claimed = {s.direct() for s in read.ref.index_deps
               if s.rmw in ("atomicAdd", "atomicSub") and not s.indirect}
    for g in read.guards:
        if g.loc is None or g.loc.space != "storage" or g.loc.overlaps(read.loc):
            continue
        if g.direct() in claimed:
            continue  # a slot claimed with atomicAdd, read at its own index: owned, not published
        ref = entry.load_refs.get(g)
        if g.rmw in _CLAIMING and g not in waited and _only_claimed(entry, g, ref):
            continue  # a claim: it decides who works on the data, not that the data is ready
        if any(w.atomic and w.kind in ("write", "rmw")
               and (w.ref.same_place(ref) if ref is not None else w.loc.overlaps(g.loc))
               and touches(w, masks.get(g)) for w in entry.accesses):
            flags.append(g)
    return flags


def _claims(deps) -> set:
    return {s.direct() for s in deps if s.rmw in ("atomicAdd", "atomicSub") and not s.indirect}


def _same_claim(a, b) -> bool:
    """Whether two references index, at some position, by the same slot claimed with
    atomicAdd: that slot belongs to whoever claimed it, so neither is another's data."""
    return any(_claims(x) & _claims(y) for x, y in zip(a.index_dep_list, b.index_dep_list))


def _own_element(a, b) -> bool:
    """Whether two references name the same element through the same index built from the
    invocation's global id alone (`data[gid.x]`): each invocation reads back what it wrote
    itself, in program order; nothing travels to another invocation."""
    if not a.index_texts or a.index_texts != b.index_texts:
        return False
    deps = [s for s in a.index_dep_list[0] if not s.indirect] if a.index_dep_list else []
    return (any(s.kind == "builtin" and s.name == "global_invocation_id" for s in deps)
            and all(s.kind in ("builtin", "var", "const") and (s.kind != "builtin" or s.name == "global_invocation_id")
                    for s in deps))


def _own_workgroup_word(a, b) -> bool:
    """Whether two references name one word that only this workgroup's place picks: the
    same index, exactly, as a sum of `workgroup_id` and dispatch constants (`out[wid.x]`,
    `out[wid.x * 2u + 1u]`, through lets and calls): no other workgroup's index is that
    word, so what is read there this workgroup wrote itself."""
    if len(a.index_shapes) != 1 or a.index_shapes != b.index_shapes:
        return False
    shape = a.index_shapes[0]
    return (shape is not None and shape.known and shape.lo == shape.hi
            and any(key[0] == indices.WORKGROUP for key, _ in shape.terms if isinstance(key, tuple)))


def _paired(entry, flags, read) -> bool:
    """Whether a flag is indexed like the data (`ready[i]` beside `data[i]`): the
    message-passing shape, whoever the index belongs to."""
    refs = [entry.load_refs.get(f) for f in flags]
    return any(r is None or r.index_texts == read.ref.index_texts for r in refs)


def check(entries):
    for entry in entries:
        if entry.single_invocation:
            continue  # one invocation reads what it wrote itself, in program order
        waited = {src for loop in entry.spin_loops for src in loop.waited}
        plain_writes = [a for a in entry.accesses
                        if a.kind == "write" and not a.atomic and a.loc.writable_storage]
        masks = {a.source: a.mask for a in entry.accesses if a.source is not None and a.mask is not None}
        consumers = []
        read_seq = {a.source: a.seq for a in entry.accesses if a.source is not None}
        for read in entry.accesses:
            if read.kind != "read" or read.atomic or not read.loc.writable_storage:
                continue
            flags = _flag_guards(entry, read, masks, waited)
            if not flags:
                continue
            written = [w for w in plain_writes
                       if w.ref.same_place(read.ref) and not _same_claim(w.ref, read.ref)
                       and not other_phases(entry, w, read)
                       and not ((_own_element(w.ref, read.ref) or _own_workgroup_word(w.ref, read.ref))
                                and not _paired(entry, flags, read))]
            if not flags or not written:
                continue
            consumers.append((read, flags))
            # the flag a loop waited on (a lock taken, a look-back) names the problem best
            flag = min(flags, key=lambda s: (s not in waited, s.site.line, s.site.column))
            yield finding(
                ID, SEVERITY, read.site,
                f"`{read.loc}` is read because the atomic flag {flag.describe()} says it is "
                f"ready, but atomics do not order other memory: the ordinary write of "
                f"`{read.loc}` (line {written[0].site.line}) may not be visible yet", HINT)

        for flag_write in entry.accesses:
            if not flag_write.atomic or flag_write.kind not in ("write", "rmw") or flag_write.unchanged:
                continue
            if not flag_write.loc.writable_storage:
                continue
            # a consumer that reads before this atomic, or whose flag was read before it,
            # is a critical section released by it (a lock): that is one problem, reported
            # at the guarded read
            published = [
                w for w in plain_writes
                if w.seq < flag_write.seq and not w.loc.overlaps(flag_write.loc)
                and any(r.seq > flag_write.seq and r.ref.same_place(w.ref)
                        and not _same_claim(r.ref, w.ref)
                        and any(f.loc.overlaps(flag_write.loc)
                                and read_seq.get(f, flag_write.seq) >= flag_write.seq
                                for f in flags)
                        for r, flags in consumers)]
            if published:
                yield finding(
                    ID, SEVERITY, flag_write.site,
                    f"{flag_write.op} on `{flag_write.loc}` is used as a 'ready' flag for the "
                    f"ordinary write of `{published[0].loc}` (line {published[0].site.line}), "
                    "but an atomic does not publish other writes to another workgroup", HINT)
