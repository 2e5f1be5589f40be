"""global-barrier: a barrier, or an arrival counter, used as if it waited for all workgroups."""
from __future__ import annotations

from .. import indices
from ..model import WORKGROUP_IDENTITY_BUILTINS
from ._common import arrival_counter, finding, other_phases

ID = "global-barrier"
SUMMARY = "barrier or atomic arrival counter used as if it synchronized workgroups"
SEVERITY = "error"
HINT = ("end the dispatch here and do the rest in a second dispatch: the dispatch boundary is "
        "the only barrier between workgroups")
DOC = """\
**What it flags.**

- A `storageBarrier()` or `workgroupBarrier()` followed by ordinary reads of storage that
  *every workgroup* writes before the barrier in this dispatch (the write's index depends on
  `workgroup_id` or `global_invocation_id`, the read's does not: it reads other workgroups'
  slots) — e.g. each workgroup writes its partial sum and workgroup 0 then adds them all up.
  The barrier is reported.
- The same barrier when each invocation writes inside its workgroup's own slice
  (`data[gid.x]`, `data[wid.x * 64u + lid.x]`) and the read after it, at an index computed
  from the ids and constants alone, can leave that slice: `data[(gid.x + 64u) %
  arrayLength(&data)]` or `data[gid.x + 1u]` at a workgroup size of 64 reads a neighbour
  workgroup's element. Reads that stay in the slice (`data[wid.x * 64u + (lid.x + 1u) %
  64u]`) are not flagged, nor indices whose arithmetic the checker does not follow
  (`gid.x ^ 1u`) or that are read from memory.
- An atomic arrival counter waited on: every workgroup increments a counter (`atomicAdd`,
  `atomicSub`, ...) before the loop, then loops until it reaches the number of workgroups.
  The loop is reported here and not as a `spin-wait`. An exchange before a loop is not an
  arrival (it is a lock taken or released), nor is an add into a slot chosen by the
  workgroup's id or by a tile it claimed (a look-back publishing its aggregate), nor a
  count in workgroup memory: those loops are `spin-wait`s.

Not flagged: a write and a read in branches on different values of one selector that is
fixed for the dispatch (`if (pc.phase == 1u)` and `if (pc.phase == 3u)`, or the cases of a
`switch` on it; a member of a uniform buffer or push constant, or an `override`): the host
runs each phase as its own dispatch. A phase branch around a call on the way to the access
counts too (`if (pc.phase == 0u) { store_block(); }`).

**Why it is wrong.** `storageBarrier()` orders the calling workgroup's own storage accesses;
`workgroupBarrier()` synchronizes the invocations of one workgroup. Neither waits for any
other workgroup, so the reads after it see whatever happens to be there. A hand-made
barrier with a counter waits for workgroups that may not be scheduled until the waiting
ones leave: it deadlocks as soon as the dispatch has more workgroups than fit on the GPU at
once.

**What to write instead.** Make it two dispatches: dispatch N writes the partials, dispatch
N+1 (possibly a single workgroup) reads them all. Everything dispatch N writes is visible to
dispatch N+1 of the same pass, with no barrier to insert by hand.

```wgsl
// flagged
partials[wid.x] = local_sum;
storageBarrier();
if (wid.x == 0u && lid.x == 0u) {
  for (var i = 0u; i < n; i++) { total += partials[i]; }   // other workgroups' slots
}
```
"""


def _own_slice(shape) -> bool:
    """An index that stays in its workgroup's window (`gid.x`, `wid.x * 64u + lid.x`)."""
    return shape is not None and indices.apart_between_workgroups(shape, shape)


def _leaves_own_slice(entry, writes, barrier, read):
    """The write before the barrier that keeps to each workgroup's own slice of a buffer
    which the read after it, at an index computed from the ids and constants alone, can
    leave (`data[(gid.x + 64u) % arrayLength(&data)]` after `data[gid.x] = ...`): the read
    takes a neighbour workgroup's element."""
    if len(read.ref.index_shapes) != 1 or any(
            s.kind == "load" and not s.indirect and s.loc is not None and s.loc.space != "uniform"
            for s in read.ref.index_deps):
        return None  # an index read from memory: where it points is not followed
    r = read.ref.index_shapes[0]
    if r is None or not r.known:
        return None  # arithmetic not followed (`gid.x ^ 1u`): no claim either way
    for w in writes:
        if (w.seq < barrier.seq and len(w.ref.index_shapes) == 1 and _own_slice(w.ref.index_shapes[0])
                and w.ref.same_place(read.ref) and not other_phases(entry, w, read)
                and not indices.apart_between_workgroups(w.ref.index_shapes[0], r)):
            return w
    return None


def _identifies_workgroup(deps) -> bool:
    return any(s.kind == "builtin" and s.name in WORKGROUP_IDENTITY_BUILTINS and not s.indirect
               for s in deps)


def _barrier_read(entry):
    per_workgroup_writes = [
        a for a in entry.accesses
        if a.kind == "write" and not a.atomic and a.loc.writable_storage
        and _identifies_workgroup(a.ref.index_deps)]
    for barrier in entry.barriers:
        if barrier.name not in ("storageBarrier", "workgroupBarrier"):
            continue
        for read in entry.accesses:
            if read.kind != "read" or read.atomic or read.seq < barrier.seq or not read.loc.writable_storage:
                continue
            if _identifies_workgroup(read.ref.index_deps):
                slice_write = _leaves_own_slice(entry, per_workgroup_writes, barrier, read)
                if slice_write is not None:
                    yield finding(
                        ID, SEVERITY, barrier.site,
                        f"{barrier.name}() does not wait for other workgroups: each workgroup writes "
                        f"its own slice of `{slice_write.loc}` (line {slice_write.site.line}), and the "
                        f"read at line {read.site.line} (index `{read.ref.index_texts[0]}`) can reach "
                        "another workgroup's slice, which may not be written yet", HINT)
                    break
                continue
            writes = [w for w in per_workgroup_writes if w.seq < barrier.seq and w.ref.same_place(read.ref)
                      and not other_phases(entry, w, read)]
            if writes:
                yield finding(
                    ID, SEVERITY, barrier.site,
                    f"{barrier.name}() does not wait for other workgroups: every workgroup "
                    f"writes `{writes[0].loc}` (line {writes[0].site.line}) and the read at line "
                    f"{read.site.line} takes other workgroups' values, which may not be written yet",
                    HINT)
                break


def check(entries):
    for entry in entries:
        for loop in entry.spin_loops:
            counter = arrival_counter(entry, loop)
            if counter is not None:
                yield finding(
                    ID, SEVERITY, loop.site,
                    f"hand-made global barrier: workgroups count their arrival with "
                    f"{counter.op} on `{counter.loc}` (line {counter.site.line}) and this loop "
                    "waits for the count; workgroups not yet scheduled never arrive", HINT)
        yield from _barrier_read(entry)
