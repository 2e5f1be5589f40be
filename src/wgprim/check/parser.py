"""Parse WGSL into a lark tree with source positions.

`parse(text, path)` returns a `ParsedModule`: the tree (every node has `meta.line`,
`meta.column`, `meta.end_line`, `meta.end_column`) plus the comments, which carry the
inline suppressions. This module imports lark; `wgprim.check` imports it on first use, so
that importing wgprim.check does not need lark.

Speed: the LALR tables come from lark, built once and then cached on disk (under
$XDG_CACHE_HOME/wgprim or ~/.cache/wgprim; a cache that cannot be read or written is
skipped), but the parse loop is ours. It is lark's `ParserState.feed_token` plus the positions that lark's
`propagate_positions=True` would give (a node spans the tokens its rule consumed, the ones
the grammar filters out included), kept on a stack beside the values instead of through a
wrapper around every rule callback.
"""
from __future__ import annotations

import re

import functools
import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import lark
from lark import Token, Tree
from lark.lexer import Lexer
from lark.parse_tree_builder import ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

from .errors import WgslSyntaxError
from .lexer import KEYWORDS, PUNCTUATION, Comment, not_wgsl_reason, lex


@dataclass
class ParsedModule:
    tree: object  # lark.Tree
    comments: list[Comment]
    text: str
    path: str | None


class WgslToken(Token):
    """A lark Token that compares as its text.

    lark's `Token.__eq__` also compares the types of two tokens; in a WGSL tree the text of
    a kept token determines its type, so plain string equality (in C) gives the same answers.
    """

    __slots__ = ()
    __eq__ = str.__eq__
    __ne__ = str.__ne__
    __hash__ = str.__hash__


class _TokenList(Lexer):
    """Stands in for a lexer: wgprim.check.lexer produces the tokens, our loop feeds them."""

    __future_interface__ = 2

    def __init__(self, lexer_conf):
        pass

    def lex(self, lexer_state, parser_state):
        return iter(lexer_state.text)


def _grammar() -> str:
    return resources.files(__package__).joinpath("wgsl.lark").read_text(encoding="utf-8")


# How the lark parser is built; part of the cache key, with the grammar and the versions.
_OPTIONS = dict(parser="lalr", lexer=_TokenList, maybe_placeholders=True)


def _cache_file(grammar: str) -> Path:
    options = sorted((k, getattr(v, "__qualname__", v)) for k, v in _OPTIONS.items())
    key = f"{grammar}\0{options}\0{lark.__version__}\0{sys.version_info[:2]}"
    key = hashlib.sha256(key.encode()).hexdigest()[:20]
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA") or Path.home() / ".cache"
    return Path(base) / "wgprim" / f"wgsl-lalr-{key}.pickle"


def _build(grammar: str):
    return lark.Lark(grammar, **_OPTIONS)


def _load_or_build():
    """The lark parser, from the cache when it can be read, else built (and cached when the
    cache can be written: atomically, so concurrent runs never see half a file)."""
    grammar = _grammar()
    try:
        path = _cache_file(grammar)
    except (OSError, RuntimeError):  # no home directory
        return _build(grammar)
    try:
        with open(path, "rb") as f:
            return lark.Lark.load(f)
    except Exception:  # missing, unreadable, stale or corrupt: build it
        pass
    parser = _build(grammar)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                parser.save(f)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:  # read-only or full: run without the cache
        pass
    return parser


@functools.lru_cache(maxsize=1)
def _tables():
    return _compile(_load_or_build())


def _compile(parser):
    """(actions per state, start state, end state) of a lark LALR parser. An action is
    (True, next state) for a shift, or (False, (size, nonterminal, callback)) for a reduce;
    size is -1 for a `?rule` of one symbol, which passes its child through unchanged (lark's
    ExpandSingleChild of one child): the loop then only changes state."""
    table = parser.parser.parser._parse_table
    callbacks = parser._callbacks
    reduces = {}
    states = {}
    for state, actions in table.states.items():
        row = {}
        for symbol, (action, arg) in actions.items():
            if action is Shift:
                row[symbol] = (True, arg)
            else:
                if arg not in reduces:
                    size, callback = len(arg.expansion), callbacks[arg]
                    if size == 1 and type(callback) is ExpandSingleChild:
                        size = -1
                    reduces[arg] = (size, arg.origin.name, callback)
                row[symbol] = (False, reduces[arg])
        states[state] = row
    return states, table.start_states["start"], table.end_states["start"]


class _Unexpected(Exception):
    def __init__(self, token, expected):
        self.token, self.expected = token, expected


def _run(tokens: list) -> Tree:
    """The LALR(1) loop over `tokens`, ending with $END; returns the tree."""
    states, start_state, end_state = _tables()
    state_stack = [start_state]
    value_stack: list = []
    # (first token, last token) that each stack value spans, or None when it spans none.
    span_stack: list = []
    end = WgslToken("$END", "")
    for token in (*tokens, end):
        ttype = token.type
        while True:
            try:
                shift, arg = states[state_stack[-1]][ttype]
            except KeyError:
                expected = {s for s in states[state_stack[-1]] if s.isupper()}
                raise _Unexpected(token, expected) from None
            if shift:
                state_stack.append(arg)
                value_stack.append(token)
                span_stack.append((token, token))
                break
            size, origin, callback = arg
            if size < 0:  # passes its child through: nothing to build, nothing to add
                goto = states[state_stack[-2]][origin][1]
                state_stack[-1] = goto
                if token is end and goto == end_state:
                    return value_stack[-1]
                continue
            if size == 1:
                child = value_stack[-1]
                value = callback([child])
                if value is child:  # `?rule` passing its one child through: nothing to add
                    goto = states[state_stack[-2]][origin][1]
                    state_stack[-1] = goto
                    if token is end and goto == end_state:
                        return value
                    continue
                spans = span_stack[-1:]
                del state_stack[-1], value_stack[-1], span_stack[-1]
            elif size:
                value = callback(value_stack[-size:])
                spans = span_stack[-size:]
                del state_stack[-size:], value_stack[-size:], span_stack[-size:]
            else:
                value, spans = callback([]), ()
            if type(value) is Tree:
                first = last = None
                for s in spans:
                    if s is not None:
                        if first is None:
                            first = s[0]
                        last = s[1]
                if first is None:
                    span = None
                else:
                    span = (first, last)
                    meta = value.meta
                    if meta.empty:  # else a child passed through (`?rule`) keeps its own
                        meta.line, meta.column, meta.start_pos = first.line, first.column, first.start_pos
                        meta.end_line, meta.end_column, meta.end_pos = last.end_line, last.end_column, last.end_pos
                        meta.empty = False
            else:  # a token passed through: lark gives it its own position
                span = (value, value)
            goto = states[state_stack[-1]][origin][1]
            state_stack.append(goto)
            value_stack.append(value)
            span_stack.append(span)
            if token is end and goto == end_state:
                return value
    raise AssertionError("unreachable: $END reduces to the start symbol")


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


def _to_lark_tokens(raw_tokens) -> list:
    new = str.__new__
    tokens = []
    for t in raw_tokens:
        text, column = t.text, t.column
        tok = new(WgslToken, text)
        tok.type, tok.value = t.type, text
        tok.start_pos, tok.end_pos = t.pos, t.pos + len(text)
        tok.line = tok.end_line = t.line
        tok.column, tok.end_column = column, column + len(text)
        tokens.append(tok)
    return tokens


def _old_spelling(tok, expected, text: str, offset: int) -> str | None:
    """A message for constructs of drafts of WGSL that the language has since dropped."""
    if tok.value == "let" and "_FN" in expected:  # where a declaration starts
        return "'let' at module scope is the spelling of early WGSL drafts (not WGSL today): write 'const'"
    if tok.value == "type" and "_FN" in expected:
        return "'type' aliases are the spelling of early WGSL drafts (not WGSL today): write 'alias'"
    if tok.value == "[" and text.startswith("[[", offset):
        return ("'[[attribute]]' is the attribute spelling of early WGSL drafts (not WGSL today): "
                "write '@attribute'")
    if tok.value == ";" and {_TERMINAL_NAMES.get(name) for name in expected} == {"','", "'}'"}:
        return ("';' after a struct member is the spelling of early WGSL drafts (not WGSL today): "
                "members are separated by ','")
    return None


# notations of template engines that are never WGSL: Tera/Jinja tags and comments, moustache
# and `${}` placeholders
_TEMPLATE_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}|\{\{\s*[^{}\s][^{}]*\}\}|\$\{[^{}]*\}")
_PLACEHOLDER = re.compile(r"\{\s*[A-Za-z_][\w.]*\s*\}")  # `{size}`: Python's str.format, Rust's format!


def _template_error(text: str, path, error: WgslSyntaxError) -> WgslSyntaxError:
    """The error to give for a source that does not parse: that it looks like a template,
    naming the first template notation, when it has one; else `error` itself."""
    m = _TEMPLATE_TAG.search(text)
    if m is None:
        offset = _offset(text, error.line, error.column)
        m = _PLACEHOLDER.match(text, offset) if text.startswith("{", offset) else None
    if m is None:
        return error
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    snippet = m.group(0) if len(m.group(0)) <= 40 else m.group(0)[:37] + "..."
    return WgslSyntaxError(f"this looks like a template, not WGSL ({snippet!r} is template "
                           "notation): check the shader the template renders", line, column, path)


def _offset(text: str, line: int, column: int) -> int:
    return sum(len(l) for l in text.splitlines(keepends=True)[:line - 1]) + column - 1


def parse(text: str, path: str | None = None) -> ParsedModule:
    try:
        return _parse(text, path)
    except WgslSyntaxError as error:
        raise _template_error(text, path, error) from None


def _parse(text: str, path: str | None) -> ParsedModule:
    raw_tokens, comments = lex(text, path)
    try:
        tree = _run(_to_lark_tokens(raw_tokens))
    except _Unexpected as e:
        tok = e.token
        if tok.type == "$END":
            last = raw_tokens[-1] if raw_tokens else None
            line, col = (last.line, last.column + len(last.text)) if last else (1, 1)
            raise WgslSyntaxError("unexpected end of file" + _describe_expected(e.expected),
                                  line, col, path) from None
        offset = sum(len(l) for l in text.splitlines(keepends=True)[:tok.line - 1]) + tok.column - 1
        message = not_wgsl_reason(text, offset) or _old_spelling(tok, e.expected, text, offset) or (
            f"unexpected {tok.value!r}" + _describe_expected(e.expected))
        raise WgslSyntaxError(message, tok.line, tok.column, path) from None
    return ParsedModule(tree, comments, text, path)
