"""Variables are followed in order through straight-line code: a barrier under a condition
on a variable is reported exactly when the value the variable holds there can differ
between the invocations of a workgroup.

Random programs of assignments (at the top level, or inside branches on uniform or
per-invocation conditions, or inside loops) end with `if (a > 0) { workgroupBarrier(); }`;
a reference that follows the taint of each variable decides whether the barrier is
under non-uniform control flow, and the checker must agree. The reference follows the
documented model: an assignment at the variable's own level replaces its value, one
inside a branch or a loop adds to it (WGSL's own analysis is exact inside loop bodies
too, so the checker may report more there, never less).
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wgprim.check import check_source

VARS = ("a", "b")
SOURCES = {"u.n": False, "data[li]": True, "7": False, "i32(li)": True}

assign = st.tuples(st.sampled_from(VARS), st.sampled_from(list(SOURCES) + list(VARS)))
statement = st.one_of(
    assign.map(lambda t: ("set", t[0], t[1])),
    st.tuples(st.sampled_from(["u.n > 0", "data[li] > 0"]), assign).map(lambda t: ("if", t[0], t[1])),
    st.lists(assign, min_size=1, max_size=3).map(lambda body: ("loop", body)),
)


def _program(stmts) -> str:
    lines = []
    for kind, *rest in stmts:
        if kind == "set":
            var, rhs = rest
            lines.append(f"  {var} = {rhs};")
        elif kind == "if":
            cond, (var, rhs) = rest
            lines.append(f"  if ({cond}) {{ {var} = {rhs}; }}")
        else:
            body = " ".join(f"{var} = {rhs};" for var, rhs in rest[0])
            lines.append(f"  for (var k = 0; k < 3; k++) {{ {body} }}")
    body = "\n".join(lines)
    return f"""
struct U {{ n: i32 }}
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> data: array<i32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {{
  var a = u.n;
  var b = u.n;
{body}
  if (a > 0) {{
    workgroupBarrier();
  }}
}}
"""


def _reference(stmts) -> bool:
    """Whether `a` can differ between invocations at the end (WGSL's uniformity rules)."""
    taint = {"a": False, "b": False}

    def value(rhs):
        return value_in(taint, rhs)

    def value_in(env, rhs):
        return env[rhs] if rhs in env else SOURCES[rhs]

    for kind, *rest in stmts:
        if kind == "set":
            var, rhs = rest
            taint[var] = value(rhs)
        elif kind == "if":
            cond, (var, rhs) = rest
            taint[var] = taint[var] or value(rhs) or cond.startswith("data")
        else:  # zero or more rounds; inside the loop an assignment only adds (as documented)
            changed = True
            while changed:
                changed = False
                seen = dict(taint)
                for var, rhs in rest[0]:
                    seen[var] = seen[var] or value_in(seen, rhs)
                for var in taint:
                    if seen[var] and not taint[var]:
                        taint[var] = changed = True
    return taint["a"]


@settings(max_examples=150, deadline=None)
@given(st.lists(statement, max_size=6))
def test_barrier_reported_exactly_when_the_variable_differs_between_invocations(stmts):
    text = _program(stmts)
    reported = bool(check_source(text, "k.wgsl", select=["nonuniform-barrier"]))
    assert reported == _reference(stmts), text
