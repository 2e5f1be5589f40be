"""Segmented primitives over CSR offsets, as CUB's DeviceSegmented*: segment s is
x[offsets[s]:offsets[s + 1]]; empty segments are allowed; elements outside every segment
(before offsets[0] or from offsets[-1] on) are left as they are (copied to the result).

- segment_reduce: one workgroup per segment (ops/axis.py, kernels/reduce_axis.wgsl),
  long segments split into pieces whose partials a second dispatch combines.
- segment_scan: one workgroup per segment walking it in tiles (kernels/scan_axis.wgsl).
- segment_sort: segments are bucketed by size, as CUB's segmented sort does. Up to TILE
  keys, a workgroup sorts TILE / P segments of at most P keys (P the bucket's power of
  two) in workgroup memory with a stable bitonic network (kernels/segmented_sort.wgsl),
  one dispatch per bucket. Longer segments take an LSD radix sort with segment-major
  digit offsets, as CUB's segmented radix sort (RadixSorter.record_segments in
  ops/radix_sort.py): every segment gets tiles of its own, the per-tile digit counts are
  laid out [segment][digit][tile of the segment], and the flat sort's exclusive scan of
  them keeps each segment's keys inside it: all segments sorted in the passes of one
  flat sort. Beyond its limits (keys or counts past one binding) the long segments'
  region is sorted by two stable radix sorts instead (sort_long): argsort of the keys,
  then argsort of the segment each sorted key belongs to (which keeps the key order
  inside a segment): the "segment id in the high bits" key of a 64-bit sort, in two
  32-bit passes.
Batched sorts (sort(x, axis=-1) of an (m, k) array) are segment sorts of equal rows.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.ops import operators
from wgprim.ops.axis import AxisReducer, AxisScanner, _check_binding
from wgprim.ops.common import as_input
from wgprim.program import Program, get_pipeline, kernel_source

WG = 256
U32 = np.dtype(np.uint32)
SORT_KEY_DTYPES = (np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32))
VALUES_NONE, VALUES_GATHER, VALUES_POSITION, VALUES_CARRIED = 0, 1, 2, 3


def check_offsets(offsets, n: int) -> np.ndarray:
    """CSR offsets as a host uint32 array, or ValueError/TypeError saying what is wrong."""
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


def _copy(device, src: Array, dst: Array, src_start: int = 0, dst_start: int = 0, count: int | None = None) -> None:
    """dst[dst_start:dst_start+count] = src[src_start:...] on the GPU (after queued work)."""
    from wgprim.program import flush_batch

    count = src.size if count is None else count
    if count <= 0:
        return
    flush_batch(device)
    size = src.itemsize
    encoder = device.device.create_command_encoder()
    encoder.copy_buffer_to_buffer(src.buffer, src_start * size, dst.buffer, dst_start * size, count * size)
    device.device.queue.submit([encoder.finish()])


def _upload_u32(device, values: np.ndarray) -> Array:
    return asarray(np.ascontiguousarray(values, dtype=np.uint32), device=device)


# -- reduce and scan --------------------------------------------------------------------
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
    AxisReducer(arr.device, arr.dtype, op).record_rows(
        program, arr, out, segments, offsets=_upload_u32(arr.device, offs).buffer, longest=int(lengths.max()))
    program.run()
    return out


def segment_scan(x, offsets, op="sum", exclusive: bool = False) -> Array:
    """Scan of every segment on its own (inclusive, or exclusive from the identity), with
    op any operator of wgprim.scan. The result has x's length."""
    arr = _one_dimensional(x, "segment_scan input", operators.NUMERIC)
    offs = check_offsets(offsets, arr.size)
    scanner = AxisScanner(arr.device, arr.dtype, op)
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


# -- sort ------------------------------------------------------------------------------
def tile_size(device) -> int:
    """Keys per workgroup of the short-segment sort: 2048 (16 KiB of (key, position)
    pairs, the WebGPU minimum of workgroup memory) or less."""
    tile = 2048
    while 8 * tile > device.max_workgroup_storage:
        tile //= 2
    return tile


def _pipe(device, entry: str, p: int = 1):
    return get_pipeline(device, ("order_key", "radix_keys", "segmented_sort"), "", entry,
                        {"WG": WG, "TILE": tile_size(device), "P": p})


def _mode(dt: np.dtype, descending: bool) -> int:
    from wgprim.ops.radix_sort import DESCENDING, KIND

    return KIND[dt] | (DESCENDING if descending else 0)


class SegmentSorter:
    """Records a segmented sort of keys (and values) into Programs."""

    def __init__(self, keys: Array, descending: bool, value_mode: int):
        self.keys, self.device = keys, keys.device
        self.dt = keys.dtype
        self.mode = _mode(self.dt, descending)
        self.descending = bool(descending)
        self.value_mode = value_mode
        self.tile = tile_size(self.device)

    def record_small(self, p: Program, slots: int, P: int, keys_out: Array, vals_in, vals_out,
                     offsets=None, seg_list=None, length: int = 0, keep: int = 0) -> None:
        """Sort `slots` segments of at most P keys: listed in seg_list (with offsets), or
        rows 0..slots-1 of `length` when offsets is None."""
        uniform = offsets is None
        dummy = p.temp(16)
        per_group = self.tile // P
        groups = -(-slots // per_group)
        # Top-k keeps sorted blocks of the next power of two >= keep and merges them.
        width = min(P, 1 << max(0, (keep - 1).bit_length())) if keep else P
        params = p.params(slots, length, int(uniform), self.mode, self.value_mode, keep, groups, 0, width)
        p.dispatch(f"segment sort P={P}", _pipe(self.device, "sort_small", P), {
            0: params, 1: self.keys.buffer, 2: vals_in.buffer if vals_in is not None else dummy,
            3: offsets if offsets is not None else dummy, 4: seg_list if seg_list is not None else dummy,
            5: keys_out.buffer, 6: vals_out.buffer if vals_out is not None else p.temp(16),
        }, groups)

    def sort_radix_segments(self, keys: Array, values, keys_out: Array, vals_out, length: int = 0,
                            starts: np.ndarray | None = None, lengths: np.ndarray | None = None) -> bool:
        """Sort equal rows of `length` (all of keys), or the segments (starts, lengths), by
        the segmented LSD radix sort (ops/radix_sort.py, RadixSorter.record_segments): the
        passes of one flat sort, each segment in tiles of its own. False (nothing done)
        where it does not apply: keys or counts beyond one binding."""
        from wgprim.ops.radix_sort import ALL_DIGITS
        from wgprim.ops.sort import _radix

        dev = self.device
        radix = _radix(dev, self.dt, self.descending)
        if length:
            tiles = (keys.size // length) * -(-length // radix.tile)
            end = keys.size
        else:
            tiles = radix.segment_tiles(lengths)
            end = int(starts[-1]) + int(lengths[-1])
        if not radix.fits_segments(end, tiles):
            return False
        digits = radix.probe(keys) if keys.size > radix.tile else ALL_DIGITS
        table = None
        if not length:
            table = _upload_u32(dev, radix.segment_table(starts, lengths).ravel())
        program = Program(dev, label="segmented radix sort")
        index_values = self.value_mode == VALUES_POSITION
        radix.record_segments(program, keys, keys_out, values if self.value_mode == VALUES_GATHER else None,
                              vals_out, index_values=index_values, digits=digits, length=length, table=table,
                              tiles=tiles)
        program.run()
        return True

    def sort_long(self, region: Array, vals_region, keys_out: Array, vals_out, rel_offsets: np.ndarray | None,
                  length: int = 0) -> None:
        """Sort the segments of `region` (offsets relative to it, or rows of `length`)
        through two stable radix argsorts."""
        from wgprim.ops.sort import argsort

        dev, n = self.device, region.size
        perm = argsort(region, descending=self.descending)
        seg_ids = empty((n,), U32, dev)
        uniform = rel_offsets is None
        offs = _upload_u32(dev, np.zeros(4, np.uint32) if uniform else rel_offsets)
        slots = 0 if uniform else rel_offsets.size - 1
        program = Program(dev, label="segment ids")
        groups = -(-n // WG)
        program.dispatch("segment of", _pipe(dev, "segment_of"), {
            0: program.params(slots, length, int(uniform), 0, 0, 0, groups, n, 1),
            1: perm.buffer, 3: offs.buffer, 6: seg_ids.buffer}, groups)
        program.run()
        order = argsort(seg_ids)
        program = Program(dev, label="segment gather")
        dummy = program.temp(16)
        program.dispatch("segment gather", _pipe(dev, "gather_sorted"), {
            0: program.params(slots, length, int(uniform), self.mode, self.value_mode, 0, groups, n, 1),
            1: region.buffer, 2: vals_region.buffer if vals_region is not None else dummy,
            3: order.buffer, 4: perm.buffer, 5: keys_out.buffer,
            6: vals_out.buffer if vals_out is not None else program.temp(16), 7: seg_ids.buffer, 8: offs.buffer}, groups)
        program.run()


def sort_rows(keys: Array, length: int, descending: bool, value_mode: int, values: Array | None = None,
              keep: int = 0):
    """Sort every row of `length` of the flat `keys` (batched sort along the last axis).
    keep > 0: only the first `keep` of each row, packed (top-k). Returns (keys, values)."""
    dev = keys.device
    rows = keys.size // length if length else 0
    width = keep if keep else length
    keys_out = empty((rows * width,), keys.dtype, dev)
    vals_out = empty((rows * width,), U32 if value_mode != VALUES_GATHER else values.dtype, dev) \
        if value_mode != VALUES_NONE else None
    if rows == 0 or length == 0:
        return keys_out, vals_out
    _check_binding(keys)
    sorter = SegmentSorter(keys, descending, value_mode)
    if length <= sorter.tile:
        P = 1 << max(0, (length - 1).bit_length())
        program = Program(dev, label="batched sort")
        sorter.record_small(program, rows, P, keys_out, values, vals_out, length=length, keep=keep)
        program.run()
        return keys_out, vals_out
    if keep:
        raise AssertionError("keep needs rows that fit one workgroup")
    if not sorter.sort_radix_segments(keys, values, keys_out, vals_out, length=length):
        sorter.sort_long(keys, values, keys_out, vals_out, None, length=length)
    return keys_out, vals_out


def segment_sort(keys, offsets, values=None, descending: bool = False):
    """Sort every segment keys[offsets[s]:offsets[s+1]] on its own, stably (equal keys keep
    their order; NaN last, or first when descending, as wgprim.sort). Keys uint32, int32
    or float32; values (optional) any 32-bit dtype, moved with their keys. Returns the
    sorted keys, or (keys, values)."""
    k = _one_dimensional(keys, "keys", SORT_KEY_DTYPES)
    v = None
    if values is not None:
        v = _one_dimensional(values, "values", SORT_KEY_DTYPES)
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


# -- the axis= form of sort, argsort and sort_pairs ------------------------------------
def sort_axis(what: str, x, axis, descending: bool, method: str, values=None):
    """sort / argsort / sort_pairs of an n-D `x` along `axis` (None: flattened): rows of
    the last axis are segments of equal length; another axis is moved last on the GPU
    first (and back after)."""
    from wgprim.ops import sort as sort_ops

    if method not in sort_ops.METHODS:
        raise ValueError(f"unknown sort method {method!r}; methods: {', '.join(sort_ops.METHODS)}")
    arr = as_input(x, SORT_KEY_DTYPES)
    vals = None
    if what == "pairs":
        vals = as_input(values, SORT_KEY_DTYPES)
        if vals.shape != arr.shape:
            raise ValueError(f"keys and values differ in shape: {arr.shape} and {vals.shape}")
    if axis is None or arr.ndim <= 1:
        flat = arr.ravel()
        if axis is not None and arr.ndim == 1:
            from wgprim.ops.axis import normalize_axis

            normalize_axis(axis, 1)
        if what == "keys":
            return sort_ops.sort(flat, descending=descending, method=method)
        if what == "argsort":
            return sort_ops.argsort(flat, descending=descending)
        return sort_ops.sort_pairs(flat, vals.ravel(), descending=descending)
    from wgprim.ops.axis import move_axis, normalize_axis

    ax = normalize_axis(axis, arr.ndim)
    last = ax == arr.ndim - 1
    if not last:  # sort rows of the array with the axis moved to the end, then move it back
        arr = move_axis(arr, ax)
        vals = move_axis(vals, ax) if vals is not None else None
    length = arr.shape[-1]
    mode = {"keys": VALUES_NONE, "argsort": VALUES_POSITION, "pairs": VALUES_GATHER}[what]
    keys_out, vals_out = sort_rows(arr.ravel(), length, descending, mode, vals.ravel() if vals is not None else None)
    keys_out = keys_out.reshape(arr.shape)
    vals_out = vals_out.reshape(arr.shape) if vals_out is not None else None
    if not last:
        shape = arr.shape[:ax] + (length,) + arr.shape[ax:-1]
        keys_out = move_axis(keys_out, ax, back=True, shape=shape)
        vals_out = move_axis(vals_out, ax, back=True, shape=shape) if vals_out is not None else None
    return {"keys": keys_out, "argsort": vals_out, "pairs": (keys_out, vals_out)}[what]
