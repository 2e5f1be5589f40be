"""What the host does, said in the source: `// wgprim: dispatch(1)` before an entry point.

The checker sees one shader module, not the code that dispatches it. An entry point that
its host always dispatches as a single workgroup has no other workgroup to publish to, to
wait for or to walk back over: the comment says so, on the line before the entry point or
on any line of its attributes and signature. `dispatch(x, y, z)` names the workgroup
counts (missing ones are 1); only a total of one workgroup changes what is reported.
"""
from __future__ import annotations

import re

from .errors import WgslSyntaxError

_DISPATCH = re.compile(r"wgprim:\s*dispatch\(([^)]*)\)")

# the rules about other workgroups of the same dispatch: with one workgroup there are none
OTHER_WORKGROUP_RULES = frozenset({"flag-publish", "global-barrier", "same-dispatch-read", "lookback-depth"})


def dispatch_sizes(module, comments, path=None) -> dict[str, tuple[int, int, int]]:
    """Entry point name -> the workgroup counts its host dispatches, where a comment says."""
    spans = []
    for fn in module.functions.values():
        node = fn.node
        body = node.children[-1]
        if node.meta.empty or body.meta.empty:
            continue
        spans.append((node.meta.line - 1, body.meta.line, fn.name))
    sizes = {}
    for comment in comments:
        for m in _DISPATCH.finditer(comment.text):
            counts = _counts(m.group(1), comment.line, path)
            for first, last, name in spans:
                if first <= comment.line <= last:
                    sizes[name] = counts
    return sizes


def _counts(text: str, line: int, path) -> tuple[int, int, int]:
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise WgslSyntaxError(f"`wgprim: dispatch({text})`: give one to three positive workgroup "
                              "counts, as in `// wgprim: dispatch(1)`", line, 1, path)
    counts = [int(p) for p in parts] + [1] * (3 - len(parts))
    return counts[0], counts[1], counts[2]
