"""Shared test data (awkward sizes, random values per dtype) and a runner of scripts on
wgpu's OpenGL backend."""
import collections
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

# Sizes that cross every boundary of the kernels: empty, one element, one workgroup
# (256 invocations), one reduce tile (4096), one scan tile (4096), several levels.
AWKWARD_SIZES = [0, 1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097,
                 65535, 65536, 65537, 4096 * 17 + 3]


def random_values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float32 or dtype == np.float16 or dtype == np.float64:
        return (rng.standard_normal(n) * 100).astype(dtype)
    if dtype == np.int32:
        return rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    if dtype == np.uint32:
        return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if dtype == np.int64 or dtype == np.uint64:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    raise AssertionError(dtype)


def informative(rng, n, dtype, op):
    """Data whose reduction or scan by `op` does not collapse to a constant: odd factors
    for prod (random ones make an integer product 0 after ~64 elements), and for or/and
    elements that differ from 0 (or all ones) in one bit among a random 16 of the 32 (64)."""
    x = random_values(rng, n, dtype)
    if x.dtype.kind == "f" or op not in ("prod", "bitwise_or", "bitwise_and"):
        return x
    one = np.array(1, x.dtype)
    word = np.uint64 if x.itemsize == 8 else np.uint32
    bits = rng.choice(8 * x.itemsize, 16, replace=False)
    single = (word(1) << rng.choice(bits, n).astype(word)).view(x.dtype)
    if op == "prod":
        return x | one
    if op == "bitwise_or":
        return x & single
    if op == "bitwise_and":
        return x | ~single
    return x


SRC = str(Path(__file__).resolve().parents[1] / "src")


def child_pythonpath() -> str:
    """PYTHONPATH for a Python subprocess that must import what this one imports: wgprim's
    src first, then every entry of this interpreter's sys.path (packages installed into a
    target folder, through a .pth file or PYTHONPATH: the child finds them all)."""
    return os.pathsep.join(dict.fromkeys([SRC] + [p for p in sys.path if p]))


def child_env(**extra) -> dict:
    """This process's environment for a Python subprocess, with child_pythonpath()."""
    return dict(os.environ, PYTHONPATH=child_pythonpath(), **extra)


def isolated_pytest(*args: str) -> list:
    """The command of a pytest subprocess that loads only the plugins the suite needs (with
    PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 in its environment: see child_env): plugins installed
    elsewhere in the environment neither run nor break it."""
    import importlib.util

    needed = [a for name in ("_hypothesis_pytestplugin",) if importlib.util.find_spec(name) for a in ("-p", name)]
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *needed, *args]


CREATORS = ("create_buffer", "create_bind_group", "create_compute_pipeline", "create_shader_module")


@contextlib.contextmanager
def counting(device):
    """Counts of the GPU objects made on `device` inside the block, by kind."""
    counts = collections.Counter()
    gpu = device.device
    saved = {name: getattr(gpu, name) for name in CREATORS}

    def counted(name, make):
        def make_counted(*args, **kwargs):
            counts[name] += 1
            return make(*args, **kwargs)
        return make_counted

    for name, make in saved.items():
        setattr(gpu, name, counted(name, make))
    try:
        yield counts
    finally:
        for name, make in saved.items():
            setattr(gpu, name, make)


def run_on_gl(script: str, timeout: int = 600) -> str:
    """Run a Python `script` in a fresh interpreter on wgpu's OpenGL backend (llvmpipe: no
    subgroups); returns its stdout. Skips the calling test where there is no GL adapter,
    fails it on any other error."""
    import pytest

    env = child_env(WGPU_BACKEND_TYPE="OpenGL")
    try:
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the GL backend run did not finish in {timeout} s")
    if done.returncode != 0 and "adapter" in (done.stderr or "").lower() and "GL" not in done.stdout:
        pytest.skip(f"no GL adapter here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@contextlib.contextmanager
def block_scan_path(device, path: str):
    """Within the block, kernels use the subgroup block scan ("subgroups"; the test is
    skipped where the adapter has none) or the workgroup-memory one ("barriers")."""
    import pytest

    from wgprim.probes import consecutive_subgroups

    probes = device.cache("probes")
    saved = probes.get("subgroups")
    if path == "subgroups":
        if not consecutive_subgroups(device):
            pytest.skip("adapter has no (consecutive) subgroups")
    else:
        probes["subgroups"] = False
    try:
        yield path
    finally:
        if saved is None:
            probes.pop("subgroups", None)
        else:
            probes["subgroups"] = saved


@contextlib.contextmanager
def forced_ranking_path(path: str):
    """Inside the block the radix sort ranks by `path`: "match" (subgroup match), "splits"
    (4-bit splits with the subgroup block scan) or "no-subgroups" (splits, workgroup
    memory). Skips the test where the adapter cannot take the path; yields the u32 sorter."""
    import pytest

    from wgprim.device import get_device
    from wgprim.ops.radix_sort import radix_sorter
    from wgprim.ops.sort_policy import SortPolicy
    from wgprim.tuning import using

    saved = os.environ.get("WGPRIM_NO_SUBGROUPS")
    try:
        with contextlib.ExitStack() as stack:
            if path == "no-subgroups":
                os.environ["WGPRIM_NO_SUBGROUPS"] = "1"
                assert not get_device().has_subgroups
            elif not get_device().has_subgroups:
                pytest.skip("adapter has no subgroups")
            elif path == "splits":
                stack.enter_context(using(SortPolicy, match=False))
            sorter = radix_sorter(get_device(), np.dtype(np.uint32), False)
            if path == "match" and not sorter.match:
                pytest.skip("adapter's subgroups do not fit the match path")
            assert sorter.match == (path == "match")
            yield sorter
    finally:
        if saved is None:
            os.environ.pop("WGPRIM_NO_SUBGROUPS", None)
        else:
            os.environ["WGPRIM_NO_SUBGROUPS"] = saved


@contextlib.contextmanager
def counting_submits():
    """How many command buffers wgprim submits inside the block."""
    from wgprim import native

    real, counts = native.submit_steps, collections.Counter()

    def counted(*args, **kwargs):
        counts["submits"] += 1
        return real(*args, **kwargs)

    native.submit_steps = counted
    try:
        yield counts
    finally:
        native.submit_steps = real


def check_binding_sizes(monkeypatch):
    """Make every dispatch fail that binds more of a storage buffer than the device's
    binding limit (lowered by device.binding_limit): the windowed paths must keep within it."""
    import wgpu

    from wgprim.program import Program

    real = Program.dispatch

    def checked(self, label, pipeline, bindings, groups):
        for r in bindings.values():
            buffer = r["buffer"] if isinstance(r, dict) else r
            size = r["size"] if isinstance(r, dict) else buffer.size
            if not buffer.usage & wgpu.BufferUsage.UNIFORM:
                assert size <= self.device.max_binding_bytes, f"{label}: a {size}-byte binding"
        return real(self, label, pipeline, bindings, groups)

    monkeypatch.setattr(Program, "dispatch", checked)
