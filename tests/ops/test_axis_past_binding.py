"""Reductions and scans along an axis of arrays larger than one storage binding
(ops/axis_windows.py), forced on small arrays by lowering the binding limit: blocks of
whole outer slices, pieces of one slice (every column, or one position and a block of
columns), pieces at unaligned offsets through packed temporaries. Every axis (negative
ones too), every operator and dtype of the axis path, against numpy, with no dispatch
binding more than the limit."""
import numpy as np
import pytest

import wgprim
from wgprim.device import binding_limit
from wgprim.ops import axis as axis_ops
from wgprim.ops.order_key import host_min_max
from wgprim.program import Program

from support import check_binding_sizes, informative

LIMIT = 4096  # bytes a binding: 1024 elements of 4 bytes, 512 of 8
# Aligned blocks of outer slices (50, 37), unaligned blocks (9, 201), pieces of every
# column (2000, 3), one position and a block of columns (3, 2000), unaligned pieces
# (7, 300, 5), long rows (2, 1500), and shapes whose every axis takes another of these.
SHAPES = [(50, 37), (9, 201), (2000, 3), (3, 2000), (7, 300, 5), (2, 1500), (3, 1, 2500), (5, 9, 41), (4099,)]
OPS32 = ["sum", "prod", "min", "max", "argmin", "argmax", "bitwise_and", "bitwise_or", "bitwise_xor"]


@pytest.fixture
def small_bindings(monkeypatch):
    """The binding limit lowered to LIMIT, every dispatch checked against it, and the
    labels of the dispatches recorded (to see the windowed steps were taken)."""
    check_binding_sizes(monkeypatch)
    labels = []
    checked = Program.dispatch

    def noting(self, label, pipeline, bindings, groups):
        labels.append(label)
        return checked(self, label, pipeline, bindings, groups)

    monkeypatch.setattr(Program, "dispatch", noting)
    with binding_limit(LIMIT):
        yield labels


def numpy_reduce(x, op, axis, keepdims=False):
    if op in ("sum", "prod"):
        if x.dtype.kind in "iu":
            return getattr(np, op)(x, axis=axis, dtype=x.dtype, keepdims=keepdims)
        return getattr(np, op)(x.astype(np.float64), axis=axis, keepdims=keepdims)
    if op.startswith("bitwise"):
        return getattr(np, op).reduce(x, axis=axis, keepdims=keepdims)
    if op in ("min", "max"):
        return host_min_max(x, op, axis=axis).reshape(np.min(x, axis=axis, keepdims=keepdims).shape)
    return getattr(np, op)(x, axis=axis, keepdims=keepdims).astype(np.uint32)


def check_reduce(x, op, axis, got, keepdims=False):
    ref = numpy_reduce(x, op, axis, keepdims)
    assert got.shape == ref.shape, (op, axis, got.shape, ref.shape)
    if x.dtype.kind == "f" and op == "sum":
        bound = (x.shape[axis] + 64) * np.finfo(x.dtype).eps * np.abs(x.astype(np.float64)).sum(axis=axis,
                                                                                                 keepdims=keepdims)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))  # a NaN on the axis, as numpy
        assert np.all((np.abs(got - ref) <= bound + 1e-30) | np.isnan(ref)), (op, axis)
    elif x.dtype.kind == "f" and op == "prod":
        np.testing.assert_allclose(got, ref, rtol=x.shape[axis] * 2e-7)
    elif op in ("min", "max"):  # the input's own bits
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize]
        np.testing.assert_array_equal(got.view(bits), ref.astype(x.dtype).view(bits), err_msg=f"{op} {axis}")
    else:
        np.testing.assert_array_equal(got, ref, err_msg=f"{op} {axis}")


def tied(rng, shape, dtype):
    """Few distinct values (ties across pieces), with NaN and ±0 in float arrays."""
    x = rng.integers(-3, 3, shape).astype(dtype)
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[rng.integers(0, flat.size, 1 + flat.size // 500)] = np.nan
        flat[rng.integers(0, flat.size, flat.size // 7)] = -0.0
    return x


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_reductions_along_every_axis_past_one_binding(shape, dtype, rng, small_bindings):
    n = int(np.prod(shape))
    for op in OPS32:
        if dtype == np.float32 and (op == "prod" or op.startswith("bitwise")):
            continue
        x = informative(rng, n, dtype, op).reshape(shape)
        for ax in range(-len(shape), len(shape)):
            keepdims = ax == -1
            check_reduce(x, op, ax, wgprim.reduce(x, op, axis=ax, keepdims=keepdims).numpy(), keepdims)
    x = tied(rng, shape, dtype)  # the first index among equals, the first NaN, across pieces
    for op in ("min", "max", "argmin", "argmax"):
        for ax in range(len(shape)):
            check_reduce(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())
    if dtype == np.float32:
        x3 = rng.uniform(0.999, 1.001, shape).astype(np.float32)
        for ax in range(len(shape)):
            check_reduce(x3, "prod", ax, wgprim.prod(x3, axis=ax).numpy())


def test_named_reductions_and_keepdims_past_one_binding(rng, small_bindings):
    x = tied(rng, (6, 700, 3), np.float32)
    for name in ("sum", "min", "max", "argmin", "argmax"):
        for ax in (0, 1, 2, -2):
            check_reduce(x, name, ax, getattr(wgprim, name)(x, axis=ax, keepdims=True).numpy(), keepdims=True)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64])
@pytest.mark.parametrize("shape", [(50, 37), (1100, 3), (3, 1100), (7, 150, 5), (3, 1, 1300)], ids=str)
def test_64_bit_reductions_past_one_binding(shape, dtype, rng, small_bindings):
    ops = ["min", "max", "argmin", "argmax"] + ([] if dtype == np.float64 else ["sum", "prod", "bitwise_xor"])
    for op in ops:
        x = informative(rng, int(np.prod(shape)), dtype, op).reshape(shape)
        for ax in range(-len(shape), len(shape)):
            check_reduce(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())
    x = tied(rng, shape, dtype)
    for op in ("argmin", "argmax", "min", "max"):
        for ax in range(len(shape)):
            check_reduce(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())


def test_monoid_reduction_past_one_binding(rng, small_bindings):
    lowest = wgprim.Monoid("min(a, b)", identity=2**32 - 1, name="lowest")
    x = rng.integers(0, 2**32, (5, 9, 41), dtype=np.uint64).astype(np.uint32)
    for ax in range(3):
        np.testing.assert_array_equal(wgprim.reduce(x, lowest, axis=ax).numpy(), x.min(axis=ax))


def test_windows_take_every_path(rng, small_bindings):
    """The shapes above go through blocks, pieces (folded and carried), packed unaligned
    pieces and include_initial's identity rows, not one binding."""
    x = rng.integers(0, 9, (7, 300, 5)).astype(np.int32)
    wgprim.argmax(x, axis=1)
    wgprim.sum(x, axis=1)
    wgprim.cumulative_sum(x, axis=1, include_initial=True)
    for label in ("pack window", "unpack window", "fold pieces", "carry pieces", "initial rows"):
        assert label in small_bindings, label
    for _ in range(2):  # a repeated call (its kept recording) with new data of the same shape
        y = rng.integers(-9, 9, (7, 300, 5)).astype(np.int32)
        np.testing.assert_array_equal(wgprim.argmax(y, axis=1).numpy(), np.argmax(y, axis=1))
        np.testing.assert_array_equal(wgprim.cumsum(y, axis=1).numpy(), np.cumsum(y, axis=1, dtype=np.int32))
    small_bindings.clear()
    wgprim.sum(rng.integers(0, 9, (50, 37)).astype(np.int32), axis=1)  # blocks of 24 rows (aligned)
    assert small_bindings.count("reduce rows") + small_bindings.count("reduce columns") >= 2
    assert "pack window" not in small_bindings
    small_bindings.clear()
    wgprim.sum(rng.integers(0, 9, (9, 201)).astype(np.int32), axis=1)  # blocks of 5 rows of 804 bytes
    assert "pack window" in small_bindings and "fold pieces" not in small_bindings


def accumulate(x, op, axis, exclusive=False):
    """numpy's scan of x by op along axis (in x's dtype; exclusive: from the identity)."""
    ufunc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
             "bitwise_xor": np.bitwise_xor}[op]
    inc = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
    if not exclusive:
        return inc
    identity = {"sum": 0, "prod": 1, "bitwise_xor": 0,
                "min": np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max,
                "max": -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min}[op]
    moved = np.moveaxis(inc, axis, -1)
    first = np.full(moved.shape[:-1] + (1,), identity, x.dtype)
    return np.moveaxis(np.concatenate([first, moved[..., :-1]], axis=-1), -1, axis)


def check_scan(x, op, axis, got, exclusive=False):
    ref = accumulate(x, op, axis, exclusive)
    assert got.shape == ref.shape, (op, axis, got.shape, ref.shape)
    if x.dtype.kind == "f" and op == "sum":  # the bound of tests/ops/test_axis.py's float scans
        exact = accumulate(x.astype(np.float64), op, axis, exclusive)
        bound = 64 * np.finfo(np.float32).eps * np.cumsum(np.abs(x.astype(np.float64)), axis=axis) * x.shape[axis]
        assert np.all(np.abs(got - exact) <= bound + 1e-30), (op, axis)
    else:
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize]
        np.testing.assert_array_equal(got.view(bits), ref.view(bits), err_msg=f"{op} {axis} {exclusive}")


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_scans_along_every_axis_past_one_binding(shape, dtype, rng, small_bindings):
    for op in ("sum", "max", "min") + (("prod", "bitwise_xor") if dtype != np.float32 else ()):
        x = informative(rng, int(np.prod(shape)), dtype, op).reshape(shape)
        for ax in range(-len(shape), len(shape)):
            exclusive = (ax + len(shape)) % 2 == 1  # inclusive and exclusive over the axes
            check_scan(x, op, ax, wgprim.scan(x, op, exclusive=exclusive, axis=ax).numpy(), exclusive)
            if op == "sum":
                check_scan(x, op, ax, wgprim.cumsum(x, axis=ax).numpy())
    if dtype == np.float32:  # NaN propagates along the axis from where it is, across pieces
        x = rng.integers(-3, 3, shape).astype(dtype)
        x.reshape(-1)[rng.integers(0, x.size, 1 + x.size // 500)] = np.nan
        for ax in range(len(shape)):
            for op in ("max", "min"):
                np.testing.assert_array_equal(wgprim.scan(x, op, axis=ax).numpy(), accumulate(x, op, ax))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64])
@pytest.mark.parametrize("shape", [(50, 37), (1100, 3), (3, 1100), (7, 150, 5), (3, 1, 1300)], ids=str)
def test_64_bit_scans_past_one_binding(shape, dtype, rng, small_bindings):
    for op in ("min", "max") if dtype == np.float64 else ("sum", "prod", "max"):
        x = informative(rng, int(np.prod(shape)), dtype, op).reshape(shape)
        for ax in range(len(shape)):
            check_scan(x, op, ax, wgprim.scan(x, op, axis=ax).numpy())
            check_scan(x, op, ax, wgprim.scan(x, op, exclusive=True, axis=ax).numpy(), exclusive=True)


# An associative operator that does not commute: affine maps x -> p*x + q modulo 2^16,
# (p, q) packed as p << 16 | q, composed left to right. A carry applied on the wrong side
# of a piece gives another result.
AFFINE = wgprim.Monoid("((((b >> 16u) * (a >> 16u)) & 0xffffu) << 16u) | "
                       "(((b >> 16u) * (a & 0xffffu) + (b & 0xffffu)) & 0xffffu)", identity=1 << 16, name="affine")


def affine_scan(x, axis, exclusive):
    moved = np.moveaxis(x, axis, 0).astype(np.uint64)
    out = np.empty_like(moved)
    acc = np.full(moved.shape[1:], 1 << 16, np.uint64)
    for i in range(moved.shape[0]):
        if exclusive:
            out[i] = acc
        p, q = moved[i] >> 16, moved[i] & 0xFFFF
        acc = (((p * (acc >> 16)) & 0xFFFF) << 16) | ((p * (acc & 0xFFFF) + q) & 0xFFFF)
        if not exclusive:
            out[i] = acc
    return np.moveaxis(out, 0, axis).astype(np.uint32)


@pytest.mark.parametrize("shape", [(2000, 3), (3, 2000), (7, 300, 5), (3, 1, 2500)], ids=str)
def test_scan_of_an_operator_that_does_not_commute_past_one_binding(shape, rng, small_bindings):
    x = rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    for ax in range(len(shape)):
        for exclusive in (False, True):
            got = wgprim.scan(x, AFFINE, exclusive=exclusive, axis=ax).numpy()
            np.testing.assert_array_equal(got, affine_scan(x, ax, exclusive), err_msg=f"{ax} {exclusive}")


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_cumulative_sum_past_one_binding(shape, dtype, rng, small_bindings):
    """Along every axis, widened (int32 sums in int64) or not, with include_initial (the
    identity row first) and without, 1-D included (without include_initial a 1-D input
    takes the flat scan, whose tiles are larger than this binding limit: tests/ops/test_scan.py)."""
    x = rng.integers(-1000, 1000, shape).astype(dtype)
    for ax in range(-len(shape), len(shape)):
        for include_initial in (False, True)[x.ndim == 1:]:
            got = wgprim.cumulative_sum(x, axis=ax, include_initial=include_initial).numpy()
            want = np.cumulative_sum(x, axis=ax, include_initial=include_initial)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)  # small integers: exact in float32 too
    if x.ndim == 1:
        got = wgprim.cumulative_sum(x, include_initial=True, dtype=x.dtype).numpy()
        np.testing.assert_array_equal(got, np.cumulative_sum(x, include_initial=True, dtype=x.dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
@pytest.mark.parametrize("shape", [(50, 37), (2000, 3), (3, 2000), (7, 300, 5), (5, 9, 41), (40, 60)], ids=str)
def test_move_axis_past_one_binding(shape, dtype, rng, small_bindings):
    """The move of an axis to the end and back (sort, partition and top-k along a middle
    axis): blocks of slices, tiles of one slice, 4- and 8-byte elements."""
    x = rng.integers(0, 2**31, shape).astype(dtype)
    arr = wgprim.asarray(x)
    for ax in range(len(shape)):
        moved = axis_ops.move_axis(arr, ax)
        np.testing.assert_array_equal(moved.numpy(), np.moveaxis(x, ax, -1))
        np.testing.assert_array_equal(axis_ops.move_axis(moved, ax, back=True, shape=shape).numpy(), x)
    assert small_bindings.count("move axis") > len(shape)  # more than one window each


def test_calls_that_still_need_one_binding_say_so(rng):
    x = rng.integers(0, 9, (40, 1000)).astype(np.int32)  # 160,000 bytes
    with binding_limit(64 * 1024):
        for call in (lambda: wgprim.sort(x, axis=0), lambda: wgprim.partition(x, 3, axis=-1),
                     lambda: wgprim.segment_reduce(x.ravel(), [0, x.size])):
            with pytest.raises(ValueError, match="need the array in one storage binding .* call it on slices"):
                call()


@pytest.mark.parametrize("shape", [(50, 37), (9, 201), (2000, 3), (3, 2000), (7, 300, 5), (4099,)], ids=str)
def test_float16_past_one_binding(shape, rng, device, small_bindings):
    """2-byte elements: windows and packed pieces at odd element offsets."""
    if not device.has_f16:
        pytest.skip("no shader-f16 on this adapter")
    x = rng.standard_normal(shape).astype(np.float16)
    x.reshape(-1)[rng.integers(0, x.size, 3)] = np.nan
    for ax in range(-len(shape), len(shape)):
        for op in ("min", "max", "argmin", "argmax"):
            check_reduce(x, op, ax, wgprim.reduce(x, op, axis=ax).numpy())
        for op in ("min", "max"):
            np.testing.assert_array_equal(wgprim.scan(x, op, axis=ax).numpy(), accumulate(x, op, ax))
