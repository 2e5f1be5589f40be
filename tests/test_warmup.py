"""wgprim.warmup: the pipelines a call needs are compiled by the warm-up, so the call
compiles none; the arguments are checked; the CLI prints what first calls cost."""
import subprocess
import sys

import numpy as np
import pytest

import wgprim
from wgprim.warmup import Warmed

from support import child_env

# A fresh process (pipelines are kept per process): how many pipelines and shader modules
# a cumsum and an argsort of new data make, with or without a warm-up of that size first.
CHILD = """
import sys, numpy as np, wgprim
sys.path.insert(0, {tests!r})
from support import counting
if {warm}:
    wgprim.warmup(["cumsum", "argsort"], dtypes=["float32"], sizes=[5000])
x = wgprim.asarray(np.random.default_rng(3).random(5000, dtype=np.float32))
with counting(wgprim.get_device()) as made:
    got = wgprim.argsort(x).numpy(), wgprim.cumsum(x).numpy()
assert np.array_equal(got[0], np.argsort(x.numpy(), kind="stable"))
print(made["create_compute_pipeline"] + made["create_shader_module"])
"""


def _compiled(warm: bool) -> int:
    import os

    script = CHILD.format(tests=os.path.dirname(__file__), warm=warm)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=child_env(), timeout=300)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def test_after_a_warm_up_the_same_calls_compile_nothing():
    assert _compiled(warm=False) > 0  # the count sees compiles (this test can fail)
    assert _compiled(warm=True) == 0


def test_warmup_reports_each_call_it_made(device):
    done = wgprim.warmup(["sum", "cumsum"], dtypes="int32", sizes=[1000, 3001])
    assert [(w.name, w.dtype, w.n) for w in done] == [
        ("sum", "int32", 1000), ("sum", "int32", 3001), ("cumsum", "int32", 1000), ("cumsum", "int32", 3001)]
    assert all(isinstance(w, Warmed) and w.first_s > 0 and w.again_s > 0 and w.compile_s >= 0 for w in done)


def test_a_dtype_a_primitive_does_not_take_is_passed_over(device):
    assert wgprim.warmup("sum", dtypes=[np.dtype("int8")], sizes=100) == []


@pytest.mark.parametrize("names, sizes, message", [
    (["no_such_primitive"], (10,), "no primitive named 'no_such_primitive'"),
    (["sum"], (0,), "sizes must be positive integers"),
    (["sum"], (2.5,), "sizes must be positive integers"),
    (["sum"], (True,), "sizes must be positive integers"),
])
def test_bad_arguments_are_refused_before_any_call(names, sizes, message):
    with pytest.raises(ValueError, match=message):
        wgprim.warmup(names, sizes=sizes)


def test_the_cli_prints_one_row_per_call():
    out = subprocess.run([sys.executable, "-m", "wgprim", "warmup", "sum", "--dtype", "float32", "-n", "1000", "-n", "2^12"],
                         capture_output=True, text=True, env=child_env(), timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("sum ")]
    assert [(r[1], r[2]) for r in rows] == [("float32", "1,000"), ("float32", "4,096")]
    assert "2 calls warmed" in out.stdout


def test_the_cli_names_an_unknown_primitive():
    out = subprocess.run([sys.executable, "-m", "wgprim", "warmup", "nope"], capture_output=True, text=True,
                         env=child_env(), timeout=300)
    assert out.returncode == 2 and "no primitive named 'nope'" in out.stderr
