"""Summaries change nothing: the analysis that replays traces of calls and walks loops again
within a pass records exactly what the plain walk records (every call walked at its site,
one walk of each loop per pass), event for event, on every shipped kernel, every corpus
file, and sources written to stress replay (a helper called from many sites, inside
loops, under different guards, through pointers, with a pure call inside)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wgprim.check import WgslSyntaxError, analysis, check_source, summaries
from wgprim.check.parser import parse
from wgprim.check.symbols import collect

HERE = Path(__file__).parent
FILES = sorted((HERE.parents[1] / "src" / "wgprim" / "kernels").glob("*.wgsl")) + sorted(
    (HERE / "corpus").rglob("*.wgsl"))


def _record(entries) -> list:
    """Everything the rules read, in order."""
    out = []
    for e in entries:
        out.append((
            e.entry, e.stage, e.single_invocation, e.lower_bound_reads, e.best_effort_reads,
            [(a.kind, a.atomic, a.op, a.loc, a.ref, a.site, a.seq, a.guards, a.loops, a.result_used,
              a.source, a.operand_deps, a.operand_const, a.mask, a.operand_bits, a.unchanged)
             for a in e.accesses],
            [(b.name, b.site, b.seq, [(f.site, f.function, f.control) for f in b.frames]) for b in e.barriers],
            [(loop.key, loop.site, loop.waited, loop.seq_start, loop.seq_end) for loop in e.spin_loops],
            dict(e.load_refs)))
    return out


def _walk(module, text: str) -> list:
    """The record of every entry point, and what the last pass noted about each loop
    (what `_waited_storage` judges)."""
    out = []
    for name in module.roots:
        walker = analysis.EntryWalker(module, text, name)
        out += _record([walker.run()])
        out.append([(rec.key, rec.seq_start, rec.seq_end, rec.depth, rec.barrier, rec.created_loads,
                     rec.writes, rec.declared, rec.assignments, rec.pointer_calls)
                    for rec in walker.loops_seen])
    return out


def _both(text: str, monkeypatch) -> tuple[list, list]:
    try:
        module = collect(parse(text).tree)
    except WgslSyntaxError as error:  # the corpus's syntax cases
        pytest.skip(f"not WGSL: {error.message}")
    fast = _walk(module, text)
    monkeypatch.setattr(summaries, "REPLAY", False)
    monkeypatch.setattr(analysis, "LOOP_ROUNDS", 1)
    plain = _walk(module, text)
    return fast, plain


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_record_as_the_plain_walk(path: Path, monkeypatch):
    fast, plain = _both(path.read_text(encoding="utf-8"), monkeypatch)
    assert fast == plain


# A helper with a wait inside, called from several sites and loops; a helper that bumps
# the caller's counter through a pointer (the budget of one loop, not of the other); a
# barrier in a helper called once under uniform and once under non-uniform control; a pure
# helper first called inside another helper.
STRESS = """
struct Flags { ready: array<atomic<u32>, 64>, count: atomic<u32> }
@group(0) @binding(0) var<storage, read_write> flags: Flags;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, 64>;
var<private> seen: u32;

fn slot(i: u32) -> u32 { return (i * 7u) & 63u; }

fn wait_for(i: u32) -> u32 {
  loop {
    let v = atomicLoad(&flags.ready[slot(i)]);
    if (v != 0u) { return v; }
  }
}

fn poll_once(i: u32, tries: ptr<function, u32>) -> bool {
  *tries = *tries + 1u;
  return atomicLoad(&flags.ready[slot(i)]) != 0u;
}

fn sync_tile(lid: u32) {
  tile[lid] = seen;
  workgroupBarrier();
  seen = tile[(lid + 1u) & 63u];
}

fn publish(i: u32, v: u32) {
  out[i] = v;
  atomicStore(&flags.ready[i & 63u], 1u);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  sync_tile(lid);
  if (lid == 0u) {
    out[0] = wait_for(wid.x);
  }
  for (var k = 0u; k < 4u; k++) {
    out[k + 1u] = wait_for(wid.x + k);
    publish(wid.x + k, k);
  }
  var tries = 0u;
  loop {
    if (poll_once(wid.x, &tries)) { break; }
    if (tries > 64u) { break; }
  }
  var forever = 0u;
  loop {
    if (poll_once(wid.x + 1u, &forever)) { break; }
  }
  if (atomicLoad(&flags.count) > 3u) {
    sync_tile(lid);
    publish(wid.x, 7u);
  }
  if (lid < 32u) {
    sync_tile(lid);
  }
  sync_tile(lid);
}

@compute @workgroup_size(64)
fn second(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  for (var k = 0u; k < 2u; k++) {
    sync_tile(lid);
    publish(wid.x * 2u + k, wait_for(k));
  }
}
"""


def test_stress_source_same_record(monkeypatch):
    fast, plain = _both(STRESS, monkeypatch)
    assert fast == plain


def test_stress_source_findings():
    """What the stress source is: waits in the helper at each of its loops (reported at
    the helper's loop), the unbounded poll (its counter is never tested), barriers under
    non-uniform control; the budgeted poll is fine."""
    findings = check_source(STRESS)
    by_rule = {}
    for f in findings:
        by_rule.setdefault(f.rule, set()).add(f.line)
    lines = STRESS.splitlines()

    def line_of(text, start=0):
        return next(i + 1 for i, line in enumerate(lines) if i >= start and text in line)

    assert line_of("  loop {") in by_rule["spin-wait"]  # inside wait_for
    assert line_of("  loop {", line_of("var forever")) in by_rule["spin-wait"]
    assert line_of("  loop {", line_of("var tries")) not in by_rule["spin-wait"]
    assert line_of("sync_tile(lid);", line_of("if (lid < 32u)")) in by_rule["nonuniform-barrier"]


def _loop_nest(depth: int) -> str:
    """`depth` nested loops, each bounded by a value in storage, feeding one accumulator."""
    lines = ["@group(0) @binding(0) var<storage, read_write> buf: array<u32>;",
             "@compute @workgroup_size(64)",
             "fn main(@builtin(local_invocation_index) lid: u32) {",
             "  var acc = 0u;"]
    for i in range(depth):
        lines.append("  " * (i + 1) + f"for (var i{i} = 0u; i{i} < buf[{i}]; i{i} += 1u) {{")
    lines.append("  " * (depth + 1) + "acc += buf[acc % 7u];")
    lines += ["  " * (i + 1) + "}" for i in reversed(range(depth))]
    lines += ["  buf[lid] = acc;", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("depth", [1, 2, 3, 12])
def test_loop_nest_same_record(depth, monkeypatch):
    fast, plain = _both(_loop_nest(depth), monkeypatch)
    assert fast == plain


# ---- random programs: helpers calling helpers (by value, by pointer, pure), loops, waits,
# barriers under conditions, atomics, workgroup and private memory

_HEADER = """struct Ctl { flags: array<atomic<u32>, 64>, count: atomic<u32>, data: array<u32, 64> }
@group(0) @binding(0) var<storage, read_write> ctl: Ctl;
@group(0) @binding(1) var<storage, read_write> buf: array<u32>;
@group(0) @binding(2) var<storage, read> ro: array<u32>;
var<workgroup> wg: array<u32, 64>;
var<workgroup> wflag: atomic<u32>;
var<private> pv: u32;
"""


def _random_program(r) -> str:
    helpers = []  # (name, kind): kind "val", "ptr" (takes a pointer) or "pure"

    def call(kind):
        if not helpers:
            return "1u"
        name, callee = r.choice(helpers)
        arg = r.choice(["a", "b", "a + 1u", "ctl.data[a & 63u]", "wg[b & 63u]", "7u"])
        if callee == "ptr":
            return f"{name}({arg}, p)" if kind == "ptr" else f"{name}({arg}, &{'p0' if kind == 'entry' else 'loc'})"
        return f"{name}({arg}, {r.choice(['a', 'b', '3u'])})"

    def stmt(kind):
        total = "acc" if kind == "entry" else "pv"
        cond = r.choice(["a < 32u", "atomicLoad(&ctl.count) > 3u", "b == 0u", "wg[0] != 0u", "pv > 2u",
                         "ro[a] == 1u"])
        return r.choice([
            lambda: f"loop {{ if (atomicLoad(&ctl.flags[{r.choice(['a', 'b', '0u'])} & 63u]) == 1u) {{ break; }} }}",
            lambda: "for (var t = 0u; t < 64u; t++) { if (atomicLoad(&ctl.flags[b & 63u]) != 0u) { break; } }",
            lambda: f"if ({cond}) {{ workgroupBarrier(); }}",
            lambda: f"atomicStore(&ctl.flags[{r.choice(['a', 'b', '1u'])} & 63u], 1u);",
            lambda: "_ = atomicAdd(&ctl.count, 1u);",
            lambda: f"wg[{r.choice(['a', 'b'])} & 63u] = {call(kind)};",
            lambda: f"pv = pv + {call(kind)};",
            lambda: f"for (var j = 0u; j < 4u; j++) {{ {total} += {call(kind)}; }}",
            lambda: f"if ({cond}) {{ {total} = {call(kind)}; }}",
            lambda: "while (atomicLoad(&wflag) == 0u) { workgroupBarrier(); }",
            lambda: f"ctl.data[{r.choice(['a', 'b', '5u'])} & 63u] = {call(kind)};",
            lambda: f"if (workgroupUniformLoad(&wg[0]) > 1u) {{ _ = {call(kind)}; }}",
            lambda: f"{total} += {call(kind)};",
            lambda: "loop { let v = atomicExchange(&ctl.flags[3], 1u); if (v == 0u) { break; } }",
            lambda: ("k = 0u; loop { k += 1u; if (k > 8u || ctl.data[k & 63u] == 0u) { break; } }"
                     if kind == "entry" else "pv += 1u;"),
            lambda: f"_ = {call(kind)};",
        ])()

    out = [_HEADER]
    for f in range(r.randint(1, 5)):
        kind, name = r.choice(["val", "ptr", "pure"]), f"f{f}"
        if kind == "pure":
            out.append(f"fn {name}(a: u32, b: u32) -> u32 {{\n  var t = a * 3u + b;\n"
                       "  for (var i = 0u; i < (b & 7u); i++) { t += ro[i]; }\n  return t;\n}\n")
        else:
            params = "a: u32, b: u32" if kind == "val" else "a: u32, p: ptr<function, u32>"
            body = ["  var loc = a;"] + ["  " + stmt(kind) for _ in range(r.randint(2, 7))]
            body.append("  return a + " + r.choice(["1u", "pv", "atomicLoad(&ctl.flags[a & 63u])", "wg[a & 63u]"]) + ";")
            out.append(f"fn {name}({params}) -> u32 {{\n" + "\n".join(body) + "\n}\n")
        helpers.append((name, kind))
    body = ["  let a = lid;", "  let b = wid.x;", "  var p0 = 0u;", "  var acc = 0u;", "  var k = 0u;"]
    body += ["  " + stmt("entry") for _ in range(r.randint(3, 9))]
    out.append("@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) lid: u32, "
               "@builtin(workgroup_id) wid: vec3<u32>) {\n" + "\n".join(body) + "\n  buf[lid] = acc + p0;\n}\n")
    return "\n".join(out)


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_programs_same_record(r):
    text = _random_program(r)
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, plain = _both(text, monkeypatch)
    assert fast == plain, text


def test_the_memo_of_pure_functions_is_cleared_safely(monkeypatch):
    """Many files in one run fill the memo until it is cleared; it is never cleared in the
    middle of a question, and a module is never answered with another one's answers."""
    from wgprim.check import summaries as s

    text = "fn f(x: u32) -> u32 { return g(x) + 1u; }\nfn g(x: u32) -> u32 { return x; }\n"
    monkeypatch.setattr(s, "_PURE", {i: (None, {}) for i in range(1001)})
    module = collect(parse(text).tree)
    assert s.is_pure(module, "f") and s.is_pure(module, "g")
    other = collect(parse(text.replace("return x;", "return atomicLoad(&c);")).tree)
    s._PURE[id(other)] = (module, {"g": True})  # a stale entry under the same id
    assert not s.is_pure(other, "g")
