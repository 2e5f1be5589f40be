"""The building blocks of partition, argpartition and kth_smallest (front doors in
api/partition.py).

partition(x, kth) of a 1-D array: the key of every k-th element by the radix select of
top-k (ops/topk.Selection, mode "key": two or three reads of the array, no sort), then one
split (kernels/partition.wgsl): each element goes to a bucket by its key against the sorted
pivots (below P_0, equal to P_0, between P_0 and P_1, ...), counted per tile, the counts
scanned bucket-major (ops/scan.py), and every element written at its bucket's place,
stably: the shape of one radix-sort pass with 2q + 1 digits for q pivots. One Program,
no read-back. The element at each k-th is then the one a stable sort puts there, bit for
bit, everything before it is not greater, everything after not smaller (numpy's promise),
and every bucket keeps the input's order.

More than MAX_PIVOTS k-ths: a stable sort is the partition (api/partition.py).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from wgprim.array import Array
from wgprim.ops import block_scan
from wgprim.ops.common import chunks
from wgprim.ops.segmented import tile_size
from wgprim.ops.scan import scan_recorder
from wgprim.ops.topk import STATE_FIXED_BYTES, Selection, select_preamble
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256
E = 8  # elements per invocation of the split (kernels/partition.wgsl)
TILE = WG * E
U32 = np.dtype(np.uint32)
# Pivots one split takes (2q + 1 buckets, counted in vec4s); more k-ths sort.
MAX_PIVOTS = 8



@dataclasses.dataclass(frozen=True)
class PartitionPolicy:
    """How partition and kth_smallest of n-D arrays treat their rows (wgprim.tuning)."""
    # Rows of at most this length are sorted together (the segmented sort's one tile);
    # longer ones are selected and split.
    short_row: int = 2048
    # Long rows are selected and split one at a time up to this many rows; more are
    # sorted together (the segmented radix sort).
    rows_one_at_a_time: int = 16

    @classmethod
    def for_device(cls, device) -> "PartitionPolicy":
        return cls(short_row=tile_size(device))


_KEY_OF_WORDS = {
    1: "fn key_of_words(w0: u32, w1: u32) -> OrderKey { return w0; }\n",
    2: "fn key_of_words(w0: u32, w1: u32) -> OrderKey { return vec2<u32>(w1, w0); }\n",  # (high, low)
}


def split_preamble(device, dt: np.dtype, pivots: int) -> str:
    buckets = 2 * pivots + 1
    per_vec = 2 if dt.itemsize == 8 else 4
    return (select_preamble(dt) + _KEY_OF_WORDS[dt.itemsize // 4]
            + f"const PIVOTS: u32 = {pivots}u;\nconst BUCKETS: u32 = {buckets}u;\n"
            + f"const BUCKET_VECS: u32 = {-(-buckets // 4)}u;\nconst LOADS: u32 = {E // per_vec}u;\n"
            + block_scan.scan_preamble(device, "vec4<u32>"))


def _pipe(device, dt, pivots: int, entry: str, **constants):
    return get_pipeline(device, "partition", split_preamble(device, dt, pivots), entry, {"WG": WG, **constants})


def record_pivots(p: Program, keys: Array, kths: list[int]) -> object:
    """Record a select of each k-th key (kths sorted ascending) and copy the fixed words
    into one buffer of two words per pivot, in order; returns that buffer."""
    pivots = p.temp(8 * len(kths))
    for j, kth in enumerate(kths):
        selection = Selection(p, keys, kth + 1, False, mode="key")
        p.copy(selection.state, STATE_FIXED_BYTES, pivots, 8 * j, 8)
    return pivots


def record_split(p: Program, keys: Array, pivots, count: int, values_out: Array | None,
                 index_out: Array | None) -> None:
    """Add the split of the 1-D `keys` by `count` pivots (record_pivots' buffer) into
    values_out (the elements' bits) and/or index_out (their uint32 indices)."""
    dev, n, dt = keys.device, keys.size, keys.dtype
    buckets = 2 * count + 1
    windows = chunks(n, dt.itemsize, TILE, dev)
    tiles = sum(-(-c.count // TILE) for c in windows)
    counted = Array(p.temp(4 * buckets * tiles), U32, (buckets * tiles,), dev)
    starts = Array(p.temp(4 * buckets * tiles), U32, (buckets * tiles,), dev)
    count_pipe = _pipe(dev, dt, count, "split_count")
    constants = {"WRITE_VALUES": values_out is not None, "WRITE_INDICES": index_out is not None}
    scatter_pipe = _pipe(dev, dt, count, "split_scatter", **constants)
    tile_base = 0
    for c in windows:
        groups = -(-c.count // TILE)
        p.dispatch("partition count", count_pipe, {0: p.params(c.count, tiles, tile_base, c.start, 0, 0),
                                                   1: c.view(keys), 2: pivots, 3: counted.buffer}, groups)
        tile_base += groups
    with p.scope("partition scan"):
        scan_recorder(dev, U32, "sum", buckets * tiles).record(p, counted, starts, exclusive=True)
    out_itemsize = max(dt.itemsize if values_out is not None else 0, 4 if index_out is not None else 0)
    stand_in = p.temp(16)
    tile_base = 0
    for c in windows:
        groups = -(-c.count // TILE)
        for w in chunks(n, out_itemsize, TILE, dev):
            bind = {0: p.params(c.count, tiles, tile_base, c.start, w.start, w.count), 1: c.view(keys),
                    2: pivots, 4: starts.buffer}
            bind[5] = w.view(values_out) if values_out is not None else stand_in
            bind[6] = w.view(index_out) if index_out is not None else p.temp(16)
            p.dispatch("partition scatter", scatter_pipe, bind, groups)
        tile_base += groups

