"""Single-pass ordered compaction (x[mask], flatnonzero): kernels/compact_chained.wgsl;
and the compaction of elements that are not 4 bytes wide (gather_kept).

One dispatch per binding-sized chunk, after one that zeroes the tile states: each
workgroup ranks its tile's flags, publishes the tile's count, takes the count of every
earlier tile from the chained look-back with decoupled fallback (kernels/chained_lookback.wgsl)
and writes its kept elements. The input is read once (the mask twice where a workgroup
falls back on a predecessor). Each chunk is its own chained scan into its own output; the
last tile of a chunk writes the chunk's count, read back after the submit (the result's
size depends on it).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, empty, zeros
from wgprim.ops.chained_scan import (SPIN_BUDGET, Fault, lookback_constants, lookback_preamble,
                                     lookback_tiles, reset_states, window_fragment)
from wgprim.ops import block_scan
from wgprim.ops.common import as_input, chunks
from wgprim.ops.gather import record_gather
from wgprim.ops.select import _as_mask, _gather_outputs
from wgprim.pipelines import get_pipeline
from wgprim.probes import consecutive_subgroups
from wgprim.program import Program
from wgprim.recordings import run_recorded

U32 = np.dtype(np.uint32)
WGSL = {np.dtype(np.uint32): "u32", np.dtype(np.int32): "i32", np.dtype(np.float32): "f32"}
WG = 256
TILE = WG * 4 * 4  # select.wgsl's tile: 4 mask words (16 flags) per invocation
# States per look-back lane: 1 measured fastest on an H200 (docs/scan.md, "Measurements").
COMPACT_PER_LANE = 1
# The default takes the single pass up to this many elements, the three phases above: the
# single pass is faster up to 2^24 on an H200, the three phases at 2^28 (docs/scan.md,
# "Single-pass compaction").
SINGLE_PASS_UP_TO = 1 << 24


def single_pass_default(n: int) -> bool:
    """Whether ordered compaction of n elements takes the single pass by default."""
    return n <= SINGLE_PASS_UP_TO


def parts(device, n: int, spin_budget: int = SPIN_BUDGET, fault: Fault | None = None) -> list:
    """The chunks of a compaction of n elements, one dispatch each: one storage binding at
    most, and lookback_tiles() tiles where the driver caps loop iterations. One output
    Array and one kept count each (record_compact)."""
    return chunks(n, 4, TILE, device, lookback_tiles(device, spin_budget, fault))


def record_compact(program: Program, x: Array | None, mask: Array, outs: list, totals: Array, *,
                   spin_budget: int = SPIN_BUDGET, fault: Fault | None = None, stats=None,
                   per_lane: int = COMPACT_PER_LANE, spin_seed: int = 0) -> None:
    """Add the compaction of x (None: the indices) by mask: chunk i of parts() (with the
    same spin_budget and fault) into outs[i] (room for every element of the chunk), its
    kept count into totals[i]."""
    dev = mask.device
    dt = U32 if x is None else x.dtype
    kind = "indices" if x is None else "values"
    subgroups = consecutive_subgroups(dev)
    consts = {"WG": WG, "TPW": 1,
              **lookback_constants(spin_budget, True, fault, stats is not None, spin_seed)}
    preamble = (f"alias T = {WGSL[dt]};\n" + block_scan.scan_preamble(dev, "vec4<u32>", subgroups=subgroups)
                + lookback_preamble(per_lane))
    # Tiles written one invocation per 4 elements (SelectPolicy.emit "words"): the subgroup form
    # went wrong on an H200 past one tile (docs/scan.md, "Single-pass compaction").
    pipe = get_pipeline(dev, ("select", "select_emit_words", window_fragment(subgroups), "chained_lookback",
                              "compact_chained"),
                        preamble, f"compact_chained_{kind}", consts)
    chunked = parts(dev, mask.size, spin_budget, fault)
    groups = [-(-c.count // TILE) for c in chunked]
    states = program.temp(16 * sum(groups))
    stats = program.temp(16) if stats is None else stats
    reset_states(program, states, sum(groups))
    base = 0
    for slot, (c, g, out) in enumerate(zip(chunked, groups, outs)):
        bind = {0: program.params(c.count, g, c.start, slot), 1: c.view(mask), 8: c.view(mask), 5: out.buffer,
                10: program.params(base, 0, 0, slot), 11: states, 12: totals.buffer, 13: stats}
        if x is not None:
            bind[4] = c.view(x)
        program.dispatch(f"compact single-pass {kind}", pipe, bind, g)
        base += g


def gather_kept(x: Array, positions: Array) -> Array:
    """x[positions] (flat): the compaction of elements that are not 4 bytes wide (bool,
    float16, 8-byte), whose kept positions (nonzero) the compaction of indices gives;
    ops/gather.py moves them, bit for bit."""
    out = empty((positions.size,), x.dtype, x.device)
    if out.size:
        run_recorded(x.device, ("compact gather",), (x, positions, out), record_gather, "compact")
    return out


def compact_single_pass(x, mask, **options):
    """x[mask] (x None: flatnonzero(mask)) through the single pass with `options`
    (spin_budget, spin_seed, fault); returns (result Array, look-back statistics), for tests."""
    m = _as_mask(mask).ravel()
    arr = None if x is None else as_input(x).ravel()
    dt = U32 if arr is None else arr.dtype
    counters = zeros((4,), U32, m.device)
    outs = [empty((c.count,), dt, m.device)
            for c in parts(m.device, m.size, options.get("spin_budget", SPIN_BUDGET), options.get("fault"))]
    totals = empty((len(outs),), U32, m.device)
    program = Program(m.device, label="compact single-pass")
    record_compact(program, arr, m, outs, totals, stats=counters.buffer, **options)
    program.run()
    c = counters.numpy()
    return _gather_outputs(outs, totals.numpy(), dt), {"fallbacks": int(c[0]), "rounds": int(c[1]),
                                                       "polls": int(c[2])}
