"""Every kernel wgprim ships parses and passes `wgprim check` (run in CI: a new kernel that
breaks the rule fails the build)."""
from __future__ import annotations

from pathlib import Path

import pytest

from wgprim.check import check_source

KERNELS = sorted((Path(__file__).parents[2] / "src" / "wgprim" / "kernels").glob("*.wgsl"))


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_shipped_kernel_is_clean(path: Path):
    findings = check_source(path.read_text(encoding="utf-8"), str(path))
    assert findings == [], "\n".join(f.format() for f in findings)
