"""Scans: cumsum and scan(x, op, exclusive) for every built-in operator and user monoids.

One level is three dispatches: scan_reduce (one total per tile) -> scan of the tile
totals -> scan_downsweep (each tile scanned again from its tile's prefix). The scan of
the totals is this same recursion, so 4096^k elements need k levels; a single tile is
one dispatch. Operators must be associative; order is kept, so they need not commute.
u32/i32 wrap modulo 2^32 (numpy's cumsum would widen to int64: compare with
`np.cumsum(x, dtype=x.dtype)`).

This is the `method="reduce-then-scan"` path. The default for 32-bit types beyond one tile
is the single pass of ops/chained_scan.py (docs/scan.md).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, check_dtype, empty
from wgprim.device import Device, get_device
from wgprim.ops import block_scan, numpy_options, operators
from wgprim.ops.common import as_input, check_out, chunks
from wgprim.program import Plan, Program, get_pipeline

WG = 256
TILE = WG * 16  # elements per workgroup: 16 consecutive per invocation


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
    from wgprim.ops.chained_scan import choose_method

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
        self.tile = TILE
        preamble = operators.preamble(op, dt, for_scan=True) + block_scan.scan_preamble(device, block_scan.OPERATOR)
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
    from wgprim.ops import chained_scan

    if chained_scan.choose_method(n, dt, method) == "single-pass":
        return chained_scan.ChainedRecorder(device, dt, op)
    return ScanRecorder(device, dt, op)


def scan(x, op="sum", exclusive: bool = False, method: str | None = None, *, axis=None) -> Array:
    """Inclusive (or exclusive) scan of the flattened `x` with `op`: sum, prod, min, max,
    bitwise_and, bitwise_or, bitwise_xor, or a `wgprim.Monoid`. Returns a 1-D Array.
    `method`: "single-pass" (one pass over memory, 32-bit types) or "reduce-then-scan";
    None picks per size and dtype (ops/chained_scan.py, choose_method).
    `axis=` (int): scan along that axis, result of x's shape (ops/axis.py)."""
    if not isinstance(exclusive, (bool, np.bool_)):
        raise TypeError(f"exclusive must be True or False, not {exclusive!r}")
    if axis is not None:
        from wgprim.ops.axis import scan_entry

        return scan_entry(x, op, axis, exclusive)
    arr = as_input(x, operators.NUMERIC)
    out = empty((arr.size,), arr.dtype, arr.device)
    if arr.size == 0:
        operators.resolve(op, arr.dtype, for_scan=True)
        from wgprim.ops.chained_scan import choose_method
        choose_method(0, arr.dtype, method)
        return out
    program = Program(arr.device, label="scan")
    recorder(arr.device, arr.dtype, op, arr.size, method).record(program, arr.ravel(), out, exclusive)
    program.run()
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
        self.n, self.exclusive = int(n), bool(exclusive)
        if self.n <= 0:
            raise ValueError("a scan plan needs n > 0")
        self._recorder = recorder(device, self.dtype, op, self.n, method)
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
