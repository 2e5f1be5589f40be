"""cumulative_prod: the Array API's cumulative product (numpy 2's np.cumulative_prod), the
product twin of api/scan.cumulative_sum, on the same building blocks: the scan of a flat
array (ops/scan.scan_recorder) or along an axis (ops/axis.AxisScanner) by "prod", the
widening of 32-bit integers to 64 bits first (ops/widen.py), and the identity (1) in
front for include_initial (AxisScanner.record_initial).

Integers multiply modulo 2^64 in numpy's default dtype (int32 and uint32 in int64 and
uint64, as numpy), modulo 2^32 with a 32-bit dtype= given: numpy's results exactly.
float32 and float16 multiply in their own dtype in the scan's order (a tree, not
numpy's left-to-right loop): each prefix of k + 1 elements is within k roundings of the
exact product, as numpy's is, but not always numpy's bits. float64 raises TypeError:
WGSL has no float64 arithmetic and wgprim's scans do not emulate a float64 multiply.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.ops import operators
from wgprim.ops.axis import axis_scanner, normalize_axis, split_shape
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.scan import scan_recorder
from wgprim.ops.widen import record_widen
from wgprim.program import Program
from wgprim.recordings import run_recorded

# numpy's accumulation dtype when none is given: 32-bit integers multiply in 64 bits.
DEFAULT_DTYPE = {operators.I32: operators.I64, operators.U32: operators.U64}


def product_dtype(dt: np.dtype, dtype) -> np.dtype:
    """The result dtype of cumulative_prod of dt with dtype=`dtype`: None gives numpy's
    default; otherwise dt itself, the integer of dt's width and the other signedness (the
    same bits), or a 64-bit integer from a 32-bit one (widened first, as numpy casts)."""
    if dtype is None:
        return DEFAULT_DTYPE.get(dt, dt)
    allowed = [dt]
    if dt.kind in "iu":
        allowed += [d for d in operators.INTEGER + operators.INTEGER64 if d.itemsize in (dt.itemsize, 8) and d != dt]
    try:
        wanted = np.dtype(dtype)
    except TypeError:
        wanted = None
    if wanted not in allowed:
        raise TypeError(f"cumulative_prod of {dt} takes dtype=None or one of {', '.join(str(d) for d in allowed)}, "
                        f"not {dtype!r}: wgprim widens integers to 64 bits but does not convert between "
                        "integers and floats or narrow them (convert the input first)")
    return wanted


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Array:
    """The array API's cumulative product: the inclusive prefix product along `axis`
    (optional for 0-d and 1-D input, required beyond), of x's shape, or one longer along
    `axis` with include_initial=True (1 first). The product is in `dtype`: None is numpy's
    default (int32 and uint32 in int64 and uint64, other dtypes their own); see
    product_dtype for the others. Integers exact (wrapping as numpy's); float32 and float16
    within k roundings for a prefix of k + 1 elements; float64 raises TypeError."""
    include_initial = check_flag("include_initial", include_initial)
    arr = as_input(x, operators.REDUCIBLE)
    if arr.ndim > 1 and axis is None:
        raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
    rdt = product_dtype(arr.dtype, dtype)
    operators.resolve("prod", rdt, for_scan=True)  # float64: TypeError naming what works
    shape = arr.shape if arr.ndim else (1,)
    ax = normalize_axis(0 if axis is None else axis, len(shape))
    outer, length, inner = split_shape(shape, ax)
    out_shape = shape[:ax] + (length + int(include_initial),) + shape[ax + 1:]
    if arr.size == 0:
        return asarray(np.ones(out_shape, rdt))
    widen = rdt.itemsize > arr.itemsize
    flat = outer == 1 and inner == 1
    if include_initial or not flat:
        nbytes = (arr.size + outer * inner) * rdt.itemsize
        if nbytes > arr.device.max_binding_bytes:
            raise ValueError(f"cumulative_prod along an axis (or with include_initial=True) needs the result in one "
                             f"storage binding ({nbytes} bytes > {arr.device.max_binding_bytes}); "
                             "scan slices of it, or the flattened input without include_initial")
    out = empty(out_shape, rdt, arr.device)
    scanner = axis_scanner(arr.device, rdt, "prod")
    flat_scan = scan_recorder(arr.device, rdt, "prod", arr.size) if flat else None

    def record(p: Program, a: Array, o: Array) -> None:
        src = a.alias(shape, rdt)
        if widen:
            src = Array(p.temp(a.size * rdt.itemsize), rdt, shape, a.device)
            record_widen(p, a.ravel(), src.ravel())
        scanned = Array(p.temp(a.size * rdt.itemsize), rdt, shape, a.device) if include_initial else o
        if flat:
            flat_scan.record(p, src.ravel(), scanned.ravel(), False)
        else:
            scanner.record_view(p, src, scanned, outer, length, inner, False)
        if include_initial:
            scanner.record_initial(p, scanned, o, outer, length, inner)

    run_recorded(arr.device, ("cumulative_prod", scanner, flat_scan, shape, ax, rdt, include_initial),
                 (arr, out), record, "cumulative_prod")
    return out
