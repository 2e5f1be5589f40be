"""Scans for every built-in operator and user monoids: the building block of cumsum and
scan(x, op, exclusive) (their front doors are in api/scan.py).

One level is three dispatches: scan_reduce (one total per tile) -> scan of the tile
totals -> scan_downsweep (each tile scanned again from its tile's prefix). The scan of
the totals is this same recursion, so 4096^k elements need k levels (2048^k of 64-bit
dtypes, whose tiles hold as many bytes); a single tile is one dispatch. Operators must be
associative; order is kept, so they need not commute. u32/i32 wrap modulo 2^32 (numpy's
cumsum would widen to int64: compare with `np.cumsum(x, dtype=x.dtype)`), u64/i64 modulo
2^64 (kernels/int64.wgsl).

This is the `method="reduce-then-scan"` path. The default for 32- and 64-bit types beyond
one tile is the single pass of ops/chained_scan.py (docs/scan.md).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array
from wgprim.device import Device
from wgprim.ops import block_scan, chained_scan, operators
from wgprim.ops.chained_scan import choose_method
from wgprim.ops.common import chunks
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline
from wgprim.probes import consecutive_subgroups
from wgprim.program import Program

WG = 256
TILE = WG * 16  # elements per workgroup: 16 consecutive per invocation (4 packets of 4)


def tile(dt: np.dtype) -> int:
    """Elements per tile: 4 packets per invocation (kernels/scan.wgsl), 16 bytes each."""
    return WG * 4 * operators.packet_elements(dt)


def cumsum_error_bound(abs_prefix_sums, dtype=np.float32, method: str | None = None):
    """Worst-case |error| of each element of a float cumsum, given the running sums of |x|,
    for `method` (None: the method scan() picks for this many elements of `dtype`).

    reduce-then-scan: an output passes through its invocation's sequential chain (16
    additions), the lane scan (8), and per level the tile prefix (again 16 + 8): a depth
    of 64 additions covers 4096^3 elements, each adding at most eps relative to the
    magnitudes summed so far.
    single-pass: the prefix of tile t chains the tiles before it (one addition per tile,
    docs/scan.md), on top of at most 96 inside tiles: 96 + t for elements of tile t
    (tiles of 4096 elements, the smallest the single pass uses).
    """
    abs_prefix_sums = np.asarray(abs_prefix_sums)
    eps = float(np.finfo(dtype).eps)
    if choose_method(abs_prefix_sums.size, np.dtype(dtype), method) == "single-pass":
        depth = 96 + np.arange(abs_prefix_sums.size) // 4096
        return depth.reshape(abs_prefix_sums.shape) * eps * abs_prefix_sums
    return 64 * eps * abs_prefix_sums


class ScanRecorder:
    """The scan as a building block: pipelines built once for (device, dtype, op), then
    `record(program, src, dst, exclusive)` adds the steps to any Program (compaction,
    unique and the radix sort compose it into their own)."""

    def __init__(self, device: Device, dt: np.dtype, op):
        operators.resolve(op, dt, for_scan=True)
        self.dt = dt
        self.tile = tile(dt)
        preamble = (operators.preamble(op, dt, for_scan=True) + operators.packet_preamble(dt)
                    + block_scan.scan_preamble(device, block_scan.OPERATOR))
        self.reduce = get_pipeline(device, "scan", preamble, "scan_reduce", {"WG": WG})
        self.downsweep = get_pipeline(device, "scan", preamble, "scan_downsweep", {"WG": WG})

    def record(self, p: Program, src: Array, dst: Array, exclusive: bool) -> None:
        """Add the steps scanning `src` into `dst` (same size and dtype) to `p`."""
        n, dev = src.size, p.device
        tiles = -(-n // self.tile)
        if tiles == 1:
            params = p.params(n, 1, 0, int(exclusive), 0)
            p.dispatch("scan tile", self.downsweep, {0: params, 1: src.buffer, 3: p.temp(16), 4: dst.buffer}, 1)
            return
        totals = Array(p.temp(tiles * self.dt.itemsize), self.dt, (tiles,), dev)
        prefixes = Array(p.temp(tiles * self.dt.itemsize), self.dt, (tiles,), dev)
        parts = chunks(n, self.dt.itemsize, self.tile, dev)
        for c in parts:
            groups = -(-c.count // self.tile)
            params = p.params(c.count, groups, c.start // self.tile, 0, 0)
            p.dispatch("scan reduce", self.reduce, {0: params, 1: c.view(src), 2: totals.buffer}, groups)
        self.record(p, totals, prefixes, exclusive=True)
        for c in parts:
            groups = -(-c.count // self.tile)
            params = p.params(c.count, groups, c.start // self.tile, int(exclusive), 1)
            p.dispatch(
                "scan downsweep", self.downsweep,
                {0: params, 1: c.view(src), 3: prefixes.buffer, 4: c.view(dst)}, groups,
            )


def recorder(device: Device, dt: np.dtype, op, n: int, method: str | None = None):
    """The recorder of `method` ("single-pass", "reduce-then-scan"; None: the default rule
    of ops/chained_scan.py) for n elements."""
    if chained_scan.choose_method(n, dt, method) == "single-pass":
        return chained_scan.ChainedRecorder(device, dt, op)
    return ScanRecorder(device, dt, op)


def scan_recorder(device: Device, dt: np.dtype, op, n: int, method: str | None = None):
    """recorder(device, dt, op, n, method), looked up (caches.lookup) by the method chosen
    for n elements, the dtype, the operator, the device's block-scan path and the single
    pass's rows (chained_scan.STRIPED_ROWS)."""
    chosen = choose_method(n, dt, method)
    key = ("scan", chosen, dt, operators.key(op), consecutive_subgroups(device), chained_scan.STRIPED_ROWS)
    return lookup(device, key, lambda: recorder(device, dt, op, n, chosen))
