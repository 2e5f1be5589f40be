"""Single-pass compaction (count, chained scan of the counts, scatter in one dispatch)
against numpy: values and indices, every value dtype, awkward sizes, sparse / dense /
empty / full masks, chunked inputs, and the forced-fallback modes, exactly."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import compaction
from wgprim.ops.unique_dense import UniqueDensePolicy
from wgprim.tuning import using
from wgprim.ops.chained_scan import Fault

from support import block_scan_path

DTYPES = [np.uint32, np.int32, np.float32]
SIZES = [1, 3, 4, 5, 255, 256, 257, 4095, 4096, 4097, 65537, 300_001]
FAULTS = [None, Fault("silent", 7, 3), Fault("late", 5, 1, 4000), Fault("aggregate-only", 3, 0),
          Fault("silent", 1, 0)]
ON_GL = os.environ.get("WGPU_BACKEND_TYPE", "").lower() == "opengl"


@pytest.fixture(params=["subgroups", "barriers"])
def path(request, device):
    with block_scan_path(device, request.param) as chosen:
        yield chosen


def values(rng, n, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(0, 2**31 - 1, n).astype(dtype)


def masks(rng, n):
    yield rng.random(n) < 0.5
    yield rng.random(n) < 0.01
    yield np.zeros(n, bool)
    yield np.ones(n, bool)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_values_and_indices(n, dtype, rng, path):
    x = values(rng, n, dtype)
    for m in masks(rng, n):
        got, _ = compaction.compact_single_pass(x, m)
        np.testing.assert_array_equal(got.numpy(), x[m])
        got, _ = compaction.compact_single_pass(None, m)
        np.testing.assert_array_equal(got.numpy(), np.flatnonzero(m))


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: "none" if f is None else f"{f.mode}-{f.every}")
def test_forced_fallback_is_exact(fault, rng, path):
    n = 4096 * 40 + 333 if fault is not None and fault.every == 1 else 4096 * 120 + 7
    x = values(rng, n, np.float32)
    m = rng.random(n) < 0.4
    got, stats = compaction.compact_single_pass(x, m, spin_budget=0, fault=fault)
    np.testing.assert_array_equal(got.numpy(), x[m])
    got, _ = compaction.compact_single_pass(None, m, spin_budget=0, fault=fault)
    np.testing.assert_array_equal(got.numpy(), np.flatnonzero(m))
    if fault is not None and fault.mode == "silent":
        assert stats["fallbacks"] >= 1


@pytest.mark.parametrize("per_lane", [2, 4])
def test_forced_fallback_several_states_per_lane(per_lane, rng, path):
    n = 4096 * 120 + 7
    x = values(rng, n, np.float32)
    m = rng.random(n) < 0.4
    for fault in FAULTS[1:4]:
        got, _ = compaction.compact_single_pass(x, m, spin_budget=0, fault=fault, per_lane=per_lane)
        np.testing.assert_array_equal(got.numpy(), x[m])
        got, _ = compaction.compact_single_pass(None, m, spin_budget=0, fault=fault, per_lane=per_lane)
        np.testing.assert_array_equal(got.numpy(), np.flatnonzero(m))


@pytest.mark.skipif(ON_GL, reason="several million elements: lavapipe only")
def test_forced_fallback_several_million(rng):
    n = 3_000_017
    x = values(rng, n, np.int32)
    m = rng.random(n) < 0.5
    for fault in FAULTS[1:4]:
        got, _ = compaction.compact_single_pass(x, m, spin_budget=0, fault=fault)
        np.testing.assert_array_equal(got.numpy(), x[m])


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 50_000), p=st.floats(0, 1), every=st.integers(1, 6),
       mode=st.sampled_from(sorted(Fault.MODES)), seed=st.integers(0, 2**31))
def test_forced_fallback_hypothesis(n, p, every, mode, seed):
    rng = np.random.default_rng(seed)
    x = values(rng, n, np.uint32)
    m = rng.random(n) < p
    got, _ = compaction.compact_single_pass(x, m, spin_budget=seed % 3, fault=Fault(mode, every, seed % every, 300))
    np.testing.assert_array_equal(got.numpy(), x[m])


def test_chunked_input(rng, path):
    n = 70_001
    x = values(rng, n, np.float32)
    m = rng.random(n) < 0.5
    with binding_limit(16384 * 2):  # two tiles per binding
        got, _ = compaction.compact_single_pass(x, m, spin_budget=0, fault=Fault("silent", 3, 1))
        np.testing.assert_array_equal(got.numpy(), x[m])
        got, _ = compaction.compact_single_pass(None, m)
        np.testing.assert_array_equal(got.numpy(), np.flatnonzero(m))


def test_public_entry_points_take_it(rng):
    # compact / nonzero / unique / run_length_encode below SINGLE_PASS_UP_TO go through it
    # (unique by sorting: narrow integer ranges would take the bitmap instead)
    n = 100_003
    assert compaction.single_pass_default(n)
    x = rng.integers(0, 50, n).astype(np.int32)
    m = rng.random(n) < 0.3
    np.testing.assert_array_equal(wgprim.compact(x, m).numpy(), x[m])
    np.testing.assert_array_equal(wgprim.nonzero(m).numpy(), np.flatnonzero(m))
    with using(UniqueDensePolicy, enabled=False):
        np.testing.assert_array_equal(wgprim.unique(x).numpy(), np.unique(x))
    s = np.sort(x)
    v, c = wgprim.run_length_encode(s)
    ref_v, ref_c = np.unique(s, return_counts=True)
    np.testing.assert_array_equal(v.numpy(), ref_v)
    np.testing.assert_array_equal(c.numpy(), ref_c)


@pytest.mark.parametrize("method", ["single-pass", "three-phase"])
@pytest.mark.parametrize("n", [1, 4097, 300_001])
def test_compact_and_nonzero_take_either_method(method, n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    mask = rng.random(n) < 0.4
    np.testing.assert_array_equal(wgprim.compact(x, mask, method=method).numpy(), x[mask])
    np.testing.assert_array_equal(wgprim.nonzero(mask, method=method).numpy(), np.flatnonzero(mask))


def test_compact_method_errors():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="method must be one of"):
        wgprim.compact(x, x > 3, method="two-pass")
    with pytest.raises(ValueError, match="append-buffer"):
        wgprim.compact(x, x > 3, ordered=False, method="single-pass")
