"""The segmented front doors over CSR offsets, as CUB's DeviceSegmented*: segment s is
x[offsets[s]:offsets[s + 1]]; empty segments are allowed; elements outside every segment
(before offsets[0] or from offsets[-1] on) are left as they are (copied to the result).

- segment_reduce, segment_scan: the rows kernels of ops/axis.py (AxisReducer,
  AxisScanner), one workgroup per segment.
- segment_sort: SegmentSorter (ops/segmented.py, where the bucketing and the segmented
  radix sort are described).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, empty, refuse_masked
from wgprim.ops import lexsort as chains
from wgprim.ops import operators
from wgprim.ops.axis import _check_binding, axis_reducer, axis_scanner
from wgprim.ops.common import as_input, check_flag
from wgprim.ops.segmented import (SORT_KEY_DTYPES, VALUES_GATHER, VALUES_NONE, SegmentSorter, _copy,
                                  _upload_u32)
from wgprim.program import Program

# segment_sort's keys and values: 32-bit ones by the segmented sorts of ops/segmented.py,
# 64-bit keys (or 8-byte values) by a chain of 32-bit sorts (ops/lexsort.py).
KEY_DTYPES = chains.KEY_DTYPES


def check_offsets(offsets, n: int) -> np.ndarray:
    """CSR offsets as a host uint32 array, or ValueError/TypeError saying what is wrong."""
    refuse_masked(offsets)
    host = offsets.numpy() if isinstance(offsets, Array) else np.asarray(offsets)
    if host.dtype.kind not in "iu":
        raise TypeError(f"offsets must be integers, not {host.dtype}")
    if host.ndim != 1 or host.size < 1:
        raise ValueError(f"offsets must be a 1-D array of at least one entry, got shape {host.shape}")
    wide = host.astype(np.int64)
    if wide[0] < 0:
        raise ValueError(f"offsets[0] must be >= 0, got {wide[0]}")
    steps = np.diff(wide)
    if np.any(steps < 0):
        at = int(np.argmax(steps < 0))
        raise ValueError(f"offsets must not decrease: offsets[{at}] = {wide[at]} > offsets[{at + 1}] = {wide[at + 1]}")
    if wide[-1] > n:
        raise ValueError(f"offsets[-1] = {wide[-1]} is past the end of the input ({n} elements)")
    return wide.astype(np.uint32)


def _one_dimensional(x, what: str, allowed) -> Array:
    arr = as_input(x, allowed)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    return arr


def segment_reduce(x, offsets, op="sum") -> Array:
    """One value per segment: reduce(x[offsets[s]:offsets[s+1]], op) for every s, with op
    any operator of wgprim.reduce. Empty segments give the operator's identity (sum 0,
    prod 1, ...); min, max, argmin and argmax of an empty segment raise ValueError.
    argmin/argmax give the position inside the segment."""
    arr = _one_dimensional(x, "segment_reduce input", operators.NUMERIC)
    offs = check_offsets(offsets, arr.size)
    name, _ = operators.resolve(op, arr.dtype)
    segments = offs.size - 1
    lengths = np.diff(offs.astype(np.int64))
    rdt = operators.result_dtype(op, arr.dtype)
    if segments == 0:
        return empty((0,), rdt, arr.device)
    if np.any(lengths == 0) and (name in ("min", "max") or name in operators.ARG_OPS):
        raise ValueError(f"{name} of an empty segment is undefined (segment {int(np.argmax(lengths == 0))} is empty)")
    out = empty((segments,), rdt, arr.device)
    _check_binding(arr)
    program = Program(arr.device, label=f"segment reduce {name}")
    axis_reducer(arr.device, arr.dtype, op).record_rows(
        program, arr, out, segments, offsets=_upload_u32(arr.device, offs).buffer, longest=int(lengths.max()))
    program.run()
    return out


def segment_scan(x, offsets, op="sum", exclusive: bool = False) -> Array:
    """Scan of every segment on its own (inclusive, or exclusive from the identity), with
    op any operator of wgprim.scan. The result has x's length."""
    arr = _one_dimensional(x, "segment_scan input", operators.NUMERIC)
    offs = check_offsets(offsets, arr.size)
    scanner = axis_scanner(arr.device, arr.dtype, op)
    out = empty(arr.shape, arr.dtype, arr.device)
    _copy(arr.device, arr, out)  # elements outside every segment stay as they are
    segments = offs.size - 1
    if segments == 0 or arr.size == 0:
        return out
    _check_binding(arr)
    program = Program(arr.device, label="segment scan")
    offs_gpu = _upload_u32(arr.device, offs)
    scanner.record_rows(program, arr, out, segments, bool(exclusive), offsets=offs_gpu.buffer, host_offsets=offs)
    program.run()
    return out


def segment_sort(keys, offsets, values=None, descending: bool = False):
    """Sort every segment keys[offsets[s]:offsets[s+1]] on its own, stably (equal keys keep
    their order, each value its own bits; NaN last, or first when descending, as
    wgprim.sort). Keys uint32, int32, float32, uint64, int64 or float64; values (optional)
    any of those dtypes, moved with their keys. Returns the sorted keys, or (keys,
    values)."""
    descending = check_flag("descending", descending)
    k = _one_dimensional(keys, "keys", KEY_DTYPES)
    v = None
    if values is not None:
        v = _one_dimensional(values, "values", KEY_DTYPES)
        if v.size != k.size:
            raise ValueError(f"keys and values differ in length: {k.size} and {v.size}")
    offs = check_offsets(offsets, k.size)
    dev = k.device
    keys_out = empty(k.shape, k.dtype, dev)
    vals_out = empty(v.shape, v.dtype, dev) if v is not None else None
    result = (keys_out, vals_out) if v is not None else keys_out
    lengths = np.diff(offs.astype(np.int64))
    first, last = int(offs[0]), int(offs[-1])
    if first > 0 or last < k.size:  # elements outside every segment stay as they are
        _copy(dev, k, keys_out)
        if v is not None:
            _copy(dev, v, vals_out)
    if last - first == 0:
        return result
    _check_binding(k)
    if k.dtype not in SORT_KEY_DTYPES or (v is not None and v.itemsize != 4):
        _sort_region_wide(k, v, keys_out, vals_out, offs, descending)
        return result
    sorter = SegmentSorter(k, descending, VALUES_GATHER if v is not None else VALUES_NONE)
    long = lengths > sorter.tile
    if np.any(long):
        # Long segments: the segmented radix sort (short ones below, into the same output),
        # else (beyond its limits) two radix argsorts of the whole region.
        if not sorter.sort_radix_segments(k, v, keys_out, vals_out, starts=offs[:-1][long],
                                          lengths=lengths[long]):
            _sort_region(sorter, k, v, keys_out, vals_out, offs)
            return result
    program = Program(dev, label="segment sort")
    offs_gpu = _upload_u32(dev, offs)
    lists = []  # the bucket lists stay alive until the program has run
    short = (lengths > 0) & ~long
    buckets = np.maximum(0, np.ceil(np.log2(np.maximum(lengths, 1)))).astype(np.int64)
    for b in np.unique(buckets[short]):
        segs = np.nonzero((buckets == b) & short)[0].astype(np.uint32)
        seg_list = _upload_u32(dev, segs)
        lists.append(seg_list)
        sorter.record_small(program, segs.size, 1 << int(b), keys_out, v, vals_out,
                            offsets=offs_gpu.buffer, seg_list=seg_list.buffer)
    program.run()
    return result


def _sort_region(sorter: SegmentSorter, k: Array, v, keys_out: Array, vals_out, offs: np.ndarray) -> None:
    """Two radix argsorts over keys[offs[0]:offs[-1]] (copied out when it is not all of k)."""
    dev = k.device
    first, last = int(offs[0]), int(offs[-1])
    n = last - first
    whole = first == 0 and last == k.size
    region = k if whole else empty((n,), k.dtype, dev)
    vals_region = v if (whole or v is None) else empty((n,), v.dtype, dev)
    out_k = keys_out if whole else empty((n,), k.dtype, dev)
    out_v = vals_out if (whole or v is None) else empty((n,), v.dtype, dev)
    if not whole:
        _copy(dev, k, region, first, 0, n)
        if v is not None:
            _copy(dev, v, vals_region, first, 0, n)
    rel = (offs.astype(np.int64) - first).astype(np.uint32)
    sorter.sort_long(region, vals_region, out_k, out_v, rel)
    if not whole:
        _copy(dev, out_k, keys_out, 0, first, n)
        if v is not None:
            _copy(dev, out_v, vals_out, 0, first, n)


def _sort_region_wide(k: Array, v, keys_out: Array, vals_out, offs: np.ndarray, descending: bool) -> None:
    """Every segment of keys[offs[0]:offs[-1]] by one chain of 32-bit sorts over the keys'
    words and each element's segment (ops/lexsort.py); the region is copied out and back
    when it is not all of k."""
    dev = k.device
    first, last = int(offs[0]), int(offs[-1])
    n = last - first
    whole = first == 0 and last == k.size
    program = Program(dev, label="segment sort")

    def part(a: Array, copy_in: bool) -> Array:
        if whole:
            return a
        region = Array(program.temp(n * a.itemsize), a.dtype, (n,), dev)
        if copy_in:
            program.copy(a.buffer, first * a.itemsize, region.buffer, 0, n * a.itemsize)
        return region

    keys_r, out_k = part(k, True), part(keys_out, False)
    vals_r, out_v = (part(v, True), part(vals_out, False)) if v is not None else (None, None)
    rel = _upload_u32(dev, (offs.astype(np.int64) - first).astype(np.uint32))
    chains.record_segmented_sort(program, keys_r, out_k, vals_r, out_v, False, descending,
                                 {"offsets": rel, "slots": offs.size - 1})
    if not whole:
        for out, region in ((keys_out, out_k), (vals_out, out_v)):
            if region is not None:
                program.copy(region.buffer, 0, out.buffer, first * out.itemsize, n * out.itemsize)
    program.run()
