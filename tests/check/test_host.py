"""`// wgprim: dispatch(...)`: what the host dispatches, said next to the entry point."""
from __future__ import annotations

from pathlib import Path

import pytest

from wgprim.check import WgslSyntaxError, check_source

CORPUS = Path(__file__).parent / "corpus"
ANNOTATED = (CORPUS / "clean" / "one_workgroup_annotated.wgsl").read_text()


def rules(text):
    return sorted({f.rule for f in check_source(text, "k.wgsl")})


def test_one_workgroup_silences_the_rules_about_other_workgroups_only():
    assert rules(ANNOTATED) == []
    for spelling in ("dispatch(1, 1, 1)", "dispatch(1,1)", "dispatch( 1 )"):
        assert rules(ANNOTATED.replace("dispatch(1)", spelling)) == []
    # a larger dispatch, or the comment elsewhere, changes nothing
    assert rules(ANNOTATED.replace("dispatch(1)", "dispatch(2)")) == ["flag-publish"]
    assert rules(ANNOTATED.replace("// wgprim: dispatch(1)\n", "") + "// wgprim: dispatch(1)\n") == ["flag-publish"]
    # a wait is still a wait: invocations of one workgroup may not progress while one spins
    spin = ANNOTATED.replace("  if (atomicLoad(&ready[j]) == 1u) {",
                             "  while (atomicLoad(&ready[j]) == 0u) {}\n  {")
    assert "spin-wait" in rules(spin)


def test_the_annotation_belongs_to_one_entry_point():
    other = ANNOTATED.replace("fn main(", "fn first(") + ANNOTATED.split("// wgprim: dispatch(1)\n")[1].replace(
        "fn main(", "fn second(")
    lines = {f.line for f in check_source(other, "k.wgsl")}
    second_start = other.index("fn second(")
    assert lines and all(line > other[:second_start].count("\n") for line in lines)


def test_a_malformed_annotation_is_a_clear_error():
    with pytest.raises(WgslSyntaxError, match=r"dispatch\(1\)"):
        check_source(ANNOTATED.replace("dispatch(1)", "dispatch(one)"))
