"""The README's example runs as written and gives numpy's answers."""
import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs_and_matches_numpy():
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[0]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    x = scope["x"]
    assert scope["where"] == np.argmax(x)
    np.testing.assert_array_equal(scope["order"].numpy(), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(scope["counts"].numpy(), np.histogram(x, bins=256, range=(-4, 4))[0])
    np.testing.assert_array_equal(scope["kept"].numpy(), x[x > 0])
    ref_values, ref_counts = np.unique(np.round(x).astype(np.int32), return_counts=True)
    np.testing.assert_array_equal(scope["values"].numpy(), ref_values)
    np.testing.assert_array_equal(scope["n_each"].numpy(), ref_counts)
    assert scope["a"].item() == x.min() and scope["b"].item() == x.max()
