"""Bad input as a new user gives it (issue 28): masked arrays, scalars compared and
converted, shapes and sizes coerced, flags, device arguments, a wrong mask, a 0-d scan,
and Monoid expressions too deep or too long for the shader compiler. Each gets numpy's
answer or numpy's exception type (or a clear error naming the fix), and wgprim stays
usable afterwards. Reads of batches from other threads, device switches inside a batch:
tests/test_reliability.py; caller's buffers: tests/test_interop.py."""
import subprocess
import sys

import numpy as np
import pytest

import wgprim
from wgprim.errors import OperatorError

from support import child_env


def _numpy_outcome(f):
    """What f() gives: ("value", result) or ("raises", exception type)."""
    try:
        return "value", f()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return "raises", type(error)


def _assert_usable():
    x = np.arange(1, 7, dtype=np.float32)
    assert wgprim.sum(x).item() == 21.0 and np.array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x))


# -- masked arrays ------------------------------------------------------------------------
MASKED_CALLS = {
    "asarray": lambda m: wgprim.asarray(m),
    "sum": lambda m: wgprim.sum(m),
    "max": lambda m: wgprim.max(m),
    "argmin": lambda m: wgprim.argmin(m),
    "sum axis": lambda m: wgprim.sum(m.reshape(2, 3), axis=0),
    "cumsum": lambda m: wgprim.cumsum(m),
    "sort": lambda m: wgprim.sort(m),
    "argsort": lambda m: wgprim.argsort(m),
    "unique": lambda m: wgprim.unique(m),
    "topk": lambda m: wgprim.topk(m, 2),
    "histogram": lambda m: wgprim.histogram(m, 4),
    "histogram weights": lambda m: wgprim.histogram(m.data, 4, weights=m),
    "compact values": lambda m: wgprim.compact(m, np.ones(6, bool)),
    "compact mask": lambda m: wgprim.compact(m.data, np.ma.array(np.ones(6, bool), mask=m.mask)),
    "segment_reduce offsets": lambda m: wgprim.segment_reduce(m.data, np.ma.array([0, 3, 6], mask=[0, 1, 0])),
    "ReducePlan": lambda m: wgprim.ReducePlan(6, np.float32)(m),
}


@pytest.mark.parametrize("call", MASKED_CALLS.values(), ids=MASKED_CALLS.keys())
def test_masked_arrays_are_refused_naming_the_fix(call):
    masked = np.ma.array(np.arange(6, dtype=np.float32), mask=[0, 1, 0, 0, 1, 0])
    with pytest.raises(TypeError, match=r"masked.*x\.compressed\(\).*x\.filled\(value\)"):
        call(masked)
    _assert_usable()


# -- scalars: 0-d (and other) Arrays compare and convert as numpy's arrays -----------------
CONVERSIONS = {"bool": bool, "float": float, "int": int, "complex": complex,
               "index": lambda a: [10, 11, 12, 13, 14, 15, 16, 17][a]}


@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (6,), (0,)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32, np.bool_])
@pytest.mark.parametrize("name", CONVERSIONS)
def test_conversions_do_what_numpy_does(shape, dtype, name):
    host = (np.arange(int(np.prod(shape))) % 3).astype(dtype).reshape(shape)
    convert = CONVERSIONS[name]
    want = _numpy_outcome(lambda: convert(host))
    got = _numpy_outcome(lambda: convert(wgprim.asarray(host)))
    assert got[0] == want[0] and (got[1] is want[1] if want[0] == "raises" else got[1] == want[1]), (got, want)


def test_a_full_reduction_compares_as_a_number():
    total = wgprim.sum(np.ones(6, np.float32))
    assert total == 6.0 and isinstance(total == 6.0, np.bool_)
    assert (total != 6.0) is np.False_ and total < 7 and total <= 6 and total > 5.5 and total >= 6
    assert np.float32(6) == total and 6 == total
    assert total == wgprim.asarray(np.float32(6))  # Array with Array
    assert bool(total) and float(total) == 6.0 and int(total) == 6
    x = np.arange(4, dtype=np.int32)
    same = wgprim.asarray(x) == x  # elementwise, as numpy
    assert isinstance(same, np.ndarray) and same.all()
    with pytest.raises(TypeError, match="unhashable"):
        hash(total)  # compares by value: unhashable, as numpy's arrays


# -- shapes, sizes and flags coerced as numpy would not -----------------------------------
@pytest.mark.parametrize("shape", ["6", 2.5, True, (2.5,), ("6",), (True, 6), (2, 3), [3, 2], -1, (-1, 2), (-2,),
                                   np.int64(6), (np.int32(2), 3), (-1, -1), (4,), ()])
def test_reshape_reads_a_shape_as_numpy_does(shape):
    host = np.arange(6, dtype=np.float32)
    want = _numpy_outcome(lambda: host.reshape(shape).shape)
    got = _numpy_outcome(lambda: wgprim.asarray(host).reshape(shape).shape)
    assert got == want
    assert wgprim.asarray(host).reshape(2, 3).shape == (2, 3)


@pytest.mark.parametrize("n", [5.5, "6", True, np.float64(6.0), None])
@pytest.mark.parametrize("plan", [lambda n: wgprim.ReducePlan(n, np.float32), lambda n: wgprim.ScanPlan(n, np.float32),
                                  lambda n: wgprim.SortPlan(n, np.float32)], ids=["ReducePlan", "ScanPlan", "SortPlan"])
def test_plan_sizes_are_integers(plan, n):
    with pytest.raises(TypeError, match="n must be an integer"):
        plan(n)
    assert plan(np.int64(6))(np.arange(6, dtype=np.float32)) is not None


@pytest.mark.parametrize("value", ["yes", "False", 1, None, [True]])
@pytest.mark.parametrize("reduction", [wgprim.sum, wgprim.prod, wgprim.min, wgprim.max, wgprim.argmin,
                                       lambda x, **kw: wgprim.reduce(x, "bitwise_or", **kw)])
def test_keepdims_is_true_or_false(reduction, value):
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    with pytest.raises(TypeError, match="keepdims must be True or False"):
        reduction(x, keepdims=value)
    with pytest.raises(TypeError, match="keepdims must be True or False"):
        reduction(x, axis=0, keepdims=value)
    assert reduction(x, keepdims=np.True_).shape == (1, 1)


def test_device_arguments_name_what_is_expected():
    import wgpu

    with pytest.raises(TypeError, match="use_adapter takes"):
        wgprim.use_adapter(1.5)
    with pytest.raises(TypeError, match="use_adapter takes"):
        wgprim.use_adapter(True)
    with pytest.raises(TypeError, match="wgpu.GPUDevice, not NoneType"):
        wgprim.use_device(None)
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    with pytest.raises(TypeError, match="request_device_sync"):
        wgprim.use_device(adapter)
    with pytest.raises(TypeError, match="wgprim's own Device"):
        wgprim.use_device(wgprim.get_device())
    for make in (lambda: wgprim.asarray(np.ones(3), device="gpu0"), lambda: wgprim.empty(3, np.float32, "gpu0"),
                 lambda: wgprim.zeros(3, np.float32, device=0)):
        with pytest.raises(TypeError, match="device must be a wgprim Device"):
            make()
    assert wgprim.asarray(np.ones(3, np.float32), device=wgprim.get_device()).numpy().sum() == 3
    _assert_usable()


@pytest.mark.parametrize("x_shape, mask_shape", [((6,), (5,)), ((6,), (7,)), ((2, 3), (2, 2)), ((2, 3), (3, 2)),
                                                 ((6,), (2, 3)), ((2, 3), (6,))])
def test_a_mask_of_another_shape_raises_what_numpy_raises(x_shape, mask_shape):
    x = np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape)
    mask = np.ones(mask_shape, bool)
    with pytest.raises(Exception) as numpy_error:
        x[mask]
    with pytest.raises(numpy_error.type, match="boolean index did not match|too many indices"):
        wgprim.compact(x, mask)
    _assert_usable()


@pytest.mark.parametrize("axis", [0, -1, None, 1, -2])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_a_scan_of_a_0d_array_is_shaped_as_numpy_cumsum(axis, dtype):
    x = np.array(3, dtype)
    want = _numpy_outcome(lambda: np.cumsum(x, axis=axis, dtype=dtype))
    got = _numpy_outcome(lambda: wgprim.cumsum(x, axis=axis).numpy())
    assert got[0] == want[0], (got, want)
    if want[0] == "raises":
        assert got[1] is want[1]
    else:
        assert got[1].shape == want[1].shape == (1,) and np.array_equal(got[1], want[1])


# -- Monoid expressions the shader compiler cannot take ------------------------------------
MONOID_BOUNDS = """
import numpy as np, wgprim
from wgprim.errors import OperatorError
from wgprim.ops.operators import MAX_COMBINE_LENGTH, MAX_COMBINE_NESTING
x = np.arange(10, dtype=np.int32)
deep = "(" * 3000 + "a + b" + ")" * 3000   # once a SIGSEGV in the shader compiler
long = " + ".join(["a", "b"] * 10000)        # 20,000 terms: the same
for expr, said in ((deep, "nests 3000 levels"), (long, "characters")):
    try:
        wgprim.reduce(x, wgprim.Monoid(expr, 0))
        raise AssertionError("accepted")
    except OperatorError as error:
        assert said in str(error) and len(str(error)) < 400, str(error)[:400]
# At the bounds: compiled and right.
at_depth = "(" * (MAX_COMBINE_NESTING - 1) + "a + b" + ")" * (MAX_COMBINE_NESTING - 1)
assert wgprim.reduce(x, wgprim.Monoid(at_depth, 0)).item() == 45
at_length = "max(a, b)" + " + a * 0" * ((MAX_COMBINE_LENGTH - 9) // 8)
assert len(at_length) <= MAX_COMBINE_LENGTH and wgprim.reduce(x, wgprim.Monoid(at_length, 0)).item() == 9
assert wgprim.sum(x).item() == 45
print("ok")
"""


def test_monoid_expressions_are_bounded_before_the_compiler_in_a_subprocess():
    done = subprocess.run([sys.executable, "-c", MONOID_BOUNDS], capture_output=True, text=True, timeout=300,
                          env=child_env())
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr[-3000:]


def test_monoid_bounds_are_checked_when_made():
    with pytest.raises(OperatorError, match="at most 64"):
        wgprim.Monoid("[" * 40 + "(" * 30 + "a" + ")" * 30 + "]" * 40, 0)
    with pytest.raises(OperatorError, match="at most 4096"):
        wgprim.Monoid("a" + " + b" * 2000, 0)


_SORTED = np.sort(np.random.default_rng(5).random(10).astype(np.float32))
SEARCH_MISUSE = {
    "side None": dict(side=None),
    "side int": dict(side=1),
    "side bytes": dict(side=b"middle"),
    "side unknown": dict(side="middle"),
    "sorter 2-D": dict(sorter=np.zeros((2, 5), np.int64)),
    "sorter short": dict(sorter=np.zeros(4, np.int64)),
    "sorter floats": dict(sorter=np.zeros(10, np.float32)),
    "sorter out of range": dict(sorter=np.full(10, 10, np.int64)),
}


@pytest.mark.parametrize("kwargs", SEARCH_MISUSE.values(), ids=SEARCH_MISUSE.keys())
@pytest.mark.parametrize("on_device", [False, True], ids=["host-sorter", "array-sorter"])
def test_searchsorted_misuse_raises_numpys_exception_type(kwargs, on_device):
    with pytest.raises(Exception) as expected:
        np.searchsorted(_SORTED, _SORTED, **kwargs)
    if on_device and "sorter" in kwargs and kwargs["sorter"].dtype.kind in "iu":
        kwargs = {**kwargs, "sorter": wgprim.asarray(kwargs["sorter"].astype(np.int32))}
    with pytest.raises(type(expected.value)):
        wgprim.searchsorted(_SORTED, _SORTED, **kwargs)


def test_searchsorted_takes_side_as_bytes_as_numpy_does():
    for side in (b"left", b"right"):
        np.testing.assert_array_equal(wgprim.searchsorted(_SORTED, _SORTED, side=side).numpy(),
                                      np.searchsorted(_SORTED, _SORTED, side=side))


# Data whose extreme is a zero of one sign only: numpy's edges keep that zero's sign. (Where
# both zeros occur, which one numpy's min/max returns depends on its reduction order.)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("data", [[-1.0, -0.0], [-0.0, -2.5, -0.0], [-0.0, 2.0], [0.0, 3.0, 0.0], [-0.0, -0.0],
                                  [0.0, -7.0]])
def test_histogram_edges_keep_the_sign_of_a_zero_extreme(dtype, data):
    x = np.array(data, dtype)
    hist, edges = wgprim.histogram(x, 4)
    want_hist, want_edges = np.histogram(x, 4)
    np.testing.assert_array_equal(hist.numpy(), want_hist)
    assert edges.tobytes() == want_edges.tobytes()


ZERO_D_SORTS = {
    "sort": (lambda m, x: m.sort(x), {}),
    "sort axis=0": (lambda m, x: m.sort(x, axis=0), {}),
    "sort axis=None": (lambda m, x: m.sort(x, axis=None), {}),
    "argsort": (lambda m, x: m.argsort(x), {}),
    "argsort axis=2": (lambda m, x: m.argsort(x, axis=2), {}),
    "argsort axis=None": (lambda m, x: m.argsort(x, axis=None), {}),
    "lexsort 0-d": (lambda m, x: m.lexsort(x), {}),
    "lexsort empty": (lambda m, x: m.lexsort(x[np.newaxis][:0]), {}),
    "lexsort 1-d": (lambda m, x: m.lexsort(np.stack([x, x + 1])), {}),
    "lexsort 0-d keys": (lambda m, x: m.lexsort((x, x + 1)), {}),
}


@pytest.mark.parametrize("call", [c for c, _ in ZERO_D_SORTS.values()], ids=ZERO_D_SORTS.keys())
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_sorts_of_0d_input_answer_or_raise_as_numpy(call, dtype):
    x = np.array(7, dtype)
    try:
        want = np.asarray(call(np, x))
    except Exception as error:  # numpy refuses: the same exception type, and AxisError stays one
        with pytest.raises(type(error)):
            call(wgprim, x)
        return
    got = call(wgprim, x).numpy()
    assert got.shape == want.shape and np.array_equal(got, want)
