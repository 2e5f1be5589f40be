"""Findings as SARIF 2.1.0, the format GitHub code scanning (and other viewers) read.

One run, the rules listed in `tool.driver.rules`, one result per finding with one physical
location (a path relative to the current directory, the repository root when run from CI)
and a `partialFingerprints` entry that survives unrelated edits above the finding (it hashes
the rule, the file and the text of the flagged line, not the line number).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .findings import Finding
from .rules import ALL

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SYNTAX_ERROR = {
    "id": "syntax-error",
    "name": "SyntaxError",
    "shortDescription": {"text": "the file is not valid WGSL"},
    "fullDescription": {"text": "The file does not parse as WGSL, so it was not checked."},
    "help": {"text": "Fix the syntax error (or check the shader a template or preprocessor renders).",
             "markdown": "Fix the syntax error (or check the shader a template or preprocessor renders)."},
    "defaultConfiguration": {"level": "error"},
}


def _rule(rule) -> dict:
    flags = rule.DOC.split("**Why it is wrong.**")[0].replace("**What it flags.**", "")
    return {
        "id": rule.ID,
        "name": "".join(part.capitalize() for part in rule.ID.split("-")),
        "shortDescription": {"text": rule.SUMMARY},
        "fullDescription": {"text": " ".join(flags.split())},
        "help": {"text": rule.HINT, "markdown": rule.DOC.strip()},
        "defaultConfiguration": {"level": "error" if rule.SEVERITY == "error" else "warning"},
        "properties": {"tags": ["correctness", "concurrency", "wgsl"]},
    }


def _uri(path: str) -> str:
    """Repository-relative, forward slashes (code scanning matches it against the checkout)."""
    if path in ("<stdin>", ""):
        return "stdin"
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            pass
    return Path(os.path.normpath(p)).as_posix()


def _line_text(path: str, line: int, cache: dict) -> str:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            cache[path] = []
    lines = cache[path]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _fingerprint(f: Finding, uri: str, text: str, seen: dict) -> str:
    base = hashlib.sha256(f"{f.rule}\0{uri}\0{text or f.message}".encode()).hexdigest()[:32]
    seen[base] = seen.get(base, 0) + 1  # the same line text twice in a file stays distinct
    return f"{base}:{seen[base]}"


def to_sarif(findings: list[Finding]) -> dict:
    rules = [_rule(r) for r in ALL] + [SYNTAX_ERROR]
    index = {r["id"]: i for i, r in enumerate(rules)}
    lines: dict = {}
    seen: dict = {}
    results = []
    for f in sorted(findings, key=lambda f: (f.file, f.line, f.column, f.rule)):
        uri = _uri(f.file)
        region = {"startLine": f.line, "startColumn": f.column}
        if f.end_line >= f.line:
            region["endLine"] = f.end_line
            if f.end_column > 0 and (f.end_line > f.line or f.end_column > f.column):
                region["endColumn"] = f.end_column
        message = f.message + (f"\nhint: {f.hint}" if f.hint else "")
        results.append({
            "ruleId": f.rule,
            "ruleIndex": index.get(f.rule, len(rules) - 1),
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri},
                "region": region,
            }}],
            "partialFingerprints": {
                "primaryLocationLineHash": _fingerprint(f, uri, _line_text(f.file, f.line, lines), seen),
            },
        })
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "wgprim check",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
