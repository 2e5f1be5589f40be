"""Lint WGSL for cross-workgroup synchronization mistakes: spin-waits, flags, global barriers.

Exit status: 0 when clean, 1 with findings, 2 on usage or syntax errors.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from .errors import WgslSyntaxError
from .findings import Finding
from .rules import ALL, BY_ID


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help=".wgsl files or directories to check ('-' reads standard input)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                        help="output format: text, json, or sarif (SARIF 2.1.0, for code "
                             "scanning); default text")
    parser.add_argument("--select", metavar="RULES", default="",
                        help="comma-separated rule ids to run (default: all)")
    parser.add_argument("--ignore", metavar="RULES", default="",
                        help="comma-separated rule ids to skip")
    parser.add_argument("--explain", metavar="RULE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.epilog = ("Suppress one finding with a comment `// wgprim: allow(RULE)` on its line or "
                     "the line before. Rules: " + ", ".join(BY_ID))


def _ids(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _explain(rule_id: str) -> int:
    rule = BY_ID.get(rule_id)
    if rule is None:
        print(f"wgprim check: unknown rule {rule_id!r}; rules are: {', '.join(BY_ID)}", file=sys.stderr)
        return 2
    print(f"{rule.ID}: {rule.SUMMARY}\n")
    print(rule.DOC.rstrip())
    return 0


class InputError(Exception):
    """An input that cannot be checked at all: reported on one line, exit status 2."""


def _files(paths: list[str]) -> list[str | Path]:
    """The inputs, directories expanded to their .wgsl files ('-' is standard input)."""
    files: list[str | Path] = []
    for raw in paths:
        if raw == "-":
            files.append("-")
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.wgsl") if p.is_file())
            if not found:
                raise InputError(f"no .wgsl files under {raw}")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"no such file or directory: {raw}")
    return files


def _read(file: str | Path) -> tuple[str, str]:
    """(display path, text); raises InputError for input that is not UTF-8 text."""
    if file == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream that was never bytes
            return "<stdin>", sys.stdin.read()
        data, name = stream.read(), "<stdin>"
    else:
        try:
            data, name = Path(file).read_bytes(), str(file)
        except OSError as e:
            raise InputError(f"cannot read {file}: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{name}: not UTF-8 text (byte {e.start}): WGSL source is UTF-8") from None
    if "\0" in text:
        raise InputError(f"{name}: binary file, not WGSL source")
    return name, text.removeprefix("\ufeff")


def _syntax_finding(err: WgslSyntaxError) -> Finding:
    return Finding(err.path or "<stdin>", err.line, err.column, err.line, err.column,
                   "syntax-error", "error", err.message, "")


def run(args: argparse.Namespace) -> int:
    if args.list_rules:
        for rule in ALL:
            print(f"{rule.ID:20} {rule.SUMMARY}")
        return 0
    if args.explain:
        return _explain(args.explain)
    if not args.paths:
        print("wgprim check: give at least one PATH (a .wgsl file, a directory, or - for stdin)",
              file=sys.stderr)
        return 2
    if importlib.util.find_spec("lark") is None:
        print("wgprim check needs the lark parser, a dependency of wgprim: pip install lark (or pip install 'wgprim[check]')", file=sys.stderr)
        return 2

    from .core import check_source, selected_rules

    select, ignore = _ids(args.select), _ids(args.ignore)
    try:
        selected_rules(select, ignore)
    except ValueError as e:
        print(f"wgprim check: {e}", file=sys.stderr)
        return 2

    findings: list[Finding] = []
    syntax_errors: list[WgslSyntaxError] = []
    failures: list[str] = []
    try:
        for file in _files(args.paths):
            path, text = _read(file)
            try:
                findings.extend(check_source(text, path, select, ignore))
            except WgslSyntaxError as e:
                syntax_errors.append(e)
            except RecursionError:
                failures.append(f"{path}: nested too deeply to analyze")
            except Exception as e:  # a bug of the checker: say so on one line, check the rest
                failures.append(f"{path}: internal error of the checker ({type(e).__name__}: {e})")
    except InputError as e:
        print(f"wgprim check: {e}", file=sys.stderr)
        return 2

    if args.format == "json":
        items = [f.to_dict() for f in findings] + [_syntax_finding(e).to_dict() for e in syntax_errors]
        print(json.dumps(items, indent=2))
    elif args.format == "sarif":
        from .sarif import to_sarif

        errors = [_syntax_finding(e) for e in syntax_errors]
        print(json.dumps(to_sarif(findings + errors), indent=2))
        for e in syntax_errors:
            print(e, file=sys.stderr)
    else:
        for e in syntax_errors:
            print(e, file=sys.stderr)
        for f in findings:
            print(f.format())
        if findings:
            print(f"Found {len(findings)} problem{'s' if len(findings) != 1 else ''}.", file=sys.stderr)
    for failure in failures:
        print(f"wgprim check: {failure}", file=sys.stderr)
    if syntax_errors or failures:
        return 2
    return 1 if findings else 0
