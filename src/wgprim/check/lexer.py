"""WGSL tokenizer and template-list discovery.

Tokens are lark `Token`s whose types match the terminals declared in `wgsl.lark`. The
one hard part of lexing WGSL is telling `a < b` from `array<u32, 4>`: this module runs the
template-list discovery algorithm of the WGSL specification (section "Template Lists") over
the token stream and retypes the `<` and `>` that open and close template lists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import WgslSyntaxError

KEYWORDS = {
    "alias": "_ALIAS", "break": "_BREAK", "case": "_CASE", "const": "_CONST",
    "const_assert": "_CONST_ASSERT", "continue": "_CONTINUE", "continuing": "_CONTINUING",
    "default": "_DEFAULT", "diagnostic": "_DIAGNOSTIC", "discard": "_DISCARD", "else": "_ELSE",
    "enable": "_ENABLE", "false": "FALSE", "fn": "_FN", "for": "_FOR", "if": "_IF", "let": "_LET",
    "loop": "_LOOP", "override": "_OVERRIDE", "requires": "_REQUIRES", "return": "_RETURN",
    "struct": "_STRUCT", "switch": "_SWITCH", "true": "TRUE", "var": "_VAR", "while": "_WHILE",
}

# Longest first, so that the alternation matches greedily. `>` is always a token of its
# own here: `>>`, `>=` and `>>=` are put back together after template discovery, because
# the first `>` of `>>` may close a template list (`array<vec4<u32>>`).
PUNCTUATION = {
    "<<=": "ASSIGN_OP", "&&": "ANDAND", "||": "OROR", "==": "EQEQ", "!=": "NEQ", "<=": "LE",
    "<<": "SHL", "->": "_ARROW", "++": "INCR", "--": "DECR", "+=": "ASSIGN_OP",
    "-=": "ASSIGN_OP", "*=": "ASSIGN_OP", "/=": "ASSIGN_OP", "%=": "ASSIGN_OP",
    "&=": "ASSIGN_OP", "|=": "ASSIGN_OP", "^=": "ASSIGN_OP",
    "(": "_LPAR", ")": "_RPAR", "{": "_LBRACE", "}": "_RBRACE", "[": "_LSQB", "]": "_RSQB",
    ";": "_SEMI", ":": "_COLON", ",": "_COMMA", ".": "_DOT", "@": "_AT", "=": "_EQ",
    "<": "LT", ">": "GT", "+": "PLUS", "-": "MINUS", "*": "STAR", "/": "SLASH",
    "%": "PERCENT", "&": "AMP", "|": "BAR", "^": "CARET", "!": "BANG", "~": "TILDE",
}

_DEC_FLOAT = (
    r"(?:[0-9]*\.[0-9]+(?:[eE][+-]?[0-9]+)?[fh]?"
    r"|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?[fh]?"
    r"|[0-9]+[eE][+-]?[0-9]+[fh]?"
    r"|(?:0|[1-9][0-9]*)[fh])"
)
_HEX_FLOAT = (
    r"(?:0[xX](?:[0-9a-fA-F]*\.[0-9a-fA-F]+|[0-9a-fA-F]+\.[0-9a-fA-F]*)(?:[pP][+-]?[0-9]+[fh]?)?"
    r"|0[xX][0-9a-fA-F]+[pP][+-]?[0-9]+[fh]?)"
)
_INT = r"(?:0[xX][0-9a-fA-F]+[iu]?|0[iu]?|[1-9][0-9]*[iu]?)"
_PUNCT = "|".join(re.escape(p) for p in sorted(PUNCTUATION, key=len, reverse=True))

# One match per token: the whitespace before it, then the token (or the end of the text).
_TOKEN_RE = re.compile(
    rf"\s*(?:(?P<line_comment>//[^\n]*)|(?P<block_comment>/\*)"
    rf"|(?P<FLOAT>{_HEX_FLOAT}|{_DEC_FLOAT})(?![\w.])|(?P<INT>{_INT})(?![\w.])"
    rf"|(?P<ident>[^\W\d]\w*)|(?P<punct>{_PUNCT})|(?P<end>\Z))"
)
_WHITESPACE = re.compile(r"\s*")


@dataclass
class Comment:
    line: int
    text: str


@dataclass(slots=True)
class RawToken:
    type: str
    text: str
    pos: int
    line: int
    column: int

    @property
    def end(self) -> int:
        return self.pos + len(self.text)

    @property
    def is_word(self) -> bool:
        return self.type == "IDENT" or self.text in KEYWORDS


class _Position:
    """Turns character offsets into 1-based (line, column)."""

    def __init__(self, text: str):
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, pos: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, pos - self.line_starts[lo] + 1


def _skip_block_comment(text: str, pos: int, where, path) -> int:
    """Block comments nest in WGSL. Returns the offset just past the comment."""
    depth, i = 0, pos
    while i < len(text):
        if text.startswith("/*", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("*/", i):
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i
        else:
            i += 1
    line, col = where(pos)
    raise WgslSyntaxError("unterminated block comment", line, col, path)


_NAGA_INT = re.compile(r"(?:0[xX][0-9a-fA-F]+|[0-9]+)(li|lu)\b")
_DIGIT_SEPARATOR = re.compile(r"(?:0[xX][0-9a-fA-F]*|[0-9]+)_[0-9a-fA-F_]*[iuhf]?\b")
_TEMPLATE = re.compile(r"\{\{|\{%|\$\{")
_DIRECTIVE = re.compile(r"#\s*(\w+)")


def not_wgsl_reason(text: str, pos: int) -> str | None:
    """Why the text at `pos` is a known non-WGSL notation, or None."""
    if m := _NAGA_INT.match(text, pos):
        return (f"{m.group(0)!r}: the 64-bit literal suffix '{m.group(1)}' is a naga extension, "
                "not WGSL")
    if m := _DIGIT_SEPARATOR.match(text, pos):
        return f"{m.group(0)!r}: digit separators ('_') are not WGSL (Rust and other languages allow them)"
    if _TEMPLATE.match(text, pos):
        return "this looks like a template, not WGSL: check the shader the template renders"
    if m := _DIRECTIVE.match(text, pos):
        return (f"preprocessor directive '#{m.group(1)}' (not WGSL): check the shader after "
                "its imports and defines are resolved")
    return None


def tokenize(text: str, path: str | None = None) -> tuple[list[RawToken], list[Comment]]:
    where = _Position(text)  # for errors; tokens count lines as they go
    tokens: list[RawToken] = []
    comments: list[Comment] = []
    pos = 0
    line, line_start = 1, 0  # the current line and the offset where it starts
    match = _TOKEN_RE.match
    while True:
        m = match(text, pos)
        if m is None:
            pos = _WHITESPACE.match(text, pos).end()
            line, col = where(pos)
            raise WgslSyntaxError(not_wgsl_reason(text, pos) or f"unexpected character {text[pos]!r}",
                                  line, col, path)
        kind = m.lastgroup
        start = m.start(kind)
        if start > pos:  # whitespace first
            newlines = text.count("\n", pos, start)
            if newlines:
                line += newlines
                line_start = text.rindex("\n", pos, start) + 1
        if kind == "end":
            return tokens, comments
        end = m.end()
        if kind == "block_comment":
            end = _skip_block_comment(text, start, where, path)
            comments.append(Comment(line, text[start:end]))
            newlines = text.count("\n", start, end)
            if newlines:
                line += newlines
                line_start = text.rindex("\n", start, end) + 1
        elif kind == "line_comment":
            comments.append(Comment(line, m.group(kind)))
        else:
            word = m.group(kind)
            if kind == "ident":
                ttype = KEYWORDS.get(word, "UNDERSCORE" if word == "_" else "IDENT")
                if word.startswith("__"):
                    line, col = where(start)
                    raise WgslSyntaxError(f"identifier {word!r} may not start with '__'", line, col, path)
            elif kind == "punct":
                ttype = PUNCTUATION[word]
            else:
                ttype = kind
            tokens.append(RawToken(ttype, word, start, line, start - line_start + 1))
        pos = end


def discover_template_lists(tokens: list[RawToken]) -> None:
    """Retype template-list delimiters in place (WGSL spec, template list discovery).

    A `<` right after a word opens a candidate list; the first `>` at the same bracket
    nesting depth closes it. Candidates are dropped at tokens that cannot occur inside a
    template list: `;`, `{`, `:`, assignment `=`, and `&&` / `||` or a closing bracket at
    their depth.
    """
    pending: list[tuple[int, int]] = []  # (index of '<', nesting depth)
    depth = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        text = tok.text
        if tok.is_word:
            if i + 1 < len(tokens) and tokens[i + 1].text == "<":
                pending.append((i + 1, depth))
                i += 2
                continue
        elif text == ">":
            if pending and pending[-1][1] == depth:
                start, _ = pending.pop()
                tokens[start].type = "_TSTART"
                tok.type = "_TEND"
            elif i + 1 < len(tokens) and tokens[i + 1].text == "=" and tokens[i + 1].pos == tok.end:
                i += 1  # '>=' is a comparison, not an assignment
        elif text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            while pending and pending[-1][1] >= depth:
                pending.pop()
            depth = max(0, depth - 1)
        elif text in ("&&", "||"):
            while pending and pending[-1][1] >= depth:
                pending.pop()
        elif text in (";", "{", ":", "="):
            depth = 0
            pending.clear()
        i += 1


def _join_greater_than(tokens: list[RawToken]) -> list[RawToken]:
    """Put `>>`, `>=` and `>>=` back together where they are not template ends."""
    out: list[RawToken] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "GT":
            text, j = ">", i + 1
            if j < len(tokens) and tokens[j].type == "GT" and tokens[j].pos == tokens[j - 1].end:
                text, j = ">>", j + 1
            if j < len(tokens) and tokens[j].type == "_EQ" and tokens[j].pos == tokens[j - 1].end:
                text, j = text + "=", j + 1
            ttype = {">": "GT", ">>": "SHR", ">=": "GE", ">>=": "ASSIGN_OP"}[text]
            out.append(RawToken(ttype, text, tok.pos, tok.line, tok.column))
            i = j
        else:
            out.append(tok)
            i += 1
    return out


def lex(text: str, path: str | None = None) -> tuple[list[RawToken], list[Comment]]:
    tokens, comments = tokenize(text, path)
    discover_template_lists(tokens)
    return _join_greater_than(tokens), comments
