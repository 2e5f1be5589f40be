"""The scans' front doors: scan (flattened, or along one axis), cumsum and ScanPlan. The
building blocks they look up: ScanRecorder (ops/scan.py, reduce-then-scan), the single
pass (ops/chained_scan.py, which states the default rule) and AxisScanner (ops/axis.py).
"""
from __future__ import annotations

import builtins

import numpy as np

from wgprim.array import Array, check_dtype, empty
from wgprim.device import get_device
from wgprim.ops import numpy_options, operators
from wgprim.ops.axis import _check_binding, axis_scanner, normalize_axis, split_shape
from wgprim.ops.chained_scan import choose_method
from wgprim.ops.common import as_input, check_count, check_out
from wgprim.ops.scan import scan_recorder
from wgprim.program import Plan, Program, run_recorded


def scan(x, op="sum", exclusive: bool = False, method: str | None = None, *, axis=None) -> Array:
    """Inclusive (or exclusive) scan of the flattened `x` with `op`: sum, prod, min, max,
    bitwise_and, bitwise_or, bitwise_xor, or a `wgprim.Monoid`. Returns a 1-D Array.
    `method`: "single-pass" (one pass over memory, 32-bit types) or "reduce-then-scan";
    None picks per size and dtype (ops/chained_scan.py, choose_method).
    `axis=` (int): scan along that axis, result of x's shape (ops/axis.py)."""
    if not isinstance(exclusive, (bool, np.bool_)):
        raise TypeError(f"exclusive must be True or False, not {exclusive!r}")
    if axis is not None:
        return scan_entry(x, op, axis, exclusive)
    arr = as_input(x, operators.NUMERIC)
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
    """Inclusive prefix sum of the flattened `x` (same dtype; integers wrap modulo 2^32),
    or along `axis`."""
    numpy_options.refuse("cumsum", numpy_kw, numpy_options.SCAN)
    return scan(x, "sum", axis=axis)


class ScanPlan:
    """A scan built once for (n, dtype, op, exclusive) and run many times with no new
    pipelines or buffers. Returns the plan's own output Array for the calling thread
    (overwritten by that thread's next run; each thread has its own) unless `out=` is
    given; `profile=True` also returns GPU time per step. Safe to share between threads."""

    def __init__(self, n: int, dtype, op="sum", exclusive: bool = False, method: str | None = None):
        if not isinstance(exclusive, (bool, np.bool_)):
            raise TypeError(f"exclusive must be True or False, not {exclusive!r}")
        device = get_device()
        self.dtype = check_dtype(dtype, device, operators.NUMERIC)
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
        arr = as_input(x, operators.NUMERIC)
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
    _check_binding(arr)
    exclusive = bool(exclusive)
    run_recorded(arr.device, (scanner, outer, length, inner, exclusive), (arr, out),
                 lambda p, a, o: scanner.record_view(p, a, o, outer, length, inner, exclusive),
                 f"scan along axis {axis}")
    return out


def scan_entry(x, op, axis, exclusive: bool) -> Array:
    """The `axis=` form of wgprim.scan and cumsum."""
    return scan_axis(as_input(x, operators.NUMERIC), op, axis, bool(exclusive))
