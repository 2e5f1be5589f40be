"""spin-wait: a loop that waits for storage memory another workgroup must change."""
from __future__ import annotations

from ._common import arrival_counter, finding

ID = "spin-wait"
SUMMARY = "loop whose way out depends on storage memory that only another invocation can change"
SEVERITY = "error"
HINT = ("split the work at this point into two dispatches (the end of a dispatch is the only "
        "global synchronization); if you must read another workgroup's result in this dispatch, "
        "give up after a bounded number of tries and compute the value yourself")
DOC = """\
**What it flags.** A `loop`, `while` or `for` whose exit condition depends on a value read
from `read_write` storage memory (atomic or not) that nothing in the loop writes, when some
way around the loop makes no progress of its own (no loop counter advances). The loop can
only end when another invocation — in practice another workgroup — changes that memory.

**Why it is wrong.** WebGPU guarantees neither that two workgroups run at the same time nor
in which order they start. The workgroup that should set the value may not be scheduled
until the waiting workgroup leaves its slot, so the loop never ends: the device hangs and
the browser or driver drops it (device lost). It may work on a small dispatch on one
machine and hang on the next. `storageBarrier()` inside the loop does not help: it waits for
no other workgroup.

**What to write instead.** Split the algorithm at this point into two dispatches: everything
dispatch N writes is visible to dispatch N+1. If a design really must look at another
workgroup's result inside one dispatch (a single-pass scan), it must never *wait* for it:
bound the number of tries with a local counter and, when the value is not there, compute it
yourself (the "decoupled fallback" scan). A loop whose every way around advances a counter
tested in the loop is not flagged.

```wgsl
// flagged: spins until another workgroup sets the flag
loop {
  if (atomicLoad(&signal.ready) == 1u) { break; }
}

// fine: bounded tries, then do the work yourself
var tries = 0u;
loop {
  if (atomicLoad(&signal.ready) == 1u) { break; }
  tries += 1u;
  if (tries == 64u) { compute_it_myself(); break; }
}
```
"""


def check(entries):
    for entry in entries:
        for loop in entry.spin_loops:
            if arrival_counter(entry, loop) is not None:
                continue  # a hand-made global barrier: reported by global-barrier
            waited = loop.waited[0]
            if waited.loc.space == "workgroup":
                who = ("another invocation of the workgroup changes it, and invocations are "
                       "not guaranteed to make progress while one of them spins")
            else:
                who = ("another workgroup changes it, and that workgroup may never be "
                       "scheduled while this one waits")
            yield finding(
                ID, SEVERITY, loop.site,
                f"loop waits for {waited.describe()}, which it does not change on its own "
                f"and no counter of its own bounds: it can only end when {who}", HINT)
