"""The reductions' front doors: reduce (every element, or along one axis), sum, prod, min,
max, argmin, argmax and ReducePlan. The building blocks they look up: ReduceRecorder
(ops/reduce.py, where the structure, the semantics and the error bounds are stated),
AxisReducer (ops/axis.py) and the atomic min/max (ops/atomic_minmax.py).
"""
from __future__ import annotations

import builtins

import numpy as np

from wgprim.array import Array, asarray, check_dtype, empty
from wgprim.device import get_device
from wgprim.ops import numpy_options, operators
from wgprim.ops.atomic_minmax import atomic_reduce
from wgprim.ops.axis import axis_reducer, normalize_axis, result_shape, split_shape
from wgprim.ops.axis_windows import record_reduce
from wgprim.ops.common import as_input, check_count, check_flag, check_out
from wgprim.ops.exact_sum import exact_sum
from wgprim.ops.reduce import reduce_recorder
from wgprim.plans import HoldsGPU, Plan
from wgprim.program import Program
from wgprim.recordings import run_recorded


def _empty_result(op, dt: np.dtype, name: str) -> Array:
    if name in ("min", "max") or name in operators.ARG_OPS:
        raise ValueError(f"{name} of an empty array is undefined (numpy raises too)")
    return asarray(operators.identity_value(op, dt))


def reduce(x, op="sum", axis=None, *, keepdims: bool = False) -> Array:
    """Reduce every element of `x` with `op`: a built-in name (sum, prod, min, max, argmin,
    argmax, bitwise_and, bitwise_or, bitwise_xor) or a `wgprim.Monoid`. Returns a 0-d Array;
    `.item()` gives the Python scalar. `axis=` (int) reduces along one axis, `keepdims=` as
    numpy (ops/axis.py). Integer sums and products wrap modulo 2^32 (2^64 for int64 and
    uint64); float64 takes sum (exact: wgprim.sum), min, max, argmin and argmax
    (operators.FLOAT64_ARITHMETIC)."""
    if isinstance(op, str) and op == "sum":
        x = as_input(x, operators.REDUCIBLE)
        if x.dtype == operators.F64:
            return exact_sum(x, axis, keepdims)
    if check_flag("keepdims", keepdims) or axis is not None:
        return reduce_entry(x, op, axis, keepdims)
    arr = as_input(x, operators.REDUCIBLE)
    name, _ = operators.resolve(op, arr.dtype)
    if arr.size == 0:
        return _empty_result(op, arr.dtype, name)
    out = empty((), operators.result_dtype(op, arr.dtype), arr.device)
    recorder = reduce_recorder(arr.device, arr.size, arr.dtype, op)
    run_recorded(arr.device, (recorder,), (arr, out), recorder.record, f"reduce {name}", stage=out)
    return out


class ReducePlan(HoldsGPU):
    """A reduction built once for (n, dtype, op) and run many times with no new pipelines
    or buffers. The returned Array is the plan's own result buffer for the calling thread,
    overwritten by that thread's next run (each thread has its own), unless `out=` is
    given. `profile=True` also returns GPU time per step. Safe to share between threads."""

    def __init__(self, n: int, dtype, op="sum"):
        device = get_device()
        self.dtype = check_dtype(dtype, device, operators.REDUCIBLE)
        self.n, self.op = check_count("n", n), op
        self.name, _ = operators.resolve(op, self.dtype)
        if self.n <= 0:
            raise ValueError("a reduce plan needs n > 0")
        result_dtype = operators.result_dtype(op, self.dtype)
        self._plan = Plan(device, f"reduce plan {self.name}", self._record, lambda: empty((), result_dtype, device))

    @property
    def result(self) -> Array:
        """The calling thread's result Array (what `plan(x)` returns without `out=`)."""
        return self._plan.results()

    def _record(self, program: Program, x: Array, out: Array) -> None:
        reduce_recorder(program.device, self.n, self.dtype, self.op).record(program, x, out)

    def __call__(self, x, out: Array | None = None, profile: bool = False):
        arr = as_input(x, operators.REDUCIBLE)
        if arr.size != self.n or arr.dtype != self.dtype:
            raise ValueError(f"plan is for {self.n} elements of {self.dtype}, got {arr.size} of {arr.dtype}")
        out = check_out(self.result if out is None else out, (), operators.result_dtype(self.op, self.dtype), (arr,))
        times = self._plan.run(arr, out, profile=profile, stage=out)
        return (out, times) if profile else out


def sum(x, axis=None, *, keepdims: bool = False, exact: bool = False, **numpy_kw) -> Array:
    """Sum of the elements, as numpy.sum: of every element (a 0-d Array), or along `axis`
    (an int) with `keepdims`. Integers wrap modulo 2^32 (2^64 for int64/uint64) and keep
    x's dtype. float64 sums are exact: the correctly rounded value of the exact sum, the
    same bits in any order and on any device (ops/exact_sum.py, docs/exact.md); so are
    float32 sums with `exact=True`. By default float32 and float16 sums are a tree of
    float additions, each element through a few dozen of them, so the error is within
    depth * eps * sum(|x|) (wgprim.ops.reduce.sum_error_bound gives the bound for n).
    Other numpy keywords (dtype=, out=, where=, initial=) are refused with a message."""
    numpy_options.refuse("sum", numpy_kw, numpy_options.REDUCTION)
    if check_flag("exact", exact):
        return exact_sum(as_input(x), axis, keepdims)
    return reduce(x, "sum", axis, keepdims=keepdims)


def prod(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    """Product of the elements, as numpy.prod: of every element (a 0-d Array), or along
    `axis` with `keepdims`. Integers wrap as numpy's do in x's dtype; floats are a tree of
    multiplications."""
    numpy_options.refuse("prod", numpy_kw, numpy_options.REDUCTION)
    return reduce(x, "prod", axis, keepdims=keepdims)


def _min_max(x, op: str, method: str, axis=None, keepdims: bool = False) -> Array:
    if check_flag("keepdims", keepdims) or axis is not None:
        return reduce(x, op, axis, keepdims=keepdims)
    if method == "atomic":
        # One atomicMin/atomicMax per workgroup into a global word, read in the next
        # dispatch: the legitimate cross-workgroup atomic. Tree stays the default: on an
        # H200 both read at about the same speed (docs/histogram_select.md).
        return atomic_reduce(x, op)
    if method != "tree":
        raise ValueError(f"method must be 'tree' or 'atomic', not {method!r}")
    return reduce(x, op)


def min(x, axis=None, *, keepdims: bool = False, method: str = "tree", **numpy_kw) -> Array:
    """Smallest element (NaN if any), one of x's values bit for bit: of -0.0 and +0.0 the
    -0.0, of several NaNs the one kernels/order_key.wgsl names. `method="atomic"`:
    u32/i32/f32 through global atomics (the same bits); 64-bit dtypes take the tree."""
    numpy_options.refuse("min", numpy_kw, numpy_options.REDUCTION)
    return _min_max(x, "min", method, axis, keepdims)


def max(x, axis=None, *, keepdims: bool = False, method: str = "tree", **numpy_kw) -> Array:
    """Largest element (NaN if any), one of x's values bit for bit: of -0.0 and +0.0 the
    +0.0, of several NaNs the one kernels/order_key.wgsl names. `method="atomic"`:
    u32/i32/f32 through global atomics (the same bits); 64-bit dtypes take the tree."""
    numpy_options.refuse("max", numpy_kw, numpy_options.REDUCTION)
    return _min_max(x, "max", method, axis, keepdims)


def argmin(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    """Index of the smallest element, as numpy.argmin: the first one among equals, the first
    NaN if any; flat over every element or along `axis` with `keepdims`. Indices are
    uint32. An empty input raises ValueError, as numpy."""
    numpy_options.refuse("argmin", numpy_kw, numpy_options.ARG_REDUCTION)
    return reduce(x, "argmin", axis, keepdims=keepdims)


def argmax(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    """Index of the largest element, as numpy.argmax: the first one among equals, the first
    NaN if any; flat over every element or along `axis` with `keepdims`. Indices are
    uint32. An empty input raises ValueError, as numpy."""
    numpy_options.refuse("argmax", numpy_kw, numpy_options.ARG_REDUCTION)
    return reduce(x, "argmax", axis, keepdims=keepdims)


def _empty_reduction(op, dt, name, shape) -> Array:
    if name in ("min", "max") or name in operators.ARG_OPS:
        raise ValueError(f"{name} along an axis of length 0 is undefined (numpy raises too)")
    return asarray(np.full(shape, operators.identity_value(op, dt), dtype=dt))


def reduce_axis(arr: Array, op, axis, keepdims: bool) -> Array:
    """Reduce `arr` (an Array) along `axis` (an int; negative counts from the end)."""
    dt = arr.dtype
    name, _ = operators.resolve(op, dt)
    axis = normalize_axis(axis, builtins.max(arr.ndim, 1)) if arr.ndim else normalize_axis(axis, 1)
    shape = arr.shape if arr.ndim else (1,)
    outer, length, inner = split_shape(shape, axis)
    out_shape = result_shape(shape, axis, keepdims) if arr.ndim else ()
    rdt = operators.result_dtype(op, dt)
    if outer * inner == 0:
        if length == 0 and (name in ("min", "max") or name in operators.ARG_OPS):
            raise ValueError(f"{name} along an axis of length 0 is undefined (numpy raises too)")
        return empty(out_shape, rdt, arr.device)
    if length == 0:
        return _empty_reduction(op, dt, name, out_shape)
    out = empty(out_shape, rdt, arr.device)
    reducer = axis_reducer(arr.device, dt, op)
    run_recorded(arr.device, (reducer, outer, length, inner), (arr, out),
                 lambda p, a, o: record_reduce(p, reducer, a, o, outer, length, inner), f"reduce {name} along axis {axis}")
    return out


def reduce_entry(x, op, axis, keepdims: bool) -> Array:
    """The `axis=`/`keepdims=` form of wgprim.reduce and its named reductions."""
    arr = as_input(x, operators.REDUCIBLE)
    if axis is None:  # every element, with keepdims: a (1, 1, ...) result as numpy
        flat = reduce(arr, op)
        return flat.reshape((1,) * arr.ndim) if keepdims else flat
    return reduce_axis(arr, op, axis, bool(keepdims))
