"""Words of failure bits: a guard on bits this dispatch never sets publishes nothing, and
ORing back the bits just read from the word (passing a failure on) sets nothing new but
the constant bits ORed in with them, when only atomicOr ever changes the word. The bits
are followed through values: lets, variables, `&` and `|`, `u32()`, workgroup memory (by
barrier interval) and workgroupUniformLoad."""
from __future__ import annotations

from wgprim.check import check_source

HEAD = """\
@group(0) @binding(0) var<storage, read_write> failures: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> cells: array<u32>;
var<workgroup> wg_failed: u32;
"""


def rules(body: str) -> list[str]:
    return sorted(f.rule for f in check_source(HEAD + body, "t.wgsl"))


def stage(reraise: str, elsewhere: str = "") -> str:
    return f"""
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {{
  let seen = atomicLoad(&failures) & 3u;
  if (seen != 0u) {{
    if (lid.x == 0u) {{ atomicOr(&failures, {reraise}); }}
    return;
  }}
  let i = wid.x * 64u + lid.x;
  let before = cells[i ^ 1u];
  if (before == 0u) {{ atomicOr(&failures, 4u); }}
  {elsewhere}
  cells[i] = before + 1u;
}}
"""


def test_the_bits_just_read_ored_back_publish_nothing():
    assert rules(stage("seen")) == []
    assert rules(stage("seen & 1u")) == []
    assert rules(stage("seen | (seen & 2u)")) == []
    # with bits of its own that the guard masks out (this stage's failure passed along)
    assert rules(stage("seen | 8u")) == []
    assert rules(stage("u32(seen) | 4u")) == []


def test_other_bits_or_arithmetic_are_a_flag_set():
    assert rules(stage("seen + 1u")) == ["flag-publish"]
    assert rules(stage("seen | 1u")) == ["flag-publish"]  # a bit the guard reads, set anew
    assert rules(stage("seen << 1u")) == ["flag-publish"]


def test_not_when_the_dispatch_also_clears_the_word():
    assert rules(stage("seen", "atomicAnd(&failures, 1u);")) == ["flag-publish"]
    assert rules(stage("seen", "atomicStore(&failures, 0u);")) == ["flag-publish"]


def test_through_a_variable_that_gathers_the_failures():
    body = """
@group(0) @binding(3) var<storage, read_write> sizes: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (lid.x == 0u) {
    var failed = atomicLoad(&failures) & 3u;
    if (atomicLoad(&sizes) > 64u) { failed |= 8u; }
    wg_failed = u32(failed);
  }
  let failed = workgroupUniformLoad(&wg_failed);
  if (failed != 0u) {
    if (wid.x == 0u && lid.x == 0u) { atomicOr(&failures, failed); }
    return;
  }
  let i = wid.x * 64u + lid.x;
  let before = cells[i ^ 1u];
  if (before == 0u) { atomicOr(&failures, 4u); }
  cells[i] = before + 1u;
}
"""
    assert rules(body) == []
    assert rules(body.replace("failed |= 8u;", "failed += 8u;")) == ["flag-publish"]
    assert rules(body.replace("failed |= 8u;", "failed |= 2u;")) == ["flag-publish"]


def test_through_workgroup_memory():
    body = """
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (lid.x == 0u) { wg_failed = atomicLoad(&failures) & 3u; }
  let failed = workgroupUniformLoad(&wg_failed);
  if (failed != 0u) {
    if (lid.x == 0u) { atomicOr(&failures, failed); }
    return;
  }
  let i = wid.x * 64u + lid.x;
  let before = cells[i ^ 1u];
  if (before == 0u) { atomicOr(&failures, 4u); }
  cells[i] = before + 1u;
}
"""
    assert rules(body) == []
    # the variable holding something else in the same barrier interval: its bits are not known
    assert rules(body.replace("let failed = workgroupUniformLoad(&wg_failed);",
                              "wg_failed = lid.x;\n  let failed = workgroupUniformLoad(&wg_failed);")) == [
        "flag-publish"]
    # ...but what it holds after the uniform load's barrier does not reach the load
    assert rules(body.replace("let failed = workgroupUniformLoad(&wg_failed);",
                              "let failed = workgroupUniformLoad(&wg_failed);\n  wg_failed = lid.x;")) == []
