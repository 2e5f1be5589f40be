"""Reductions and scans along one axis, and over CSR segments (kernels/reduce_axis.wgsl,
kernels/scan_axis.wgsl).

An n-D array reduced along `axis` is viewed as (outer, length, inner): outer = the
product of the dimensions before the axis, inner = after it. Nothing is transposed:
- inner > 1: the *columns* kernel; one invocation per (outer, inner) column walks
  `length`, neighbouring invocations read neighbouring addresses (coalesced). When there
  are fewer columns than the GPU has invocations to spare, `length` is split into pieces
  reduced side by side and a second dispatch combines the partials (axis=0 of a square
  matrix, or (4, 2^26) along axis 1 with inner = 1 short rows).
- inner == 1: the *rows* kernel; one workgroup per row (a segment of `length` elements,
  many rows per dispatch), split the same way when there are few long rows. Rows shorter
  than ROW_MIN go to the columns kernel (one invocation per row).
Segments given by CSR offsets use the rows kernel with the offsets bound.

Results follow numpy's shapes (keepdims included) and wgprim's dtype rules (those of the
flat reductions: sums keep the input dtype and wrap modulo 2^32, or 2^64 for 64-bit
integers; argmin/argmax give u32; min/max return an input's own bits).
The front doors (the axis= forms of reduce and scan, segment_reduce and segment_scan) are
in api/reduce.py, api/scan.py and api/segmented.py. Views larger than one storage binding
are cut into windows of one binding each by ops/axis_windows.py, which records these
building blocks once per window.
"""
from __future__ import annotations

import builtins
import dataclasses

import numpy as np

from wgprim.array import Array, empty
from wgprim.caches import lookup
from wgprim.ops import loop_budget, operators
from wgprim.ops.axis_moves import record_move
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.tuning import policy

WG = 256
ROW_MIN = 64  # shortest row worth a whole workgroup
MIN_PIECE = 64  # shortest piece of a split axis
ROW_PIECE = 1 << 15  # longest piece of a segment one workgroup scans when segments are few
MAX_WALK = 4096  # longest walk of one invocation in a column scan (llvmpipe stops loops at 65535)
# Loop cap (ops/loop_budget.py): loop iterations of a rows workgroup besides its walk (the
# tail, the tree in workgroup memory), and what one tile of a row scan costs (its loop and
# the log2(WG) + 1 of the lane scan's; measured on lavapipe: the first wrong tile of one
# long segment was tile 6553).
ROW_REDUCE_FIXED = 16
ROW_SCAN_TILE_TRIPS = 10
ROW_SCAN_TILE = WG * 8  # elements per tile of scan_rows (kernels/scan_axis.wgsl: WG * ITEMS)


@dataclasses.dataclass(frozen=True)
class AxisPolicy:
    """How reductions and scans along an axis split their work (wgprim.tuning)."""
    busy_invocations: int = 1 << 19  # enough parallel work to fill a large GPU (an H200 keeps ~270k resident)


def normalize_axis(axis, ndim: int) -> int:
    """`axis` as a non-negative int (numpy's rules and error)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"axis must be an int or None, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def split_shape(shape: tuple, axis: int) -> tuple[int, int, int]:
    """(outer, length, inner) of `shape` around `axis`."""
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return outer, int(shape[axis]), inner


def result_shape(shape: tuple, axis: int, keepdims: bool) -> tuple:
    if keepdims:
        return shape[:axis] + (1,) + shape[axis + 1:]
    return shape[:axis] + shape[axis + 1:]


def _check_binding(arr: Array, what: str = "sorts, partitions and segmented calls") -> None:
    """Refuse an array larger than one storage binding, for the calls that need it in one
    (reductions and scans along an axis do not: ops/axis_windows.py)."""
    if arr.nbytes > arr.device.max_binding_bytes:
        raise ValueError(f"{what} need the array in one storage binding ({arr.nbytes} bytes > "
                         f"{arr.device.max_binding_bytes}); call it on slices of the array of at most that size")


def axis_pieces(work_items: int, length: int) -> int:
    """Pieces to split an axis of `length` into so that work_items * pieces fills the GPU."""
    busy = policy(AxisPolicy).busy_invocations
    if work_items >= busy:
        return 1
    want = -(-busy // builtins.max(work_items, 1))
    return builtins.max(1, builtins.min(want, length // MIN_PIECE))


class AxisReducer:
    """Records reductions of (outer, length, inner) views or CSR segments into a Program."""

    def __init__(self, device, dt: np.dtype, op):
        self.device, self.dt, self.op = device, dt, op
        self.name, _ = operators.resolve(op, dt)
        self.preamble = operators.preamble(op, dt)
        self.acc_bytes = operators.accumulator_bytes(op, dt)

    def _pipe(self, entry: str):
        return get_pipeline(self.device, "reduce_axis", self.preamble, entry, {"WG": WG})

    def record_view(self, p: Program, src: Array, out: Array, outer: int, length: int, inner: int) -> None:
        """out[o, c] = reduce(src[o, :, c]) for src viewed as (outer, length, inner)."""
        if inner == 1 and length >= ROW_MIN:
            self.record_rows(p, src, out, outer, length=length)
            return
        splits = axis_pieces(outer * inner, length)
        chunk = -(-length // splits)
        splits = -(-length // chunk)
        invocations = outer * splits * inner
        groups = -(-invocations // WG)
        params = p.params(outer, length, inner, splits, chunk, groups, 0)
        if splits == 1:
            p.dispatch("reduce columns", self._pipe("columns_final"), {0: params, 1: src.buffer, 4: out.buffer}, groups)
            return
        partials = p.temp(invocations * self.acc_bytes)
        p.dispatch("reduce columns", self._pipe("columns_partial"), {0: params, 1: src.buffer, 2: partials}, groups)
        groups2 = -(-(outer * inner) // WG)
        params2 = p.params(outer, length, inner, splits, chunk, groups2, 0)
        p.dispatch("reduce column partials", self._pipe("combine_columns"),
                   {0: params2, 3: partials, 4: out.buffer}, groups2)

    def record_rows(self, p: Program, src: Array, out: Array, segments: int, length: int = 0,
                    offsets=None, longest: int = 0) -> None:
        """out[s] = reduce of segment s: uniform rows of `length`, or offsets[s]..offsets[s+1]
        (a u32 GPU buffer; `longest` is the longest segment, for the split)."""
        uniform = offsets is None
        longest = length if uniform else longest
        splits = self.row_splits(segments, longest)
        offsets = p.temp(16) if uniform else offsets
        groups = segments * splits
        params = p.params(segments, length, 1, splits, 0, groups, int(uniform))
        bind = {0: params, 1: src.buffer, 5: offsets}
        if splits == 1:
            p.dispatch("reduce rows", self._pipe("rows_final"), {**bind, 4: out.buffer}, groups)
            return
        partials = p.temp(groups * self.acc_bytes)
        p.dispatch("reduce rows", self._pipe("rows_partial"), {**bind, 2: partials}, groups)
        groups2 = -(-segments // WG)
        params2 = p.params(segments, splits, 1, splits, 0, groups2, 0)
        p.dispatch("reduce row partials", self._pipe("combine_columns"), {0: params2, 3: partials, 4: out.buffer}, groups2)


    def row_splits(self, segments: int, longest: int) -> int:
        """Pieces each of `segments` rows (the longest `longest`) is cut into: enough to fill
        the GPU when rows are few, and where the driver caps loops (ops/loop_budget.py) enough
        that no workgroup's walk exceeds it: a rows workgroup takes one trip per 4 * WG
        elements, so on lavapipe one workgroup over 2^26 f16 elements (one long segment
        among 2048 or more) ran 65,536 trips and returned a wrong value."""
        splits = axis_pieces(segments * WG, longest) if longest > 4 * WG else 1
        trips = loop_budget.max_trips(self.device, 1, fixed=ROW_REDUCE_FIXED)
        if trips is not None:
            splits = builtins.max(splits, -(-longest // (4 * WG * trips)))
        return splits


def axis_reducer(device, dt: np.dtype, op) -> AxisReducer:
    """The AxisReducer of (dt, op) on `device`, looked up (caches.lookup)."""
    return lookup(device, ("axis reduce", dt, operators.key(op)), lambda: AxisReducer(device, dt, op))


class AxisScanner:
    """Records scans of (outer, length, inner) views or CSR segments into a Program."""

    def __init__(self, device, dt: np.dtype, op):
        operators.resolve(op, dt, for_scan=True)
        self.device, self.dt = device, dt
        self.preamble = operators.preamble(op, dt, for_scan=True)

    def _pipe(self, entry: str):
        return get_pipeline(self.device, "scan_axis", self.preamble, entry, {"WG": WG})

    def record_view(self, p: Program, src: Array, dst: Array, outer: int, length: int, inner: int,
                    exclusive: bool) -> None:
        if inner == 1:
            self.record_rows(p, src, dst, outer, exclusive, length=length)
            return
        splits = builtins.max(-(-length // MAX_WALK), axis_pieces(outer * inner, length))
        chunk = -(-length // splits)
        splits = -(-length // chunk)
        groups = -(-(outer * splits * inner) // WG)
        unused = p.temp(16)
        if splits == 1:
            params = p.params(outer, length, inner, int(exclusive), 0, groups, 1, length, 0)
            p.dispatch("scan columns", self._pipe("scan_columns"),
                       {0: params, 1: src.buffer, 2: dst.buffer, 5: unused}, groups)
            return
        # Piece totals -> their exclusive scan along the pieces -> each piece from its prefix.
        nbytes = outer * splits * inner * self.dt.itemsize
        totals = Array(p.temp(nbytes), self.dt, (outer * splits * inner,), self.device)
        prefix = Array(p.temp(nbytes), self.dt, (outer * splits * inner,), self.device)
        params = p.params(outer, length, inner, int(exclusive), 0, groups, splits, chunk, 1)
        p.dispatch("scan column pieces", self._pipe("column_piece_totals"),
                   {0: params, 1: src.buffer, 4: totals.buffer}, groups)
        self.record_view(p, totals, prefix, outer, splits, inner, exclusive=True)
        p.dispatch("scan columns", self._pipe("scan_columns"),
                   {0: params, 1: src.buffer, 2: dst.buffer, 5: prefix.buffer}, groups)

    def record_rows(self, p: Program, src: Array, dst: Array, segments: int, exclusive: bool,
                    length: int = 0, offsets=None, host_offsets=None) -> None:
        """Scan every segment: rows of `length`, or CSR `offsets` (a u32 GPU buffer, with
        `host_offsets` the same values on the host). Long segments may be cut into pieces
        (row_piece)."""
        uniform = offsets is None
        if host_offsets is None and uniform:
            host_offsets = np.arange(segments + 1, dtype=np.int64) * length
        bounds = np.asarray(host_offsets, dtype=np.int64)
        longest = int(np.diff(bounds).max()) if segments else 0
        piece = self.row_piece(segments, longest)
        if piece is not None:
            self._record_pieces(p, src, dst, bounds, exclusive, piece)
            return
        offsets = p.temp(16) if uniform else offsets
        self._rows(p, "scan rows", "scan_rows", src, dst, segments, exclusive, length, offsets)

    def _rows(self, p, label, entry, src, dst, segments, exclusive, length, offsets, prefix=None, totals=None):
        params = p.params(segments, length, 1, int(exclusive), int(length > 0), segments, 1, 0, int(prefix is not None))
        bind = {0: params, 1: src.buffer, 2: dst.buffer if dst is not None else p.temp(16), 3: offsets,
                5: prefix if prefix is not None else p.temp(16)}
        if totals is not None:  # row_piece_totals writes the totals (scan_rows does not bind them)
            bind[4] = totals
        p.dispatch(label, self._pipe(entry), bind, segments)

    def row_piece(self, segments: int, longest: int) -> int | None:
        """The length of the pieces that segments are cut into (None: each segment is one
        workgroup's walk). Few long segments are cut into pieces of ROW_PIECE so that every
        workgroup of the GPU has work; where the driver caps loops (ops/loop_budget.py) a
        segment longer than one workgroup may walk is cut whatever the number of segments
        (lavapipe: one of 13.4M elements among 2048 came out wrong from its 6553rd tile)."""
        tiles = loop_budget.max_trips(self.device, ROW_SCAN_TILE_TRIPS, fixed=4)
        walk = None if tiles is None else tiles * ROW_SCAN_TILE
        piece = ROW_PIECE if walk is None else builtins.min(ROW_PIECE, walk)
        if longest > piece and (segments * WG < policy(AxisPolicy).busy_invocations or (walk is not None and longest > walk)):
            return piece
        return None

    def _record_pieces(self, p: Program, src: Array, dst: Array, bounds: np.ndarray, exclusive: bool,
                       piece: int) -> None:
        # Every segment's bounds, and the piece starts inside the segments longer than a piece.
        long = np.nonzero(np.diff(bounds) > piece)[0]
        starts = [np.arange(bounds[s], bounds[s + 1], piece) for s in long]
        edges = np.unique(np.concatenate(starts + [bounds]))
        pieces = edges.size - 1
        first_piece = np.searchsorted(edges, bounds)  # each segment's pieces, as CSR offsets over pieces
        edges_gpu, groups_gpu = _upload_temp(p, edges), _upload_temp(p, first_piece)
        nbytes = pieces * self.dt.itemsize
        totals = Array(p.temp(nbytes), self.dt, (pieces,), self.device)
        prefix = Array(p.temp(nbytes), self.dt, (pieces,), self.device)
        self._rows(p, "scan row pieces", "row_piece_totals", src, None, pieces, False, 0, edges_gpu,
                   totals=totals.buffer)
        self.record_rows(p, totals, prefix, bounds.size - 1, True, offsets=groups_gpu, host_offsets=first_piece)
        self._rows(p, "scan rows", "scan_rows", src, dst, pieces, exclusive, 0, edges_gpu, prefix=prefix.buffer)


    def record_initial(self, p: Program, src: Array, dst: Array, outer: int, length: int, inner: int) -> None:
        """dst (outer, length + 1, inner) = the identity, then src (outer, length, inner) along
        the axis: the include_initial form of a scan (cumulative_sum)."""
        groups = -(-dst.size // WG)
        params = p.params(outer, length, inner, 0, 0, groups, 1, 0, 0)
        p.dispatch("scan initial", self._pipe("shift_initial"), {0: params, 1: src.buffer, 2: dst.buffer}, groups)


def axis_scanner(device, dt: np.dtype, op) -> AxisScanner:
    """The AxisScanner of (dt, op) on `device`, looked up (caches.lookup)."""
    return lookup(device, ("axis scan", dt, operators.key(op)), lambda: AxisScanner(device, dt, op))


def _upload_temp(p: Program, values: np.ndarray):
    """A temporary u32 buffer of the Program holding `values` (written before it runs)."""
    data = np.ascontiguousarray(values, dtype=np.uint32)
    buffer = p.temp(data.nbytes)
    p.write(buffer, data)
    return buffer


def move_axis(arr: Array, axis: int, back: bool = False, shape: tuple | None = None) -> Array:
    """`arr` (4- or 8-byte elements) with `axis` moved to the end, on the GPU
    (kernels/move_axis.wgsl; in windows past one binding: ops/axis_moves.py). back=True:
    the inverse, `arr` being the moved array and `shape` the original one. Sorts and top-k
    along a middle axis work on rows."""
    shape = arr.shape if shape is None else tuple(shape)
    outer, length, inner = split_shape(shape, axis)
    moved = shape[:axis] + shape[axis + 1:] + (length,)
    out = empty(shape if back else moved, arr.dtype, arr.device)
    if arr.size == 0:
        return out
    p = Program(arr.device, label="move axis")
    if builtins.max(arr.buffer.size, out.buffer.size) > arr.device.max_binding_bytes:
        record_move(p, arr, out, outer, length, inner, back)  # in windows of one binding
    else:
        groups = -(-arr.size // WG)
        pipe = get_pipeline(arr.device, "move_axis", "", "move_axis_back" if back else "move_axis_last",
                            {"WG": WG, "WORDS": arr.itemsize // 4})
        p.dispatch("move axis", pipe, {0: p.params(outer, length, inner, arr.size), 1: arr.buffer, 2: out.buffer},
                   groups)
    p.run()
    return out
