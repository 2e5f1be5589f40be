"""Parse WGSL into a lark tree with source positions.

`parse(text, path)` returns a `ParsedModule`: the tree (every node has `meta.line`,
`meta.column`, `meta.end_line`, `meta.end_column`) plus the comments, which carry the
inline suppressions. lark is imported here, lazily, so that importing wgprim.check does
not need it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from .errors import WgslSyntaxError
from .lexer import KEYWORDS, PUNCTUATION, Comment, not_wgsl_reason, lex


@dataclass
class ParsedModule:
    tree: object  # lark.Tree
    comments: list[Comment]
    text: str
    path: str | None


@functools.lru_cache(maxsize=1)
def _parser():
    import lark
    from lark.lexer import Lexer

    class _TokenList(Lexer):
        """Hands lark the tokens that wgprim.check.lexer already produced."""

        __future_interface__ = 2

        def __init__(self, lexer_conf):
            pass

        def lex(self, lexer_state, parser_state):
            return iter(lexer_state.text)

    grammar = resources.files(__package__).joinpath("wgsl.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", lexer=_TokenList, propagate_positions=True,
                     maybe_placeholders=True)


# How terminals are named in error messages.
_TERMINAL_NAMES = {ttype: repr(text) for text, ttype in PUNCTUATION.items() if ttype != "ASSIGN_OP"}
_TERMINAL_NAMES.update({ttype: repr(word) for word, ttype in KEYWORDS.items()})
_TERMINAL_NAMES.update({
    "IDENT": "an identifier", "INT": "an integer", "FLOAT": "a float", "UNDERSCORE": "'_'",
    "ASSIGN_OP": "a compound assignment", "_TSTART": "'<'", "_TEND": "'>'", "SHR": "'>>'",
    "GE": "'>='", "$END": "end of file",
})


def _describe_expected(expected) -> str:
    names = sorted({_TERMINAL_NAMES.get(name, name) for name in expected})
    if len(names) > 6:
        return ""
    return ", expected " + (names[0] if len(names) == 1 else "one of " + ", ".join(names))


def _to_lark_tokens(raw_tokens):
    from lark import Token

    for t in raw_tokens:
        yield Token(t.type, t.text, start_pos=t.pos, line=t.line, column=t.column,
                    end_line=t.line, end_column=t.column + len(t.text), end_pos=t.end)


def _old_spelling(tok, expected) -> str | None:
    """A message for constructs of drafts of WGSL that the language has since dropped."""
    if tok.value == "let" and "_FN" in expected:  # where a declaration starts
        return "'let' at module scope is the spelling of early WGSL drafts (not WGSL today): write 'const'"
    return None


def parse(text: str, path: str | None = None) -> ParsedModule:
    import lark

    raw_tokens, comments = lex(text, path)
    try:
        tree = _parser().parse(list(_to_lark_tokens(raw_tokens)))
    except lark.exceptions.UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            last = raw_tokens[-1] if raw_tokens else None
            line, col = (last.line, last.column + len(last.text)) if last else (1, 1)
            raise WgslSyntaxError("unexpected end of file" + _describe_expected(e.expected),
                                  line, col, path) from None
        offset = sum(len(l) for l in text.splitlines(keepends=True)[:tok.line - 1]) + tok.column - 1
        message = not_wgsl_reason(text, offset) or _old_spelling(tok, e.expected) or (
            f"unexpected {tok.value!r}" + _describe_expected(e.expected))
        raise WgslSyntaxError(message, tok.line, tok.column, path) from None
    except lark.exceptions.UnexpectedInput as e:  # pragma: no cover - lexing is ours
        raise WgslSyntaxError(str(e), getattr(e, "line", 1), getattr(e, "column", 1), path) from None
    return ParsedModule(tree, comments, text, path)
