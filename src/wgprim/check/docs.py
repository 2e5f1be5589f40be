"""Render the user documentation of `wgprim check` (docs/check.md) from the rule modules.

    python -m wgprim.check.docs > docs/check.md
"""
from __future__ import annotations

from .rules import ALL

INTRO = """\
# `wgprim check`

A linter for WGSL that finds cross-workgroup synchronization mistakes: code that waits for
another workgroup, publishes data with an atomic flag, uses a barrier as if it synchronized
workgroups, reads an atomic accumulator before it is final, or reaches a barrier under
non-uniform control flow. It needs no GPU.

The rule behind all of them: between workgroups there is no synchronization except the end
of a dispatch. WebGPU guarantees neither that two workgroups run at the same time nor in
which order they start, `storageBarrier()` waits for no other workgroup, and atomics are
indivisible, not ordering. See [the design notes](design.md), "The rule".

## Install and run

```sh
pip install wgprim                   # includes lark, the WGSL parser
wgprim check kernels/                # every .wgsl file under a directory
wgprim check a.wgsl b.wgsl           # files
cat a.wgsl | wgprim check -          # standard input
wgprim check --format json src/      # machine-readable
wgprim check --select spin-wait,flag-publish src/
wgprim check --ignore same-dispatch-read src/
wgprim check --explain spin-wait     # the documentation of one rule
wgprim check --list-rules
```

Output, one finding per problem, then a hint:

```text
scan.wgsl:41:5: spin-wait: loop waits for `state` (atomicLoad at line 42), which nothing in the loop writes: ...
  hint: split the work at this point into two dispatches ...
```

`--format json` prints a list of objects with the keys `file`, `line`, `column`,
`end_line`, `end_column`, `rule`, `severity`, `message` and `hint` (lines and columns
start at 1). A file that does not parse is reported as `file:line:col: error: message`
(in JSON, an object whose `rule` is `syntax-error`).

Exit status: 0 when clean, 1 when there are findings, 2 on usage or syntax errors.

## Suppressing a finding

A comment `// wgprim: allow(RULE)` (several rules separated by commas) on the line of a
finding, or on the line before, silences it. A design that deliberately reads another
workgroup's result within one dispatch should say why next to the suppression.

```wgsl
// wgprim: allow(spin-wait) -- bounded by the host-side watchdog, see docs/design.md
loop { ... }
```

## Python API

```python
from wgprim.check import check_source, check_file, WgslSyntaxError

text = \"\"\"
@group(0) @binding(0) var<storage, read_write> ready: atomic<u32>;

@compute @workgroup_size(64)
fn main() {
  while (atomicLoad(&ready) == 0u) {}   // waits for another workgroup: a spin-wait finding
}
\"\"\"
findings = check_source(text, path="kernel.wgsl", select=None, ignore=None)
for f in findings:
    print(f.format())        # or f.to_dict()
```

`check_source` raises `WgslSyntaxError` (with `line`, `column`, `path`) when the source does
not parse, and `ValueError` for an unknown rule id. `wgprim.check.parse(text)` returns the
parse tree with source positions.

## How it works

The parser reads the whole WGSL grammar (directives, attributes, template lists such as
`array<vec4<u32>, 256>` and `ptr<storage, T, read_write>`, structs, `override`,
`const_assert`, every statement). `a < b` is told from `array<...>` by the template-list
discovery algorithm of the WGSL specification, run over the tokens before parsing.

Each compute entry point (or, in a file without one, each function nobody calls) is walked
with its calls followed into the callees, pointer arguments included. The walk records which
values depend on which built-in inputs and memory reads, the conditions every statement runs
under, the storage accesses in program order and the barriers. The rules read that record.
Each entry point is one dispatch: what two entry points do is never the same dispatch.

Limits: the analysis does not evaluate index expressions (it tells "this workgroup's own
slot" from "another workgroup's slot" by whether the index is built from `workgroup_id` or
`global_invocation_id`), treats array elements of one buffer as one location, and follows
variables flow-insensitively. It leans towards silence where it cannot tell.

## Rules

"""


def render_rules() -> str:
    parts = []
    for rule in ALL:
        parts.append(f"### `{rule.ID}`\n\n{rule.SUMMARY[0].upper() + rule.SUMMARY[1:]}. "
                     f"Severity: {rule.SEVERITY}.\n\n{rule.DOC.strip()}\n")
    return "\n".join(parts)


def render() -> str:
    index = "\n".join(f"- [`{r.ID}`](#{r.ID}): {r.SUMMARY}" for r in ALL)
    return INTRO + index + "\n\n" + render_rules()


if __name__ == "__main__":
    print(render(), end="")
