"""`wgprim check` on the command line: output formats, selection, exit status."""
from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from wgprim.check import cli

from support import child_pythonpath
from wgprim.check.rules import ALL

CORPUS = Path(__file__).parent / "corpus"
SPIN = CORPUS / "spin_wait" / "loop_struct_flag.wgsl"
CLEAN = CORPUS / "clean" / "block_scan.wgsl"


def run_check(*argv, stdin=None, monkeypatch=None):
    parser = argparse.ArgumentParser(prog="wgprim check")
    cli.configure(parser)
    args = parser.parse_args([str(a) for a in argv])
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return cli.run(args)


def test_clean_file_exits_0(capsys):
    assert run_check(CLEAN) == 0
    assert capsys.readouterr().out == ""


def test_findings_exit_1_with_compiler_style_lines(capsys):
    assert run_check(SPIN) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{SPIN}:8:5: spin-wait: loop waits for `signal.ready`")
    assert out[1].startswith("  hint: split the work at this point into two dispatches")


def test_json_format(capsys):
    assert run_check(SPIN, "--format", "json") == 1
    items = json.loads(capsys.readouterr().out)
    assert len(items) == 1
    item = items[0]
    assert set(item) == {"file", "line", "column", "end_line", "end_column", "rule", "severity",
                         "message", "hint"}
    assert (item["file"], item["line"], item["column"], item["rule"]) == (str(SPIN), 8, 5, "spin-wait")
    assert item["end_line"] == 10 and item["severity"] == "error"


def test_directory_is_searched_recursively(capsys):
    assert run_check(CORPUS / "clean", CORPUS / "parse", "--ignore", "lookback-depth") == 0
    assert run_check(CORPUS) == 1
    out = capsys.readouterr().out
    for rule in ALL:
        assert f": {rule.ID}: " in out


def test_select_and_ignore(capsys):
    assert run_check(SPIN, "--select", "flag-publish,global-barrier") == 0
    assert run_check(SPIN, "--ignore", "spin-wait") == 0
    assert run_check(SPIN, "--select", "spin-wait") == 1


def test_unknown_rule_is_a_usage_error(capsys):
    assert run_check(SPIN, "--select", "no-such-rule") == 2
    assert "unknown rule 'no-such-rule'" in capsys.readouterr().err


def test_stdin(capsys, monkeypatch):
    assert run_check("-", stdin=SPIN.read_text(), monkeypatch=monkeypatch) == 1
    assert capsys.readouterr().out.startswith("<stdin>:8:5: spin-wait:")


def test_syntax_error_exits_2(capsys, monkeypatch):
    assert run_check("-", stdin="fn f( {", monkeypatch=monkeypatch) == 2
    assert "<stdin>:1:7: error: unexpected '{'" in capsys.readouterr().err


def test_syntax_error_in_json(capsys, monkeypatch):
    assert run_check("-", "--format", "json", stdin="fn f() {", monkeypatch=monkeypatch) == 2
    (item,) = json.loads(capsys.readouterr().out)
    assert item["rule"] == "syntax-error" and item["line"] == 1


def test_missing_path_and_no_path(capsys):
    assert run_check("does/not/exist.wgsl") == 2
    assert run_check() == 2


@pytest.mark.parametrize("rule", [r.ID for r in ALL])
def test_explain_needs_no_path(rule, capsys):
    assert run_check("--explain", rule) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{rule}: ")
    assert "**What it flags.**" in out and "**What to write instead.**" in out


def test_explain_unknown_rule(capsys):
    assert run_check("--explain", "nope") == 2


def test_list_rules(capsys):
    assert run_check("--list-rules") == 0
    assert len(capsys.readouterr().out.splitlines()) == len(ALL)


def test_missing_lark_is_reported(capsys, monkeypatch):
    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name: None)
    assert run_check(SPIN) == 2
    assert "pip install 'wgprim[check]'" in capsys.readouterr().err


def test_importing_the_cli_does_not_import_lark():
    code = "import sys, wgprim.check.cli; print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": child_pythonpath()})
    assert out.stdout.strip() == "False"
