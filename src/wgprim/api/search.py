"""searchsorted(a, v, side="left", sorter=None): the front door, numpy's and the array API's
(`searchsorted(x1, x2, /, *, side, sorter)`). The building block and how it searches are
in ops/search.py (kernels/search.wgsl); a sorter is applied with ops/gather.py.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.device import check_current
from wgprim.ops.atomic_minmax import atomic_min_max
from wgprim.ops.common import as_input
from wgprim.ops.gather import record_gather
from wgprim.ops.search import KEY_TYPES, NONE, SIDES, U32, bound_in, search_recorder
from wgprim.recordings import run_recorded

I32 = np.dtype(np.int32)


def _queries(dt: np.dtype, v, side: str, n: int, device):
    """(queries Array of dtype dt, fixed answers Array or None, result shape) for the
    queries v, compared with elements of dtype dt as numpy compares them (ops/search.py)."""
    if isinstance(v, Array):
        check_current(v.device)
        if v.dtype != dt:
            common = np.result_type(dt, v.dtype)
            raise TypeError(f"v is an Array of {v.dtype} and a holds {dt}: numpy compares them as {common}; "
                            f"give v as {dt} (or as a numpy array, converted on the host)")
        return v, None, v.shape
    host = np.asarray(v)
    if host.dtype.kind not in "biuf":
        raise TypeError(f"searchsorted compares numbers: v of dtype {host.dtype} is not supported")
    common = np.result_type(dt, host.dtype)
    values = host.astype(common)
    if common == dt:
        return asarray(values, device=device), None, host.shape
    t, found = bound_in(values, dt, side)
    fixed = None
    if not found.all():
        fixed = asarray(np.where(found, NONE, n if side == "left" else 0).astype(np.uint32).ravel(), device=device)
    return asarray(t.ravel(), device=device), fixed, host.shape


def _sorter(sorter, n: int, device) -> Array:
    """The indices that sort a, checked as numpy checks them, as uint32."""
    if isinstance(sorter, Array):
        check_current(sorter.device)
        if sorter.dtype not in (U32, I32):
            raise TypeError(f"a sorter Array must be uint32 or int32 (as argsort gives), not {sorter.dtype}")
        if sorter.ndim != 1:
            raise TypeError(f"sorter must be 1-D, as a is (got shape {sorter.shape}; numpy raises TypeError too)")
        if sorter.size != n:
            raise ValueError("sorter.size must equal a.size")
        if n:
            lowest, highest = (int(e) for e in atomic_min_max(sorter).numpy())
            if lowest < 0 or highest >= n:
                raise ValueError("Sorter index out of range.")
        return sorter if sorter.dtype == U32 else sorter.alias((n,), U32)
    host = np.asarray(sorter)
    if host.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if host.ndim != 1:
        raise TypeError(f"sorter must be 1-D, as a is (got shape {host.shape}; numpy raises TypeError too)")
    if host.size != n:
        raise ValueError("sorter.size must equal a.size")
    if n and (host.min() < 0 or host.max() >= n):
        raise ValueError("Sorter index out of range.")
    return asarray(host.astype(np.uint32), device=device)


def searchsorted(a, v, side: str = "left", sorter=None) -> Array:
    """numpy.searchsorted (and the array API's): for each query of v, the index at which it
    would be inserted into the sorted 1-D array a to keep it sorted. side="left": the first
    such index (the number of elements < v); side="right": the last (the number <= v).
    sorter: indices that sort a (np.argsort(a) / wgprim.argsort(a)).

    Exact for every key dtype (uint32, int32, float32, float16, uint64, int64, float64) in
    numpy's order: NaN after +inf (numpy sorts NaN last), -0.0 equal to +0.0. A query of
    another dtype is compared as numpy compares it (in their common dtype: float32 elements
    with a Python float in float64); an Array v must have a's dtype. Returns uint32
    indices (numpy: intp) with v's shape (0-d for a scalar)."""
    if isinstance(side, bytes):  # numpy takes b"left" too
        side = side.decode("latin-1")
    if not isinstance(side, str):
        raise TypeError(f"search side must be a str, 'left' or 'right', not {type(side).__name__}")
    if side not in SIDES:
        raise ValueError(f"search side must be one of 'left' or 'right' (got {side!r})")
    arr = as_input(a, KEY_TYPES)
    if arr.ndim != 1:
        raise ValueError(f"a must be 1-D (as numpy's searchsorted), got shape {arr.shape}")
    dev, n = arr.device, arr.size
    queries, fixed, shape = _queries(arr.dtype, v, side, n, dev)
    out = empty(shape, U32, dev)
    if out.size == 0:
        return out
    order = None if sorter is None else _sorter(sorter, n, dev)
    recorder = search_recorder(dev, arr.dtype, side)
    flat_q, flat_out = queries.ravel(), out.ravel()

    def record(p, a, q, o, *rest):
        rest = list(rest)
        by = rest.pop(0) if order is not None else None
        fix = rest.pop(0) if fixed is not None else None
        if by is not None:  # a in sorted order: a[sorter]
            ordered = Array(p.temp(max(a.nbytes, 4)), a.dtype, (a.size,), a.device)
            record_gather(p, a, by, ordered)
            a = ordered
        recorder.record(p, a, q, o, fix)

    arrays = (arr, flat_q, flat_out) + tuple(x for x in (order, fixed) if x is not None)
    run_recorded(dev, ("searchsorted", recorder, order is not None, fixed is not None), arrays, record,
                 "searchsorted")
    return out
