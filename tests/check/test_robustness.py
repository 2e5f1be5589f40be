"""`wgprim check` on input that is not WGSL, or not there: one line on stderr, exit 2."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from wgprim.check import WgslSyntaxError, check_source, cli


def run_check(*argv):
    parser = argparse.ArgumentParser(prog="wgprim check")
    cli.configure(parser)
    return cli.run(parser.parse_args([str(a) for a in argv]))


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_file_that_is_not_utf8(tmp_path, capsys):
    bad = tmp_path / "latin1.wgsl"
    bad.write_bytes("// caf\u00e9\nfn f() {}\n".encode("latin-1"))
    assert run_check(bad) == 2
    assert "not UTF-8" in one_error_line(capsys)


def test_binary_file(tmp_path, capsys):
    bad = tmp_path / "blob.wgsl"
    bad.write_bytes(b"\x00\x01\x02fn")
    assert run_check(bad) == 2
    assert "binary" in one_error_line(capsys)


def test_missing_path(tmp_path, capsys):
    assert run_check(tmp_path / "nope.wgsl") == 2
    assert "no such file or directory" in one_error_line(capsys)


def test_directory_without_wgsl_files(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    assert run_check(tmp_path) == 2
    assert "no .wgsl files" in one_error_line(capsys)


def test_mistyped_directory(tmp_path, capsys):
    assert run_check(tmp_path / "kernls") == 2
    assert "no such file or directory" in one_error_line(capsys)


def test_byte_order_mark_is_accepted(tmp_path, capsys):
    f = tmp_path / "bom.wgsl"
    f.write_bytes(b"\xef\xbb\xbffn f() {}\n")
    assert run_check(f) == 0


@pytest.mark.parametrize("text, words", [
    ("fn f() -> u32 { return {{ value }}; }\n", "looks like a template"),
    ("fn f() { let x = ${N}; }\n", "looks like a template"),
    # Tera / Jinja tags and a format placeholder, where the parser first trips on a `{`
    ("{% if f16 %}enable f16;{% endif %}\nfn f() {}\n", "'{% if f16 %}' is template notation"),
    ("@compute @workgroup_size({wg})\nfn main() {}\n", "'{wg}' is template notation"),
    ("const N = 4u;\nvar<workgroup> tile: array<f32, {{ size }}>;\n", "'{{ size }}' is template notation"),
    ("const N = {n};\n", "looks like a template"),
    ("#import bevy_pbr::mesh_functions\nfn f() {}\n", "preprocessor directive '#import'"),
    ("#define_import_path foo\nfn f() {}\n", "preprocessor directive '#define_import_path'"),
    ("#ifdef SKINNED\nfn f() {}\n#endif\n", "preprocessor directive '#ifdef'"),
    ("fn f() { let x = 1li; }\n", "'1li'"),
    ("fn f() { let x = 0lu; }\n", "'0lu'"),
    ("const EMPTY: u32 = 0xffff_ffffu;\n", "digit separators"),
    ("const N = 1_000_000;\n", "'1_000_000'"),
])
def test_files_that_are_not_wgsl(tmp_path, capsys, text, words):
    f = tmp_path / "shader.wgsl"
    f.write_text(text)
    assert run_check(f) == 2
    line = one_error_line(capsys)
    assert words in line and "not WGSL" in line
    with pytest.raises(WgslSyntaxError, match="not WGSL"):
        check_source(text)


def test_a_plain_syntax_error_is_not_called_a_template():
    with pytest.raises(WgslSyntaxError, match="unexpected '}'") as error:
        check_source("fn f() { x = 1 }\n")
    assert "template" not in str(error.value)


def test_module_scope_let_is_named_as_an_old_draft():
    with pytest.raises(WgslSyntaxError, match="early WGSL drafts.*const"):
        check_source("let WG_SIZE: u32 = 256u;\n")


@pytest.mark.parametrize("text, words", [
    ("[[block]] struct P { n: u32, }\n", "'@attribute'"),
    ("struct V {\n  [[builtin(position)]] p: vec4<f32>,\n}\n", "'@attribute'"),
    ("type Pair = vec2<u32>;\n", "'alias'"),
    ("struct P {\n  n: u32;\n  m: u32;\n}\n", "separated by ','"),
])
def test_other_old_draft_spellings_are_named(text, words):
    with pytest.raises(WgslSyntaxError, match="early WGSL drafts") as info:
        check_source(text)
    assert words in str(info.value)


def test_a_misplaced_semicolon_elsewhere_is_not_called_an_old_draft():
    with pytest.raises(WgslSyntaxError) as info:
        check_source("fn f(a: u32;) {}\n")
    assert "early WGSL drafts" not in str(info.value)


def test_naga_suffix_message_names_naga():
    with pytest.raises(WgslSyntaxError, match="naga extension"):
        check_source("const BIG = 123li;\n")


def test_a_bad_file_among_good_ones_still_exits_2(tmp_path, capsys):
    good = Path(__file__).parent / "corpus" / "clean" / "block_scan.wgsl"
    bad = tmp_path / "bad.wgsl"
    bad.write_text("#import x\n")
    assert run_check(good, bad) == 2


def test_an_internal_error_is_one_line_and_the_other_files_are_still_checked(tmp_path, capsys, monkeypatch):
    from wgprim.check import core

    real = core.check_source
    spin = Path(__file__).parent / "corpus" / "spin_wait" / "lookback_plain.wgsl"
    boom = tmp_path / "boom.wgsl"
    boom.write_text("fn f() {}\n")

    def flaky(text, path=None, select=None, ignore=None):
        if path == str(boom):
            raise KeyError("oops")
        return real(text, path, select, ignore)

    monkeypatch.setattr(core, "check_source", flaky)
    assert run_check(boom, spin) == 2
    captured = capsys.readouterr()
    assert "spin-wait" in captured.out
    [line] = [l for l in captured.err.splitlines() if "internal error" in l]
    assert "boom.wgsl" in line and "KeyError" in line and "Traceback" not in captured.err
