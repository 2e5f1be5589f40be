"""`wgprim check`: a linter for WGSL that finds cross-workgroup synchronization mistakes.

    from wgprim.check import check_source
    for finding in check_source(open("kernel.wgsl").read(), "kernel.wgsl"):
        print(finding.format())

The parser uses lark (a dependency of wgprim), imported on first use.
"""
from __future__ import annotations

from .core import check_file, check_source, selected_rules
from .errors import WgslSyntaxError
from .findings import Finding
from .rules import ALL as RULES

__all__ = ["check_source", "check_file", "selected_rules", "Finding", "WgslSyntaxError", "RULES", "parse"]


def parse(text: str, path: str | None = None):
    """Parse WGSL into a tree with source positions (see `wgprim.check.parser`)."""
    from .parser import parse as _parse

    return _parse(text, path)
