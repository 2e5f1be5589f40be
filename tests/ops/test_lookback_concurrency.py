"""The chained look-back (single-pass scan and compaction) under real concurrency and under
the driver's loop cap.

Mesa's llvmpipe (lavapipe: the adapter wherever there is no GPU, CI included) runs a
dispatch's workgroups on LP_NUM_THREADS threads, side by side, each thread a contiguous
range of workgroups in order; and it silently ends every loop of an invocation once that
invocation has run 65,535 loop iterations in all. So the first workgroup of each thread
finds every predecessor NOT READY and falls back over them: with one dispatch of 3662 tiles
on 2 threads, that walk ran past the cap and returned a wrong tile (issue 33). Look-back
dispatches now span at most `chained_scan.lookback_tiles()` tiles where the driver has a cap
(docs/scan.md, "The loop cap"). These tests run:
- the worst case the bound is for (every tile silent, no fallback publication, so the last
  tile of a dispatch falls back over every other) at the bound, on the real driver;
- every primitive built on the look-back past 2^24 elements with lavapipe on 2, 3 and 8
  threads and on the OpenGL backend, in subprocesses (tests/ops/lookback_child.py),
  including per-tile random spin budgets (some tiles fall back, some don't);
- the dispatch split itself, on any adapter, with a pretended cap (`device.loop_cap`).
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import wgprim
from wgprim.device import LLVMPIPE_LOOP_CAP, loop_cap
from wgprim.ops import chained_scan as cs
from wgprim.ops.compaction import compact_single_pass
from wgprim.program import Program

from support import block_scan_path, child_env, random_values

CHILD = Path(__file__).resolve().parent / "lookback_child.py"
ON_GL = os.environ.get("WGPU_BACKEND_TYPE", "").lower() == "opengl"


def on_llvmpipe(device) -> bool:
    return "llvmpipe" in device.summary.lower()


def run_child(cases, timeout=900, **env):
    proc = subprocess.run([sys.executable, str(CHILD), *cases], env=child_env(**env), capture_output=True,
                          text=True, timeout=timeout)
    if "NoAdapterError" in proc.stdout + proc.stderr:
        pytest.skip("no such adapter")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def scan_dispatches(device, n, dt=np.uint32, **options):
    p = Program(device, label="count")
    src, dst = wgprim.empty((n,), dt), wgprim.empty((n,), dt)
    cs.ChainedRecorder(device, np.dtype(dt), "sum", **options).record(p, src, dst, False)
    return sum(1 for s in p.steps if getattr(s, "label", "") == "scan single-pass")


def test_the_bound_follows_the_cap_and_the_spin_budget(device):
    with loop_cap(None):
        assert cs.lookback_tiles(device) is None
    with loop_cap(LLVMPIPE_LOOP_CAP):
        default = cs.lookback_tiles(device)
        assert 64 <= default <= 4096
        assert cs.lookback_tiles(device, spin_budget=64) < default
        assert cs.lookback_tiles(device, fault=cs.Fault("late", 3, 1, 20_000)) < default
        assert cs.lookback_tiles(device, spin_budget=10**6) == 1  # never less than a tile
    with loop_cap(2 * LLVMPIPE_LOOP_CAP):
        assert cs.lookback_tiles(device) > default


def test_a_capped_device_splits_the_scan_into_bounded_dispatches(device, rng):
    with loop_cap(20_000):
        per = cs.lookback_tiles(device)
        recorder = cs.ChainedRecorder(device, np.dtype(np.uint32), "sum")
        n = (2 * per + 3) * recorder.tile + 17
        assert scan_dispatches(device, n) == 3
        x = random_values(rng, n, np.uint32)
        for fault in (None, cs.Fault("silent", 5, 2), cs.Fault("aggregate-only", 3, 0)):
            got, _ = cs.chained_scan(x, spin_budget=0, fault=fault)
            np.testing.assert_array_equal(got.numpy(), np.cumsum(x, dtype=np.uint32))
        mask = rng.random(n) < 0.4
        got, _ = compact_single_pass(None, mask, spin_budget=0, fault=cs.Fault("silent", 4, 1))
        np.testing.assert_array_equal(got.numpy(), np.flatnonzero(mask))
        # the public doors take the same split (their kept recordings are keyed by the cap)
        np.testing.assert_array_equal(wgprim.scan(x, "sum", method="single-pass").numpy(), np.cumsum(x, dtype=np.uint32))
        np.testing.assert_array_equal(wgprim.nonzero(mask, method="single-pass").numpy(), np.flatnonzero(mask))
    with loop_cap(None):
        assert scan_dispatches(device, n) == 1


@pytest.mark.parametrize("path", ["subgroups", "barriers"])
def test_worst_walk_at_the_bound_on_the_real_driver(device, rng, path):
    """Every tile silent and float sums (which publish no fallback): the last tile of each
    dispatch falls back over every other tile of it, polling each one spin-budget + 1
    times. At the bound (and past it, in two dispatches) the driver's cap is not reached."""
    if not on_llvmpipe(device) or device.loop_cap is None:
        pytest.skip("the cap is llvmpipe's; elsewhere test_a_capped_device_splits_... covers the split")
    spin = 48  # a large budget keeps the bound, and so this test's quadratic walk, small
    with block_scan_path(device, path) as chosen:
        per = cs.lookback_tiles(device, spin_budget=spin)
        for layout in (["striped", "blocked"] if chosen == "subgroups" else ["blocked"]):
            tile = cs.ChainedRecorder(device, np.dtype(np.float32), "sum", layout=layout).tile
            x = (rng.random(2 * per * tile + 5) < 0.5).astype(np.float32)  # exact partial sums
            got, stats = cs.chained_scan(x, "sum", layout=layout, spin_budget=spin,
                                         fault=cs.Fault("silent", 1, 0), stats=True)
            np.testing.assert_array_equal(got.numpy(), np.cumsum(x.astype(np.float64)).astype(np.float32))
            assert stats["fallbacks"] >= per * (per - 1)  # the walk did happen
        mask = rng.random(2 * per * 4096 + 9) < 0.5
        got, _ = compact_single_pass(None, mask, spin_budget=spin, fault=cs.Fault("silent", 1, 0))
        np.testing.assert_array_equal(got.numpy(), np.flatnonzero(mask))


@pytest.mark.skipif(ON_GL, reason="runs lavapipe threads; the GL run is its own test")
def test_the_issue_repro_past_2_24_on_two_threads():
    """In the default run: the repro of issue 33 and the random per-tile spin budgets,
    on lavapipe with 2 threads (a 2-core machine's default)."""
    out = run_child(["cumsum_u32", "random_spin_budgets"], LP_NUM_THREADS="2")
    assert out.count(": ok") == 2


@pytest.mark.slow
@pytest.mark.skipif(ON_GL, reason="runs lavapipe threads; the GL run is its own test")
@pytest.mark.parametrize("threads", [2, 3, 8])
def test_every_lookback_primitive_past_2_24(threads):
    out = run_child(["all"], LP_NUM_THREADS=str(threads))
    assert out.count(": ok") == 8, out


@pytest.mark.slow
@pytest.mark.skipif(ON_GL, reason="already on the GL backend")
def test_every_lookback_primitive_past_2_24_on_opengl():
    out = run_child(["all"], WGPU_BACKEND_TYPE="OpenGL", LP_NUM_THREADS="3")
    assert out.count(": ok") == 8, out
