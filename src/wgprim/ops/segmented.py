"""Segmented primitives over CSR offsets, as CUB's DeviceSegmented*: segment s is
x[offsets[s]:offsets[s + 1]]; empty segments are allowed; elements outside every segment
(before offsets[0] or from offsets[-1] on) are left as they are (copied to the result).
This module holds the segmented sort's building blocks (SegmentSorter, sort_rows) and the
copies; the front doors segment_reduce, segment_scan and segment_sort are in
api/segmented.py, the batched sorts' in api/sort.py and api/topk.py.

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
from wgprim.ops.axis import _check_binding
from wgprim.ops.radix_sort import ALL_DIGITS, DESCENDING, KIND, radix_argsort, radix_sorter
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256
U32 = np.dtype(np.uint32)
SORT_KEY_DTYPES = (np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32))
VALUES_NONE, VALUES_GATHER, VALUES_POSITION = 0, 1, 2  # kernels/segmented_sort.wgsl's value modes


def _copy(device, src: Array, dst: Array, src_start: int = 0, dst_start: int = 0, count: int | None = None) -> None:
    """dst[dst_start:dst_start+count] = src[src_start:...] on the GPU (after queued work)."""
    count = src.size if count is None else count
    if count <= 0:
        return
    size = src.itemsize
    program = Program(device, label="segment copy")
    program.copy(src.buffer, src_start * size, dst.buffer, dst_start * size, count * size)
    program.run()


def _upload_u32(device, values: np.ndarray) -> Array:
    return asarray(np.ascontiguousarray(values, dtype=np.uint32), device=device)


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
        dev = self.device
        radix = radix_sorter(dev, self.dt, self.descending)
        if length:
            tiles = (keys.size // length) * -(-length // radix.tile)
            end = keys.size
        else:
            tiles = radix.segment_tiles(lengths)
            end = int(starts[-1]) + int(lengths[-1])
        if not radix.fits_segments(end, tiles):
            return False
        digits = ALL_DIGITS  # every pass: a probe would read back in the middle of the call
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
        dev, n = self.device, region.size
        perm = radix_argsort(region, self.descending)[0]
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
        order = radix_argsort(seg_ids)[0]
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
