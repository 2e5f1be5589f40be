"""Every ```python block of README.md and docs/*.md runs as written (on whatever adapter
the tests use, lavapipe in CI), and where a plain ``` block follows it directly, prints
exactly that.

One substitution keeps the software rasterizer quick: sizes of a million elements and
more are run with 100,000 (SMALLER below); nothing else in a snippet is changed. Snippets
that start a Dask cluster (`gpu_cluster(`) are run by tests/dask/test_dask_cluster.py, on
its cluster, at a small size.
"""
import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SMALLER = {"10_000_000": "100_000", "1_000_000": "100_000"}
BLOCK = re.compile(r"```python\n(.*?)```\n(?:\s*```\n(.*?)```)?", re.S)


def snippets():
    for path in FILES:
        text = path.read_text()
        for match in BLOCK.finditer(text):
            if "gpu_cluster(" in match.group(1):
                continue
            line = text[: match.start()].count("\n") + 2
            yield pytest.param(path, line, match.group(1), match.group(2), id=f"{path.name}:{line}")


def test_every_document_is_found():
    names = {p.name for p in FILES}
    assert {"README.md", "sort.md", "check.md", "simulate.md"} <= names
    assert sum(1 for _ in snippets()) >= 4


@pytest.mark.parametrize("path, line, code, expected", list(snippets()))
def test_snippet_runs(path, line, code, expected, tmp_path, monkeypatch):
    from wgprim import device as device_module

    # A snippet that runs wgprim on its own device (use_device) must not leave the rest
    # of the session on it.
    monkeypatch.setattr(device_module, "_current", device_module.get_device())
    for big, small in SMALLER.items():
        code = code.replace(big, small)
    monkeypatch.chdir(tmp_path)  # a snippet that writes files writes them here
    printed = io.StringIO()
    source = "\n" * (line - 1) + code  # tracebacks point at the document's lines
    with contextlib.redirect_stdout(printed):
        exec(compile(source, str(path), "exec"), {"__name__": "__snippet__"})
    if expected is not None:
        assert printed.getvalue().split() == expected.split()
