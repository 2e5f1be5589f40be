"""The single-pass scan (chained scan with decoupled fallback) against numpy: every operator
and dtype, both tile layouts, awkward sizes, chunked inputs, and the forced-fallback modes
(spin budget 0; tiles that publish nothing, publish late, or never publish their inclusive
value), which must still give numpy's answer exactly (floats within the stated bound).
The same tests run on wgpu's OpenGL backend in a subprocess (test_gl_backend)."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import chained_scan as cs
from wgprim.ops.operators import identity_value
from wgprim.api.scan import ScanPlan
from wgprim.ops.scan import cumsum_error_bound

from support import AWKWARD_SIZES, block_scan_path, child_env, informative, isolated_pytest, random_values

DTYPES = [np.float32, np.int32, np.uint32]
UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
         "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}
FAULTS = [cs.Fault("silent", 7, 3), cs.Fault("late", 5, 1, 4000), cs.Fault("aggregate-only", 3, 0),
          cs.Fault("silent", 1, 0)]
ON_GL = os.environ.get("WGPU_BACKEND_TYPE", "").lower() == "opengl"


def layouts(device):
    from wgprim.probes import consecutive_subgroups
    return ["striped", "blocked"] if consecutive_subgroups(device) else ["blocked"]


@pytest.fixture(params=["subgroups", "barriers"])
def path(request, device):
    """Run a test with each look-back window and block scan (subgroups where they exist;
    workgroup memory and barriers)."""
    with block_scan_path(device, request.param) as chosen:
        yield chosen


def numpy_scan(x, op, exclusive):
    inclusive = UFUNC[op].accumulate(x, dtype=x.dtype)
    if not exclusive or x.size == 0:
        return inclusive
    return np.concatenate([[identity_value(op, x.dtype)], inclusive[:-1]]).astype(x.dtype)


def assert_scan(x, op, exclusive, got):
    if x.dtype.kind == "f" and op == "sum":
        ref = np.cumsum(x.astype(np.float64))
        bound = cumsum_error_bound(np.cumsum(np.abs(x.astype(np.float64))), x.dtype, "single-pass")
        if exclusive:
            ref, bound = np.concatenate([[0.0], ref[:-1]]), np.concatenate([[0.0], bound[:-1]])
        assert np.all(np.abs(got - ref) <= bound)
    elif x.dtype.kind == "f" and op == "prod":
        ref = np.cumprod(x.astype(np.float64))
        if exclusive:
            ref = np.concatenate([[1.0], ref[:-1]])
        # every multiplication rounds the whole partial product: n of them, in any order
        count = np.arange(1, x.size + 1) + 2
        assert np.all(np.abs(got - ref) <= count * np.finfo(np.float32).eps * np.abs(ref))
    else:
        np.testing.assert_array_equal(got, numpy_scan(x, op, exclusive))


def data(rng, n, dtype, op):
    if np.dtype(dtype).kind == "f" and op == "prod":
        return rng.uniform(0.999, 1.001, n).astype(dtype)
    return informative(rng, n, dtype, op)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [n for n in AWKWARD_SIZES if n])
def test_cumsum_awkward_sizes_both_layouts(n, dtype, rng, device, path):
    x = random_values(rng, n, dtype)
    for layout in layouts(device):
        got, _ = cs.chained_scan(x, layout=layout)
        assert_scan(x, "sum", False, got.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", list(UFUNC))
@pytest.mark.parametrize("exclusive", [False, True])
def test_every_operator(op, dtype, exclusive, rng, device):
    if np.dtype(dtype).kind == "f" and op.startswith("bitwise"):
        pytest.skip("bitwise operators take integers")
    x = data(rng, 4096 * 7 + 77, dtype, op)
    for layout in layouts(device):
        for spin in (cs.SPIN_BUDGET, 0):
            got, _ = cs.chained_scan(x, op, exclusive, layout=layout, spin_budget=spin)
            assert_scan(x, op, exclusive, got.numpy())


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f"{f.mode}-{f.every}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_forced_fallback_is_exact(fault, dtype, rng, device, path):
    # Spin budget 0: a predecessor that is not ready is reduced at once. The faulty tiles
    # make predecessors not ready (or ready late), so the fallback must run, and the
    # answer must not change.
    n = 4096 * 40 + 1234 if fault.every == 1 else 4096 * 150 + 17
    x = random_values(rng, n, dtype)
    for layout in layouts(device):
        got, stats = cs.chained_scan(x, layout=layout, spin_budget=0, fault=fault, stats=True)
        assert_scan(x, "sum", False, got.numpy())
        if fault.mode == "silent":
            assert stats["fallbacks"] >= 1


@pytest.mark.parametrize("fault, op, dtype", [(f, "sum", np.int64) for f in FAULTS]
                         + [(FAULTS[0], op, np.uint64) for op in ("prod", "max", "bitwise_xor")],
                         ids=lambda v: getattr(v, "mode", None) or getattr(v, "__name__", v))
def test_64_bit_forced_fallback_is_exact(fault, op, dtype, rng, device, path):
    # A 64-bit value travels as four 16-bit halves (eight state words a tile); a fallback
    # publishes what it reduced into the aggregate's four words.
    n = 2048 * 40 + 1234 if fault.every == 1 else 2048 * 90 + 17
    x = data(rng, n, dtype, op)
    for layout in layouts(device):
        got, stats = cs.chained_scan(x, op, layout=layout, spin_budget=0, fault=fault, stats=True)
        assert_scan(x, op, False, got.numpy())
        if fault.mode == "silent":
            assert stats["fallbacks"] >= 1


def test_64_bit_float_min_max_single_pass_with_fallbacks(rng, device):
    x = rng.standard_normal(2048 * 30 + 5)
    x[[7, 50_000]] = np.nan
    x[9] = -0.0
    for op in ("min", "max"):
        for layout in layouts(device):
            got, stats = cs.chained_scan(x, op, layout=layout, spin_budget=0, fault=FAULTS[0], stats=True)
            np.testing.assert_array_equal(got.numpy().view(np.uint64), numpy_scan(x, op, False).view(np.uint64))
            assert stats["fallbacks"] >= 1


@pytest.mark.parametrize("per_lane", [2, 4])
@pytest.mark.parametrize("fault", FAULTS[:3], ids=lambda f: f.mode)
def test_forced_fallback_several_states_per_lane(per_lane, fault, rng, device):
    # Look-back lanes reading several predecessors each (the window covers 32 * per_lane
    # tiles on the subgroup path), tiles of 4096 and 8192 elements.
    n = 4096 * 150 + 17
    for dtype in (np.uint32, np.float32):
        x = random_values(rng, n, dtype)
        for rows in ((4, 8) if "striped" in layouts(device) else (None,)):
            got, stats = cs.chained_scan(x, rows=rows, per_lane=per_lane, spin_budget=0, fault=fault, stats=True)
            assert_scan(x, "sum", False, got.numpy())
            if fault.mode == "silent":
                assert stats["fallbacks"] >= 1


def test_no_lookback_is_for_measurements_only(rng):
    # Fault("no-lookback") times the kernel without its look-back: every tile scans from
    # the identity, so only the first tile is right; it is not one of the test modes.
    assert "no-lookback" not in cs.Fault.MODES
    tile = cs.ChainedRecorder(wgprim.get_device(), np.uint32, "sum").tile
    x = random_values(rng, tile * 5, np.uint32)
    got, stats = cs.chained_scan(x, fault=cs.Fault("no-lookback"), stats=True)
    tiles = x.reshape(5, tile)
    np.testing.assert_array_equal(got.numpy().reshape(5, tile), np.cumsum(tiles, axis=1, dtype=np.uint32))
    assert stats["rounds"] == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_forced_fallback_every_operator_and_monoid(dtype, rng, device, path):
    last = wgprim.Monoid("select(a, b, b != T(0))", identity=0)
    for op in [*UFUNC, last]:
        name = op if isinstance(op, str) else "last"
        if np.dtype(dtype).kind == "f" and name.startswith("bitwise"):
            continue
        x = data(rng, 4096 * 23 + 5, dtype, name)
        if name == "last":
            x = x * (rng.random(x.size) < 0.3).astype(dtype)
        for layout in layouts(device):
            got, stats = cs.chained_scan(x, op, layout=layout, spin_budget=0, fault=cs.Fault("silent", 4, 2),
                                         stats=True)
            assert stats["fallbacks"] >= 1
            if name == "last":
                idx = np.where(x != 0, np.arange(x.size), 0)
                ref = x[np.maximum.accumulate(idx)]
                ref[: np.argmax(x != 0) if x.any() else x.size] = 0
                np.testing.assert_array_equal(got.numpy(), ref)
            else:
                assert_scan(x, name, False, got.numpy())


@pytest.mark.skipif(ON_GL, reason="several million elements: lavapipe only (the GL run takes the smaller tests)")
@pytest.mark.parametrize("fault", FAULTS[:3], ids=lambda f: f.mode)
def test_forced_fallback_several_million(fault, rng, device):
    n = 3_000_017
    x = random_values(rng, n, np.uint32)
    for layout in layouts(device):
        got, _ = cs.chained_scan(x, layout=layout, spin_budget=0, fault=fault)
        np.testing.assert_array_equal(got.numpy(), np.cumsum(x, dtype=np.uint32))
    xf = random_values(rng, n, np.float32)
    got, _ = cs.chained_scan(xf, spin_budget=0, fault=fault)
    assert_scan(xf, "sum", False, got.numpy())


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 60_000), every=st.integers(1, 9), mode=st.sampled_from(sorted(cs.Fault.MODES)),
       spin=st.integers(0, 3), seed=st.integers(0, 2**31))
def test_forced_fallback_hypothesis(n, every, mode, spin, seed):
    rng = np.random.default_rng(seed)
    x = random_values(rng, n, np.int32)
    fault = cs.Fault(mode, every, seed % every, 500)
    got, _ = cs.chained_scan(x, spin_budget=spin, fault=fault)
    np.testing.assert_array_equal(got.numpy(), np.cumsum(x, dtype=np.int32))


def test_chunks_carry_from_one_to_the_next(rng, device, path):
    x = random_values(rng, 70_001, np.int32)
    with binding_limit(16384 * 2):  # two tiles per binding
        for layout in layouts(device):
            for exclusive in (False, True):
                got, _ = cs.chained_scan(x, "sum", exclusive, layout=layout)
                assert_scan(x, "sum", exclusive, got.numpy())
                got, _ = cs.chained_scan(x, "sum", exclusive, layout=layout, spin_budget=0,
                                         fault=cs.Fault("silent", 2, 1))
                assert_scan(x, "sum", exclusive, got.numpy())


def test_scan_method_keyword(rng):
    x = random_values(rng, 50_000, np.float32)
    for method in ("single-pass", "reduce-then-scan", None):
        assert_scan(x, "max", True, wgprim.scan(x, "max", exclusive=True, method=method).numpy())
        plan = ScanPlan(x.size, np.float32, "max", method=method)
        assert_scan(x, "max", False, plan(x).numpy())
    with pytest.raises(ValueError):
        wgprim.scan(x, method="three-pass")
    with pytest.raises(TypeError):
        wgprim.scan(x.astype(np.float16), method="single-pass")
    if wgprim.get_device().has_f16:  # f16 keeps the three-dispatch scan by default
        h = (rng.standard_normal(10_000)).astype(np.float16)
        assert wgprim.scan(h, "max").numpy().dtype == np.float16


def test_default_method_rule():
    f32, f16 = np.dtype(np.float32), np.dtype(np.float16)
    assert cs.choose_method(4096, f32, None) == "reduce-then-scan"
    assert cs.choose_method(cs.DEFAULT_SINGLE_PASS_FROM, f32, None) == "single-pass"
    assert cs.choose_method(1 << 28, f16, None) == "reduce-then-scan"


def test_float_bound_grows_with_the_tile_index():
    b = cumsum_error_bound(np.ones(3 * 4096), np.float32, "single-pass")
    eps = np.finfo(np.float32).eps
    assert b[0] == 96 * eps and b[-1] == 98 * eps
    assert np.all(cumsum_error_bound(np.ones(10), np.float32, "reduce-then-scan") == 64 * eps)


@pytest.mark.skipif(ON_GL, reason="already on the GL backend")
def test_gl_backend():
    """Every test above on wgpu's OpenGL backend (llvmpipe through GL: no subgroups, so the
    blocked layout and barrier-only block scans), in a subprocess."""
    env = child_env(WGPU_BACKEND_TYPE="OpenGL", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    here = Path(__file__).resolve()
    cmd = isolated_pytest("-q", "-x", str(here), str(here.parent / "test_compaction_single_pass.py"),
                          "-k", "not gl_backend")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1500, cwd=here.parents[2])
    if "NoAdapterError" in proc.stdout + proc.stderr:
        pytest.skip("no OpenGL adapter")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
