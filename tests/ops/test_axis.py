"""axis= and keepdims= for reductions and scans, and sort/argsort/sort_pairs along the
last axis, against numpy: every axis of 2-D and 3-D shapes, every operator and dtype."""
import numpy as np
import pytest

import wgprim
from wgprim.ops import axis as axis_ops
from wgprim.ops.order_key import host_min_max
from wgprim.tuning import using

from support import informative, random_values

SHAPES = [(1, 1), (5, 7), (3, 300), (300, 3), (2, 70001), (17, 4, 33), (2, 3, 5000), (70, 1, 9)]
DTYPES = [np.float32, np.int32, np.uint32]


def numpy_reduce(x, op, axis, keepdims=False):
    if op in ("sum", "prod"):
        if x.dtype.kind in "iu":
            return getattr(np, op)(x, axis=axis, dtype=x.dtype, keepdims=keepdims)
        return getattr(np, op)(x.astype(np.float64), axis=axis, keepdims=keepdims)
    if op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        return getattr(np, op).reduce(x, axis=axis, keepdims=keepdims)
    return getattr(np, op)(x, axis=axis, keepdims=keepdims)


def check(x, op, axis, got, keepdims=False):
    ref = numpy_reduce(x, op, axis, keepdims)
    assert got.shape == ref.shape, (op, axis, got.shape, ref.shape)
    if x.dtype.kind == "f" and op == "sum":
        length = x.shape[axis]
        bound = (length + 64) * np.finfo(np.float32).eps * np.abs(x.astype(np.float64)).sum(axis=axis, keepdims=keepdims)
        assert np.all(np.abs(got - ref) <= bound + 1e-30), (op, axis)
    elif x.dtype.kind == "f" and op == "prod":
        np.testing.assert_allclose(got, ref, rtol=x.shape[axis] * 2e-7)
    else:
        np.testing.assert_array_equal(got, ref.astype(got.dtype) if op.startswith("arg") else ref)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_reductions_along_every_axis(shape, dtype, rng):
    ops = ["sum", "min", "max", "argmin", "argmax"] + ([] if dtype == np.float32 else ["prod", "bitwise_or"])
    for op in ops:
        x = informative(rng, int(np.prod(shape)), dtype, op).reshape(shape)
        if dtype == np.float32 and op == "prod":
            continue
        for ax in range(-len(shape), len(shape)):
            check(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())


def test_named_reductions_and_keepdims(rng):
    x = random_values(rng, 4 * 5 * 6, np.float32).reshape(4, 5, 6)
    for name in ("sum", "min", "max", "argmin", "argmax"):
        fn = getattr(wgprim, name)
        for ax in (0, 1, 2, -1):
            check(x, name, ax, fn(x, axis=ax).numpy())
            if not name.startswith("arg") or np.lib.NumpyVersion(np.__version__) >= "1.22.0":
                check(x, name, ax, fn(x, axis=ax, keepdims=True).numpy(), keepdims=True)
    assert wgprim.sum(x, keepdims=True).shape == (1, 1, 1)
    x3 = rng.uniform(0.9, 1.1, (3, 4, 5)).astype(np.float32)
    for ax in range(3):
        check(x3, "prod", ax, wgprim.prod(x3, axis=ax).numpy())


def test_nan_and_ties_follow_numpy(rng):
    x = rng.integers(0, 3, (40, 50)).astype(np.float32)
    x[3, 7] = x[10, 20] = x[10, 21] = np.nan
    x[5, :] = -0.0
    x[6, :] = 1e-40  # denormals: compared through order keys, never flushed
    x[6, 9] = 2e-40
    for ax in (0, 1):
        for op in ("min", "max", "argmin", "argmax"):
            check(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())


def test_split_along_a_long_axis(rng):
    # Few columns, long axis: pieces reduced side by side, then combined.
    x = random_values(rng, 4 * 300_000, np.int32).reshape(4, 300_000)
    for ax in (0, 1):
        for op in ("sum", "max", "argmin"):
            check(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())
    y = random_values(rng, 3 * 5000 * 2, np.uint32).reshape(3, 5000, 2)
    with using(axis_ops.AxisPolicy, busy_invocations=1 << 30):  # force the split on small data
        assert axis_ops.axis_pieces(6, 5000) > 1
        for ax in range(3):
            check(y, "argmax", ax, wgprim.argmax(y, axis=ax).numpy())
            check(y, "sum", ax, wgprim.sum(y, axis=ax).numpy())


def test_empty_axes(rng):
    x = np.zeros((0, 3), np.float32)
    np.testing.assert_array_equal(wgprim.sum(x, axis=0).numpy(), np.zeros(3))
    assert wgprim.sum(x, axis=1).shape == (0,)
    with pytest.raises(ValueError):
        wgprim.max(x, axis=0)
    np.testing.assert_array_equal(wgprim.prod(np.zeros((2, 0), np.int32), axis=1).numpy(), [1, 1])


def test_axis_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(np.exceptions.AxisError):
        wgprim.sum(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        wgprim.cumsum(x, axis=-3)
    with pytest.raises(TypeError):
        wgprim.sum(x, axis=1.0)


@pytest.mark.parametrize("shape", SHAPES + [(9000, 2, 3), (3, 70000)], ids=str)
def test_scans_along_every_axis(shape, rng):
    x = random_values(rng, int(np.prod(shape)), np.int32).reshape(shape)
    for ax in range(-len(shape), len(shape)):
        np.testing.assert_array_equal(wgprim.cumsum(x, axis=ax).numpy(), np.cumsum(x, axis=ax, dtype=np.int32))
        got = wgprim.scan(x, "max", exclusive=True, axis=ax).numpy()
        inc = np.maximum.accumulate(np.moveaxis(x, ax, -1), axis=-1)
        first = np.full(inc.shape[:-1] + (1,), np.iinfo(np.int32).min, np.int32)
        ref = np.moveaxis(np.concatenate([first, inc[..., :-1]], axis=-1), -1, ax)
        np.testing.assert_array_equal(got, ref)


def test_float_cumsum_along_axes(rng):
    x = random_values(rng, 30 * 40 * 5, np.float32).reshape(30, 40, 5)
    for ax in range(3):
        ref = np.cumsum(x.astype(np.float64), axis=ax)
        bound = 64 * np.finfo(np.float32).eps * np.cumsum(np.abs(x.astype(np.float64)), axis=ax) * x.shape[ax]
        assert np.all(np.abs(wgprim.cumsum(x, axis=ax).numpy() - ref) <= bound + 1e-30)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (7, 5), (300, 64), (5, 1000), (3, 3000), (4, 2, 33)], ids=str)
def test_sort_along_last_axis(shape, dtype, rng):
    x = rng.integers(0, 20, shape).astype(dtype) if dtype != np.float32 else \
        rng.integers(-5, 5, shape).astype(dtype)
    if dtype == np.float32:
        x.flat[::7] = np.nan
        x.flat[1::5] = -0.0
    np.testing.assert_array_equal(wgprim.sort(x).numpy(), np.sort(x, axis=-1))
    np.testing.assert_array_equal(wgprim.argsort(x).numpy(), np.argsort(x, axis=-1, kind="stable"))
    order = np.argsort(x, axis=-1, kind="stable")
    vals = np.arange(x.size, dtype=np.int32).reshape(shape)
    k, v = wgprim.sort_pairs(x, vals)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(vals, order, -1))
    np.testing.assert_array_equal(wgprim.sort(x, axis=None).numpy(), np.sort(x, axis=None))
    desc = wgprim.argsort(x, descending=True).numpy()
    # descending: largest first (NaN first), equal keys in input order
    key = np.where(np.isnan(x), np.inf, x) if dtype == np.float32 else x.astype(np.float64)
    ref = np.argsort(-key.astype(np.float64), axis=-1, kind="stable")
    np.testing.assert_array_equal(desc, ref)


@pytest.mark.parametrize("kind", [None, "stable", "mergesort", "quicksort", "heapsort"])
def test_sort_numpy_kinds(kind, rng):
    """Every numpy kind is satisfied by the stable sort: ties (many here) in input order."""
    x = rng.integers(0, 5, (3, 37)).astype(np.float32)
    np.testing.assert_array_equal(wgprim.sort(x, kind=kind).numpy(), np.sort(x, kind="stable"))
    np.testing.assert_array_equal(wgprim.argsort(x[0], kind=kind).numpy(), np.argsort(x[0], kind="stable"))


def test_sort_options():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="method="):
        wgprim.sort(x, kind="bogosort")
    with pytest.raises(NotImplementedError, match="order="):
        wgprim.argsort(x, order="f")
    with pytest.raises(TypeError):
        wgprim.sort(x, -1)  # options are keyword-only


def test_float16_along_axes(rng, device):
    if not device.has_f16:
        pytest.skip("no shader-f16 on this adapter")
    x = rng.standard_normal((30, 40)).astype(np.float16)
    x[3, 4] = np.nan
    for ax in (0, 1):
        for op in ("min", "max", "argmin", "argmax"):
            check(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())
        np.testing.assert_array_equal(wgprim.scan(x, "max", axis=ax).numpy(), np.maximum.accumulate(x, axis=ax))


@pytest.mark.parametrize("shape", [(7, 5), (300, 3), (4, 5, 6), (3, 2500, 2)], ids=str)
def test_sort_along_any_axis(shape, rng):
    x = rng.integers(-5, 5, shape).astype(np.float32)
    x.flat[::7] = np.nan
    vals = np.arange(x.size, dtype=np.uint32).reshape(shape)
    for ax in range(-len(shape), len(shape)):
        np.testing.assert_array_equal(wgprim.sort(x, axis=ax).numpy(), np.sort(x, axis=ax))
        order = np.argsort(x, axis=ax, kind="stable")
        np.testing.assert_array_equal(wgprim.argsort(x, axis=ax).numpy(), order)
        k, v = wgprim.sort_pairs(x, vals, axis=ax)
        np.testing.assert_array_equal(v.numpy(), np.take_along_axis(vals, order, ax))


@pytest.mark.parametrize("shape,axis", [((2, 9000), -1), ((5000, 3), 0), ((2, 4097, 2), 1), ((3, 100_003), 1)],
                         ids=str)
def test_sort_long_lines_along_an_axis(shape, axis, rng):
    """Lines longer than one workgroup's tile (the segmented radix sort), along the last
    axis and moved there from another: keys, argsort, pairs, descending, NaN and ties."""
    x = (rng.standard_normal(shape) * 100).astype(np.float32)
    x.flat[::11] = np.nan
    x.flat[3::17] = -0.0
    x.flat[5::7] = 1.5
    vals = np.arange(x.size, dtype=np.int32).reshape(shape)
    order = np.argsort(x, axis=axis, kind="stable")
    np.testing.assert_array_equal(wgprim.sort(x, axis=axis).numpy(), np.take_along_axis(x, order, axis))
    np.testing.assert_array_equal(wgprim.argsort(x, axis=axis).numpy(), order)
    k, v = wgprim.sort_pairs(x, vals, axis=axis)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(vals, order, axis))
    flipped = np.flip(x, axis)  # descending: largest (NaN) first, ties in input order
    desc = x.shape[axis] - 1 - np.flip(np.argsort(flipped, axis=axis, kind="stable"), axis)
    np.testing.assert_array_equal(wgprim.argsort(x, axis=axis, descending=True).numpy(), desc)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64])
@pytest.mark.parametrize("shape", [(5, 7), (3, 300), (2, 9001), (17, 4, 33), (4, 0)], ids=str)
def test_64_bit_reductions_and_scans_along_every_axis(shape, dtype, rng):
    ops = ["min", "max", "argmin", "argmax"] + ([] if dtype == np.float64 else ["sum", "prod", "bitwise_xor"])
    for op in ops:
        x = informative(rng, int(np.prod(shape)), dtype, op).reshape(shape)
        for ax in range(len(shape)):
            if x.shape[ax] == 0 and op in ("min", "max", "argmin", "argmax"):
                continue
            keepdims = ax == 1  # and negative axes: -1 for the last
            check(x, op, ax, wgprim.reduce(x, op, axis=ax - len(shape) * keepdims, keepdims=keepdims).numpy(),
                  keepdims)
    for op in ("min", "max") if dtype == np.float64 else ("sum", "prod", "max"):
        x = informative(rng, int(np.prod(shape)), dtype, op).reshape(shape)
        ufunc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[op]
        for ax in range(len(shape)):
            got = wgprim.scan(x, op, axis=ax).numpy()
            np.testing.assert_array_equal(got.view(np.uint64), ufunc.accumulate(x, axis=ax, dtype=dtype).view(np.uint64))


def test_min_max_along_an_axis_return_the_inputs_bits():
    x = np.zeros((3, 5000), np.float32)
    x[0] = -0.0                       # only -0.0: -0.0, as numpy
    x[1, ::2] = -0.0                  # both: min -0.0, max +0.0
    x[2, [7, 900]] = np.array([0x7FC00005, 0xFFC00001], np.uint32).view(np.float32)
    for ax in (0, 1):
        for op in ("min", "max"):
            got = wgprim.reduce(x, op, axis=ax).numpy()
            np.testing.assert_array_equal(got.view(np.uint32), host_min_max(x, op, axis=ax).view(np.uint32))
    assert wgprim.min(x, axis=1).numpy().view(np.uint32)[2] == 0x7FC00005  # the positive NaN
    assert wgprim.max(x, axis=1).numpy().view(np.uint32)[2] == 0xFFC00001  # the negative NaN
