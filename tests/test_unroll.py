"""unroll.py: loops marked `// unroll` are written out once per index, exactly; anything
it cannot unroll as written is an error, never a different kernel."""
from __future__ import annotations

import re

import pytest

from wgprim.unroll import UnrollError, unroll

KERNEL = """const ROWS: u32 = 3u;
fn f(base: u32) -> u32 {
  var v: array<u32, ROWS>;
  // unroll
  for (var k = 0u; k < ROWS; k++) {
    v[k] = base + k;  // {braces in a comment}
    if (v[k] > 2u) { v[k] = 2u; }
  }
  var total = 0u;
  for (var k = 0u; k < ROWS; k++) {
    total += v[k];
  }
  return total;
}
"""


def test_marked_loop_is_written_out_per_index_and_others_are_kept():
    out = unroll(KERNEL)
    assert "// unroll" not in out
    assert out.count("v[k] = base + k;") == 3
    for i in range(3):
        assert f"let k = {i}u;" in out
    # the unmarked loop is untouched
    assert "for (var k = 0u; k < ROWS; k++) {\n    total += v[k];" in out
    assert out.count("for (var k") == 1


def test_unrolled_text_is_valid_wgsl_and_checker_clean():
    from wgprim.check import check_source

    assert check_source(unroll(KERNEL), "unrolled.wgsl") == []


def test_literal_bound_one_line_body_and_zero_copies():
    out = unroll("fn f() {\n  // unroll\n  for (var j = 0u; j < 2u; j++) { w[j] = 0u; }\n  g();\n}\n")
    assert out.count("w[j] = 0u;") == 2 and "let j = 1u;" in out and "g();" in out
    none = unroll("const N: u32 = 0u;\nfn f() {\n  // unroll\n  for (var j = 0u; j < N; j++) {\n    h();\n  }\n}\n")
    assert "h();" not in none


def test_text_without_marks_is_returned_unchanged():
    assert unroll(KERNEL.replace("// unroll\n", "")) == KERNEL.replace("// unroll\n", "")


@pytest.mark.parametrize("loop, why", [
    ("for (var k = 0u; k < M; k++) {\n    a();\n  }", "bound M"),
    ("for (var k = 1u; k < 4u; k++) {\n    a();\n  }", "must be followed"),
    ("a();", "must be followed"),
    ("for (var k = 0u; k < 4u; k++) {\n    if (b) { break; }\n  }", "may not break"),
    ("for (var k = 0u; k < 4u; k++) {\n    k = 3u;\n  }", "assign k"),
    ("for (var k = 0u; k < 4u; k++) {\n    return;\n  }", "return"),
    ("for (var k = 0u; k < 65u; k++) {\n    a();\n  }", "copies"),
])
def test_what_cannot_be_unrolled_is_an_error(loop, why):
    with pytest.raises(UnrollError, match=why):
        unroll(f"fn f() {{\n  // unroll\n  {loop}\n}}\n")


def test_shipped_kernels_unroll():
    # every marked loop in the shipped kernels unrolls with its preamble (the compiled
    # modules are checked in tests/check/test_kernels.py); a mark with no loop fails here
    from pathlib import Path

    kernels = Path(__file__).parents[1] / "src" / "wgprim" / "kernels"
    marked = [p for p in kernels.glob("*.wgsl") if "// unroll\n" in p.read_text()]
    assert marked
    for p in marked:
        text = p.read_text()
        # the bounds the preamble defines (a file alone does not)
        bounds = set(re.findall(r"// unroll\n\s*for \(var \w+ = 0u; \w+ < ([A-Z_]\w*);", text))
        consts = "".join(f"const {n}: u32 = 2u;\n" for n in sorted(bounds)
                         if not re.search(rf"^const {n}:", text, re.M))
        assert "// unroll" not in unroll(consts + text), p.name


def test_off_switch_keeps_the_loops():
    from wgprim.unroll import OFF

    assert unroll(OFF + KERNEL) == OFF + KERNEL
