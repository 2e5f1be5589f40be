"""spin-wait: a loop that waits for storage memory another workgroup must change."""
from __future__ import annotations

from ._common import arrival_counter, finding

ID = "spin-wait"
SUMMARY = "loop whose way out waits for memory that only another invocation can change"
SEVERITY = "error"
HINT = ("split the work at this point into two dispatches (the end of a dispatch is the only "
        "global synchronization); if you must read another workgroup's result in this dispatch, "
        "give up after a bounded number of tries and compute the value yourself")
DOC = """\
**What it flags.** A `loop`, `while` or `for` whose way out depends on a value read from
`read_write` storage (atomic or not), or from an atomic in workgroup memory, when some way
around the loop makes no progress of its own. The loop can only end when another
invocation — in practice another workgroup — changes that memory. In detail:

- *Depends on* follows the value through `let`s, variables, arithmetic and bit operations
  (`state = word & 3u; while (state != READY)` waits on `word`), through conditions
  (`if (atomicLoad(&f) == 1u) { done = true; }`), through workgroup memory (invocation 0
  loads the flag into a `var<workgroup>`, the loop exits on `workgroupUniformLoad` of it),
  through function calls and pointer arguments, and through `if` branches that `continue`
  before the only `break`.
- *Progress* is a counter the loop advances itself — a variable assigned from its own
  value (`spins += 1u`, `look -= 1u`), not from the value it waits for — that an exit
  tests, a workgroup variable it steps by a constant (`s_back -= 1u`: a look-back index the
  workgroup shares) that an exit depends on, or a store or add to the very word it waits on (an `atomicAdd` work queue, a
  flag the loop resets each round). Writes on the way out (publish, then `break`) and writes to
  another word (`flags[me]` while waiting on `flags[me - 1u]`) are not progress.
- `atomicExchange`, `atomicCompareExchangeWeak` with a constant expected value,
  `atomicOr(&lock, 1u)` and `atomicMax` of a constant write the same thing every time:
  a loop on them is a lock being waited for. A compare-exchange whose expected value is
  a fresh read of the same word (a lock-free update) is not a wait. `atomicAdd(&x, 0u)`
  is a read.
- An exchange that stores the value that ends its loop is not a lock:
  `while (atomicExchange(&g, 1u) == 0u) {}` leaves 1 in the word, so the next round ends
  unless another invocation stored 0 in between (and only its storing again and again
  could keep the loop going). The same holds for a branch on the exchange's result in a
  state machine, as long as the loop stores nothing else into that word.
- State machines (`while (true) { switch pc { ... } }`) wait when some state stays put
  (`pc = 0u`) until a load says otherwise. One entered where it is known to start
  (`var pc = 0u;` before the loop) is followed state by state: when every state moves on
  by constant assignments (`pc = 2u`) to one that ends the loop, it is bounded.
- A way around that cannot be taken, or that ends the loop at its next test, is no way
  around: a round that found the lock cleared and goes back only to see its condition
  false, or whose own store cleared the workgroup's lock word (every store of it in the
  loop the same constant) before the uniform load that the condition reads.
- In a loop whose exit is uniform, a branch on the invocation's index (`if (lid.x == 0u)`)
  counts for the whole workgroup: invocation 0's spin budget bounds everyone's loop. An
  exit on a lock word in workgroup memory that every invocation reads after the loop's
  barrier counts as uniform here (it is the same for all), even when it is read directly
  rather than with `workgroupUniformLoad` (which `nonuniform-barrier` then asks for).
- A loop with a workgroup barrier inside does not spin on workgroup memory: the invocations
  it waits for reach the same barrier.

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
tested by an exit is not flagged.

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
            if entry.stage in ("fragment", "vertex"):
                who = ("another invocation of the draw changes it, and invocations are not "
                       "guaranteed to make progress while one of them spins")
            elif waited.loc.space == "workgroup":
                who = ("another invocation of the workgroup changes it, and invocations are "
                       "not guaranteed to make progress while one of them spins")
            else:
                who = ("another workgroup changes it, and that workgroup may never be "
                       "scheduled while this one waits")
            yield finding(
                ID, SEVERITY, loop.site,
                f"loop waits for {waited.describe()}, which it does not change on its own "
                f"and no counter of its own bounds: it can only end when {who}", HINT)
