"""nonuniform-barrier: a barrier reached under non-uniform control flow."""
from __future__ import annotations

from ._common import finding

ID = "nonuniform-barrier"
SUMMARY = "workgroupBarrier, storageBarrier or workgroupUniformLoad under non-uniform control flow"
SEVERITY = "error"
HINT = ("move the barrier out of the condition so that every invocation of the workgroup reaches "
        "it (branch before and after it), or make the condition uniform with workgroupUniformLoad")
DOC = """\
**What it flags.** A call to `workgroupBarrier()`, `storageBarrier()`, `textureBarrier()` or
`workgroupUniformLoad()` — or to a function that calls one — reached under control flow that
depends on a non-uniform value, following the WGSL uniformity analysis: built-in inputs that
differ between invocations (`local_invocation_id`, `local_invocation_index`,
`global_invocation_id`, `subgroup_invocation_id`), reads of `read_write` storage or of
workgroup memory, atomics, and everything computed from them — including variables assigned
under such conditions, loops whose trip count depends on them, and code after an early
`return`, `break` or `continue` taken by some invocations only. `workgroup_id`,
`num_workgroups`, uniform buffers, read-only storage, constants and overrides are uniform.

**Why it is wrong.** A barrier must be reached by every invocation of the workgroup, the
same number of times. If some invocations skip it, the others wait for them forever (or the
behavior is undefined): a hang or garbage, depending on the GPU. Some compilers reject it,
others (naga does not catch every case) accept it and the bug shows up on one vendor only.

**What to write instead.** Keep barriers in uniform control flow: compute the condition,
leave the `if`, call the barrier, then branch again. To branch on a value in workgroup
memory, read it with `workgroupUniformLoad`, whose result is uniform.

```wgsl
// flagged
if (lid.x < 128u) {
  shared[lid.x] += shared[lid.x + 128u];
  workgroupBarrier();
}
// fine
if (lid.x < 128u) { shared[lid.x] += shared[lid.x + 128u]; }
workgroupBarrier();
```
"""


def _nonuniform(control):
    sources = [s for s in control if s.nonuniform]
    # built-ins first: "local_invocation_id" says more than a chain of loads
    return sorted(sources, key=lambda s: (s.kind != "builtin", s.site.line if s.site else 0, s.name))


def check(entries):
    for entry in entries:
        for barrier in entry.barriers:
            for depth, frame in enumerate(barrier.frames):
                causes = _nonuniform(frame.control)
                if not causes:
                    continue
                why = " and ".join(list(dict.fromkeys(s.describe() for s in causes))[:2])
                if depth == len(barrier.frames) - 1:
                    message = (f"{barrier.name}() is reached under control flow that depends on "
                               f"{why}: not every invocation of the workgroup reaches it")
                else:
                    callee = barrier.frames[depth + 1].function
                    message = (f"call to `{callee}`, which reaches {barrier.name}() (line "
                               f"{barrier.site.line}), under control flow that depends on {why}: "
                               "not every invocation of the workgroup reaches the barrier")
                yield finding(ID, SEVERITY, frame.site, message, HINT)
                break
