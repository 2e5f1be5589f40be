"""lookback-depth: a look-back whose walk only the dispatch size bounds."""
from __future__ import annotations

from ._common import finding

ID = "lookback-depth"
SUMMARY = "look-back that walks back over as many predecessors as the dispatch has (drivers cap loop iterations)"
SEVERITY = "warning"
HINT = ("bound the walk: dispatch at most as many workgroups as one look-back may walk over "
        "(seed each dispatch with the previous one's total), or stop the walk after a constant "
        "window; make the fallback loop-free; if the host already bounds it, say so with "
        "`// wgprim: allow(lookback-depth) -- <how>` on the line before the loop")
DOC = """\
**What it flags.** A look-back loop whose number of rounds only the dispatch size bounds:
a loop that reads other workgroups' published states (an atomic read of `read_write`
storage) at an index that starts at the workgroup's own place (`workgroup_id`,
`global_invocation_id`, or a tile claimed with `atomicAdd`) and steps backwards with a
value the loop carries (`back -= 1u`, `end = end - k`, `state[tile - k]`, through
variables, pointers, helper functions and workgroup memory), when no counter of its own
bounds it by a constant. The loop is reported once, at the outermost such loop; the
message names the loops that run inside each round (polls, a fallback that reduces the
predecessor's tile itself), which multiply its iterations.

Not flagged: a walk bounded by a constant window (every way around advances a counter
that is never reset and that an exit compares with a constant or an `override`:
`for (var k = 1u; k <= WINDOW; k++)`, `if (steps == MAX_STEPS) { break; }`), loops that
wait (`spin-wait` reports those), walks forward (a grid-stride loop), and walks whose index
does not start from the workgroup's place.

**Why it is wrong.** It is legal WGSL and no wait, but its cost is unbounded: the workgroup
of tile t may walk back over t predecessors, and with a fallback each step runs further
loops. Some drivers cap the loop iterations of one invocation: Mesa's llvmpipe (lavapipe
on Vulkan, llvmpipe on OpenGL; the adapter wherever there is no GPU, CI included) counts
every loop iteration of an invocation, all loops together, and after 65,535 ends every loop
*silently*. A workgroup that walked back over ~900 predecessors, each with a looping
fallback, had its loops cut and returned a tile of zeros; nothing reports it.

**What to write instead.** Bound the walk, by construction:

- on the host: dispatch at most as many workgroups as a look-back may walk over within
  the cap, and seed each dispatch's first tile with the previous dispatch's total (a carry
  written by its last tile, read by the next dispatch), so no walk goes past its own
  dispatch;
- or in the kernel: stop after a constant window of predecessors and take the rest from
  somewhere bounded;
- and make the fallback loop-free (loops written out at compile time count no iteration).

If the host already bounds the dispatch, the checker cannot see it: say so next to the
loop, `// wgprim: allow(lookback-depth) -- the host dispatches at most N tiles`.

```wgsl
// flagged: tile t walks back over up to t predecessors, a looping fallback each
var back = wid.x;
while (back > 0u) {
  let s = atomicLoad(&state[back - 1u]);
  if (s == INCLUSIVE) { break; }
  if (s == NOT_READY) { acc += reduce_tile(back - 1u); }   // loops over the tile
  back -= 1u;
}

// fine: at most WINDOW predecessors
for (var k = 1u; k <= WINDOW; k++) {
  if (k > wid.x) { break; }
  let s = atomicLoad(&state[wid.x - k]);
  if (s == INCLUSIVE) { break; }
}
```
"""


def check(entries):
    for entry in entries:
        for walk in entry.lookback_walks:
            inner = ""
            if walk.inner:
                lines = ", ".join(str(s.line) for s in walk.inner[:4]) + (", ..." if len(walk.inner) > 4 else "")
                inner = (f", and each step back runs further loops (line{'s' if len(walk.inner) > 1 else ''} "
                         f"{lines})")
            read = walk.read
            yield finding(
                ID, SEVERITY, walk.site,
                f"look-back steps back from this workgroup's own tile over its predecessors' states "
                f"(`{read.loc}`, {read.rmw or 'atomicLoad'} at line {read.site.line}) as far as the "
                f"dispatch reaches{inner}: its loop iterations grow with the dispatch size, and "
                "drivers such as llvmpipe (lavapipe) silently end every loop of an invocation after "
                "65,535 iterations in all", HINT)
