"""The Python API, inline suppressions, rule metadata and the documentation."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from wgprim.check import Finding, WgslSyntaxError, check_source
from wgprim.check.docs import render_rules
from wgprim.check.rules import ALL

SPIN = """\
@group(0) @binding(0) var<storage, read_write> gate: atomic<u32>;
@compute @workgroup_size(1)
fn main() {
  loop {
    if (atomicLoad(&gate) != 0u) { break; }
  }
}
"""


def test_check_source_returns_findings():
    (f,) = check_source(SPIN, "k.wgsl")
    assert isinstance(f, Finding)
    assert (f.file, f.line, f.column, f.end_line, f.rule) == ("k.wgsl", 4, 3, 6, "spin-wait")
    assert f.to_dict()["hint"] == f.hint
    assert check_source(SPIN)[0].file == "<stdin>"


def test_select_ignore_in_the_api():
    assert check_source(SPIN, select=["flag-publish"]) == []
    assert check_source(SPIN, ignore=["spin-wait"]) == []
    with pytest.raises(ValueError):
        check_source(SPIN, select=["bogus"])


@pytest.mark.parametrize("comment_line, suppressed", [
    ("  // wgprim: allow(spin-wait)\n  loop {", True),
    ("  loop { // wgprim: allow(spin-wait)", True),
    ("  loop { // wgprim: allow(flag-publish, spin-wait)", True),
    ("  loop { // wgprim: allow(flag-publish)", False),
    ("  // wgprim: allow(spin-wait)\n\n  loop {", False),
])
def test_inline_suppression(comment_line, suppressed):
    text = SPIN.replace("  loop {", comment_line)
    assert (check_source(text) == []) == suppressed


def test_syntax_error_raises():
    with pytest.raises(WgslSyntaxError):
        check_source("fn (")


def test_rules_have_stable_ids_and_docs():
    ids = [r.ID for r in ALL]
    assert ids == ["spin-wait", "flag-publish", "global-barrier", "same-dispatch-read",
                   "nonuniform-barrier", "lookback-depth"]
    for rule in ALL:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.ID)
        assert rule.SEVERITY in ("error", "warning")
        assert "\n" not in rule.SUMMARY and "\n" not in rule.HINT
        for part in ("**What it flags.**", "**Why it is wrong.**", "**What to write instead.**"):
            assert part in rule.DOC


def test_user_doc_is_in_sync_with_the_rule_modules():
    doc = (Path(__file__).parents[2] / "docs" / "check.md").read_text()
    assert render_rules() in doc, "regenerate with: python -m wgprim.check.docs > docs/check.md"
