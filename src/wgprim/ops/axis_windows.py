"""Reductions and scans along one axis of arrays larger than one storage binding.

The kernels of ops/axis.py see one (outer, length, inner) view in one binding. Past the
device's binding limit (device.max_binding_bytes) the view is cut into windows of one
binding each:
- blocks of whole outer slices, where one slice fits: each block is a smaller
  (outer, length, inner) view, reduced or scanned as it is. Where one fits, the block holds
  a multiple of the slices that keep every block's start at an offset a binding may take
  (the device's storage offset alignment) in the input and the result alike.
- pieces of one outer slice otherwise: `rows` positions of the axis with all `inner`
  columns, or, where one position alone is too big, one position and a block of columns
  (either way one contiguous run of elements). Reductions fold each piece's result into a
  running one (kernels/reduce_windows.wgsl; argmin/argmax keep the winner's value and its
  index along the whole axis, the earlier piece keeping a tie:
  kernels/argreduce_windows.wgsl). Scans start each piece from the carry of the pieces
  before it (kernels/scan_windows.wgsl). A block or piece that does not start at an aligned
  offset is copied into a packed temporary first and its result copied back
  (kernels/window_copy.wgsl); each temporary is made once, on first need, and reused by
  every window (the dispatches run in order).
Everything is recorded into the caller's one Program: one submit per call.
"""
from __future__ import annotations

import dataclasses
import math
from functools import partial

import numpy as np

from wgprim.ops import operators
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256


@dataclasses.dataclass(frozen=True)
class Bound:
    """What AxisReducer and AxisScanner use of an Array: the binding resource (a buffer, or
    a view of one as a dict) and its elements."""

    buffer: object
    size: int


class Scratch:
    """The temporaries of one recording, made on first need and reused by every window."""

    def __init__(self, p: Program):
        self.p, self.made = p, {}

    def __call__(self, name: str, nbytes: int):
        found = self.made.get(name)
        if found is None:
            found = self.made[name] = self.p.temp(nbytes)
        return found


def fits(device, *arrays) -> bool:
    """Whether every array's buffer fits one storage binding (the one-window path)."""
    return all(a.buffer.size <= device.max_binding_bytes for a in arrays)


def window_bytes(device) -> int:
    """Bytes of data one window may hold: its binding may start up to one alignment before
    it and end on the next 16-byte boundary past it. A multiple of the alignment."""
    align = device.storage_offset_alignment
    room = (device.max_binding_bytes - align - 16) // align * align
    if room < 16:
        raise ValueError(f"the storage binding limit ({device.max_binding_bytes} bytes) is too small for "
                         f"windows of an array (offset alignment {align} bytes)")
    return room


def view(buffer, start: int, nbytes: int) -> dict:
    """A binding of `nbytes` of `buffer` from byte `start` (to the next 16 bytes, within it)."""
    end = min(buffer.size, -(-(start + nbytes) // 16) * 16)
    return {"buffer": buffer, "offset": int(start), "size": int(end - start)}


def block_slices(device, outer: int, slice_bytes: list[int]) -> int:
    """Outer slices per block: as many as one window holds in every array (bytes of one
    slice in each: `slice_bytes`), rounded down to a multiple of the count that keeps every
    block's start aligned in each where one fits (else blocks are packed); 0 where not
    even one slice fits (the pieces path)."""
    align = device.storage_offset_alignment
    most = min(window_bytes(device) // s for s in slice_bytes)
    if most >= outer:  # one block at offset 0
        return outer
    step = math.lcm(*(align // math.gcd(s, align) for s in slice_bytes))
    return most // step * step or most


def piece_shape(device, length: int, inner: int, itemsize: int) -> tuple[int, int]:
    """(rows, columns) of the pieces of one outer slice: every column and as many positions
    as a window holds, or one position and as many columns."""
    room = window_bytes(device) // itemsize
    if inner <= room:
        return min(length, room // inner), inner
    return 1, room


def _copy_pipe(device, dt: np.dtype, entry: str):
    head = "enable f16;\n" if dt == operators.F16 else ""
    return get_pipeline(device, "window_copy", head + f"alias T = {operators.WGSL_TYPE[dt]};\n", entry, {"WG": WG})


def _groups(n: int) -> int:
    return -(-n // WG)


def read_window(p: Program, buffer, dt: np.dtype, start: int, count: int, packed) -> Bound:
    """Elements [start, start + count) of `buffer` (of dtype dt) as a binding: a view where
    the start is aligned, else packed into the temporary `packed()`."""
    size = dt.itemsize
    align = p.device.storage_offset_alignment
    if start * size % align == 0:
        return Bound(view(buffer, start * size, count * size), count)
    base = start * size // align * align
    first = (start * size - base) // size
    into = packed()
    p.dispatch("pack window", _copy_pipe(p.device, dt, "pack"),
               {0: p.params(count, first, _groups(count)), 1: view(buffer, base, (first + count) * size),
                2: view(into, 0, count * size)}, _groups(count))
    return Bound(view(into, 0, count * size), count)


class Target:
    """Where a window's result goes: elements [start, start + count) of `buffer`, bound
    directly where the start is aligned, else the temporary `packed()`, copied into place by
    finish() once the result is written."""

    def __init__(self, p: Program, buffer, dt: np.dtype, start: int, count: int, packed):
        self.buffer, self.dt, self.start, self.count = buffer, dt, start, count
        self.direct = start * dt.itemsize % p.device.storage_offset_alignment == 0
        self.packed = None if self.direct else packed()
        self.bound = Bound(view(buffer, start * dt.itemsize, count * dt.itemsize) if self.direct
                           else view(self.packed, 0, count * dt.itemsize), count)

    def finish(self, p: Program) -> None:
        if not self.direct:
            write_window(p, self.buffer, self.dt, self.start, self.count, self.packed)


def write_window(p: Program, buffer, dt: np.dtype, start: int, count: int, packed) -> None:
    """Copy `count` elements of the temporary `packed` into `buffer` from element `start`."""
    size = dt.itemsize
    align = p.device.storage_offset_alignment
    base = start * size // align * align
    first = (start * size - base) // size
    p.dispatch("unpack window", _copy_pipe(p.device, dt, "unpack"),
               {0: p.params(count, first, _groups(count)), 1: view(packed, 0, count * size),
                2: view(buffer, base, (first + count) * size)}, _groups(count))


# -- reductions -----------------------------------------------------------------------
def record_reduce(p: Program, reducer, src, out, outer: int, length: int, inner: int) -> None:
    """out (outer, inner) = reducer's reduction of src viewed as (outer, length, inner),
    in windows of one binding where src or out is larger than one."""
    if fits(p.device, src, out):
        reducer.record_view(p, src, out, outer, length, inner)
        return
    size, rsize = src.itemsize, out.itemsize
    block = block_slices(p.device, outer, [length * inner * size, inner * rsize])
    if block:
        scratch = Scratch(p)
        packed = partial(scratch, "src", block * length * inner * size)
        packed_out = partial(scratch, "out", block * inner * rsize)
        for o in range(0, outer, block):
            n = min(block, outer - o)
            window = read_window(p, src.buffer, src.dtype, o * length * inner, n * length * inner, packed)
            target = Target(p, out.buffer, out.dtype, o * inner, n * inner, packed_out)
            reducer.record_view(p, window, target.bound, n, length, inner)
            target.finish(p)
        return
    rows, cols = piece_shape(p.device, length, inner, max(size, rsize))
    arg = reducer.name in operators.ARG_OPS
    scratch = Scratch(p)
    packed = partial(scratch, "src", rows * cols * size)
    part, acc = p.temp(cols * rsize), p.temp(cols * rsize)
    acc_value = p.temp(cols * size) if arg else None
    for o in range(outer):
        for c in range(0, inner, cols):
            nc = min(cols, inner - c)
            for k, l in enumerate(range(0, length, rows)):
                nl = min(rows, length - l)
                window = read_window(p, src.buffer, src.dtype, (o * length + l) * inner + c, nl * nc, packed)
                reducer.record_view(p, window, Bound(view(part, 0, nc * rsize), nc), 1, nl, nc)
                _fold(p, reducer, arg, window, part, acc, acc_value, nc, k == 0, l, size, rsize)
            write_window(p, out.buffer, out.dtype, o * inner + c, nc, acc)


def _fold(p: Program, reducer, arg: bool, window: Bound, part, acc, acc_value, columns: int, first: bool,
          start: int, size: int, rsize: int) -> None:
    """Fold one piece's result (`part`) into the running one (`acc`)."""
    groups = _groups(columns)
    if arg:
        pipe = get_pipeline(p.device, "argreduce_windows", reducer.preamble, "fold_args", {"WG": WG})
        p.dispatch("fold pieces", pipe, {0: p.params(columns, int(first), start, columns, groups), 1: window.buffer,
                                         2: view(part, 0, columns * rsize), 3: view(acc_value, 0, columns * size),
                                         4: view(acc, 0, columns * rsize)}, groups)
        return
    pipe = get_pipeline(p.device, "reduce_windows", reducer.preamble, "fold_values", {"WG": WG})
    p.dispatch("fold pieces", pipe, {0: p.params(columns, int(first), groups), 1: view(part, 0, columns * rsize),
                                     2: view(acc, 0, columns * rsize)}, groups)


# -- scans ----------------------------------------------------------------------------
def record_scan(p: Program, scanner, src, dst, outer: int, length: int, inner: int, exclusive: bool,
                initial: bool = False) -> None:
    """dst = scanner's scan of src viewed as (outer, length, inner) along the axis; with
    `initial`, dst is (outer, length + 1, inner), the identity first (include_initial). In
    windows of one binding where src or dst is larger than one."""
    size = src.itemsize
    if fits(p.device, src, dst):
        if not initial:
            scanner.record_view(p, src, dst, outer, length, inner, exclusive)
            return
        scanned = Bound(view(p.temp(src.size * size), 0, src.size * size), src.size)
        scanner.record_view(p, src, scanned, outer, length, inner, exclusive)
        scanner.record_initial(p, scanned, dst, outer, length, inner)
        return
    positions = length + int(initial)
    block = block_slices(p.device, outer, [length * inner * size, positions * inner * size])
    if block:
        scratch = Scratch(p)
        packed = partial(scratch, "src", block * length * inner * size)
        packed_dst = partial(scratch, "dst", block * positions * inner * size)
        scanned = p.temp(block * length * inner * size) if initial else None
        for o in range(0, outer, block):
            n = min(block, outer - o)
            window = read_window(p, src.buffer, src.dtype, o * length * inner, n * length * inner, packed)
            target = Target(p, dst.buffer, dst.dtype, o * positions * inner, n * positions * inner, packed_dst)
            if initial:
                temp = Bound(view(scanned, 0, n * length * inner * size), n * length * inner)
                scanner.record_view(p, window, temp, n, length, inner, exclusive)
                scanner.record_initial(p, temp, target.bound, n, length, inner)
            else:
                scanner.record_view(p, window, target.bound, n, length, inner, exclusive)
            target.finish(p)
        return
    _scan_pieces(p, scanner, src, dst, outer, length, inner, exclusive, initial)


def _scan_pieces(p: Program, scanner, src, dst, outer, length, inner, exclusive, initial) -> None:
    dt, size = src.dtype, src.itemsize
    rows, cols = piece_shape(p.device, length, inner, size)
    scratch = Scratch(p)
    packed_src = partial(scratch, "src", rows * cols * size)
    packed_dst = partial(scratch, "dst", rows * cols * size)
    carries = (p.temp(cols * size), p.temp(cols * size))
    positions = length + int(initial)
    for o in range(outer):
        for c in range(0, inner, cols):
            nc = min(cols, inner - c)
            if initial:
                _fill_identity(p, scanner, dst.buffer, o * positions * inner + c, nc, size)
            for k, l in enumerate(range(0, length, rows)):
                nl = min(rows, length - l)
                count = nl * nc
                window = read_window(p, src.buffer, dt, (o * length + l) * inner + c, count, packed_src)
                start = (o * positions + l + int(initial)) * inner + c
                target = Target(p, dst.buffer, dt, start, count, packed_dst)
                scanner.record_view(p, window, target.bound, 1, nl, nc, exclusive)
                if k > 0 or l + nl < length:
                    _carry(p, scanner, window, target.bound, carries[(k + 1) % 2], carries[k % 2], count, nc,
                           exclusive, k == 0, size)
                target.finish(p)


def _scan_windows_pipe(p: Program, scanner, entry: str):
    return get_pipeline(p.device, "scan_windows", scanner.preamble, entry, {"WG": WG})


def _carry(p: Program, scanner, window: Bound, target: Bound, carry_in, carry_out, count: int, columns: int,
           exclusive: bool, first: bool, size: int) -> None:
    """The first piece gives the carry; a later one starts from it and gives the next."""
    n = columns if first else count
    groups = _groups(n)
    bind = {0: p.params(count, columns, int(exclusive), 0, groups), 1: window.buffer, 2: target.buffer,
            4: view(carry_out, 0, columns * size)}
    if not first:
        bind[3] = view(carry_in, 0, columns * size)
    p.dispatch("carry pieces", _scan_windows_pipe(p, scanner, "take_carry" if first else "add_carry"), bind, groups)


def _fill_identity(p: Program, scanner, buffer, start: int, count: int, size: int) -> None:
    align = p.device.storage_offset_alignment
    base = start * size // align * align
    first = (start * size - base) // size
    groups = _groups(count)
    p.dispatch("initial rows", _scan_windows_pipe(p, scanner, "fill_identity"),
               {0: p.params(count, 0, 0, first, groups), 2: view(buffer, base, (first + count) * size)}, groups)
