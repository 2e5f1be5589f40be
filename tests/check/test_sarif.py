"""`--format sarif`: SARIF 2.1.0 as GitHub code scanning reads it, and the pre-commit hook."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from wgprim.check import cli
from wgprim.check.rules import ALL

ROOT = Path(__file__).parents[2]
CORPUS = Path(__file__).parent / "corpus"


def sarif_of(*paths, capsys, monkeypatch) -> tuple[int, dict]:
    monkeypatch.chdir(ROOT)
    parser = argparse.ArgumentParser(prog="wgprim check")
    cli.configure(parser)
    rc = cli.run(parser.parse_args(["--format", "sarif", *[str(p) for p in paths]]))
    return rc, json.loads(capsys.readouterr().out)


def test_sarif_document_shape(capsys, monkeypatch):
    path = CORPUS.relative_to(ROOT) / "spin_wait" / "lookback_plain.wgsl"
    rc, doc = sarif_of(path, capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 1
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {r.ID for r in ALL}
    for r in rules:
        for key in ("shortDescription", "fullDescription", "help"):
            assert r[key]["text"], (r["id"], key)
    [result] = run["results"]
    assert result["ruleId"] == "spin-wait"
    assert rules[result["ruleIndex"]]["id"] == "spin-wait"
    assert result["message"]["text"].startswith("loop waits for `spine`")
    [location] = result["locations"]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == path.as_posix()  # repository-relative
    assert physical["region"]["startLine"] == 7 and physical["region"]["startColumn"] == 3
    assert result["partialFingerprints"]["primaryLocationLineHash"]


def test_sarif_absolute_paths_become_relative(capsys, monkeypatch):
    rc, doc = sarif_of(CORPUS / "spin_wait" / "lookback_plain.wgsl", capsys=capsys, monkeypatch=monkeypatch)
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "tests/check/corpus/spin_wait/lookback_plain.wgsl"


def test_sarif_fingerprints_survive_lines_inserted_above(tmp_path, capsys, monkeypatch):
    text = (CORPUS / "spin_wait" / "lookback_plain.wgsl").read_text()
    a, b = tmp_path / "a" / "k.wgsl", tmp_path / "b" / "k.wgsl"
    a.parent.mkdir(), b.parent.mkdir()
    a.write_text(text)
    b.write_text("// a new comment\n\n" + text)
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    prints = []
    for folder in ("a", "b"):
        monkeypatch.chdir(tmp_path / folder)
        cli.run(parser.parse_args(["--format", "sarif", "k.wgsl"]))
        prints.append(json.loads(capsys.readouterr().out)["runs"][0]["results"][0])
    assert prints[0]["partialFingerprints"] == prints[1]["partialFingerprints"]
    assert prints[1]["locations"][0]["physicalLocation"]["region"]["startLine"] == \
        prints[0]["locations"][0]["physicalLocation"]["region"]["startLine"] + 2


def test_sarif_clean_run_and_syntax_errors(tmp_path, capsys, monkeypatch):
    rc, doc = sarif_of(CORPUS / "clean" / "block_scan.wgsl", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 0 and doc["runs"][0]["results"] == []
    bad = tmp_path / "bad.wgsl"
    bad.write_text("fn f( {\n")
    rc, doc = sarif_of(bad, capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 2
    assert doc["runs"][0]["results"][0]["ruleId"] == "syntax-error"


def test_pre_commit_hook_definition():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    try:
        import yaml
    except ImportError:  # the keys, read without a YAML parser
        assert "- id: wgprim-check" in text and "entry: wgprim check" in text
        assert "language: python" in text and "files: \\.wgsl$" in text
        return
    [hook] = yaml.safe_load(text)
    assert hook["id"] == "wgprim-check"
    assert hook["entry"] == "wgprim check"
    assert hook["language"] == "python"
    assert hook["files"] == r"\.wgsl$"
    assert "lark" in " ".join(hook.get("additional_dependencies", []))
