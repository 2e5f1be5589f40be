"""Selection's building blocks: compaction (x[mask], nonzero), the runs of unique and
run_length_encode, and unique's inverse. The front doors are in api/select.py.

compact(x, mask) keeps the order (kernels/select.wgsl): count set flags per tile ->
exclusive scan of the tile counts (ops/scan.py, recorded into the same Program) ->
scatter, where each workgroup ranks its flags inside its tile and writes each kept
element at tile prefix + rank. One Program, one submit; the number of kept elements is
read back afterwards (the result's size depends on it, as for numpy and CuPy).

compact(x, mask, ordered=False) is the append-buffer form: one dispatch in which each
workgroup reserves its output range with one atomicAdd on a global counter. The set of
elements is exact; the order of the tiles in the output is whatever order the
workgroups ran in (inside a tile the order is kept).

Results live in a buffer sized for the worst case (every element kept) when the input
fits one storage binding; larger inputs are compacted chunk by chunk and the pieces
copied into an exactly sized result.

unique(x) = sort -> mark run starts -> compact, or without a sort where the keys span a
narrow range (a presence bitmap, ops/unique_dense.py); run_length_encode(x) = mark run starts
-> compact values and start indices -> lengths from adjacent starts. The runs' kernels
(kernels/select_runs.wgsl) take values of 4 and 8 bytes, window by window past one
storage binding.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from wgprim.array import Array, empty
from wgprim.ops import block_scan, order_key
from wgprim.ops.common import as_input, chunks
from wgprim.ops.radix_sort import radix_sorter
from wgprim.ops.scan import ScanRecorder, scan_recorder
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline
from wgprim.probes import consecutive_subgroups
from wgprim.program import Program
from wgprim.recordings import run_recorded
from wgprim.tuning import policy

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
U64, I64, F64 = np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.float64)
BOOL = np.dtype(np.bool_)
VALUE_TYPES = (U32, I32, F32)
WGSL = {U32: "u32", I32: "i32", F32: "f32"}

WG = 256
TILE = WG * 4 * 4  # elements per tile: 4 mask words (16 flags) per invocation
# Blocks counted per workgroup of the count dispatch (the kernel's COUNT_BLOCKS).
COUNT_BLOCKS = 16
EMITS = (None, "subgroup", "words")


@dataclasses.dataclass(frozen=True)
class SelectPolicy:
    """Compaction's and unique's choices (read where their recorders are looked up;
    wgprim.tuning). Measurements behind the defaults: docs/histogram_select.md and
    docs/scan.md."""

    # Tiles per workgroup (a block): the count and the scan work per block, the scatter
    # walks the block's tiles in order (on an H200 one tile per workgroup is fastest).
    tiles_per_group: int = 1
    # How a tile's kept elements are ranked and written (kernels/select_emit_*.wgsl):
    # "subgroup" (each store instruction of a subgroup writes one unbroken run of the
    # output; needs subgroups of consecutive invocations), "words" (each invocation writes
    # the kept elements of its own 4 consecutive ones), or None: "subgroup" where the
    # adapter allows it and the input has more than subgroup_emit_above elements (measured:
    # docs/scan.md).
    emit: str | None = None
    subgroup_emit_above: int = 1 << 22
    # unique(return_inverse=True) by sorting: order the inverse's writes by destination
    # window first (_inverse). False: one random scatter.
    inverse_by_windows: bool = True

    def __post_init__(self):
        if self.emit not in EMITS:
            raise ValueError(f"emit must be None, 'subgroup' or 'words', not {self.emit!r}")
        if self.tiles_per_group < 1 or self.tiles_per_group & (self.tiles_per_group - 1):
            raise ValueError(f"tiles_per_group must be a power of two, not {self.tiles_per_group}")


def emit_fragment(device, n: int, chosen: SelectPolicy | None = None) -> str:
    """The kernel file that ranks and writes the tiles of a compaction of n elements on
    this device (SelectPolicy.emit; default: the policy in force)."""
    chosen = chosen or policy(SelectPolicy)
    wanted = chosen.emit or ("subgroup" if n > chosen.subgroup_emit_above else "words")
    subgroup = wanted == "subgroup" and consecutive_subgroups(device)
    return "select_emit_subgroup" if subgroup else "select_emit_words"


def _block_tiles(device, chosen: SelectPolicy) -> int:
    """Tiles per block: chosen.tiles_per_group, fewer when a block would not fit one
    binding."""
    tpw = chosen.tiles_per_group
    while tpw > 1 and TILE * tpw * 4 > device.max_binding_bytes:
        tpw //= 2
    return tpw


def _as_mask(mask, shape=None) -> Array:
    m = as_input(mask)
    if m.dtype != BOOL:
        raise TypeError(f"mask must be a bool array, not {m.dtype}")
    if shape is not None and tuple(m.shape) != tuple(shape):
        _mask_mismatch(tuple(m.shape), tuple(shape))
    return m


def _mask_mismatch(mask: tuple, shape: tuple):
    """numpy's IndexError for x[mask] with a mask of another shape (ValueError where numpy
    would index the leading axes only, which compact does not)."""
    if len(mask) > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, but {len(mask)} were indexed")
    for axis, (m, s) in enumerate(zip(mask, shape)):
        if m != s:
            raise IndexError(f"boolean index did not match indexed array along axis {axis}; size of axis is {s} "
                             f"but size of corresponding boolean axis is {m}")
    raise ValueError(f"mask shape {mask} covers only the leading axes of the array's shape {shape}: compact takes "
                     "a mask of the array's whole shape (e.g. np.broadcast_to(mask[..., None], x.shape))")


class CompactRecorder:
    """Compaction as a building block for (device, values of dtype `dt` or indices when dt
    is None, ordered): `record(program, x, mask)` adds the steps to any Program (the
    pipelines, chosen by the input's size, are built once per device)."""

    def __init__(self, device, dt: np.dtype | None, ordered: bool, chosen: SelectPolicy | None = None):
        self.device, self.ordered = device, ordered
        self.policy = chosen = chosen or policy(SelectPolicy)
        self.dt = U32 if dt is None else np.dtype(dt)
        self.kind = "indices" if dt is None else "values"
        tpw = _block_tiles(device, chosen)
        self.block = TILE * tpw
        self.consts = {"WG": WG, "TPW": tpw}
        # ranks: the block scan of vec4<u32> sums (4 columns of flag counts at once)
        self.preamble = f"alias T = {WGSL[self.dt]};\n" + block_scan.scan_preamble(device, "vec4<u32>")
        if ordered:
            self.scan = ScanRecorder(device, U32, "sum")

    def _pipeline(self, entry: str, n: int):
        kernel = ("select", emit_fragment(self.device, n, self.policy))
        return get_pipeline(self.device, kernel, self.preamble, entry, self.consts)

    def parts(self, n: int) -> list:
        """The binding-sized chunks of a compaction of n elements: one output Array and one
        kept count each (record)."""
        return chunks(n, 4, self.block, self.device)

    def record(self, program: Program, x: Array | None, mask: Array, outs: list, totals: Array) -> None:
        """Add the compaction of x (None: indices) by mask: chunk i of parts() into outs[i]
        (room for every element of the chunk), its kept count into totals[i]."""
        dev, n = self.device, mask.size
        program.clear(totals.buffer)  # the append counters start at 0
        for slot, (c, out) in enumerate(zip(self.parts(n), outs)):
            groups = -(-c.count // self.block)
            bind = {1: c.view(mask), 5: out.buffer}
            if x is not None:
                bind[4] = c.view(x)
            if self.ordered:
                counts = Array(program.temp(4 * groups), U32, (groups,), dev)
                prefix = Array(program.temp(4 * groups), U32, (groups,), dev)
                program.dispatch("compact count", self._pipeline("select_count", n),
                                 {0: program.params(c.count, groups, c.start, slot), 8: c.view(mask),
                                  2: counts.buffer}, -(-groups // COUNT_BLOCKS))
                self.scan.record(program, counts, prefix, exclusive=True)
                bind.update({0: program.params(c.count, groups, c.start, slot), 3: prefix.buffer, 7: totals.buffer})
                program.dispatch(f"compact scatter {self.kind}", self._pipeline(f"select_scatter_{self.kind}", n),
                                 bind, groups)
            else:
                bind.update({0: program.params(c.count, groups, c.start, slot), 6: totals.buffer})
                program.dispatch(f"compact append {self.kind}", self._pipeline(f"select_append_{self.kind}", n),
                                 bind, groups)


def compact_recorder(device, dt: np.dtype | None, ordered: bool) -> CompactRecorder:
    """The CompactRecorder of (dt, ordered) on `device` with the SelectPolicy in force,
    looked up (caches.lookup); its blocks depend on the policy and the device's binding
    limit, its scans on the device's block-scan path."""
    chosen = policy(SelectPolicy)
    key = ("compact", None if dt is None else np.dtype(dt), bool(ordered), _block_tiles(device, chosen),
           consecutive_subgroups(device), chosen)
    return lookup(device, key, lambda: CompactRecorder(device, dt, ordered, chosen))


def _gather_outputs(outs: list[Array], counts: np.ndarray, dt: np.dtype) -> Array:
    """One Array of the kept elements: the single chunk's buffer as is, or the chunks'
    pieces copied one after the other into an exactly sized Array."""
    if len(outs) == 1:
        o = outs[0]
        return o.alias((int(counts[0]),), dt)
    dev = outs[0].device
    result = empty((int(counts.sum()),), dt, dev)
    program = Program(dev, label="compact gather")
    offset = 0
    for o, k in zip(outs, counts):
        program.copy(o.buffer, 0, result.buffer, offset, int(k) * dt.itemsize)
        offset += int(k) * dt.itemsize
    program.run()
    return result


# -- runs: unique and run_length_encode ----------------------------------------------
# Element types of the runs' kernels: 64-bit values are vec2<u32> (ops/order_key.py).
RUN_TYPES = {**WGSL, U64: "vec2<u32>", I64: "vec2<u32>", F64: "vec2<u32>"}
RUN_DTYPES = tuple(RUN_TYPES)


def _runs_preamble(dt: np.dtype, equal_nan: bool = True) -> str:
    # Equal order keys (ops/order_key.py): every NaN equals every NaN (numpy's
    # unique(equal_nan=True)), -0.0 equals +0.0, and no float compare (some drivers flush
    # denormals to zero in compares). equal_nan False: a NaN equals nothing.
    nan = "" if equal_nan else " && !is_nan(a)"
    same = f"fn same(a: T, b: T) -> bool {{ return all(key(a) == key(b)){nan}; }}\n"
    return f"alias T = {RUN_TYPES[dt]};\n" + order_key.preamble(dt) + same


def _runs_step(program: Program, entry: str, dt: np.dtype, bindings: dict, n: int, total: int = 0,
               per_invocation: int = 1, neighbour: int = 0, base: int = 0, count: int = 0,
               equal_nan: bool = True) -> None:
    groups = -(-n // (WG * per_invocation))
    pipe = get_pipeline(program.device, "select_runs", _runs_preamble(dt, equal_nan), entry, {"WG": WG})
    program.dispatch(entry.replace("_", " "), pipe,
                     {0: program.params(n, groups, total, neighbour, base, count), **bindings}, groups)


def _before(program: Program, arr: Array, c) -> tuple[dict, int]:
    """The neighbour binding of window c of arr for the runs' marks: the storage-offset
    alignment's worth of bytes before it (its last element is the one before the window),
    and 1; for the first window a stand-in and 0."""
    if c.start == 0:
        return {"buffer": program.temp(16), "offset": 0, "size": 16}, 0
    step = arr.device.storage_offset_alignment
    return {"buffer": arr.buffer, "offset": c.start * arr.itemsize - step, "size": step}, 1


def _record_run_starts(program: Program, s: Array, out: Array, entry: str = "mark_runs",
                       equal_nan: bool = True) -> None:
    """Add the marks of the runs of s into out: a bool mask ("mark_runs") or u32 flags
    ("mark_runs_u32"), window by window."""
    per = 4 if entry == "mark_runs" else 1
    for c in chunks(s.size, max(s.itemsize, out.itemsize), WG * 4, s.device):
        before, has = _before(program, s, c)
        out_binding = 2 if entry == "mark_runs" else 3
        _runs_step(program, entry, s.dtype, {1: c.view(s), 7: before, out_binding: c.view(out)}, c.count,
                   per_invocation=per, neighbour=has, equal_nan=equal_nan)


def _run_starts(s: Array, equal_nan: bool = True) -> Array:
    """A bool mask: True where s[i] starts a run of equal values (a kept recording)."""
    mask = empty((s.size,), BOOL, s.device)
    run_recorded(s.device, ("mark runs", bool(equal_nan)), (s, mask),
                 lambda p, s, mask: _record_run_starts(p, s, mask, equal_nan=equal_nan), "mark runs")
    return mask


def _run_lengths(starts: Array, total: int) -> Array:
    """lengths[j] = starts[j + 1] - starts[j] (the last: total - starts[j]), uint32, window
    by window (the first start after a window is bound next to it)."""
    dev, runs = starts.device, starts.size
    lengths = empty((runs,), U32, dev)
    program = Program(dev, label="run lengths")
    for c in chunks(runs, 4, WG, dev):
        end = c.start + c.count
        after, has = ({"buffer": starts.buffer, "offset": 4 * end, "size": 4}, 1) if end < runs else \
            ({"buffer": program.temp(16), "offset": 0, "size": 16}, 0)
        _runs_step(program, "run_lengths", U32, {4: c.view(starts), 5: c.view(lengths), 10: after}, c.count,
                   total=total, neighbour=has)
    program.run()
    return lengths


def _inverse(s: Array, perm: Array, shape, equal_nan: bool = True) -> Array:
    """inverse[perm[i]] = (number of run starts in s[0..i]) - 1: flags -> scan -> scatter.

    The scatter writes 4 bytes at random places; past a few MiB each lands on a line no
    other write shares before it leaves L2. So the (perm[i], id) pairs are first ordered by
    perm's bits 16 and up (the radix sort's digits 2 and 3, stable), and the scatter then
    writes one 256 KiB window after another (an H200, 2^26 keys: 4.04 ms for the random
    scatter, 1.44 + 0.93 ordered; docs/histogram_select.md). Beyond one storage binding,
    one scatter dispatch per (input window, inverse window) pair."""
    dev, n = s.device, s.size
    program = Program(dev, label="unique inverse")
    flags = Array(program.temp(4 * n), U32, (n,), dev)
    ids = Array(program.temp(4 * n), U32, (n,), dev)
    inverse = empty(shape, U32, dev)
    _record_run_starts(program, s, flags, "mark_runs_u32", equal_nan)
    scan_recorder(dev, U32, "sum", n, "reduce-then-scan").record(program, flags, ids, exclusive=False)
    windows = tuple(d for d in (2, 3) if (n - 1) >> (8 * d))
    if windows and policy(SelectPolicy).inverse_by_windows:
        by_window = flags, Array(program.temp(4 * n), U32, (n,), dev)  # the flags are scanned: reuse
        radix_sorter(dev, U32, False).record(program, perm, by_window[0], ids, by_window[1], digits=windows)
        perm, ids = by_window
    flat = inverse.ravel()
    for c in chunks(n, 4, WG, dev):
        for w in chunks(n, 4, WG, dev):
            _runs_step(program, "scatter_inverse", U32, {6: c.view(perm), 8: c.view(ids), 9: w.view(flat)},
                       c.count, base=w.start, count=w.count)
    program.run()
    return inverse
