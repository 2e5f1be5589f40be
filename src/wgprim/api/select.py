"""Selection's front doors: compact (x[mask]), nonzero, unique, run_length_encode.

The building blocks they look up: CompactRecorder (ops/select.py, count -> scan -> scatter,
and the append-buffer form), the single pass (ops/compaction.py), the runs' marks and
the inverse (ops/select.py), the bitmap of narrow key ranges (ops/unique_dense.py) and the
radix sort (ops/radix_sort.py). The number of kept elements is read back after the
submit (the result's size depends on it, as for numpy and CuPy).
"""
from __future__ import annotations

import numpy as np

from wgprim.api.sort import argsort_with_keys, sorted_copy
from wgprim.array import SUPPORTED_DTYPES, Array, empty
from wgprim.ops import compaction, numpy_options
from wgprim.ops.common import as_input
from wgprim.ops.select import (U32, VALUE_TYPES, _as_mask, _gather_outputs, _inverse, _run_starts, _runs_step,
                               compact_recorder)
from wgprim.ops.unique_dense import unique_dense
from wgprim.program import Program, run_recorded


COMPACT_METHODS = ("single-pass", "three-phase")


def _select(x: Array | None, mask: Array, ordered: bool = True, method: str | None = None,
            kept: bool = True) -> Array:
    """x[mask] (x None: the indices of the set flags) of flat Arrays. kept=False: not a kept
    recording (a step of a larger call whose arrays are its own intermediates)."""
    dt = U32 if x is None else x.dtype
    if method is not None and method not in COMPACT_METHODS:
        raise ValueError(f"method must be one of {', '.join(COMPACT_METHODS)} or None, not {method!r}")
    if method == "single-pass" and not ordered:
        raise ValueError("method='single-pass' is the ordered compaction; ordered=False is the append-buffer form")
    dev = mask.device
    if mask.size == 0:
        return empty((0,), dt, dev)
    single = method == "single-pass" or (method is None and ordered and compaction.single_pass_default(mask.size))
    if single:  # count, chained scan of the counts and scatter in one pass (ops/compaction.py)
        chunked, record, key = compaction.parts(dev, mask.size), compaction.record_compact, ("compact single-pass",)
    else:  # count -> scan of the tile counts -> scatter
        recorder = compact_recorder(dev, None if x is None else x.dtype, ordered)
        chunked, record, key = recorder.parts(mask.size), recorder.record, (recorder,)
    # Outputs with room for every element; the kept counts come back in the same submit.
    outs = [empty((c.count,), dt, dev) for c in chunked]
    totals = empty((len(chunked),), U32, dev)
    def record_into(p, m, *arrays):  # arrays: (x,) if values, then totals, then outs
        values = arrays[0] if x is not None else None
        kept, *outputs = arrays[1:] if x is not None else arrays
        record(p, values, m, outputs, kept)

    inputs = (mask,) if x is None else (mask, x)
    counts = run_recorded(dev, (*key, x is None), (*inputs, totals, *outs), record_into,
                          "compact" if ordered else "compact unordered", reads=[(totals.buffer, 0, 4 * len(outs))],
                          keep=kept)
    return _gather_outputs(outs, counts[0].view(np.uint32), dt)


def compact(x, mask, ordered: bool = True, *, method: str | None = None) -> Array:
    """x[mask] for a bool mask of x's shape: the kept elements, flattened, in order, bit
    for bit, for every dtype an Array holds. ordered=False: the append-buffer form (same
    elements, order of tiles unspecified). method: "single-pass" (decoupled fallback,
    docs/scan.md) or "three-phase" (count, scan, scatter); None: single pass up to 2^24
    elements, where it measured faster. 4-byte elements are written by the compaction
    itself; bool, float16 and 8-byte ones are gathered from the kept positions."""
    if not isinstance(ordered, bool):
        raise TypeError(f"ordered must be True or False, not {ordered!r}")
    arr = as_input(x, SUPPORTED_DTYPES)
    m = _as_mask(mask, shape=arr.shape)
    if arr.dtype in VALUE_TYPES:
        return _select(arr.ravel(), m.ravel(), ordered, method)
    return compaction.gather_kept(arr.ravel(), _select(None, m.ravel(), ordered, method))


def nonzero(mask, ordered: bool = True, *, method: str | None = None) -> Array:
    """The flat indices of the True elements of a bool mask: np.flatnonzero(mask) (for a
    1-D mask, np.nonzero(mask)[0]). uint32 indices. `method` as for compact."""
    if not isinstance(ordered, bool):
        raise TypeError(f"ordered must be True or False, not {ordered!r}")
    m = _as_mask(mask)
    return _select(None, m.ravel(), ordered, method)


def _values_and_counts(s: Array, want_counts: bool):
    starts_mask = _run_starts(s)
    values = _select(s, starts_mask, kept=False)
    if not want_counts:
        return values, None
    starts = _select(None, starts_mask, kept=False)
    lengths = empty((starts.size,), U32, s.device)
    program = Program(s.device, label="run lengths")
    _runs_step(program, "run_lengths", s.dtype, {4: starts.buffer, 5: lengths.buffer}, starts.size, total=s.size)
    program.run()
    return values, lengths


def run_length_encode(x):
    """(values, counts) of the runs of equal adjacent elements of the flattened x.
    NaNs next to each other form one run. counts are uint32."""
    arr = as_input(x, VALUE_TYPES).ravel()
    if arr.size == 0:
        return empty((0,), arr.dtype, arr.device), empty((0,), U32, arr.device)
    return _values_and_counts(arr, want_counts=True)


def unique(x, return_counts: bool = False, return_inverse: bool = False, **numpy_kw):
    """numpy.unique of the flattened x: the sorted distinct values (NaNs collapse into
    one, as numpy's default equal_nan=True). With return_inverse, uint32 indices into the
    unique values with x's shape; with return_counts, uint32 counts. Returns a tuple in
    numpy's order (unique, inverse, counts) when either is asked for."""
    numpy_options.refuse("unique", numpy_kw, numpy_options.UNIQUE)
    arr = as_input(x, VALUE_TYPES)
    flat = arr.ravel()
    n = flat.size
    dev = arr.device
    # keys in a narrow range: a bitmap, no sort (ops/unique_dense.py); None: sort
    dense = unique_dense(flat, arr.shape, return_inverse, return_counts) if n else None
    if n == 0:
        values, inverse, counts = empty((0,), arr.dtype, dev), empty(arr.shape, U32, dev), empty((0,), U32, dev)
    elif dense is not None:
        values, inverse, counts = dense
    elif return_inverse:  # the sorted keys come with the permutation: no gather
        perm, s = argsort_with_keys(flat, keep_keys=True, kept=False)
        values, counts = _values_and_counts(s, return_counts)
        inverse = _inverse(s, perm, arr.shape)
    else:
        values, counts = _values_and_counts(sorted_copy(flat, kept=False), return_counts)
        inverse = None
    result = (values,)
    if return_inverse:
        result += (inverse,)
    if return_counts:
        result += (counts,)
    return result[0] if len(result) == 1 else result
