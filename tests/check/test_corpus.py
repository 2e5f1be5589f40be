"""Every kernel of the corpus gets exactly the findings its `// expect: RULE` comments name.

Files under corpus/<rule>/ are positive examples, corpus/clean/ has no finding of the
synchronization rules (a look-back there whose walk only the dispatch bounds carries the
`lookback-depth` warning its comment expects), and corpus/parse/ exercises the grammar (and
must be clean).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from wgprim.check import check_source

CORPUS = Path(__file__).parent / "corpus"
EXPECT = re.compile(r"//.*\bexpect:\s*([\w-]+(?:\s*,\s*[\w-]+)*)")
FILES = sorted(CORPUS.rglob("*.wgsl"))


def expected_findings(text: str) -> set[tuple[int, str]]:
    out = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            out |= {(lineno, rule.strip()) for rule in m.group(1).split(",")}
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_file(path: Path):
    text = path.read_text()
    found = {(f.line, f.rule) for f in check_source(text, str(path))}
    assert found == expected_findings(text)


def test_each_rule_has_several_positive_examples():
    for rule_dir in ("spin_wait", "flag_publish", "global_barrier", "same_dispatch_read",
                     "nonuniform_barrier", "lookback_depth"):
        files = list((CORPUS / rule_dir).glob("*.wgsl"))
        assert len(files) >= 3, rule_dir
        rule = rule_dir.replace("_", "-")
        assert all(any(r == rule for _, r in expected_findings(f.read_text())) for f in files)
