"""The scans' front doors: scan (flattened, or along one axis), cumsum, cumulative_sum
(the array API's) and ScanPlan. The building blocks they look up: ScanRecorder
(ops/scan.py, reduce-then-scan), the single pass (ops/chained_scan.py, which states the
default rule), AxisScanner (ops/axis.py) and the widening of 32-bit integers (ops/widen.py).
"""
from __future__ import annotations

import builtins

import numpy as np

from wgprim.array import Array, asarray, check_dtype, empty
from wgprim.device import get_device
from wgprim.ops import numpy_options, operators
from wgprim.ops.axis import axis_scanner, normalize_axis, split_shape
from wgprim.ops.axis_windows import record_scan
from wgprim.ops.chained_scan import choose_method
from wgprim.ops.common import as_input, check_count, check_flag, check_out
from wgprim.ops.scan import scan_recorder
from wgprim.ops.widen import record_widen
from wgprim.plans import HoldsGPU, Plan
from wgprim.program import Program
from wgprim.recordings import run_recorded


def scan(x, op="sum", exclusive: bool = False, method: str | None = None, *, axis=None) -> Array:
    """Inclusive (or exclusive) scan of the flattened `x` with `op`: sum, prod, min, max,
    bitwise_and, bitwise_or, bitwise_xor, or a `wgprim.Monoid` (not on 64-bit dtypes).
    Returns a 1-D Array. float64 takes min and max. `method`: "single-pass" (one pass over
    memory, 32- and 64-bit types) or "reduce-then-scan";
    None picks per size and dtype (ops/chained_scan.py, choose_method).
    `axis=` (int): scan along that axis, result of x's shape (ops/axis.py)."""
    if not isinstance(exclusive, (bool, np.bool_)):
        raise TypeError(f"exclusive must be True or False, not {exclusive!r}")
    if axis is not None:
        return scan_entry(x, op, axis, exclusive)
    arr = as_input(x, operators.REDUCIBLE)
    out = empty((arr.size,), arr.dtype, arr.device)
    if arr.size == 0:
        operators.resolve(op, arr.dtype, for_scan=True)
        choose_method(0, arr.dtype, method)
        return out
    recorder = scan_recorder(arr.device, arr.dtype, op, arr.size, method)
    run_recorded(arr.device, (recorder, bool(exclusive)), (arr.ravel(), out),
                 lambda p, a, o: recorder.record(p, a, o, bool(exclusive)), "scan")
    return out


def cumsum(x, axis=None, **numpy_kw) -> Array:
    """Inclusive prefix sum of the flattened `x`, or along `axis`, in x's dtype: integers
    wrap modulo 2^32 (64-bit ones modulo 2^64), where numpy's cumsum sums int32 and uint32 in
    64 bits (`cumulative_sum` does too). float64 raises TypeError (no float64 arithmetic in
    WGSL: operators.FLOAT64_ARITHMETIC)."""
    numpy_options.refuse("cumsum", numpy_kw, numpy_options.SCAN)
    return scan(x, "sum", axis=axis)


class ScanPlan(HoldsGPU):
    """A scan built once for (n, dtype, op, exclusive) and run many times with no new
    pipelines or buffers. Returns the plan's own output Array for the calling thread
    (overwritten by that thread's next run; each thread has its own) unless `out=` is
    given; `profile=True` also returns GPU time per step. Safe to share between threads."""

    def __init__(self, n: int, dtype, op="sum", exclusive: bool = False, method: str | None = None):
        if not isinstance(exclusive, (bool, np.bool_)):
            raise TypeError(f"exclusive must be True or False, not {exclusive!r}")
        device = get_device()
        self.dtype = check_dtype(dtype, device, operators.REDUCIBLE)
        self.n, self.exclusive = check_count("n", n), bool(exclusive)
        if self.n <= 0:
            raise ValueError("a scan plan needs n > 0")
        self._recorder = scan_recorder(device, self.dtype, op, self.n, method)
        self._plan = Plan(device, "scan plan", self._record, lambda: empty((self.n,), self.dtype, device))

    @property
    def result(self) -> Array:
        """The calling thread's output Array (what `plan(x)` returns without `out=`)."""
        return self._plan.results()

    def _record(self, program: Program, x: Array, out: Array) -> None:
        self._recorder.record(program, x, out, self.exclusive)

    def __call__(self, x, out: Array | None = None, profile: bool = False):
        arr = as_input(x, operators.REDUCIBLE)
        if arr.size != self.n or arr.dtype != self.dtype:
            raise ValueError(f"plan is for {self.n} elements of {self.dtype}, got {arr.size} of {arr.dtype}")
        out = check_out(self.result if out is None else out, (self.n,), self.dtype, (arr,))
        times = self._plan.run(arr.ravel(), out, profile=profile)
        return (out, times) if profile else out


def scan_axis(arr: Array, op, axis, exclusive: bool) -> Array:
    """Scan `arr` along `axis`; the result has arr's shape."""
    axis = normalize_axis(axis, builtins.max(arr.ndim, 1))
    shape = arr.shape if arr.ndim else (1,)
    outer, length, inner = split_shape(shape, axis)
    scanner = axis_scanner(arr.device, arr.dtype, op)
    out = empty(shape, arr.dtype, arr.device)  # a 0-d input gives (1,), as numpy's cumsum
    if arr.size == 0:
        return out
    exclusive = bool(exclusive)
    run_recorded(arr.device, (scanner, outer, length, inner, exclusive), (arr, out),
                 lambda p, a, o: record_scan(p, scanner, a, o, outer, length, inner, exclusive),
                 f"scan along axis {axis}")
    return out


def scan_entry(x, op, axis, exclusive: bool) -> Array:
    """The `axis=` form of wgprim.scan and cumsum."""
    return scan_axis(as_input(x, operators.REDUCIBLE), op, axis, bool(exclusive))


# numpy's accumulation dtype when none is given: 32-bit integers sum and multiply in 64 bits.
_DEFAULT_CUMULATIVE_DTYPE = {operators.I32: operators.I64, operators.U32: operators.U64}


def cumulative_dtype(name: str, dt: np.dtype, dtype) -> np.dtype:
    """The result dtype of `name` (cumulative_sum, cumulative_prod) of dt with dtype=`dtype`:
    None gives numpy's default; otherwise dt itself, the integer of dt's width and the other
    signedness (the same bits), or a 64-bit integer from a 32-bit one (widened first, as
    numpy casts)."""
    if dtype is None:
        return _DEFAULT_CUMULATIVE_DTYPE.get(dt, dt)
    allowed = [dt]
    if dt.kind in "iu":
        allowed += [d for d in operators.INTEGER + operators.INTEGER64 if d.itemsize in (dt.itemsize, 8) and d != dt]
    try:
        wanted = np.dtype(dtype)
    except TypeError:
        wanted = None
    if wanted not in allowed:
        raise TypeError(f"{name} of {dt} takes dtype=None or one of {', '.join(str(d) for d in allowed)}, "
                        f"not {dtype!r}: wgprim widens integers to 64 bits but does not convert between "
                        "integers and floats or narrow them (convert the input first)")
    return wanted


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Array:
    """The array API's cumulative sum (numpy 2's `np.cumulative_sum`): the inclusive prefix
    sum along `axis` (optional for 0-d and 1-D input, required beyond), of x's shape, or one
    longer along `axis` with `include_initial=True` (0 first). The sum is in `dtype`: None
    is numpy's default (int32 and uint32 sum in int64 and uint64, other dtypes in their
    own), which wraps modulo 2^64 (modulo 2^32 for a 32-bit dtype= given). float64 raises
    TypeError (no float64 arithmetic in WGSL: operators.FLOAT64_ARITHMETIC); see
    `cumulative_dtype` for the dtype= values taken."""
    return cumulative("cumulative_sum", "sum", x, axis, dtype, include_initial)


def cumulative(name: str, op: str, x, axis, dtype, include_initial) -> Array:
    """The array API's cumulative_sum (op "sum") and cumulative_prod (op "prod"): the
    inclusive scan along `axis`, with the identity first for include_initial."""
    include_initial = check_flag("include_initial", include_initial)
    arr = as_input(x, operators.REDUCIBLE)
    if arr.ndim > 1 and axis is None:
        raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
    rdt = cumulative_dtype(name, arr.dtype, dtype)
    operators.resolve(op, rdt, for_scan=True)  # float64: TypeError naming what takes it
    shape = arr.shape if arr.ndim else (1,)
    ax = normalize_axis(0 if axis is None else axis, len(shape))
    outer, length, inner = split_shape(shape, ax)
    out_shape = shape[:ax] + (length + int(include_initial),) + shape[ax + 1:]
    if arr.size == 0:
        return asarray((np.zeros if op == "sum" else np.ones)(out_shape, rdt))
    widen = rdt.itemsize > arr.itemsize
    flat = outer == 1 and inner == 1
    out = empty(out_shape, rdt, arr.device)
    scanner = axis_scanner(arr.device, rdt, op)
    # The flat scan, unless include_initial's result is larger than one binding (its shift
    # into the result is the windowed one of ops/axis_windows.py).
    fits = out.buffer.size <= arr.device.max_binding_bytes
    flat_scan = scan_recorder(arr.device, rdt, op, arr.size) if flat and (fits or not include_initial) else None

    def record(p: Program, a: Array, o: Array) -> None:
        src = a.alias(shape, rdt)
        if widen:
            src = Array(p.temp(a.size * rdt.itemsize), rdt, shape, a.device)
            record_widen(p, a.ravel(), src.ravel())
        if flat_scan is None:  # along the axis, in windows of one binding where larger (ops/axis_windows.py)
            record_scan(p, scanner, src, o, outer, length, inner, False, initial=include_initial)
        elif not include_initial:
            flat_scan.record(p, src.ravel(), o.ravel(), False)
        else:
            scanned = Array(p.temp(a.size * rdt.itemsize), rdt, shape, a.device)
            flat_scan.record(p, src.ravel(), scanned.ravel(), False)
            scanner.record_initial(p, scanned, o, outer, length, inner)

    run_recorded(arr.device, (name, scanner, flat_scan, shape, ax, rdt, include_initial),
                 (arr, out), record, name)
    return out
