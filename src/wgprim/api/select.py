"""Selection's front doors: compact (x[mask]), nonzero, unique, run_length_encode.

The building blocks they look up: CompactRecorder (ops/select.py, count -> scan -> scatter,
and the append-buffer form), the single pass (ops/compaction.py), the runs' marks and
the inverse (ops/select.py), the bitmap of narrow key ranges (ops/unique_dense.py) and the
radix sort (ops/radix_sort.py). The number of kept elements is read back after the
submit (the result's size depends on it, as for numpy and CuPy).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from wgprim.api.sort import argsort_with_keys, sorted_copy
from wgprim.array import SUPPORTED_DTYPES, Array, empty
from wgprim.ops import compaction, numpy_options
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.select import (RUN_DTYPES, U32, VALUE_TYPES, _as_mask, _gather_outputs, _inverse, _run_lengths,
                               _run_starts, compact_recorder)
from wgprim.ops.unique_dense import unique_dense
from wgprim.program import batch
from wgprim.recordings import run_recorded


COMPACT_METHODS = ("single-pass", "three-phase")
UNIQUE_DTYPES = RUN_DTYPES  # 64-bit: integers in a narrow range take the bitmap, the rest the 64-bit sort


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


def _runs(s: Array, counts: bool, source: Array | None = None, perm: Array | None = None, index: bool = False,
          equal_nan: bool = True):
    """(values, first indices or None, lengths or None) of the runs of equal keys of s: each
    value is a run's first element, its own bits. With the permutation `perm` that sorted
    `source` into s, the values are taken from the source (the input's bits, whatever the
    sort made of its keys) and `index` gives each run's first index into it. equal_nan
    False: every NaN is a run of its own."""
    mask = _run_starts(s, equal_nan)
    starts = _select(None, mask) if counts or (s.itemsize != 4 and perm is None) else None
    from_source = perm is not None and (s.dtype.kind == "f" or s.itemsize != 4)
    firsts = _select(perm, mask) if index or from_source else None
    if from_source:
        values = compaction.gather_kept(source, firsts)
    elif s.itemsize == 4:
        values = _select(s, mask)
    else:  # 8-byte values: taken at the runs' starts
        values = compaction.gather_kept(s, starts)
    return values, (firsts if index else None), (_run_lengths(starts, s.size) if counts else None)


def run_length_encode(x):
    """(values, counts) of the runs of equal adjacent elements of the flattened x.
    Equal means equal as numpy compares: -0.0 and +0.0 are one run, and so are adjacent
    NaNs (whatever their payloads). Each value is the run's first element, its own bits.
    counts are uint32."""
    arr = as_input(x, RUN_DTYPES).ravel()
    if arr.size == 0:
        return empty((0,), arr.dtype, arr.device), empty((0,), U32, arr.device)
    with batch():  # the runs' marks go out with the first compaction's submit
        values, _, counts = _runs(arr, counts=True)
    return values, counts


def unique(x, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False, axis=None,
           *, equal_nan: bool = True, **numpy_kw):
    """numpy.unique of the flattened x: the sorted distinct values (NaNs collapse into one
    unless equal_nan=False, as numpy; -0.0 and +0.0 are one value). With return_index,
    the index of each value's first occurrence; with return_inverse, indices into the
    unique values with x's shape; with return_counts, the counts; all uint32 (numpy: int64).
    Returns a tuple in numpy's order (unique, index, inverse, counts) when any is asked for.

    Each value is the input's own bits: of equal elements (±0, NaNs of any payload) the
    first in x's order, which is the one np.unique(x, return_index=True) returns (its
    stable sort). numpy's other forms take whichever its unstable sort puts first (and on
    some machines write NaNs as the quiet NaN): equal under ==, not always bit for bit."""
    flags = [check_flag(name, v) for name, v in (("return_index", return_index), ("return_inverse", return_inverse),
                                                 ("return_counts", return_counts), ("equal_nan", equal_nan))]
    numpy_options.refuse("unique", {"axis": axis, **numpy_kw}, numpy_options.UNIQUE)
    values, index, inverse, counts = _unique(x, *flags)
    result = (values,) + tuple(r for r, asked in zip((index, inverse, counts), flags) if asked)
    return result[0] if len(result) == 1 else result


def _unique(x, want_index: bool, want_inverse: bool, want_counts: bool, equal_nan: bool):
    """(values, first indices, inverse, counts) of x's distinct values; those not asked
    for are None."""
    arr = as_input(x, UNIQUE_DTYPES)
    flat, n, dev = arr.ravel(), arr.size, arr.device
    if n == 0:
        return (empty((0,), arr.dtype, dev), empty((0,), U32, dev) if want_index else None,
                empty(arr.shape, U32, dev) if want_inverse else None, empty((0,), U32, dev) if want_counts else None)
    # keys in a narrow range: a bitmap, no sort (ops/unique_dense.py); None: sort
    dense = None if want_index else unique_dense(flat, arr.shape, want_inverse, want_counts)
    if dense is not None:
        values, inverse, counts = dense
        return values, None, inverse, counts
    # The steps are queued as a batch: the sort and the runs' marks go out in the submit of
    # the first compaction, which reads its count (one submit and one map, not three submits).
    with batch():
        if want_index or want_inverse:
            # the sorted keys come with the permutation; the values from the input by it
            perm, s = argsort_with_keys(flat, keep_keys=True)
            values, index, counts = _runs(s, want_counts, flat, perm, want_index, equal_nan)
            inverse = _inverse(s, perm, arr.shape, equal_nan) if want_inverse else None
            return values, index, inverse, counts
        # The sorts are stable and move the input's own bits: each run's first element is the
        # first of its equal elements in x's order, as with the permutation above.
        values, _, counts = _runs(sorted_copy(flat), want_counts, equal_nan=equal_nan)
        return values, None, None, counts


# -- the array API's names ---------------------------------------------------------------
UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def unique_values(x, /) -> Array:
    """The array API's unique_values (numpy's np.unique_values): the distinct values of x,
    each NaN distinct (the standard's rule), sorted (the standard leaves the order
    unspecified; numpy's may differ)."""
    return _unique(x, False, False, False, equal_nan=False)[0]


def unique_counts(x, /) -> UniqueCountsResult:
    """(values, counts) as unique_values, with uint32 counts."""
    values, _, _, counts = _unique(x, False, False, True, equal_nan=False)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /) -> UniqueInverseResult:
    """(values, inverse_indices) as unique_values; inverse_indices (uint32) has x's shape."""
    values, _, inverse, _ = _unique(x, False, True, False, equal_nan=False)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /) -> UniqueAllResult:
    """(values, indices, inverse_indices, counts) as unique_values: indices of each value's
    first occurrence, indices into values with x's shape, counts; all uint32."""
    values, index, inverse, counts = _unique(x, True, True, True, equal_nan=False)
    return UniqueAllResult(values, index, inverse, counts)
