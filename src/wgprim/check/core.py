"""Run the rules over one WGSL source and apply selection and inline suppressions."""
from __future__ import annotations

import gc
import re
from dataclasses import replace
from pathlib import Path

from .findings import Finding
from .rules import ALL, BY_ID

_ALLOW = re.compile(r"wgprim:\s*allow\(([^)]*)\)")


def selected_rules(select=None, ignore=None) -> list:
    """The rule modules to run; raises ValueError on an unknown rule id."""
    for rule_id in list(select or []) + list(ignore or []):
        if rule_id not in BY_ID:
            raise ValueError(f"unknown rule {rule_id!r}; rules are: {', '.join(BY_ID)}")
    rules = [BY_ID[r] for r in select] if select else list(ALL)
    return [r for r in rules if r.ID not in set(ignore or [])]


def _suppressions(comments) -> dict[int, set[str]]:
    allowed: dict[int, set[str]] = {}
    for comment in comments:
        for match in _ALLOW.finditer(comment.text):
            ids = {part.strip() for part in match.group(1).split(",") if part.strip()}
            allowed.setdefault(comment.line, set()).update(ids)
    return allowed


def check_source(text: str, path: str | None = None, select=None, ignore=None) -> list[Finding]:
    """Check one WGSL source. Returns the findings sorted by position.

    Raises `WgslSyntaxError` if the source does not parse, `ValueError` for an unknown
    rule id in `select` / `ignore`.
    """
    from .analysis import analyze
    from .parser import parse
    from .symbols import collect

    rules = selected_rules(select, ignore)
    # The parse and the walk allocate many small trees, sets and tuples and drop no cycles
    # worth collecting mid-way; the cyclic collector would rescan them again and again
    # (a fifth of the time). It runs again once they are gone.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check(text, path, rules, parse, collect, analyze)
    finally:
        if collecting:
            gc.enable()


def _check(text, path, rules, parse, collect, analyze) -> list[Finding]:
    from .host import OTHER_WORKGROUP_RULES, dispatch_sizes

    parsed = parse(text, path)
    module = collect(parsed.tree)
    sizes = dispatch_sizes(module, parsed.comments, path)
    entries = analyze(module, text)
    allowed = _suppressions(parsed.comments)
    seen, findings = set(), []
    for rule in rules:
        # an entry point its host dispatches as one workgroup has no other workgroup
        checked = [e for e in entries if not (rule.ID in OTHER_WORKGROUP_RULES
                                              and sizes.get(e.entry) == (1, 1, 1))]
        for f in rule.check(checked):
            key = (f.rule, f.line, f.column)
            if key in seen:
                continue  # a helper reached from several entry points or call sites
            seen.add(key)
            if f.rule in allowed.get(f.line, ()) or f.rule in allowed.get(f.line - 1, ()):
                continue
            findings.append(replace(f, file=path or "<stdin>"))
    return sorted(findings, key=lambda f: (f.line, f.column, f.rule))


def check_file(path, select=None, ignore=None) -> list[Finding]:
    path = Path(path)
    return check_source(path.read_text(encoding="utf-8"), str(path), select, ignore)
