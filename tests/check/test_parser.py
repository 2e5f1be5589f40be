"""The WGSL parser: template-list discovery, positions, syntax errors."""
from __future__ import annotations

import pytest

from wgprim.check import WgslSyntaxError, parse
from wgprim.check.lexer import lex


def token_types(text):
    return [t.type for t in lex(text)[0]]


@pytest.mark.parametrize("text, expected", [
    ("array<u32, 4>", ["IDENT", "_TSTART", "IDENT", "_COMMA", "INT", "_TEND"]),
    ("array<vec4<u32>>", ["IDENT", "_TSTART", "IDENT", "_TSTART", "IDENT", "_TEND", "_TEND"]),
    ("a < b", ["IDENT", "LT", "IDENT"]),
    ("a < b && c > d", ["IDENT", "LT", "IDENT", "ANDAND", "IDENT", "GT", "IDENT"]),
    ("a < b || c > d", ["IDENT", "LT", "IDENT", "OROR", "IDENT", "GT", "IDENT"]),
    ("x = a < b; y = c > d;", ["IDENT", "_EQ", "IDENT", "LT", "IDENT", "_SEMI",
                              "IDENT", "_EQ", "IDENT", "GT", "IDENT", "_SEMI"]),
    ("a >= b", ["IDENT", "GE", "IDENT"]),
    ("a >> b", ["IDENT", "SHR", "IDENT"]),
    ("a >>= b", ["IDENT", "ASSIGN_OP", "IDENT"]),
    ("a<<b", ["IDENT", "SHL", "IDENT"]),
    ("a <= b", ["IDENT", "LE", "IDENT"]),
    ("f(a < b, c)", ["IDENT", "_LPAR", "IDENT", "LT", "IDENT", "_COMMA", "IDENT", "_RPAR"]),
    ("ptr<storage, T, read_write>", ["IDENT", "_TSTART", "IDENT", "_COMMA", "IDENT", "_COMMA",
                                      "IDENT", "_TEND"]),
    ("var<workgroup> x", ["_VAR", "_TSTART", "IDENT", "_TEND", "IDENT"]),
    ("v[i] < n", ["IDENT", "_LSQB", "IDENT", "_RSQB", "LT", "IDENT"]),
    ("vec2<f32>(a[0] > b)", ["IDENT", "_TSTART", "IDENT", "_TEND", "_LPAR", "IDENT", "_LSQB",
                            "INT", "_RSQB", "GT", "IDENT", "_RPAR"]),
])
def test_template_list_discovery(text, expected):
    assert token_types(text) == expected


def test_literals():
    kinds = [t.type for t in lex("1u 2i 0x1Fu 1.5 1.5f 2h 1e3 0x1p4f .5 0")[0]]
    assert kinds == ["INT", "INT", "INT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "INT"]


def test_nested_block_comments_and_comment_lines():
    tokens, comments = lex("/* a /* b */ c */ x // tail\n")
    assert [t.text for t in tokens] == ["x"]
    assert [c.line for c in comments] == [1, 1]


def test_positions_are_one_based():
    tree = parse("\n\nfn f() {\n  let x = 1;\n}\n").tree
    fn = tree.children[0]
    assert (fn.meta.line, fn.meta.column) == (3, 1)
    let = next(fn.find_data("let_decl"))
    assert (let.meta.line, let.meta.column) == (4, 3)


@pytest.mark.parametrize("text, line, column, message", [
    ("fn f( {", 1, 7, "unexpected '{'"),
    ("fn f() {\n  let x = ;\n}", 2, 11, "unexpected ';'"),
    ("fn f() {\n  let x = 1\n}", 3, 1, "unexpected '}'"),
    ("fn f() {", 1, 9, "unexpected end of file"),
    ("fn f() { let x = 1 $ 2; }", 1, 20, "unexpected character '$'"),
    ("/* open", 1, 1, "unterminated block comment"),
])
def test_syntax_errors_have_positions(text, line, column, message):
    with pytest.raises(WgslSyntaxError) as info:
        parse(text, "bad.wgsl")
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert message in err.message
    assert str(err).startswith(f"bad.wgsl:{line}:{column}: error: ")


def test_template_disambiguation_follows_the_spec():
    # As in the WGSL spec, `b<c, d>e` inside a call is a template list, so this is an error...
    with pytest.raises(WgslSyntaxError):
        parse("fn f() { let x = g(b<c, d>e); }")
    # ...and parentheses make it two comparisons.
    parse("fn f() { let x = g((b<c), d>e); }")
