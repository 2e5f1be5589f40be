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
non-uniform control flow. It also warns of a look-back whose walk over predecessor
workgroups only the dispatch size bounds, which drivers that cap an invocation's loop
iterations (llvmpipe) cut short silently. It needs no GPU.

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
file, and files that are not WGSL but something that renders it — templates, named as
such with the first template notation found (Tera and Jinja tags `{% if x %}` and comments
`{# #}`, placeholders `{{x}}` and `${x}`, and `{x}` where the parser trips on its `{`),
preprocessor directives (`#import`, `#define_import_path`, `#ifdef`;
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

What only the host knows is said the same way: the look-backs of wgprim's own scan and
one-sweep sort walk back at most over their dispatch, which the host keeps small enough
for the driver's loop cap, so their loops carry
`// wgprim: allow(lookback-depth) -- the host bounds the walk: ...`.

Each finding is about one problem, and which rules run never changes what another rule
reports: `--select`, `--ignore` and suppressions only remove the named rule's own findings.
A loop waiting on a counter every workgroup incremented is a `global-barrier` (and only
that); a loop waiting on an exchange or any other lock word is a `spin-wait`; the guarded
read inside a lock is a `flag-publish` reported once, not again at the release.

## Telling the checker what the host does

The checker sees the shader, not the code that dispatches it. An entry point that its host
always dispatches as one workgroup says so with a comment on the line before it, or on any
line of its attributes and signature:

```wgsl
// wgprim: dispatch(1)
@compute @workgroup_size(64)
fn solve(@builtin(local_invocation_index) lid: u32) { ... }
```

`dispatch(x, y, z)` gives the workgroup counts (missing ones are 1; a count that is not a
positive integer is an error naming the spelling). With one workgroup in all there is no
other workgroup to publish to, to read partial totals of or to walk back over:
`flag-publish`, `global-barrier`, `same-dispatch-read` and `lookback-depth` report nothing
for that entry point. `spin-wait` and `nonuniform-barrier` still do: the invocations of one
workgroup are not promised to progress while one of them spins, and a barrier still needs
all of them. The same code reached from an entry point without the comment is checked as
usual. Other counts change nothing yet.

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
accesses in program order with their indices, and the barriers. Workgroup memory is
followed by barrier intervals: a read sees what was stored in its own interval (by any
invocation of the workgroup, earlier or later in the code) and in earlier ones, not what
is stored after the next barrier that every invocation passes, so a variable that first
hands out a claimed tile and later carries a value another workgroup published does not
make the tile look like that value. It repeats until
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
the loop's own that an exit tests, change the awaited word itself, or pass a branch that
an `atomicExchange` of its own rules out for the next round; otherwise, if an exit
depends on memory another invocation can change, the loop waits (`spin-wait`, or
`global-barrier` when the word is an arrival counter). Each way is followed with what it
knows: the constants it assigned, the branches it took (conditions that read no memory),
and what a uniform load reads of a workgroup variable that every store inside the loop
sets to one constant. A way that cannot be taken, or that ends the loop at its next test
(a round that found the lock cleared, by another invocation or by the loop's own store),
does not go around. A state machine entered where it is known to start (`var pc = 0u`,
constants assigned on the way to it) is run round by round over those constants: it is
bounded when no cycle of rounds avoids an exchange that sets its own exit.

Values are followed through the data flow for two exemptions. A load of a counter that
only grows, compared only as the larger side of `>=` or `>` (through variables, helpers
and `atomicAdd(&x, 0u)`), can make a test late, never wrong: a capacity check before an
append, or a rendezvous that polls the arrivals from the exit of a loop bounded on its
own. And a value made of the bits of a read (`atomicLoad(&f) & MASK`, through lets,
variables, `&`, `|`, `u32()` and workgroup memory), ORed back into the same word that only
atomicOr changes, can newly set only the constant bits ORed in with it: a failure passed
on sets nothing a guard on other bits tests.

Each array index is kept as a few symbols plus a bounded rest: constants, `override`s,
values of uniform buffers and `num_workgroups` are symbols fixed for the dispatch, each
component of `workgroup_id` a symbol fixed for one workgroup; what varies between
invocations is kept only as bounds (`key & 255u` is in [0, 255], `i % 16u` in [0, 15],
`local_invocation_id.x` in [0, workgroup size), a loaded `u32` in [0, 2^32) unless every
store of its location in the module is bounded (`info.pass = (info.pass + 1u) % 2u`
anywhere, and no atomic, `+=` or pointer touches it: then its stores' range; what the host
wrote first is taken to keep the same bound), the variable of a `for` loop over constants
in its range, a call of a function without parameters that returns a constant expression
its value). Two indices
with the same symbols and bounded rests that never overlap are different words
(`ctl[ARGS + 1u]` and `ctl[COUNTERS + gid.x % 16u]`); indices whose only varying symbol
is a `workgroup_id` component with coefficient c and whose rests fit in a window shorter
than c stay in each workgroup's own region (`hist[wid.x * 64u + (key & 63u)]`). When one
side has terms the other lacks, their bounds decide: a component of `workgroup_id` is
below 65535 and one of `num_workgroups` at most 65535 (WebGPU's
`maxComputeWorkgroupsPerDimension`), so the totals at `[0, 1024)` never meet the blocks
at `1024u + wid.x * 256u + lid.x`; constants of a uniform buffer and overrides have no
bound. Wrapping `u32` arithmetic is taken into account (two indices meet when their
difference can be a multiple of 2^32). A randomized test checks these claims against
brute-force evaluation.

A look-back walk (`lookback-depth`) is read from the same record once the loops are
judged: a loop that does not wait, inside which an atomic read of `read_write` storage
has an index built both from the workgroup's place (its id, or a tile claimed with
`atomicAdd`) and from a value the loop carries and steps backwards (a variable it
decreases or subtracts, `back -= 1u` or `state[tile - k]`, or workgroup memory it stores
such a value into, `lb_end = end - k`, followed through what the store put there). Its trip
count has a constant bound when every way around it advances a counter of its own that is
never reset, starts from constants, and is compared with a constant or an `override` by an
exit that decides on its own (a conjunct of the loop's condition, a disjunct of a
`break`'s). A poll count reset at each step back (`polls = 0u`) bounds one step, not the
walk.

`wgprim check src/wgprim/kernels/` (then 32 files) took 1.14 to 1.59 s of CPU (median
1.23 s) on one core of the shared 2-core machine it was measured on (2026-12-01,
afternoon: user plus system time of the whole command, Python's start included, five
runs). The machine's other work moves these numbers a lot: late that evening, with three
to four other processes running, the 35 files of today took 2.6 to 3.2 s (median 2.9 s)
against 2.2 to 3.4 s (median 2.7 s) for the code before the analysis followed workgroup
memory by barrier intervals, lower bounds and bits through values, and loops with what
their ways know (seven interleaved runs of each). The new analysis costs about 8%: the
heaviest file, the radix sort, needs 27 walks of its entry points instead of 23 (what its
module-scope variables carry between barrier intervals settles one walk at a time). The command loads neither numpy nor wgpu; the parser runs its
own loop over lark's LALR tables (cached on disk under the user cache directory), about
0.2 s for all files, lexing included; the rest is the analysis. Checking the 78 modules the
library compiles (preamble plus files, each specialization; `tests/check/test_kernels.py`)
took 6.0 to 6.6 s of CPU; the three radix-sort modules of 1,300 to 1,700 lines are 40% of
it.

## What is new

- `lookback-depth`: a look-back that walks back over as many predecessors as the dispatch
  has, with the loops each step runs (polls, a looping fallback), is reported as a warning:
  llvmpipe ends every loop of an invocation silently after 65,535 iterations in all, and
  such a walk gave wrong tiles in wgprim's own single-pass scan and one-sweep sort before
  their host bounded the walk (the library's kernels say so with an allow comment).
- Fewer false findings on code the checker was not tuned on: a claim (an exchange that
  only ever sets its word to one constant) is not a flag publication, nor a read of the
  workgroup's own word (`out[wid.x]`) after writing it; branches on different values of a
  dispatch-uniform selector (`pc.phase`), around the access or around a call on the way to
  it, are different dispatches; a value loaded from storage has the range of its stores
  when all are bounded, and a parameterless function returning a constant is that constant
  (a radix pass number and its partitions offset); a lock holder's release is not a partial
  total, nor a read that only one workgroup makes in its own window; a look-back index kept
  in workgroup memory and stepped by a constant is progress.
- Found now: a read after a storage or workgroup barrier that can leave the workgroup's own
  slice (`data[(gid.x + 64u) % arrayLength(&data)]`).
- `// wgprim: dispatch(1)`: an entry point its host dispatches as one workgroup; template
  sources (Tera `{% %}`, `{placeholder}`) are said to look like a template.
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
- Bounded waits judged bounded: a rendezvous that counts itself in and polls the count a
  bounded number of times (the memory-model litmus tests' `spin()`) is a best-effort read,
  not a `same-dispatch-read`, whatever the spelling of the poll; an exchange that stores
  the value that ends its own loop (`while (atomicExchange(&g, 1u) == 0u) {}`, or the same
  inside a state machine) is not a `spin-wait`; a state machine over constants that always
  moves on is not either; a fallback loop whose round clears the workgroup's lock itself,
  or that declares a `var` in its body (a leader test), is bounded.
- Real waits no longer hidden by a reused variable: the split-flag loop
  (`while (incl_bal != ALL_READY)`) of the reference decoupled look-back and fallback
  scans is a `spin-wait`, also when the workgroup variable that hands out the tile later
  carries the predecessor's total, and in a persistent loop over tiles.
- Failure bits passed on (`atomicOr(&failed, v)` of bits just read from `failed`, with
  bits of the stage's own that the guard masks out) are not a published flag; index ranges of one flat buffer are apart when the terms one side
  lacks are bounded (workgroup ids, loop counters over constants).
- `check/analysis.py` is split by concern: `provenance` (values), `locations` (workgroup
  memory and index shapes), `summaries` (traces of calls), `progress` with `loops` and
  `rounds` (loop verdicts), `trees`; `analysis` keeps the statements and the driver.

## Measured

On the test corpus (`tests/check/corpus/`: 68 positive files, reductions of real patterns —
decoupled look-back scans and one-sweep radix sorts, ticket, exchange, test-and-set and
compare-exchange locks, state machines, waits through workgroup memory and through a
reused broadcast variable, barriers under non-uniform control, look-backs as deep as the
dispatch, reads that leave the workgroup's slice after a barrier — with 103 expected
findings; 54 clean files, including decoupled-fallback scans (a spin budget in the loop, a
workgroup-memory lock, a windowed look-back whose budget lives in a helper, a leader
chosen by a `var`, a round that clears its own lock, an index kept in workgroup memory),
bounded polls and a bounded rendezvous, an exchange that sets its own exit, append
buffers, work queues, hash inserts, claims, failure-bit words passed on, regions of a flat
buffer, lock-free updates and a lock's own release, phases selected by a uniform or push
constant, look-backs bounded by a constant window or a step budget, and a grid-stride loop
over flags): every expected finding is reported and nothing else (recall 103/103; no clean
file has a finding of the synchronization rules, and the six decoupled-fallback scans among
them, whose walks reach tile 0, have the `lookback-depth` warning they expect). The unbounded twins of the fallback scans are reported. Of the forward-progress
litmus tests of the public `forward_progress_litmus_tests` WGSL suite that were tried
(state machines over a `pc`, exchange locks, workgroup-memory spins; four tests, two of
them shortened), 4 of 4 files are flagged, every waiting thread of them (7 of 7 loops).
These are small numbers; the corpus is the regression test, not a benchmark.

### On code written by others

`benchmarks/check_eval.py` runs the checker over public WGSL named, with repository, path
and commit, in `benchmarks/check-eval-manifest.json` (the sources themselves are not in
this repository: fetch them, then run the script on the directory). The manifest names
1,075 files. Measured late on 2026-12-01 on the 856 of them that could be fetched then (61
of those at another version than the commit named: the repository's snapshot had moved
them; not fetched: 197 of naga's newer test files, llama.cpp's kernels, three smaller
projects), on one core:

| category | files | result |
| --- | --- | --- |
| forward-progress litmus tests (every one makes a workgroup wait) | 16 | 16 flagged, 22 of 22 waiting loops |
| known waits: look-back scans and sorts (among them the reference decoupled look-back and fallback scans, whose split-flag loop waits), ticket, exchange and test-and-set locks, a hand-made global barrier, waits through workgroup memory and helper functions | 10 | 10 flagged, 16 of 16 waiting loops |
| designs that never wait: a multi-pass radix sort (two hash-table files use digit separators and are refused) | 1 | 0 with a finding |
| known other bugs: barriers under non-uniform control flow, a flag published by an atomic in a snow simulation | 9 | 8 found, exactly the expected rule (the ninth, recorded without a commit, is another version of the file) |
| clean real-world files: the memory-model litmus tests (166, a bounded rendezvous before each test), naga tests and outputs, wgpu examples and tests, webgpu-samples, Tour of WGSL, learn-wgpu, bevy examples, Tint's benchmark and regression shaders (Dawn), and compute shaders of about 60 other projects | 744 | 0 with a finding (the code before: 163, the rendezvous) |
| not WGSL as written: templates, early drafts, naga extensions, files missing a `;` | 64 | 64 refused with the one-line error |

Besides the manifest: 299 tests drawn at random from the 19,000 of the same
forward-progress litmus suite are all flagged, and of the 25,428 WGSL files of the public
repositories fetched for this (Dawn's test shaders most of them) every one gets the
findings it got before, but for the rendezvous of the memory-model litmus tests (163
files, now silent), the split-flag waits of the reference scans and their adaptation (5
files, now reported), and three files on which the code before failed or took too long
in one run over all of them (a memo of pure functions cleared in the middle of a question). The 780
files of the manifest that were checked take 14.6 s of CPU. Five litmus files count one
waiting loop where the earlier measurement counted two: the other thread's loop ends by
its own exchange, and is no longer reported.

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

Later, on code the checker had not been tuned on, before and after the claims, phases,
stored ranges, lock releases and the host annotation (2026-12-06, three public
repositories): the 13 shaders of jaankaup-engine that use exchanges (eikonal and
fast-marching solvers; their module-scope `let` written as `const` to parse) went from 53
`flag-publish` and 1 `global-barrier` to none; half-potato/wtet's 45 shaders from one
`same-dispatch-read` (a lock's release) to none, its 4 `flag-publish` (data read under a
tetrahedron's lock) and 4 `nonuniform-barrier` unchanged; KeKsBoTer/wgpu_sort's radix sort
(its placeholders filled in) from one `same-dispatch-read` (the pass number loaded from
storage) to none, its scatter's wait still reported. (The eikonal claims were 9 findings
short of none until a claim tested for a value no store writes back counted too: their tags
only move forward.) A larger fresh set, measured once before any change, is still to be
collected.

## What the checker still cannot see

- **Index arithmetic.** Indices are compared as symbols plus bounds (see "How it works"):
  a variable (`var`) is not followed into an index except through its type's bounds or,
  for the variable of a `for` loop over constants that its body never assigns, its range;
  the types of loads are known only for variables whose every scalar is a `u32`, products
  of two varying values and indices computed in helper functions' return values are
  unknown, and a linearized two-dimensional workgroup id (`wid.x + wid.y * nwg.x`) is
  recognized only when both accesses write it the same way. Unknown indices may meet, and
  so may indices apart only by the value of a uniform or an override (those have no
  bound). Workgroup ids are taken to be below 65535 per dimension, WebGPU's default
  `maxComputeWorkgroupsPerDimension`: a device that allows larger dispatches, and a kernel
  dispatched that large, could wrap an index the checker calls apart.
- **Termination.** Progress is syntactic: a counter assigned from its own value and tested
  by an exit counts as a budget even if the test can never succeed (`spins` compared with
  a value it skips over, a counter reset on every way around). A bounded poll whose bound
  lives in another invocation (invocation 0's budget shared through workgroup memory) is
  accepted only in the common shape: an `if` on the invocation index inside a loop with a
  uniform exit. A compare-exchange retried only when another invocation changed the word
  (it expects exactly the value just read, or the only way around without moving on is a
  spurious failure of the weak exchange) counts as progress, whatever the scheduler does,
  and so does the branch an `atomicExchange` of a constant rules out for its next round
  (taken again only while someone else keeps storing into the word): only an exchange
  written in the condition itself, at an address the loop does not move, in a loop that
  stores nothing else into that word; an `atomicOr` that sets its own exit is still a
  wait. Progress made inside a nested loop counts for every way through it, even one
  that leaves the nested loop early.
- **What a way around knows.** A way knows the constants it assigned to local variables,
  the branches it took on conditions that read no memory and call no function, and what
  a uniform load reads of a workgroup variable whose every store inside the loop is one
  constant to the whole variable (stores before the loop must be followed by a barrier
  before it); a plain read of workgroup memory, a nested loop, or a call (which may store
  into any module-scope variable) forget. State machines are run from what is known where
  the loop starts, which comes from straight-line code on the way to it: a branch or a
  loop passed on the way forgets what it assigns, so does a loop around the machine, and
  a function's parameters are unknown. More than 64 states, or 256 ways around, and the
  loop is judged without this knowledge.
- **Values.** A local variable is followed in order through straight-line code (an
  assignment at its own nesting level replaces what it held); inside a branch or a loop
  an assignment only adds to it (a loop's stores reach the reads of every round and what
  follows). Workgroup memory is followed by barrier intervals, which only barriers at the
  top level of the entry point end (calls made there included): inside a branch or a loop
  every store reaches every read, so a round of a loop is one interval, and a store never
  replaces what was stored before. A variable read through workgroup memory is never
  taken for a counter the loop advances.
- **Lower bounds and bits.** A growing counter is one this dispatch only changes with
  `atomicAdd` (of a constant below 2^31, or of any value, taken to be non-negative),
  `atomicMax` or `atomicOr`; a load of it is exempt only where every use is the larger
  side of `>=` or `>` (a value printed, stored or compared otherwise is a partial total),
  in an exit of a bounded loop or before an append whose slot comes from `atomicAdd`.
  Bits are followed through `let`s, `&`, `|`, `u32()`, workgroup memory (by barrier
  interval) and variables (all a variable is ever assigned, wherever it is read), not
  through function arguments or return values: a failure passed on through a helper is
  still a published flag.
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
