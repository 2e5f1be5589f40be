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
wgprim check --format sarif src/ > wgsl.sarif   # for GitHub code scanning
wgprim check --select spin-wait,flag-publish src/
wgprim check --ignore same-dispatch-read src/
wgprim check --explain spin-wait     # the documentation of one rule
wgprim check --list-rules
```

Output, one finding per problem, then a hint:

```text
scan.wgsl:41:5: spin-wait: loop waits for `state` (atomicLoad at line 42), which it does not change on its own ...
  hint: split the work at this point into two dispatches ...
```

`--format json` prints a list of objects with the keys `file`, `line`, `column`,
`end_line`, `end_column`, `rule`, `severity`, `message` and `hint` (lines and columns
start at 1). A file that does not parse is reported as `file:line:col: error: message`
(in JSON, an object whose `rule` is `syntax-error`).

`--format sarif` prints one SARIF 2.1.0 log as GitHub code scanning reads it:
`runs[0].tool.driver.rules` lists every rule with `id`, `shortDescription`,
`fullDescription` and `help` (the rule's documentation in markdown); each result has its
`ruleId`, a `message` (the finding and its hint), one physical location whose
`artifactLocation.uri` is the path relative to the current directory (run it from the
repository root) with its `region`, and `partialFingerprints` that hash the rule, the file
and the text of the flagged line, so a finding keeps its identity when lines are inserted
above it. Syntax errors are results of a `syntax-error` rule.

```yaml
# .github/workflows/wgsl.yml (a step)
- run: wgprim check --format sarif shaders/ > wgsl.sarif || true
- uses: github/codeql-action/upload-sarif@v3
  with: { sarif_file: wgsl.sarif }
```

Exit status: 0 when clean, 1 when there are findings, 2 on usage errors, syntax errors and
inputs that cannot be checked. Those give one line on standard error and no traceback: a
missing path, a directory without `.wgsl` files, a file that is not UTF-8 text, a binary
file, and files that are not WGSL but something that renders it — template placeholders
(`{{x}}`, `${x}`), preprocessor directives (`#import`, `#define_import_path`, `#ifdef`;
check the shader after they are resolved) and naga's 64-bit literal suffixes (`1li`,
`0lu`), which the message names as naga extensions. Spellings of early WGSL drafts are
named as such, with today's spelling: `[[attribute]]` (write `@attribute`), a module-scope
`let` (`const`), a `type` alias (`alias`), `;` after struct members (`,`). Should the checker itself fail on a
file, that too is one line (naming the file), and the other files are still checked.

## Pre-commit hook

The repository ships a `.pre-commit-hooks.yaml` with the hook `wgprim-check` (language
python, runs on `*.wgsl`). In a project's `.pre-commit-config.yaml`:

```yaml
repos:
  - repo: <URL of the wgprim repository>
    rev: <a tag or commit>
    hooks:
      - id: wgprim-check
        # args: [--ignore, same-dispatch-read]
```

## Suppressing a finding

A comment `// wgprim: allow(RULE)` (several rules separated by commas) on the line of a
finding, or on the line before, silences that rule's finding there and nothing else. A
design that deliberately reads another workgroup's result within one dispatch should say
why next to the suppression.

```wgsl
// wgprim: allow(spin-wait) -- bounded by the host-side watchdog, see docs/design.md
loop { ... }
```

Each finding is about one problem, and which rules run never changes what another rule
reports: `--select`, `--ignore` and suppressions only remove the named rule's own findings.
A loop waiting on a counter every workgroup incremented is a `global-barrier` (and only
that); a loop waiting on an exchange or any other lock word is a `spin-wait`; the guarded
read inside a lock is a `flag-publish` reported once, not again at the release.

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
parse tree with source positions. `wgprim.check.sarif.to_sarif(findings)` builds the SARIF
log.

## How it works

The parser reads the whole WGSL grammar (directives, attributes, template lists such as
`array<vec4<u32>, 256>` and `ptr<storage, T, read_write>`, structs, `override`,
`const_assert`, every statement). `a < b` is told from `array<...>` by the template-list
discovery algorithm of the WGSL specification, run over the tokens before parsing.

Each compute entry point and each fragment entry point beside it (or, in a file without a
compute entry point, each function nobody calls) is walked with its calls followed into
the callees, pointer arguments included. The walk records which
values depend on which built-in inputs and memory reads (through variables, workgroup
memory and `workgroupUniformLoad`), the conditions every statement runs under, the storage
accesses in program order with their indices, and the barriers. It repeats until
what variables and workgroup memory may hold stops growing; then each loop is judged once.
A loop (inside no other) whose round changes what that round read (a counter's stores
reaching its own test) is walked again at once, its first round undone, so that few
repetitions are needed. The
first walk of each call is kept as a trace of what it did relative to its call site; a
call with the same arguments and guards elsewhere, or in a later repetition, replays the
trace there as long as everything the walk read (variables, workgroup memory, the state of
its loops, the summaries of the pure functions it called) still holds the same: a test
checks that the record is then the plain walk's, event for event.
The rules read that record. Each entry point is one dispatch: what two entry points do is
never the same dispatch.

A loop is judged by the ways around it (each path from the top of the body back to the
top, `continue` included, `break` and `return` excluded): each must advance a counter of
the loop's own that an exit tests, or change the awaited word itself; otherwise, if an exit
depends on memory another invocation can change, the loop waits (`spin-wait`, or
`global-barrier` when the word is an arrival counter).

Each array index is kept as a few symbols plus a bounded rest: constants, `override`s,
values of uniform buffers and `num_workgroups` are symbols fixed for the dispatch, each
component of `workgroup_id` a symbol fixed for one workgroup; what varies between
invocations is kept only as bounds (`key & 255u` is in [0, 255], `i % 16u` in [0, 15],
`local_invocation_id.x` in [0, workgroup size), a loaded `u32` in [0, 2^32)). Two indices
with the same symbols and bounded rests that never overlap are different words
(`ctl[ARGS + 1u]` and `ctl[COUNTERS + gid.x % 16u]`); indices whose only varying symbol
is a `workgroup_id` component with coefficient c and whose rests fit in a window shorter
than c stay in each workgroup's own region (`hist[wid.x * 64u + (key & 63u)]`). Wrapping
`u32` arithmetic is taken into account. A randomized test checks these claims against
brute-force evaluation.

`wgprim check src/wgprim/kernels/` (32 files) takes 1.14 to 1.59 s of CPU (median 1.23 s)
on one core of the shared 2-core machine it was measured on (2026-12-01: user plus system
time of the whole command, Python's start included, five runs; the code before calls were
replayed from traces took 2.05 to 3.0 s, median 2.27 s, in the same minutes). The
machine's other work moves these numbers: over the day the same command took 1.1 to 2.5 s,
the older code 2.0 to 4.4 s. The command loads neither numpy nor wgpu; the parser runs its
own loop over lark's LALR tables (cached on disk under the user cache directory), about
0.2 s for all files, lexing included; the rest is the analysis. Checking the 78 modules the
library compiles (preamble plus files, each specialization; `tests/check/test_kernels.py`)
takes 6.0 to 6.6 s of CPU, where the older code took 11.3 to 14.2 s in the same minutes;
the three radix-sort modules of 1,300 to 1,700 lines are 40% of it.

## What is new

- Waits found through derived values (`incl_bal = payload & 3u`), exits behind
  `continue`, workgroup memory and `workgroupUniformLoad`, helper functions (`lock()`),
  and state machines; writes on the exit path or to another index are not progress; locks
  built from `atomicExchange`, `atomicCompareExchangeWeak`, `atomicOr`/`atomicMax` of a
  constant are waits; lock-free compare-exchange updates and `atomicAdd` work queues are not.
- Waits on atomics in workgroup memory (invocations of one workgroup waiting for each
  other, without a barrier in the loop) are `spin-wait`s too.
- Fewer false findings: `atomicAdd(&x, 0u)` is a read; unused loads; masked reads of flag
  bits this dispatch never sets; different constant indices of one array; one-invocation
  dispatches; the release of a lock; bail-outs on failure words this dispatch never sets.
- Rule precedence that does not depend on the selection; `--format sarif`; a pre-commit
  hook; one-line errors for inputs that are not WGSL; each called function's walk kept as
  a trace and replayed at other call sites and in later repetitions, loops settled within
  a repetition (`kernels/histogram.wgsl` checked in about 0.2 s instead of 3.6 s).
- Regions of one flat buffer: indices with constant offsets, masks, remainders, shifts,
  `min`/`clamp` and workgroup windows are told apart (see "How it works"), so reading one
  region while adding into another, or reading back a workgroup's own window of a flat
  histogram, is not a `same-dispatch-read`.
- Variables followed in order: a barrier after `x = uniform_value` is no longer reported
  because `x` held a per-invocation value earlier (the example of the WGSL
  specification's uniformity analysis).
- A lock word in workgroup memory that every invocation reads after the loop's barrier
  counts as the same for the workgroup, so invocation 0's spin budget bounds everyone's
  loop, even when the decision to unlock is computed in workgroup memory by all of them
  (the decoupled-fallback scans of vello and GPUPrefixSums are not `spin-wait`s).
- A slot claimed with `atomicAdd` and read or written at the index it returned belongs
  to the claimer: not `flag-publish` (work queues that update their items in place).
- Fragment entry points beside compute ones are checked too; the release of a lock whose
  readers read under its acquisition is not reported a second time.
- An `atomicAdd` that publishes a look-back's aggregate into a claimed tile's slot is not
  an arrival counter: the loop waiting after it is a `spin-wait`, not a `global-barrier`.
- A count kept in workgroup memory is not a global barrier: a loop waiting for it is a
  `spin-wait` among the invocations of one workgroup. Digit separators (`0xffff_ffffu`)
  are named as not WGSL.
- The library's own kernels are checked as compiled: the test suite runs every primitive
  on small inputs (every operator and dtype, every sort, histogram and selection variant)
  and checks each shader module the device built (the preamble of its specialization plus
  the files joined), so a new kernel is checked as soon as a primitive uses it.

## Measured

On the test corpus (`tests/check/corpus/`: 44 positive files, reductions of real patterns —
decoupled look-back scans and one-sweep radix sorts, ticket, exchange, test-and-set and
compare-exchange locks, state machines, waits through workgroup memory — with 56 expected
findings; 29 clean files, including decoupled-fallback scans (a spin budget in the loop, a
workgroup-memory lock, a windowed look-back whose budget lives in a helper), bounded polls,
append buffers, work queues, hash inserts, failure-bit words and lock-free updates): every
expected finding is reported and nothing else (recall 56/56, 0 of 29 clean files with a
finding). The unbounded twins of the fallback scans are reported. Of the forward-progress
litmus tests of the public `forward_progress_litmus_tests` WGSL suite that were tried
(state machines over a `pc`, exchange locks, workgroup-memory spins; four tests, two of
them shortened), 4 of 4 files are flagged, every waiting thread of them (7 of 7 loops).
These are small numbers; the corpus is the regression test, not a benchmark.

### On code written by others

`benchmarks/check_eval.py` runs the checker over public WGSL named, with repository, path
and commit, in `benchmarks/check-eval-manifest.json` (the sources themselves are not in
this repository: fetch them, then run the script on the directory). Measured on
2026-12-01, on one core:

| category | files | result |
| --- | --- | --- |
| forward-progress litmus tests (every one makes a workgroup wait) | 16 | 16 flagged, 27 of 27 waiting loops |
| known waits: look-back scans and sorts, ticket, exchange and test-and-set locks, a hand-made global barrier, waits through workgroup memory and helper functions | 9 | 9 flagged, 14 of 14 waiting loops |
| designs that never wait: decoupled-fallback scans, a multi-pass radix sort, hash-table inserts and probes | 4 | 0 with a finding |
| known other bugs: barriers under non-uniform control flow (two of them in decoupled-fallback scans of vello and GPUPrefixSums, which never wait; others after an out-of-bounds `return` in image and matrix kernels, one inside a branch in a tutorial's reduction, `storageBarrier` after a `return` in two sorts of learn-wgpu; one flag published by an atomic in a snow simulation) | 12 | 12 found, exactly the expected rule |
| clean real-world files: naga tests and outputs, wgpu examples and tests, webgpu-samples, Tour of WGSL, learn-wgpu, bevy examples, Tint's benchmark and regression shaders (Dawn), and compute shaders of about 60 other projects | 782 | 0 with a finding |
| not WGSL as written: templates (vello, bevy, brush `#import`, `{placeholder}`), early drafts (`[[attribute]]`, `@stage`, module-scope `let`, a `type` alias), naga extensions (`1lu`, `debugPrintf`), files missing a `;` | 82 | 82 refused with the one-line error |

The whole set (823 files checked) takes 5.7 to 7.5 s of CPU; the first 278 files took 1.3 to 2.1 s (the code before calls were
replayed from traces: 1.4 to 2.6 s in the same minutes, 3 to 5 s on busier ones; these
files are small, and parsing is most of it).

The sources: the `forward_progress_litmus_tests` suite (UCSC, the WGSL tests of "GPU
forward progress" litmus testing: state machines over a `pc`, exchange and load spins,
in storage and in workgroup memory, one and several threads per workgroup); the
decoupled look-back scan and one-sweep radix sort of GPUPrefixSums and GPUSorting and
their decoupled-fallback and multi-pass counterparts; vello's decoupled-fallback path-tag
scan (imports removed); the ticket lock, occupancy discovery and inter-workgroup barrier
of webgpu-sync; wgsl-loop's test-and-set lock; a per-pixel compare-exchange lock and a
look-back with the flag in the high bit from public repositories; naga's WGSL test inputs
(gfx-rs/wgpu); webgpu-samples; bevy's example shaders; and compute shaders of burn,
playcanvas, bevy_hanabi, brush, formula, LightSalon, gausplat-renderer and other
projects (histograms, append buffers, hash tables, reductions, scans, sorts, matrix
products, softmax and normalization of web-rwkv, SPH grid building, bitonic sorts,
mipmaps, particle and cloth simulation, compaction, BVH traversal); the Tour of WGSL
examples; learn-wgpu; Tint's shaders in Dawn (at most five per test directory); and
compute shaders of fluid, snow, cloth and particle simulations, path tracers, OCR,
llama.cpp's WebGPU kernels and other projects. Not the thousands of a crawl: one false
finding among the 782 clean files would be a rate of 0.13%; the clean set leans towards
compute shaders with atomics, loops and barriers, where the rules can go wrong. vello's and most of bevy's shaders are
`#import` templates: they are refused with the one-line error and counted apart.

## What the checker still cannot see

- **Index arithmetic.** Indices are compared as symbols plus bounds (see "How it works"):
  a variable (`var`) is not followed into an index except through its type's bounds, the
  types of loads are known only for variables whose every scalar is a `u32`, products of
  two varying values and indices computed in helper functions' return values are
  unknown, and a linearized two-dimensional workgroup id (`wid.x + wid.y * nwg.x`) is
  recognized only when both accesses write it the same way. Unknown indices may meet.
- **Termination.** Progress is syntactic: a counter assigned from its own value and tested
  by an exit counts as a budget even if the test can never succeed (`spins` compared with
  a value it skips over, a counter reset on every way around). A bounded poll whose bound
  lives in another invocation (invocation 0's budget shared through workgroup memory) is
  accepted only in the common shape: an `if` on the invocation index inside a loop with a
  uniform exit. A compare-exchange retried only when another invocation changed the word
  (it expects exactly the value just read, or the only way around without moving on is a
  spurious failure of the weak exchange) counts as progress, whatever the scheduler does.
- **Values.** A local variable is followed in order through straight-line code (an
  assignment at its own nesting level replaces what it held); inside a branch or a loop
  an assignment only adds to it (a loop's stores reach the reads of every round and what
  follows). Workgroup memory is followed flow-insensitively: what it ever holds it may
  hold anywhere. Ranges are not computed, so a state machine whose every state really
  advances but by constant assignment (`pc = 2u`) looks like a wait when its exit
  depends on a load.
- **Who runs what.** Which workgroups take which branch is not modelled: a wait that only
  workgroup 0 does on a value only workgroup 0 writes is still reported; two entry points
  are always two dispatches, and the host code that dispatches them is not read.
- **Memory ordering.** `flag-publish` sees a flag and the data it guards when both are in
  one entry point; data published through a chain of helper buffers, or read through a
  pointer stored in memory, is not followed. Plain-memory races are no rule: an
  invocation that rewrites a parameter block that other workgroups of the same dispatch
  still read is not reported. Subgroup operations are treated as
  non-uniform across the workgroup, not as synchronization.
- **Other shader stages.** In a file with a compute entry point, the compute and fragment
  entry points are checked (a per-pixel spin lock in the fragment shader is a
  `spin-wait`), not the vertex ones; a file without one is checked from every function
  nobody calls.
- **Preprocessed sources.** Templates and `#import`/`#ifdef` sources must be rendered
  first; the checker reads WGSL only.
- **Races inside a workgroup.** A missing `workgroupBarrier` between one invocation's
  write and another's read of workgroup memory (a warp-style reduction without barriers,
  a Hillis-Steele scan in place) is no rule: the rules are about waiting across
  workgroups, and such code never hangs. Public compute shaders gathered for the
  evaluation had several.
- **Validation.** The checker is not a WGSL validator: a file that parses is checked as
  written even where naga or Tint would reject it (an undefined name, an atomic in a
  uniform struct, `@stage(vertex)`). Validate with them; compiling through wgprim does.

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
