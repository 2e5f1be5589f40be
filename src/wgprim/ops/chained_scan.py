"""Single-pass scans: chained scan with decoupled fallback (kernels/scan_chained.wgsl).

Two dispatches per call: one zeroes the per-tile states, one scans. Each workgroup scans
its tile, publishes the tile's aggregate, looks back at earlier tiles' states for its
prefix and publishes its inclusive value; a predecessor that stays NOT READY for
SPIN_BUDGET polls is reduced from its input by the workgroup itself (the fallback), so no
workgroup ever waits for another (kernels/chained_lookback.wgsl, docs/scan.md).

Values travel as 16-bit halves in atomic words (two for a 32-bit value, four for a 64-bit
one), so this path takes u32, i32, f32, u64, i64 and f64 (whose scans are min and max); f16
keeps the three-dispatch scan (ops/scan.py). Inputs larger than one storage binding run
one dispatch per chunk, each seeded with the previous chunk's total (written by its last
tile, read by the next dispatch).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wgprim.array import Array, zeros
from wgprim.device import Device
from wgprim.ops import block_scan, loop_budget, operators
from wgprim.ops.common import chunks
from wgprim.pipelines import get_pipeline
from wgprim.probes import consecutive_subgroups
from wgprim.program import Program
from wgprim.unroll import OFF as UNROLL_OFF

WG = 256
VECS = 4  # scan.wgsl's vec4s per invocation
# The defaults below were measured fastest on an H200 (docs/scan.md, "Measurements").
SPIN_BUDGET = 4  # polls of one predecessor before the fallback
PER_LANE = 1  # predecessors each lane of the look-back subgroup reads per window
# Packets per invocation of the striped kernel (its tile is WG * ROWS * 4 elements, * 2 of
# 64 bits: packets are 16 bytes, kernels/packet_vec4.wgsl), its loops written out (unroll.py).
STRIPED_ROWS = 8
SINGLE_PASS_DTYPES = (operators.U32, operators.I32, operators.F32) + operators.WIDE


@dataclass(frozen=True)
class Fault:
    """Test mode of the look-back: tiles with tile % every == phase publish nothing
    ("silent"), publish late ("late": `delay` rounds of a busy loop first), or publish
    their aggregate but never their inclusive value ("aggregate-only"). "no-lookback" is
    for measurements only: the tiles take the identity as their prefix (wrong results),
    to time the kernel without its look-back."""

    mode: str
    every: int = 1
    phase: int = 0
    delay: int = 20000

    MODES = {"silent": 1, "late": 2, "aggregate-only": 3}  # the answer stays exact
    MEASURE_MODES = {"no-lookback": 4}

    def constants(self) -> dict:
        modes = {**self.MODES, **self.MEASURE_MODES}
        if self.mode not in modes:
            raise ValueError(f"fault mode must be one of {sorted(modes)}")
        return {"FAULT_MODE": modes[self.mode], "FAULT_EVERY": self.every,
                "FAULT_PHASE": self.phase, "FAULT_DELAY": self.delay}


def supports(dt: np.dtype) -> bool:
    return np.dtype(dt) in SINGLE_PASS_DTYPES


def publishes_fallback(op, dt: np.dtype) -> bool:
    """Whether a workgroup that reduced a predecessor's tile may publish that aggregate:
    only where every reduction of the tile gives the same bits (integer built-ins, and
    min/max, exact on floats too), so two writers never write two different values."""
    name, _ = operators.resolve(op, dt, for_scan=True)
    if name in ("min", "max"):
        return True
    return dt.kind in "iu" and not isinstance(op, operators.Monoid)


def lookback_constants(spin_budget: int, publish: bool, fault: Fault | None, stats: bool,
                       spin_seed: int = 0) -> dict:
    """The look-back's pipeline constants. `spin_seed` (tests): nonzero gives each tile its
    own pseudo-random spin budget in 0..spin_budget, so that some tiles fall back."""
    consts = {"SPIN_BUDGET": int(spin_budget), "PUBLISH_FALLBACK": bool(publish), "STATS": bool(stats),
              "SPIN_SEED": int(spin_seed) & 0xFFFFFFFF}
    if fault is not None:
        consts.update(fault.constants())
    return consts


# The loop cap (device.loop_cap: Mesa's llvmpipe ends every loop of an invocation once it
# has run 65,535 loop iterations in all). A workgroup's look-back walks back at most over
# the tiles of its own dispatch, so where the driver has a cap a look-back dispatch spans
# at most lookback_tiles() tiles. Per tile walked back over, a workgroup runs at most
# SPIN_BUDGET + 2 windows (one that moves, up to SPIN_BUDGET + 1 polls before a fallback)
# and one fallback, whose reduction runs no loop. Measured on lavapipe (subgroups of 8,
# every tile silent so that the last one falls back over all others): about 5 loop
# iterations per window and 1 per fallback; the constants below take 8 and 16, FIXED the
# loops of the tile's own scan or ranking, and the walk is given half the cap
# (ops/loop_budget.py; docs/scan.md, "The loop cap").
WINDOW_ITERATIONS = 8
FALLBACK_ITERATIONS = 16
FIXED_ITERATIONS = 4096


def lookback_tiles(device: Device, spin_budget: int = SPIN_BUDGET, fault: Fault | None = None) -> int | None:
    """The most tiles one look-back dispatch may span on `device` so that no workgroup's
    loops can reach the driver's loop cap, whatever the schedule: None where no cap is
    known (one dispatch per storage binding, as before)."""
    per_tile = (int(spin_budget) + 2) * WINDOW_ITERATIONS + FALLBACK_ITERATIONS
    fixed = FIXED_ITERATIONS + (fault.delay if fault is not None and fault.mode == "late" else 0)
    return loop_budget.max_trips(device, per_tile, fixed)


# What kernels/chained_lookback.wgsl needs of its values: their 32-bit words.
_CHAIN_BITS = {
    1: "const CHAIN_WORDS: u32 = 1u;\n"
       "fn chain_bits(v: ChainT) -> vec2<u32> { return vec2<u32>(bitcast<u32>(v), 0u); }\n"
       "fn chain_from_bits(b: vec2<u32>) -> ChainT { return bitcast<ChainT>(b.x); }\n",
    2: "const CHAIN_WORDS: u32 = 2u;\n"
       "fn chain_bits(v: ChainT) -> vec2<u32> { return bitcast<vec2<u32>>(v); }\n"
       "fn chain_from_bits(b: vec2<u32>) -> ChainT { return bitcast<ChainT>(b); }\n",
}


def lookback_preamble(per_lane: int = PER_LANE, words: int = 1) -> str:
    """WGSL constants of the look-back window and the state words of values of `words`
    32-bit words (1, or 2 for 64-bit values; put in the preamble)."""
    return f"const LOOKBACK_PER_LANE: u32 = {int(per_lane)}u;\n" + _CHAIN_BITS[words]


def window_fragment(subgroups: bool) -> str:
    """The look-back window: subgroup operations where subgroups are consecutive
    invocations, workgroup memory and barriers elsewhere."""
    return "chained_window_subgroup" if subgroups else "chained_window_barrier"


def reset_states(p: Program, states, tiles: int) -> None:
    """Zero `tiles` x 4 state words (one dispatch): the states of `tiles` tiles of 32-bit
    values (a tile of 64-bit values has twice as many)."""
    pipe = get_pipeline(p.device, "chained_reset", "", "chained_reset", {"WG": WG})
    groups = -(-tiles // WG)
    p.dispatch("chained reset", pipe, {0: p.params(tiles, groups), 1: states}, groups)


class ChainedRecorder:
    """Records the single-pass scan of (dtype, op). `layout`: "striped" (coalesced, needs
    consecutive subgroups) or "blocked" (scan.wgsl's layout); None picks striped where
    possible. `spin_budget`, `spin_seed`, `fault`, `stats`, `rows`, `per_lane` and `unroll`
    (False: the kernel's loops compiled as written, unroll.py) exist for tests and
    measurements. Each dispatch spans at most one storage binding and, where the driver
    caps loop iterations, lookback_tiles() tiles."""

    def __init__(self, device: Device, dt: np.dtype, op, *, layout: str | None = None,
                 spin_budget: int = SPIN_BUDGET, fault: Fault | None = None, stats: bool = False,
                 rows: int | None = None, per_lane: int = PER_LANE, unroll: bool = True,
                 spin_seed: int = 0):
        dt = np.dtype(dt)
        if not supports(dt):
            raise TypeError(f"the single-pass scan takes {', '.join(map(str, SINGLE_PASS_DTYPES))}, not {dt}")
        operators.resolve(op, dt, for_scan=True)
        self.dt = dt
        self.words = dt.itemsize // 4  # 32-bit words of a value: its state words are 4 per word
        subgroups = consecutive_subgroups(device)
        if layout is None:
            layout = "striped" if subgroups else "blocked"
        if layout == "striped" and not subgroups:
            raise ValueError("the striped layout needs subgroups of consecutive invocations")
        self.layout = layout
        rows = (STRIPED_ROWS if layout == "striped" else VECS) if rows is None else rows
        if layout == "blocked" and rows != VECS or rows % VECS:
            raise ValueError(f"rows must be {VECS} for the blocked layout, a multiple of {VECS} for striped")
        self.tile = WG * rows * operators.packet_elements(dt)
        kernel = ("scan", window_fragment(subgroups), "chained_lookback", "scan_chained")
        entry = "scan_chained"
        if layout == "striped":
            kernel += ("scan_chained_striped",)
            entry = "scan_chained_striped"
        preamble = (operators.preamble(op, dt, for_scan=True) + operators.packet_preamble(dt)
                    + block_scan.scan_preamble(device, block_scan.OPERATOR, subgroups=subgroups)
                    + f"const ROWS: u32 = {rows}u;\n" + lookback_preamble(per_lane, self.words)
                    + ("" if unroll else UNROLL_OFF))
        consts = {"WG": WG, **lookback_constants(spin_budget, publishes_fallback(op, dt), fault, stats, spin_seed)}
        self.pipeline = get_pipeline(device, kernel, preamble, entry, consts)
        self.spin_budget, self.fault = spin_budget, fault

    def record(self, p: Program, src: Array, dst: Array, exclusive: bool, stats=None) -> None:
        n, dev = src.size, p.device
        parts = chunks(n, self.dt.itemsize, self.tile, dev, lookback_tiles(dev, self.spin_budget, self.fault))
        groups = [-(-c.count // self.tile) for c in parts]
        states = p.temp(16 * self.words * sum(groups))
        carry = p.temp(self.dt.itemsize * (len(parts) + 1))
        stats = p.temp(16) if stats is None else stats
        reset_states(p, states, self.words * sum(groups))
        base = 0
        for slot, (c, g) in enumerate(zip(parts, groups)):
            params = p.params(c.count, g, 0, int(exclusive), 0)
            chain = p.params(base, int(slot > 0), slot, slot + 1)
            p.dispatch("scan single-pass", self.pipeline,
                       {0: params, 1: c.view(src), 4: c.view(dst), 10: chain, 11: states, 12: carry, 13: stats},
                       g)
            base += g


def chained_scan(x, op="sum", exclusive: bool = False, **options):
    """The single-pass scan of the flattened `x` with recorder `options` (layout,
    spin_budget, spin_seed, fault, rows, per_lane); returns (result Array, look-back statistics
    {fallbacks, rounds, polls}) — the statistics are counted only when asked
    (`stats=True`), for tests that must see the fallback happen."""
    from wgprim.array import empty
    from wgprim.ops.common import as_input

    arr = as_input(x, SINGLE_PASS_DTYPES)
    out = empty((arr.size,), arr.dtype, arr.device)
    if arr.size == 0:
        return out, {"fallbacks": 0, "rounds": 0, "polls": 0}
    program = Program(arr.device, label="scan single-pass")
    counters = zeros((4,), operators.U32, arr.device)
    ChainedRecorder(arr.device, arr.dtype, op, **options).record(program, arr.ravel(), out, exclusive,
                                                                 stats=counters.buffer)
    program.run()
    c = counters.numpy()
    return out, {"fallbacks": int(c[0]), "rounds": int(c[1]), "polls": int(c[2])}


METHODS = ("single-pass", "reduce-then-scan")
# Smallest input for which the default is the single pass (faster than reduce-then-scan on
# an H200 from 2^20 to 2^28: docs/scan.md, "Measurements"). One tile (the three-dispatch scan is then one
# dispatch) keeps reduce-then-scan.
DEFAULT_SINGLE_PASS_FROM = 4096 + 1


def choose_method(n: int, dt: np.dtype, method: str | None) -> str:
    """The scan method for n elements of dtype dt: `method` when given (checked), else the
    default rule: single-pass for 32- and 64-bit types from DEFAULT_SINGLE_PASS_FROM
    elements on, reduce-then-scan otherwise (f16, and inputs of one tile)."""
    if method is None:
        return "single-pass" if supports(dt) and n >= DEFAULT_SINGLE_PASS_FROM else "reduce-then-scan"
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)} or None, not {method!r}")
    if method == "single-pass" and not supports(dt):
        raise TypeError(f"the single-pass scan takes {', '.join(map(str, SINGLE_PASS_DTYPES))}, not {np.dtype(dt)}")
    return method
