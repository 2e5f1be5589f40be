"""Run by tests/ops/test_lookback_concurrency.py in a subprocess, under a chosen
LP_NUM_THREADS (lavapipe's worker threads: workgroups really run side by side, and it
hands each thread a contiguous range of a dispatch's workgroups) or on the OpenGL backend:
every primitive built on the chained look-back, at sizes past 2^24, against numpy bit for
bit. `python lookback_child.py CASE [CASE ...]` runs the named cases (`all`: every one);
it prints one line per case and exits non-zero on the first wrong result."""
import sys
import time

import numpy as np

import wgprim
from wgprim.ops import chained_scan as cs
from wgprim.ops.compaction import compact_single_pass


def cumsum_u32(rng):
    # The repro: 8192 wrong from 14,999,552 (one tile) on 2 threads before the fix.
    x = np.random.default_rng(1).integers(0, 100, 30_000_000).astype(np.uint32)
    np.testing.assert_array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x, dtype=np.uint32))


def cumsum_ones_i32(rng):
    x = np.ones(2**25 - 1, np.int32)
    np.testing.assert_array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x, dtype=np.int32))


def scan_max_i64(rng):
    x = rng.integers(-2**62, 2**62, 2**24 + 3, dtype=np.int64)
    np.testing.assert_array_equal(wgprim.scan(x, "max").numpy(), np.maximum.accumulate(x))


def scan_exclusive_sum_f32(rng):
    # Float sums publish no fallback (every tile reduces its predecessors itself): small
    # integers, so every partial sum is exact in float32 and the check can be exact too.
    x = (rng.random(2**24 + 4097) < 0.25).astype(np.float32)  # partial sums stay below 2^24
    got = wgprim.scan(x, "sum", exclusive=True).numpy()
    ref = np.concatenate([[0], np.cumsum(x.astype(np.float64))[:-1]]).astype(np.float32)
    np.testing.assert_array_equal(got, ref)


def random_spin_budgets(rng):
    # Each tile its own spin budget in 0..4 (SPIN_SEED): some fall back, some don't.
    x = rng.integers(0, 2**32, 2**24 + 12_345, dtype=np.uint32)
    for seed in (1, 0x9E3779B9):
        got, stats = cs.chained_scan(x, "sum", spin_seed=seed, stats=True)
        np.testing.assert_array_equal(got.numpy(), np.cumsum(x, dtype=np.uint32))
        got, _ = cs.chained_scan(x, "bitwise_xor", exclusive=True, spin_seed=seed)
        ref = np.concatenate([[0], np.bitwise_xor.accumulate(x)[:-1]]).astype(np.uint32)
        np.testing.assert_array_equal(got.numpy(), ref)
    f = (rng.random(2**24 + 1) < 0.25).astype(np.float32)
    got, _ = cs.chained_scan(f, "sum", spin_seed=7)
    np.testing.assert_array_equal(got.numpy(), np.cumsum(f.astype(np.float64)).astype(np.float32))
    mask = rng.random(2**24 + 3) < 0.3
    kept, _ = compact_single_pass(None, mask, spin_seed=11)
    np.testing.assert_array_equal(kept.numpy(), np.flatnonzero(mask))


def compact_and_nonzero(rng):
    n = 2**24
    x = rng.standard_normal(n).astype(np.float32)
    mask = rng.random(n) < 0.5
    np.testing.assert_array_equal(wgprim.compact(x, mask, method="single-pass").numpy(), x[mask])
    np.testing.assert_array_equal(wgprim.nonzero(mask, method="single-pass").numpy(), np.flatnonzero(mask))
    got = np.sort(wgprim.compact(x, mask, ordered=False).numpy())
    np.testing.assert_array_equal(got, np.sort(x[mask]))


def run_length(rng):
    x = rng.integers(0, 3, 2**24 - 1).astype(np.uint32)
    values, counts = wgprim.run_length_encode(x)
    starts = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]]))
    np.testing.assert_array_equal(values.numpy(), x[starts])
    np.testing.assert_array_equal(counts.numpy(), np.diff(np.concatenate([starts, [x.size]])))


def unique_f32(rng):
    x = np.round(rng.standard_normal(2**24 - 1) * 1000).astype(np.float32)
    values, counts = wgprim.unique(x, return_counts=True)
    ref_values, ref_counts = np.unique(x, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), ref_values)
    np.testing.assert_array_equal(counts.numpy(), ref_counts)


CASES = {f.__name__: f for f in (cumsum_u32, cumsum_ones_i32, scan_max_i64, scan_exclusive_sum_f32,
                                 random_spin_budgets, compact_and_nonzero, run_length, unique_f32)}


def main(names):
    rng = np.random.default_rng(2026_12_04)
    for name in (list(CASES) if names == ["all"] else names):
        start = time.perf_counter()
        CASES[name](rng)
        print(f"{name}: ok ({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
