"""partition, argpartition and kth_smallest against numpy's promise, bit for bit: the
element at every k-th is the one a stable sort puts there (its own bits), nothing before
it is greater, nothing after it smaller, the result holds the input's elements, and
argpartition indexes the input. Every key dtype, one and several k-ths, negative ones,
rows, other axes, awkward floats, and inputs beyond one storage binding."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import partition as partition_ops
from wgprim.ops.order_key import host_keys
from wgprim.ops.partition import PartitionPolicy
from wgprim.tuning import using

from support import check_binding_sizes

DTYPES = [np.float32, np.int32, np.uint32, np.float64, np.int64, np.uint64]
NAN32 = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FC0BEEF]
NAN64 = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF80000DEADBEEF]


def bits(a):
    a = np.asarray(a)
    return a.view(np.uint64 if a.itemsize == 8 else np.uint32)


def values(rng, n, dtype, kind="spread"):
    dtype = np.dtype(dtype)
    if kind == "few":
        return rng.integers(0, 4, n).astype(dtype)
    if dtype.kind == "f":
        x = (rng.standard_normal(n) * 1e3).astype(dtype)
        if kind == "awkward":  # both zeros, NaNs with payloads, denormals, infinities
            nans = np.array(NAN64 if dtype.itemsize == 8 else NAN32, np.uint64 if dtype.itemsize == 8 else np.uint32)
            tiny = np.finfo(dtype).smallest_subnormal
            specials = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, tiny, -tiny, 3 * tiny], dtype),
                                       nans.view(dtype)])
            pick = rng.random(n) < 0.4
            x[pick] = rng.choice(specials, int(pick.sum()))
        return x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if kind == "awkward":  # the extremes of the dtype
        pick = rng.random(n) < 0.3
        x[pick] = rng.choice(np.array([info.min, info.max, 0, 1], dtype), int(pick.sum()))
    return x


def check_line(x, res, idx, kths):
    """One line: res (partition) and idx (argpartition) of x at the k-ths."""
    stable = np.sort(x, kind="stable")
    for k in kths:
        assert bits(res[k]) == bits(stable[k]), (k, res[k], stable[k])
        keys, pivot = host_keys(res), host_keys(stable[k:k + 1])[0]
        assert np.all(keys[:k] <= pivot) and np.all(keys[k + 1:] >= pivot), k
    assert np.array_equal(np.sort(bits(res)), np.sort(bits(x)))
    assert np.array_equal(np.sort(idx), np.arange(x.size))
    assert np.array_equal(bits(x[idx]), bits(res))  # both the same stable split


def check(x, kth, axis=-1):
    res = wgprim.partition(x, kth, axis=axis).numpy()
    idx = wgprim.argpartition(x, kth, axis=axis).numpy().astype(np.int64)
    assert res.dtype == x.dtype and idx.shape == res.shape
    if axis is None:
        x, res, idx, axis = x.ravel(), res.ravel(), idx.ravel(), 0
    n = x.shape[axis]
    kths = [k % n for k in np.atleast_1d(kth)]
    lines = np.moveaxis(x, axis, -1).reshape(-1, n)
    for line, r, i in zip(lines, np.moveaxis(res, axis, -1).reshape(-1, n), np.moveaxis(idx, axis, -1).reshape(-1, n)):
        check_line(line, r, i, kths)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2049, 5 * 2048 + 3])  # one element, around a tile, several tiles
def test_partition_1d(dtype, n, rng):
    x = values(rng, n, dtype, "awkward" if n % 2 else "spread")
    for kth in sorted({0, n // 2, -1}):
        check(x, kth)
    check(x, [0, n // 3, -1])


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_many_ties_and_duplicate_kths(dtype, rng):
    x = values(rng, 30_001, dtype, "few")
    check(x, [5, 5, 7_000, 7_001, 30_000, -30_001])
    check(x, np.uint16(15_000))  # any integer scalar type


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_more_kths_than_one_split_takes_sort(dtype, rng):
    x = values(rng, 3001, dtype, "awkward")
    kths = list(range(0, 3001, 300))
    assert len(kths) > partition_ops.MAX_PIVOTS
    check(x, kths)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 9000), dtype=st.sampled_from(DTYPES), kind=st.sampled_from(["awkward", "few", "spread"]),
       picks=st.sampled_from([1, 3]), seed=st.integers(0, 2**31))
def test_hypothesis(n, dtype, kind, picks, seed):
    rng = np.random.default_rng(seed)
    x = values(rng, n, dtype, kind)
    check(x, list(rng.integers(-n, n, picks)))


def test_rows_and_axes(rng):
    x = values(rng, 5 * 6 * 7, np.float32, "awkward").reshape(5, 6, 7)
    for axis in (-1, 0, 1, None):
        check(x, 2, axis=axis)
    check(x, [0, -1], axis=-1)
    # long rows: a few split one at a time, many sorted together (the rule, made small)
    y = values(rng, 3 * 500, np.int32, "few").reshape(3, 500)
    z = values(rng, 2 * 300, np.float64, "awkward").reshape(2, 300)  # 64-bit rows: one at a time
    with using(PartitionPolicy, short_row=64):
        check(y, [1, 250])
        check(z, 150)
        with using(PartitionPolicy, rows_one_at_a_time=2):
            check(y, [1, 250])


def test_beyond_one_binding(rng, monkeypatch):
    check_binding_sizes(monkeypatch)
    for dtype in (np.float32, np.int64):  # the select's histograms take 147 KiB: no less
        x = values(rng, 400_003 // np.dtype(dtype).itemsize, dtype, "awkward")
        with binding_limit(256 * 1024):  # two windows
            check(x, [3, x.size // 2])
            v, i = wgprim.kth_smallest(x, 7)
            assert int(i.item()) == np.argsort(x, kind="stable")[7]


def test_kth_smallest(rng):
    for dtype in (np.float32, np.uint64, np.float64):
        x = values(rng, 7000, dtype, "awkward")
        order = np.argsort(x, kind="stable")
        for k in (0, 3500, -1):
            v, i = wgprim.kth_smallest(x, k)
            assert v.shape == () and i.shape == () and i.dtype == np.uint32
            assert int(i.item()) == order[k] and bits(v.numpy()) == bits(x[order[k]])
    x = values(rng, 4 * 50, np.int32, "few").reshape(4, 50)
    for axis, k in ((-1, 7), (0, -2)):
        v, i = wgprim.kth_smallest(x, k, axis=axis)
        order = np.argsort(x, axis=axis, kind="stable")
        np.testing.assert_array_equal(i.numpy(), np.take(order, k, axis=axis))
        np.testing.assert_array_equal(v.numpy(), np.take(np.sort(x, axis=axis, kind="stable"), k, axis=axis))


def test_numpy_errors():
    x = np.arange(5, dtype=np.float32)
    with pytest.raises(ValueError, match=r"kth\(=5\) out of bounds \(5\)"):
        wgprim.partition(x, 5)
    with pytest.raises(ValueError, match=r"kth\(=-1\) out of bounds"):
        wgprim.argpartition(x, -6)
    with pytest.raises(ValueError, match="Booleans"):
        wgprim.partition(x, True)
    with pytest.raises(TypeError, match="integer"):
        wgprim.partition(x, 1.5)
    with pytest.raises(ValueError, match="introselect"):
        wgprim.partition(x, 1, kind="quicksort")
    with pytest.raises(NotImplementedError, match="order="):
        wgprim.partition(x, 1, order="f")
    with pytest.raises(np.exceptions.AxisError):
        wgprim.partition(x, 1, axis=1)
    with pytest.raises(TypeError):
        wgprim.partition(x.astype(np.float16), 1)
    with pytest.raises(ValueError, match="out of range"):
        wgprim.kth_smallest(x, 5)
    with pytest.raises(TypeError):
        wgprim.kth_smallest(x, True)
    assert wgprim.partition(np.zeros(0, np.float32), 3).shape == (0,)  # numpy: no bounds for empty input
    assert wgprim.argpartition(np.zeros((0, 3), np.int32), 5).shape == (0, 3)
