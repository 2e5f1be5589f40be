"""64-bit keys (uint64, int64, float64) and several keys (lexsort) against numpy's stable
sort, bit for bit: chains of 32-bit sorts (ops/lexsort.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wgprim
from wgprim.api.segmented import segment_sort
from wgprim.api.sort import SortPlan, argsort, lexsort, sort, sort_pairs
from wgprim.array import asarray
from wgprim.device import binding_limit

from support import forced_ranking_path

WIDE = [np.uint64, np.int64, np.float64]
F64_SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 5e-324, -5e-324, 2.2250738585072014e-308,
                         np.finfo(np.float64).max, np.finfo(np.float64).min], np.float64)
NANS = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF,
                 0x7FF00000DEADBEEF], np.uint64).view(np.float64)  # payloads and both signs


def keys64(n, dtype, rng, few=False):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.integers(-4, 4, n).astype(dt) if few else rng.standard_normal(n) * 1e300 ** rng.random(n)
        x = np.asarray(x, dt)
        if n:
            at = rng.integers(0, n, (2, max(1, n // 5)))
            x[at[0]] = rng.choice(F64_SPECIALS, at.shape[1])
            x[at[1]] = rng.choice(NANS, at.shape[1])
        return x
    info = np.iinfo(dt)
    if few:
        return rng.integers(0, 5, n).astype(dt) - (dt.kind == "i") * dt.type(2)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    x[:: 7] = rng.choice(np.array([info.min, info.max, 0, 1, info.max - 1], dt), x[::7].size)
    x[1::11] &= dt.type(0xFFFFFFFF)  # equal high words: the low word decides
    return x


def bits(a):
    a = np.ascontiguousarray(np.asarray(a))
    return a.view(np.uint64) if a.itemsize == 8 else a.view(np.uint32)


def order_of(x, descending=False):
    if not descending:
        return np.argsort(x, kind="stable")
    n = x.size
    return (n - 1 - np.argsort(x[::-1], kind="stable"))[::-1]


def check(x, descending=False):
    order = order_of(x, descending)
    np.testing.assert_array_equal(bits(sort(x, descending=descending).numpy()), bits(x[order]))
    np.testing.assert_array_equal(argsort(x, descending=descending).numpy(), order)
    for values in (np.arange(x.size, dtype=np.float32) - 3, (np.arange(x.size, dtype=np.int64) << 33) - 5):
        k, v = sort_pairs(x, values, descending=descending)
        np.testing.assert_array_equal(bits(k.numpy()), bits(x[order]))
        np.testing.assert_array_equal(bits(v.numpy()), bits(values[order]))


@pytest.mark.parametrize("dtype", WIDE)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 2047, 2049, 12_345])
def test_sizes(n, dtype):
    rng = np.random.default_rng(n)
    x = keys64(n, dtype, rng)
    check(x)
    check(x, descending=True)
    check(keys64(n, dtype, rng, few=True), descending=n % 2 == 1)


@settings(max_examples=15, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(0, 3000),
                    elements=st.one_of(st.floats(allow_nan=False), st.sampled_from(list(F64_SPECIALS)),
                                       st.sampled_from(list(NANS)))),
       descending=st.booleans())
def test_hypothesis_float64(x, descending):
    check(x, descending)


@pytest.mark.parametrize("path", ["splits", "no-subgroups"])
def test_other_ranking_paths(path):
    """The chains on the split ranking (the default test run takes the match path)."""
    with forced_ranking_path(path):
        rng = np.random.default_rng(len(path))
        for dtype in WIDE:
            check(keys64(6000, dtype, rng), descending=dtype == np.float64)
        a, b = keys64(6000, np.float64, rng, few=True), rng.integers(0, 3, 6000).astype(np.float32)
        np.testing.assert_array_equal(lexsort((a, b)).numpy(), np.lexsort((a, b)))


def test_bits_of_equal_keys_kept():
    x = np.concatenate([NANS, [0.0, -0.0, -0.0, 0.0, 1.0]] * 40)
    check(x)
    check(x, descending=True)
    s = sort(x).numpy()
    assert bits(s[np.isnan(s)]).tolist() == bits(x[np.isnan(x)]).tolist()  # every payload, in input order


def test_chunked():
    """Keys, words and gathers in windows of a small binding limit."""
    rng = np.random.default_rng(3)
    x = keys64(20_000, np.float64, rng)
    i = keys64(20_000, np.int64, rng)
    with binding_limit(64 * 1024):
        check(x)
        np.testing.assert_array_equal(bits(sort(i, descending=True).numpy()), bits(i[order_of(i, True)]))


@pytest.mark.parametrize("dtype", WIDE)
def test_plan(dtype):
    rng = np.random.default_rng(4)
    n = 3000
    x = keys64(n, dtype, rng)
    order = order_of(x, True)
    np.testing.assert_array_equal(bits(SortPlan(n, dtype, descending=True)(x).numpy()), bits(x[order]))
    plan = SortPlan(n, dtype, what="argsort", descending=True)
    gx = asarray(x)
    for _ in range(2):
        np.testing.assert_array_equal(plan(gx).numpy(), order)
    values = rng.integers(0, 2**60, n).astype(np.int64)
    k, v = SortPlan(n, dtype, what="pairs", descending=True)(x, values)
    np.testing.assert_array_equal(bits(k.numpy()), bits(x[order]))
    np.testing.assert_array_equal(v.numpy(), values[order])
    with pytest.raises(ValueError, match="skip_digits"):
        SortPlan(n, dtype, skip_digits=True)


def _along(x, axis, descending):
    moved = np.moveaxis(x, axis, -1)
    order = np.apply_along_axis(lambda row: order_of(row, descending), -1, moved)
    return np.moveaxis(np.take_along_axis(moved, order, -1), -1, axis), np.moveaxis(order, -1, axis)


@pytest.mark.parametrize("dtype", WIDE)
def test_axis(dtype):
    rng = np.random.default_rng(5)
    x = keys64(3 * 5 * 70, dtype, rng, few=True).reshape(3, 5, 70)
    values = rng.standard_normal(x.shape)
    for axis in (-1, 1, 0):
        for descending in (False, True):
            keys, order = _along(x, axis, descending)
            np.testing.assert_array_equal(bits(sort(x, axis=axis, descending=descending).numpy()), bits(keys))
            np.testing.assert_array_equal(argsort(x, axis=axis, descending=descending).numpy(), order)
            k, v = sort_pairs(x, values, axis=axis, descending=descending)
            np.testing.assert_array_equal(bits(k.numpy()), bits(keys))
            np.testing.assert_array_equal(v.numpy(), np.take_along_axis(values, order, axis))
    np.testing.assert_array_equal(bits(sort(x, axis=None).numpy()), bits(x.ravel()[order_of(x.ravel())]))


@pytest.mark.parametrize("dtype", WIDE + [np.float32])
def test_segment_sort(dtype):
    """64-bit keys, or 32-bit keys with 8-byte values: the region between the first and
    the last offset sorted segment by segment, the rest left as it is."""
    rng = np.random.default_rng(6)
    n = 3000
    with np.errstate(invalid="ignore", over="ignore"):  # float64 NaNs and extremes cast to float32
        x = keys64(n, np.float64 if dtype == np.float32 else dtype, rng, few=True).astype(dtype)
    values = rng.integers(-(2**62), 2**62, n)
    offsets = np.array([10, 10, 15, 700, 2900, 2990])
    for descending in (False, True):
        k, v = segment_sort(x, offsets, values, descending=descending)
        want_k, want_v = x.copy(), values.copy()
        for a, b in zip(offsets[:-1], offsets[1:]):
            o = a + order_of(x[a:b], descending)
            want_k[a:b], want_v[a:b] = x[o], values[o]
        np.testing.assert_array_equal(bits(k.numpy()), bits(want_k))
        np.testing.assert_array_equal(v.numpy(), want_v)
    if dtype != np.float32:
        whole = segment_sort(x, [0, 1000, n])
        halves = np.concatenate([order_of(x[:1000]), 1000 + order_of(x[1000:])])
        np.testing.assert_array_equal(bits(whole.numpy()), bits(x[halves]))


def test_lexsort():
    rng = np.random.default_rng(7)
    n = 4000
    a = rng.integers(0, 4, n).astype(np.int64) - 2
    b = keys64(n, np.float64, rng, few=True)
    c = rng.integers(0, 3, n).astype(np.uint32)
    d = rng.standard_normal(n).astype(np.float32).round()
    d[::5] = -0.0
    d[1::7] = np.nan
    e = rng.integers(0, 2, n).astype(np.uint64) << np.uint64(40)
    for keys in [(a,), (b, a), (c, d, b), (a, b, c, d, e), [e, c]]:
        np.testing.assert_array_equal(lexsort(keys).numpy(), np.lexsort(keys))
    m = rng.integers(0, 3, (3, 257)).astype(np.int32)
    np.testing.assert_array_equal(lexsort(m).numpy(), np.lexsort(m))
    assert lexsort((np.zeros(0, np.int32),)).size == 0 and lexsort([a]).dtype == np.uint32
    with pytest.raises(TypeError, match="len > 0"):
        lexsort(())
    with pytest.raises(ValueError, match="same shape"):
        lexsort((a, a[:-1]))
    with pytest.raises(TypeError):
        lexsort((a.astype(np.int16),))
    with binding_limit(64 * 1024):
        big = rng.integers(0, 9, 20_000).astype(np.int64), rng.integers(0, 9, 20_000).astype(np.float32)
        np.testing.assert_array_equal(lexsort(big).numpy(), np.lexsort(big))


def test_bitonic_refuses_64_bit_keys():
    with pytest.raises(TypeError, match="bitonic"):
        sort(np.zeros(4, np.int64), method="bitonic")
    assert wgprim.lexsort is lexsort
