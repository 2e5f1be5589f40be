"""segment_reduce / segment_scan / segment_sort against per-segment numpy: short and long
segments, empty ones, segments not covering the input, every key dtype, offsets errors."""
import numpy as np
import pytest

import wgprim

from support import random_values


def random_offsets(rng, n, count, longest, lead=0, tail=0):
    lengths = rng.integers(0, longest + 1, count)
    lengths[rng.random(count) < 0.1] = 0  # some empty segments
    offsets = lead + np.concatenate([[0], np.cumsum(lengths)])
    return np.minimum(offsets, n - tail).astype(np.int64)


def pieces(offsets):
    return list(zip(offsets[:-1], offsets[1:]))


def stable_key(seg, descending):
    if seg.dtype.kind == "f":
        key = np.where(np.isnan(seg), np.inf, np.where(seg == 0, 0, seg)).astype(np.float64)
    else:
        key = seg.astype(np.float64)
    return -key if descending else key


CASES = [(1000, 40, 50, 0, 0), (3000, 30, 200, 5, 7), (20000, 4, 9000, 1, 3), (5000, 3, 2047, 0, 0), (50, 0, 0, 2, 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_segment_sort(case, dtype, rng):
    n, count, longest, lead, tail = case
    keys = rng.integers(-20, 20, n).astype(dtype) if dtype != np.uint32 else rng.integers(0, 40, n).astype(dtype)
    if dtype == np.float32:
        keys[::11] = np.nan
        keys[1::13] = -0.0
    values = np.arange(n, dtype=np.uint32)
    offsets = random_offsets(rng, n, count, longest, lead, tail)
    for descending in (False, True):
        k, v = wgprim.segment_sort(keys, offsets, values, descending=descending)
        k, v = k.numpy(), v.numpy()
        ref_k, ref_v = keys.copy(), values.copy()
        for a, b in pieces(offsets):
            order = np.argsort(stable_key(keys[a:b], descending), kind="stable")
            ref_k[a:b], ref_v[a:b] = keys[a:b][order], values[a:b][order]
        np.testing.assert_array_equal(v, ref_v)
        np.testing.assert_array_equal(k, ref_k)
    only = wgprim.segment_sort(keys, offsets).numpy()
    np.testing.assert_array_equal(only, wgprim.segment_sort(keys, offsets, values)[0].numpy())


@pytest.mark.parametrize("op", ["sum", "max", "argmin", "bitwise_xor"])
@pytest.mark.parametrize("case", CASES + [(300_000, 3, 120_000, 0, 0)], ids=str)
def test_segment_reduce(case, op, rng):
    n, count, longest, lead, tail = case
    x = random_values(rng, n, np.int32)
    offsets = random_offsets(rng, n, count, longest, lead, tail)
    lengths = np.diff(offsets)
    if op in ("max", "argmin") and np.any(lengths == 0):
        with pytest.raises(ValueError, match="empty segment"):
            wgprim.segment_reduce(x, offsets, op)
        offsets = np.concatenate([[offsets[0]], offsets[1:][lengths > 0]])
    got = wgprim.segment_reduce(x, offsets, op).numpy()
    ref = {
        "sum": lambda s: s.sum(dtype=np.int32), "max": np.max, "argmin": np.argmin,
        "bitwise_xor": lambda s: np.bitwise_xor.reduce(s) if s.size else 0,
    }[op]
    np.testing.assert_array_equal(got, np.array([ref(x[a:b]) for a, b in pieces(offsets)]).astype(got.dtype))


@pytest.mark.parametrize("case", CASES + [(300_000, 3, 120_000, 2, 1)], ids=str)
def test_segment_scan(case, rng):
    n, count, longest, lead, tail = case
    x = random_values(rng, n, np.int32)
    offsets = random_offsets(rng, n, count, longest, lead, tail)
    for exclusive in (False, True):
        got = wgprim.segment_scan(x, offsets, "sum", exclusive=exclusive).numpy()
        ref = x.copy()
        for a, b in pieces(offsets):
            c = np.cumsum(x[a:b], dtype=np.int32)
            ref[a:b] = np.concatenate([[0], c[:-1]]).astype(np.int32) if exclusive and b > a else c
        np.testing.assert_array_equal(got, ref)
    f = random_values(rng, n, np.float32)
    got = wgprim.segment_scan(f, offsets, "min").numpy()
    ref = f.copy()
    for a, b in pieces(offsets):
        ref[a:b] = np.minimum.accumulate(f[a:b])
    np.testing.assert_array_equal(got, ref)


def test_offsets_are_validated():
    x = np.zeros(10, np.float32)
    with pytest.raises(ValueError, match="must not decrease"):
        wgprim.segment_sort(x, [0, 5, 3, 10])
    with pytest.raises(ValueError, match="past the end"):
        wgprim.segment_reduce(x, [0, 11])
    with pytest.raises(ValueError, match=">= 0"):
        wgprim.segment_scan(x, [-1, 4])
    with pytest.raises(TypeError, match="integers"):
        wgprim.segment_sort(x, np.array([0.0, 5.0]))
    with pytest.raises(ValueError, match="1-D"):
        wgprim.segment_sort(x, np.zeros((2, 2), np.int32))
    with pytest.raises(ValueError, match="1-D"):
        wgprim.segment_sort(x, np.zeros(0, np.int32))
    assert wgprim.segment_reduce(x, [4]).shape == (0,)
    np.testing.assert_array_equal(wgprim.segment_sort(np.arange(5, 0, -1, dtype=np.int32), [2, 2]).numpy(),
                                  [5, 4, 3, 2, 1])


def test_non_commutative_scan_keeps_order_in_pieces_and_columns(rng):
    # "last non-zero so far": associative, not commutative; long segments are cut into
    # pieces, long columns too.
    last = wgprim.Monoid("select(a, b, b != 0u)", identity=0)

    def ref_last(x):
        idx = np.where(x != 0, np.arange(x.size), 0)
        out = x[np.maximum.accumulate(idx)]
        out[: np.argmax(x != 0) if x.any() else x.size] = 0
        return out

    x = (rng.integers(0, 3, 200_000) * (rng.random(200_000) < 0.001)).astype(np.uint32)
    offsets = [0, 5, 70_000, 200_000]
    got = wgprim.segment_scan(x, offsets, last).numpy()
    ref = np.concatenate([ref_last(x[a:b]) for a, b in pieces(np.array(offsets))])
    np.testing.assert_array_equal(got, ref)
    y = x[:150_000].reshape(50_000, 3)
    got = wgprim.scan(y, last, axis=0).numpy()
    np.testing.assert_array_equal(got, np.stack([ref_last(y[:, c]) for c in range(3)], axis=1))
