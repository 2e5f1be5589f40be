"""LSD radix sort: records the dispatch chain of the radix kernels into a Program.

Keys are 32 bits, sorted 8 bits per pass (at most 4 passes), in one of two schedules:
- multi-pass: per digit radix count (1 dispatch; the first pass's is made by the probe
  when the one-shot sorts probe) -> radix scan of the counts (the scan's own rule: the
  single-pass scan, 2 dispatches, from 4097 counts on) -> radix scatter (1 dispatch);
- one-sweep (kernels/radix_onesweep.wgsl): clear + histogram of all 4 digits + digit
  starts (3 small dispatches), then per digit ONE dispatch that ranks, looks back at the
  tiles before it for its global offsets (decoupled fallback: never waits) and scatters.
  USE_ONESWEEP says when (by default never: on an H200 the multi-pass sort is faster
  since its passes' loads go out together; docs/sort.md); inputs beyond one binding or
  2^30 keys always take the multi-pass schedule.
The scatter ranks keys by subgroup match (kernels/radix_scatter_match.wgsl; the shape of its
tiles and the measured variants are the MATCH_* and ONESWEEP_* constants below) on adapters
with subgroups, else by two 4-bit splits (kernels/radix_sort.wgsl); the passes follow each
other in the same Program, so a whole sort is one submit. Keys move between two buffers
(the output and one temporary). Integer keys (their order key is a bijection) are turned
into order-preserving u32 by the first pass and back by the last one; float keys, whose
order key forgets bits (-0.0's sign, NaN payloads), move as the input's own bits and every
pass takes its digit from their key (kernels/radix_sort.wgsl, key_of), so that a sort
returns the input's bits.

Passes whose digit is equal in every key change nothing and can be skipped. Knowing
which ones needs the keys: `probe()` runs one read-only dispatch (OR and AND of all
transformed keys) and reads 8 bytes back, which costs one sync with the GPU; only
SortPlan(skip_digits=True) and the segmented sort of long segments ask for it (a one-shot
sort runs every pass: ops/sorting.py says why).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, empty
from wgprim.device import Device
from wgprim.ops import block_scan, loop_budget
from wgprim.ops import scan
from wgprim.ops.common import Chunk, chunks
from wgprim.batching import active_batch
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline, kernel_source
from wgprim.probes import consecutive_subgroups
from wgprim.program import Program, view

WG = 256
# Match path (kernels/radix_scatter_match.wgsl): keys per invocation (4, 8, ... or 24;
# where workgroup memory is short, the largest of 16, 12, 8, 4 below it that fits). On an
# H200, 2^26 u32 keys, multi-pass, ranking with its atomics issued together: 20 per
# invocation 2.408 ms, 16 2.557, 24 3.277 (pairs 2.970, 3.145, 4.260; 2026-12-01 10:03 UTC,
# benchmarks/h200-2026-12-01-sort-rank.json). Before that ranking: 16 3.86, 12 4.07, 8 4.96.
MATCH_ITEMS = 20
# Invocations per workgroup of the match path (256, 384 or 512: its tile is MATCH_WG *
# MATCH_ITEMS keys; the split path always has WG) and the most subgroups such a workgroup
# may have (its per-subgroup counters are sized for the subgroups it really has). H200,
# 2^26 u32 keys, multi-pass: 256 x 16 3.92 ms, 512 x 16 4.27, 512 x 12 4.59, 384 x 16 4.99
# (benchmarks/h200-2026-12-01-sort-profile.json; docs/sort.md).
MATCH_WG = 256
MAX_SUBGROUPS = 64
# How the match path writes: True: the tile goes through workgroup memory in sorted order
# so adjacent invocations write adjacent addresses; False: each key straight from its
# invocation to its destination (H200: 1.40 instead of 0.69 ms per pass).
MATCH_SHUFFLE = True
# Measurement only (benchmarks/sort_h200.py; the results are NOT sorted unless "match" or
# "serial"): "match" (the ranking), "serial" (the same ranking one item after another, as
# before 2026-12-01: exact, slower), "atomic" (each key takes its rank with one workgroup
# atomicAdd: ranked, but not stable) or "none" (no ranking: keys go back to where they were
# read).
MATCH_RANK = "match"
# The scan of the multi-pass sort's digit counts: None (the scan's default rule: the single
# pass from 4097 counts on) or "reduce-then-scan" / "single-pass" (measurement). H200, 2^26
# u32 keys: the single pass (a reset and the scan) 0.027 ms against 0.038, a sort 2.370
# against 2.418 ms (benchmarks/h200-2026-12-01-sort-rank.json, run 4).
SCAN_METHOD = None
# Measurement only: False makes one-sweep passes skip the look-back (offsets estimated,
# results wrong).
ONESWEEP_LOOKBACK = True
# Multi-pass: transpose the scan's offsets to tile-major before each scatter (one small
# dispatch, radix_transpose_offsets), so that a scatter workgroup reads its tile's 256
# offsets as one run instead of 256 words 4 * tiles bytes apart. Off: not measured yet
# (the experiment docs/sort.md names for the multi-pass scatter's bound).
OFFSETS_BY_TILE = False
# One-sweep match passes: count each tile's digits right after loading its keys and publish
# them before ranking (kernels/radix_onesweep_match.wgsl), or publish after the ranking.
# H200, 2^26 pairs: 4.44 against 4.53 ms; keys 3.98 against 4.05.
ONESWEEP_EARLY = True
# Tests set this to False to run the split-ranking scatter on an adapter with subgroups.
USE_MATCH = True
RADIX = 256
DIGIT_BITS = 8
ALL_DIGITS = (0, 1, 2, 3)

# One-sweep passes (kernels/radix_onesweep.wgsl), where the keys fit one binding: True
# (every sort), "pairs" (sort_pairs and argsort only) or False (never). Measured on an H200,
# 2^26 u32, once the passes' key mode and flags were pipeline constants and the count
# pass's loads went out together: the multi-pass sort is faster, keys 2.651 against 2.996
# ms, pairs 3.159 against 3.404 (16 keys per invocation; a one-sweep pass 0.71 ms, of
# which its look-back 0.17, against a multi-pass scatter of 0.47 plus 0.19 of count and
# scan; benchmarks/h200-2026-12-01-sort-rank.json). Earlier, with the key mode read at run
# time, the one-sweep won: keys 3.72 against 3.99 ms, pairs 4.19 against 5.04.
USE_ONESWEEP = False
# Polls of a predecessor tile's state word before the workgroup counts that tile's keys
# itself (tests set 0: every look-back falls back).
ONESWEEP_SPIN = 256
# Predecessors' state words one round of the one-sweep look-back reads at once per digit:
# 4 and 8 measured the same on an H200 (2^26 keys 3.72 ms), 16 and 32 slower (3.87, 4.19).
ONESWEEP_LOOK_AHEAD = 4
# Measurement switch: scatter passes whose output is one binding store without the window
# tests (False: every pass tests, as before 2026-12-01).
STORE_WHOLE = True
# Tests: tiles t with t % ONESWEEP_FAULT == ONESWEEP_FAULT - 1 never publish (0: all do).
ONESWEEP_FAULT = 0
# Loop cap (ops/loop_budget.py): loop iterations of the look-back per predecessor besides its
# polls and its fallback count (the walk's loop, the round's, their exits).
ONESWEEP_WALK_TRIPS = 8
# State words hold 30-bit counts: larger inputs take the multi-pass sort.
ONESWEEP_MAX_KEYS = 2**30 - 1
# Tiles per workgroup of the upfront histogram (fewer global atomics per key).
HIST_TILES = 16
# Each one-sweep workgroup takes the next tile from a counter (tiles in the order the
# workgroups start, so a tile's predecessors have started) rather than its workgroup id.
ONESWEEP_CLAIM = True
PARAMS_WORDS = 20  # the Params uniform of kernels/radix_sort.wgsl

U32 = np.dtype(np.uint32)
KIND = {np.dtype(np.uint32): 0, np.dtype(np.int32): 1, np.dtype(np.float32): 2}
DESCENDING = 4
TRANSFORM_IN, TRANSFORM_OUT, INDEX_VALUES, CLAIM_TILES = 1, 2, 4, 8


def items_per_invocation(device: Device) -> int:
    """Keys per invocation: 8 (tiles of 2048 keys) where the scatter fits workgroup memory,
    else 4. On an H200, 8 beats 16 (10.3 against 13.9 ms for 2^26 keys: the per-invocation
    key, value and rank arrays grow with it) and 4 (11.2 ms: twice the tiles to count and scan)."""
    for items in (8, 4):
        tile = WG * items
        scatter_bytes = 4 * (tile + tile // 32) + 4 * (8 * WG + RADIX + WG)
        if scatter_bytes <= device.max_workgroup_storage:
            return items
    raise ValueError("this device's workgroup memory is too small for the radix sort")


def preamble(device: Device, items: int, wg: int = WG) -> str:
    """Constants and the block scan (subgroup path where the device has subgroups)."""
    constants = (f"const WG: u32 = {wg}u;\nconst ITEMS: u32 = {items}u;\n"
                 f"const LOOKBACK: bool = {str(ONESWEEP_LOOKBACK).lower()};\n"
                 f"const BY_TILE: bool = {str(OFFSETS_BY_TILE).lower()};\n"
                 f"const LOOK_AHEAD: u32 = {ONESWEEP_LOOK_AHEAD}u;\n")
    return constants + kernel_source(("order_key", "radix_keys")) + block_scan.scan_preamble(device, "u32")


def match_shared_bytes(items: int, subgroups: int) -> int:
    """Workgroup memory of the match scatter: the tile (or the counters, which share it),
    digit bases, starts and counts, subgroup totals."""
    return 4 * max(MATCH_WG * items, 128 * subgroups + MATCH_WG) + 4 * (3 * RADIX + subgroups)


def match_items(device: Device) -> int:
    """Keys per invocation of the match path (its tile is MATCH_WG * this), or 0 where the
    match path does not apply: no subgroups, more than MAX_SUBGROUPS subgroups per
    workgroup, or too little workgroup memory."""
    if not (USE_MATCH and device.has_subgroups):
        return 0
    if MATCH_ITEMS not in (4, 8, 12, 16, 20, 24):  # the kernel's for_* functions cover these
        raise ValueError(f"MATCH_ITEMS must be 4, 8, 12, 16, 20 or 24, not {MATCH_ITEMS}")
    if MATCH_WG not in (256, 384, 512):  # at least one invocation per digit
        raise ValueError(f"MATCH_WG must be 256, 384 or 512, not {MATCH_WG}")
    subgroups = subgroups_per_workgroup(device)
    if subgroups > MAX_SUBGROUPS:
        return 0
    for items in [MATCH_ITEMS] + [k for k in (16, 12, 8, 4) if k < MATCH_ITEMS]:
        if match_shared_bytes(items, subgroups) <= device.max_workgroup_storage:
            return items
    return 0


def match_preamble(device: Device, items: int) -> str:
    """Constants and block scan for a workgroup of MATCH_WG (kernels radix_sort +
    radix_scatter_match): MAX_SG (the workgroup's subgroups), SHUFFLE, EARLY, and the
    measurement variants RANK_MODE and LOOKBACK."""
    return _match_preamble(device, items, subgroups_per_workgroup(device))


def _match_preamble(device: Device, items: int, subgroups: int) -> str:
    rank = {"match": 0, "atomic": 1, "none": 2, "serial": 3}[MATCH_RANK]
    return (preamble(device, items, MATCH_WG) + f"const MAX_SG: u32 = {max(subgroups, 1)}u;\n"
            f"const RANK_MODE: u32 = {rank}u;\nconst SHUFFLE: bool = {str(MATCH_SHUFFLE).lower()};\n"
            f"const EARLY: bool = {str(ONESWEEP_EARLY).lower()};\n")


def subgroups_per_workgroup(device: Device) -> int:
    """Subgroups in a workgroup of MATCH_WG invocations (probed once per device and
    workgroup size)."""
    cache = device.cache("probes")
    key = ("radix subgroups", MATCH_WG)
    if key not in cache:
        try:
            pipes = [get_pipeline(device, ("radix_sort", "radix_scatter_match"),
                                  _match_preamble(device, 4, MAX_SUBGROUPS), entry)
                     for entry in ("radix_probe_init", "radix_subgroup_count")]
        except Exception:
            cache[key] = MATCH_WG  # cannot tell: not the match path
            return cache[key]
        p = Program(device, label="radix subgroup probe", transient=False)
        bits = p.temp(16)
        p.dispatch("probe", pipes[0], {7: bits}, 1)
        p.dispatch("probe", pipes[1], {7: bits}, 1)
        p.run(alone=True)  # a probe inside a batch reads its own result, not the batch's
        count = int(p.read(bits, 0, 4, np.uint32, alone=True)[0])
        p.release()
        cache[key] = count if count > 0 else MATCH_WG
    return cache[key]


def config_key() -> tuple:
    """The module settings a RadixSorter's pipelines depend on (radix_sorter looks sorters
    up by them)."""
    return (USE_MATCH, MATCH_ITEMS, MATCH_WG, MATCH_SHUFFLE, OFFSETS_BY_TILE, MATCH_RANK, SCAN_METHOD, ONESWEEP_LOOKBACK,
            ONESWEEP_EARLY, ONESWEEP_LOOK_AHEAD)


def varying_digits(key_or: int, key_and: int) -> tuple[int, ...]:
    """Digits (0 = least significant) that differ between at least two keys."""
    varying = key_or ^ key_and
    return tuple(d for d in ALL_DIGITS if (varying >> (DIGIT_BITS * d)) & (RADIX - 1))


def pass_digits(digits: tuple[int, ...]) -> tuple[int, ...]:
    """The digits record() makes passes for: least significant first, at least one (the
    pass that writes the output)."""
    return tuple(sorted(digits)) or (0,)


def _passes(digits: tuple[int, ...], pairs: bool, index_values: bool):
    """(pass index, digit, destination, flags) of each pass: destinations alternate between
    1 (the temporaries) and 0 (the output) so that the last pass lands in the output; the
    first pass transforms the keys (and makes the indices of argsort), the last undoes it."""
    passes = len(digits)
    for i, d in enumerate(digits):
        first, last = i == 0, i == passes - 1
        flags = (TRANSFORM_IN if first else 0) | (TRANSFORM_OUT if last else 0)
        if pairs and first and index_values:
            flags |= INDEX_VALUES
        yield i, d, (passes - 1 - i) % 2, flags


def _as(buffer, n: int) -> Array:
    """A u32 view of n keys (or values) in `buffer`, for binding windows of it."""
    return Array(buffer, np.dtype(np.uint32), (n,), None)


class RadixSorter:
    """Pipelines for one (device, key dtype, direction); records sorts into Programs."""

    def __init__(self, device: Device, dtype: np.dtype, descending: bool = False):
        self.device = device
        self.dtype = np.dtype(dtype)
        self.mode = KIND[self.dtype] | (DESCENDING if descending else 0)
        self.raw_keys = self.dtype.kind == "f"  # passes move raw bits (kernels/radix_sort.wgsl)
        self.items = match_items(device)
        self.match = self.items > 0
        if self.match:
            # Ranked by subgroup match (kernels/radix_scatter_match.wgsl).
            pre = match_preamble(device, self.items)
            files = ("radix_sort", "radix_scatter_match")
            entries = {"radix_probe_init": "radix_probe_init", "radix_probe": "radix_probe",
                       "radix_probe_count": "radix_probe_count", "radix_count": "radix_count",
                       "radix_transpose_offsets": "radix_transpose_offsets",
                       "radix_scatter_keys": "radix_scatter_match_keys",
                       "radix_scatter_pairs": "radix_scatter_match_pairs",
                       "radix_count_segments": "radix_count_segments",
                       "radix_scatter_segments_keys": "radix_scatter_match_segments_keys",
                       "radix_scatter_segments_pairs": "radix_scatter_match_segments_pairs"}
        else:
            # Two 4-bit splits per digit (kernels/radix_sort.wgsl).
            self.items = items_per_invocation(device)
            pre = preamble(device, self.items)
            files = "radix_sort"
            entries = {e: e for e in ("radix_probe_init", "radix_probe", "radix_probe_count", "radix_count",
                                      "radix_transpose_offsets",
                                      "radix_scatter_keys", "radix_scatter_pairs", "radix_count_segments",
                                      "radix_scatter_segments_keys", "radix_scatter_segments_pairs")}
        self.tile = (MATCH_WG if self.match else WG) * self.items
        self._files, self._pre, self._entries = files, pre, entries
        self.pipes: dict = {}  # (name, transforms) -> pipeline, built on first use
        self._scans: dict = {}  # number of counts -> the recorder of their scan
        self._onesweep_files = (files if isinstance(files, tuple) else (files,)) + (
            ("radix_onesweep", "radix_onesweep_match") if self.match else ("radix_onesweep",))
        self._onesweep_entries = {
            "clear": "radix_onesweep_clear", "histogram": "radix_onesweep_histogram",
            "bins": "radix_onesweep_bins",
            "keys": "radix_onesweep_match_keys" if self.match else "radix_onesweep_keys",
            "pairs": "radix_onesweep_match_pairs" if self.match else "radix_onesweep_pairs"}

    def pipe(self, name: str, flags: int = 0, windows: bool = False):
        """The pipeline of entry `name` for a pass with `flags`, storing through output
        windows or not: the key mode, the pass's TRANSFORM_IN / TRANSFORM_OUT /
        INDEX_VALUES bits and `windows` are pipeline constants (see held, key_of and
        store_key in kernels/radix_sort.wgsl). Combinations that compile to the same code
        share one pipeline: for integer keys the mode matters only to a pass that
        transforms, and the transforms of ascending u32 keys are the identity; float keys
        take their digits from the raw bits in every pass, which the transform flags do
        not change."""
        flags &= TRANSFORM_IN | TRANSFORM_OUT | INDEX_VALUES
        if self.mode == 0 or self.raw_keys:
            flags &= INDEX_VALUES
        mode = self.mode if self.raw_keys or flags & (TRANSFORM_IN | TRANSFORM_OUT) else 0
        windows = windows or not STORE_WHOLE
        key = (name, mode, flags, windows)
        if key not in self.pipes:
            files, entries = ((self._onesweep_files, self._onesweep_entries) if name in self._onesweep_entries
                              else (self._files, self._entries))
            self.pipes[key] = get_pipeline(self.device, files, self._pre, entries[name],
                                           {"KEY_MODE": mode, "PASS_FLAGS": flags, "OUTPUT_WINDOWS": int(windows)})
        return self.pipes[key]

    def record_scan(self, p: Program, counts: Array, offsets: Array) -> None:
        """The exclusive sum of the per-tile digit counts: the scan's own rule picks the
        single pass (ops/chained_scan.py) or reduce-then-scan by size; SCAN_METHOD forces
        one."""
        if counts.size not in self._scans:  # SCAN_METHOD is part of the sorter's config_key
            self._scans[counts.size] = scan.recorder(self.device, counts.dtype, "sum", counts.size, SCAN_METHOD)
        self._scans[counts.size].record(p, counts, offsets, exclusive=True)

    @staticmethod
    def _params(p: Program, *values: int):
        """The Params uniform of the radix kernels (fields not given are 0)."""
        return p.params(*values, *([0] * (PARAMS_WORDS - len(values))))

    # -- one-sweep --------------------------------------------------------------------
    def onesweep_shared_bytes(self) -> int:
        """Workgroup memory of the one-sweep pass (besides what the ranking already uses)."""
        lookback = 4 * (RADIX + 2)
        if self.match:
            lookback += 4 * RADIX  # the early counts
            ranking = match_shared_bytes(self.items, subgroups_per_workgroup(self.device))
        else:
            ranking = 4 * (self.tile + self.tile // 32) + 4 * (8 * WG + RADIX + WG)
        return ranking + lookback

    def onesweep_schedule(self, tiles: int) -> tuple[int, int]:
        """(polls of a predecessor's word, tiles per dispatch) of the one-sweep passes. Where
        the driver caps loops (ops/loop_budget.py) a look-back walks back over at most a
        window of tiles, each costing its polls and, unpublished, the count of its keys (a
        loop of ITEMS): the window and the polls are bounded so that a walk over the whole
        window (and a tile that never publishes before it, ONESWEEP_FAULT) fits. Elsewhere
        ONESWEEP_SPIN polls, and every tile in one dispatch."""
        total = loop_budget.budget(self.device)
        if total is None:
            return ONESWEEP_SPIN, max(1, tiles)
        spin = min(ONESWEEP_SPIN, total // 16)
        per_tile = spin + self.items + ONESWEEP_WALK_TRIPS
        return spin, max(1, total // per_tile - 1)

    def uses_onesweep(self, n: int, pairs: bool = False) -> bool:
        """One-sweep passes (as USE_ONESWEEP says for keys alone or with values) where keys
        and values fit one binding each, the counts fit the state words' 30 bits and
        workgroup memory holds the pass; else the multi-pass sort."""
        wanted = USE_ONESWEEP is True or (USE_ONESWEEP == "pairs" and pairs)
        return (wanted and 0 < n <= ONESWEEP_MAX_KEYS and 4 * n <= self.device.max_binding_bytes
                and self.onesweep_shared_bytes() <= self.device.max_workgroup_storage)

    def tiles(self, n: int) -> int:
        return -(-n // self.tile)

    def chunks(self, n: int) -> list[Chunk]:
        """Binding-sized windows of whole tiles: each count, probe and scatter dispatch
        reads one of them."""
        return chunks(n, 4, self.tile, self.device)

    def check_size(self, n: int) -> None:
        if 4 * n > self.device.max_buffer_bytes:
            raise ValueError(f"radix sort of {n} keys needs a {4 * n}-byte buffer; this device's "
                             f"largest is {self.device.max_buffer_bytes} bytes")

    def chunks_size(self) -> int:
        """Keys in one binding-sized window (a whole number of tiles)."""
        return (self.device.max_binding_bytes // (4 * self.tile)) * self.tile

    def _output_windows(self, buffer, n: int) -> list[tuple[dict, dict | None, int, int]]:
        """(low window, high window, split, window base) for each scatter dispatch of a
        chunk: one dispatch when the output fits two bindings (every key lands in one of
        the two windows), else one per pair of bindings (each keeps the keys that land in
        its windows: the ranking is repeated, the result is the same)."""
        per = self.chunks_size()
        if n <= per:
            return [(view(buffer, 0, buffer.size), None, 0xFFFFFFFF, 0)]
        windows = []
        for base in range(0, n, 2 * per):
            lo = view(buffer, 4 * base, min(4 * per, buffer.size - 4 * base))
            rest = min(buffer.size - 4 * (base + per), 4 * per)
            hi = view(buffer, 4 * (base + per), rest) if rest > 0 else None
            windows.append((lo, hi, per, base))
        return windows

    # -- probe --------------------------------------------------------------------------
    def record_probe(self, p: Program, keys: Array, bits, counts=None) -> None:
        """Add the dispatches leaving (OR, AND) of all transformed keys in `bits` (8 bytes);
        with `counts` (a buffer as temp_bytes names it), also the first multi-pass pass's
        digit-0 counts (radix_probe_count: the same read of the keys)."""
        p.dispatch("radix probe", self.pipe("radix_probe_init"), {7: bits}, 1)
        tiles = self.tiles(keys.size)
        for c in self.chunks(keys.size):
            groups = self.tiles(c.count)
            params = self._params(p, c.count, tiles, groups, 0, TRANSFORM_IN, self.mode, c.start // self.tile,
                                  c.start, 0xFFFFFFFF, 0)
            bindings = {0: params, 1: c.view(keys), 7: bits}
            if counts is not None:
                bindings[2] = counts
            p.dispatch("radix probe", self.pipe("radix_probe_count" if counts is not None else "radix_probe",
                                                TRANSFORM_IN), bindings, groups)

    def probe(self, keys: Array) -> tuple[int, ...]:
        """The digits worth a pass for these keys (runs the probe and waits for it)."""
        return self.probe_counting(keys, None)[0]

    def probe_counting(self, keys: Array, counts) -> tuple[tuple[int, ...], bool]:
        """probe(), and with `counts` (record()'s "counts" temporary; multi-pass only) the
        first pass's counts made in the same read of the keys: (digits, whether `counts`
        holds the first pass's counts: pass it to record() as first_counted)."""
        self.check_size(keys.size)
        if active_batch(self.device) is not None:
            return ALL_DIGITS, False  # in a batch nothing runs before the end: no probe, all passes
        # Through Program.run, so that profile() and bench see these dispatches too.
        p = Program(self.device, label="radix probe", transient=False)
        bits = p.temp(16)
        self.record_probe(p, keys, bits, counts)
        p.run()
        key_or, key_and = (int(v) for v in p.read(bits, 0, 8, np.uint32))
        p.release()
        digits = varying_digits(key_or, key_and)
        return digits, counts is not None and pass_digits(digits)[0] == 0

    # -- sort ---------------------------------------------------------------------------
    def temp_bytes(self, n: int, with_values: bool) -> dict:
        """Temporaries of record(), by name: the one-sweep path's state words and global
        digit counts, or the multi-pass path's per-tile counts and offsets."""
        sizes = {"keys": 4 * n, "values": 4 * n if with_values else 0}
        if self.uses_onesweep(n, with_values):
            sizes.update(state=4 * 2 * RADIX * self.tiles(n), hist=4 * 4 * RADIX, claims=16)
        else:
            sizes.update(counts=4 * RADIX * self.tiles(n), offsets=4 * RADIX * self.tiles(n))
        return sizes

    def record(self, p: Program, keys_in: Array, keys_out: Array, vals_in: Array | None = None,
               vals_out: Array | None = None, index_values: bool = False,
               digits: tuple[int, ...] = ALL_DIGITS, temps: dict | None = None,
               first_counted: bool = False) -> None:
        """Add the passes sorting keys_in into keys_out (and values along, when vals_out is
        given: from vals_in, or the key indices with `index_values`). `digits`: the passes to
        run, least significant first (at least one pass always runs: it writes the output).
        `temps`: buffers named as in temp_bytes() (a plan's own), else Program temporaries.
        `first_counted`: temps["counts"] already holds the first pass's counts (probe())."""
        n = keys_in.size
        if n == 0:
            return
        self.check_size(n)
        digits = pass_digits(digits)
        pairs = vals_out is not None
        sizes = self.temp_bytes(n, pairs)
        temps = temps or {k: p.temp(v) for k, v in sizes.items() if v}
        if self.uses_onesweep(n, pairs):
            self._record_onesweep(p, keys_in, keys_out, vals_in, vals_out, index_values, digits, temps)
            return
        tiles = self.tiles(n)
        counts = Array(temps["counts"], np.dtype(np.uint32), (RADIX * tiles,), self.device)
        offsets = Array(temps["offsets"], np.dtype(np.uint32), (RADIX * tiles,), self.device)
        # Ping-pong so that the last pass lands in keys_out.
        key_bufs = [keys_out.buffer, temps["keys"]]
        val_bufs = [vals_out.buffer, temps["values"]] if pairs else []
        src_k = keys_in.buffer
        src_v = vals_in.buffer if (pairs and not index_values) else keys_in.buffer  # unused when indices
        parts = self.chunks(n)
        unused = p.temp(16)  # the high output windows when the output fits one binding
        for _, d, dst, flags in _passes(digits, pairs, index_values):
            key_windows = self._output_windows(key_bufs[dst], n)
            windowed = len(key_windows) > 1 or key_windows[0][1] is not None
            val_windows = self._output_windows(val_bufs[dst], n) if pairs else [None] * len(key_windows)
            counted = first_counted and flags & TRANSFORM_IN and d == 0
            for c in ([] if counted else parts):
                groups = self.tiles(c.count)
                params = self._params(p, c.count, tiles, groups, DIGIT_BITS * d, flags, self.mode,
                                  c.start // self.tile, c.start, 0xFFFFFFFF, 0)
                p.dispatch("radix count", self.pipe("radix_count", flags & TRANSFORM_IN),
                           {0: params, 1: c.view(_as(src_k, n)), 2: counts.buffer}, groups)
            with p.scope("radix scan"):
                self.record_scan(p, counts, offsets)
            scatter_offsets = offsets.buffer
            if OFFSETS_BY_TILE:  # the offsets tile-major, into the counts (read by then)
                blocks = (RADIX // 32) * -(-tiles // 32)
                params = self._params(p, n, tiles, blocks)
                p.dispatch("radix scan", self.pipe("radix_transpose_offsets"),
                           {0: params, 2: counts.buffer, 3: offsets.buffer}, blocks)
                scatter_offsets = counts.buffer
            for c in parts:
                groups = self.tiles(c.count)
                for (key_lo, key_hi, split, base), vals in zip(key_windows, val_windows):
                    params = self._params(p, c.count, tiles, groups, DIGIT_BITS * d, flags, self.mode,
                                      c.start // self.tile, c.start, split, base)
                    bindings = {0: params, 1: c.view(_as(src_k, n)), 3: scatter_offsets, 4: key_lo,
                                8: key_hi or unused}
                    if pairs:
                        val_lo, val_hi, _, _ = vals
                        bindings.update({5: c.view(_as(src_v, n)), 6: val_lo, 9: val_hi or unused})
                        p.dispatch("radix scatter", self.pipe("radix_scatter_pairs", flags, windowed), bindings, groups)
                    else:
                        p.dispatch("radix scatter", self.pipe("radix_scatter_keys", flags, windowed), bindings, groups)
            if pairs:
                src_v = val_bufs[dst]
            src_k = key_bufs[dst]

    def _record_onesweep(self, p: Program, keys_in: Array, keys_out: Array, vals_in, vals_out,
                         index_values: bool, digits: tuple[int, ...], temps: dict) -> None:
        """clear -> histogram (all digits, one read of the keys) -> bins -> one pass per
        digit (kernels/radix_onesweep.wgsl). Step labels as the multi-pass sort's: "radix
        count" (clear, histogram), "radix scan" (bins), "radix scatter" (each pass: rank,
        look-back, scatter)."""
        n = keys_in.size
        tiles = self.tiles(n)
        pairs = vals_out is not None
        state, hist, claims = temps["state"], temps["hist"], temps["claims"]
        region = (0, RADIX * tiles)  # state words of even and odd passes
        hist_groups = -(-tiles // HIST_TILES)
        p.dispatch("radix count", self.pipe("clear"), {11: hist, 12: claims}, 1)
        params = self._params(p, n, tiles, hist_groups, 0, TRANSFORM_IN, self.mode, 0, 0, 0xFFFFFFFF, 0,
                              0, region[0], region[1], 0, 0, HIST_TILES)
        p.dispatch("radix count", self.pipe("histogram", TRANSFORM_IN), {0: params, 1: keys_in.buffer, 10: state, 11: hist},
                   hist_groups)
        p.dispatch("radix scan", self.pipe("bins"), {11: hist}, 1)
        key_bufs = [keys_out.buffer, temps["keys"]]
        val_bufs = [vals_out.buffer, temps["values"]] if pairs else []
        src_k = keys_in.buffer
        src_v = vals_in.buffer if (pairs and not index_values) else keys_in.buffer  # unused for indices
        unused = p.temp(16)
        spin, window = self.onesweep_schedule(tiles)
        for i, d, dst, flags in _passes(digits, pairs, index_values):
            if ONESWEEP_CLAIM:
                flags |= CLAIM_TILES
            # One dispatch per window of tiles: all of a window's predecessors in earlier
            # windows have published when it starts (tiles claimed from the counter go on
            # from where the window before stopped; by index, from tile_offset).
            for first in range(0, tiles, window):
                groups = min(window, tiles - first)
                params = self._params(p, n, tiles, groups, DIGIT_BITS * d, flags, self.mode, first, 0, 0xFFFFFFFF,
                                      0, spin, region[i % 2], region[(i + 1) % 2], d, ONESWEEP_FAULT, HIST_TILES)
                bindings = {0: params, 1: src_k, 4: key_bufs[dst], 8: unused, 10: state, 11: hist, 12: claims}
                if pairs:
                    bindings.update({5: src_v, 6: val_bufs[dst], 9: unused})
                p.dispatch("radix scatter", self.pipe("pairs" if pairs else "keys", flags), bindings, groups)
            if pairs:
                src_v = val_bufs[dst]
            src_k = key_bufs[dst]

    # -- segmented ----------------------------------------------------------------------
    def segment_tiles(self, lengths: np.ndarray) -> int:
        """Tiles of the segmented sort of segments of these lengths (each its own)."""
        return int((-(-np.asarray(lengths, np.int64) // self.tile)).sum())

    def fits_segments(self, end: int, tiles: int) -> bool:
        """Whether record_segments() applies: keys up to `end` in one binding, the counts of
        `tiles` tiles in one binding (no chunking in the segmented passes)."""
        return (0 < end and 4 * end <= self.device.max_binding_bytes and end < 2**32
                and 4 * RADIX * tiles <= self.device.max_binding_bytes)

    def segment_table(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Per tile (segment start, segment length, the segment's first tile, shift) for
        segments sorted by record_segments (their order: starts increasing, disjoint;
        lengths > 0). shift moves a segment from its place in the scan (the segments before
        it packed) to its place in the keys."""
        starts = np.asarray(starts, np.int64)
        lengths = np.asarray(lengths, np.int64)
        per = -(-lengths // self.tile)
        first = np.concatenate(([0], np.cumsum(per)[:-1]))
        packed = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        rows = np.stack([starts, lengths, first, starts - packed], axis=1)
        return np.repeat(rows, per, axis=0).astype(np.uint32)

    def record_segments(self, p: Program, keys_in: Array, keys_out: Array, vals_in: Array | None = None,
                        vals_out: Array | None = None, index_values: bool = False,
                        digits: tuple[int, ...] = ALL_DIGITS, length: int = 0, table: Array | None = None,
                        tiles: int = 0) -> None:
        """Add the passes sorting every segment of keys_in on its own into keys_out (values
        along, as record()): equal rows of `length` covering all keys, or the `tiles` tiles
        listed in `table` (segment_table(), uploaded). Keys outside the segments are not
        written. With index_values a value is the key's index inside its segment.

        LSD radix sort with segment-major digit offsets (as CUB's segmented radix sort): the
        multi-pass schedule with counts laid out [segment][digit][tile of the segment], so
        that the one exclusive scan keeps each segment's keys inside it
        (kernels/radix_sort.wgsl, segment_tile)."""
        n = keys_in.size
        if length:
            tiles = (n // length) * -(-length // self.tile)
        if n == 0 or tiles == 0:
            return
        digits = pass_digits(digits)
        pairs = vals_out is not None
        counts = Array(p.temp(4 * RADIX * tiles), np.dtype(np.uint32), (RADIX * tiles,), self.device)
        offsets = Array(p.temp(4 * RADIX * tiles), np.dtype(np.uint32), (RADIX * tiles,), self.device)
        key_bufs = [keys_out.buffer, p.temp(4 * n)]
        val_bufs = [vals_out.buffer, p.temp(4 * n)] if pairs else []
        src_k = keys_in.buffer
        src_v = vals_in.buffer if (pairs and not index_values) else keys_in.buffer  # unused for indices
        seg_table = table.buffer if table is not None else p.temp(16)
        unused = p.temp(16)  # the scatter's high output window (the output fits one binding)
        for _, d, dst, flags in _passes(digits, pairs, index_values):
            params = self._params(p, n, tiles, tiles, DIGIT_BITS * d, flags, self.mode, 0, 0, 0xFFFFFFFF, 0,
                                  0, 0, 0, 0, 0, 0, length)
            p.dispatch("radix count", self.pipe("radix_count_segments", flags & TRANSFORM_IN),
                       {0: params, 1: src_k, 2: counts.buffer, 13: seg_table}, tiles)
            with p.scope("radix scan"):
                self.record_scan(p, counts, offsets)
            bindings = {0: params, 1: src_k, 3: offsets.buffer, 4: key_bufs[dst], 8: unused, 13: seg_table}
            if pairs:
                bindings.update({5: src_v, 6: val_bufs[dst], 9: unused})
                p.dispatch("radix scatter", self.pipe("radix_scatter_segments_pairs", flags), bindings, tiles)
                src_v = val_bufs[dst]
            else:
                p.dispatch("radix scatter", self.pipe("radix_scatter_segments_keys", flags), bindings, tiles)
            src_k = key_bufs[dst]


def radix_sorter(device: Device, dtype, descending: bool) -> RadixSorter:
    """The RadixSorter of (dtype, direction) on `device`, looked up (caches.lookup) by what
    its pipelines depend on: the device's subgroups (and their block-scan path), its
    workgroup memory and the module settings (config_key)."""
    key = (("radix", np.dtype(dtype), bool(descending), device.has_subgroups, consecutive_subgroups(device),
            device.max_workgroup_storage) + config_key())
    return lookup(device, key, lambda: RadixSorter(device, dtype, descending))


def radix_argsort(k: Array, descending: bool = False, keep_keys: bool = False) -> tuple[Array, Array | None]:
    """(indices, sorted keys or None) of the 1-D Array k by every radix pass (the segmented
    sort's long segments; api/sort.argsort_with_keys is the one-shot argsort, small inputs in
    one workgroup): the keys come out of the same passes, kept when asked for."""
    idx = empty((k.size,), U32, k.device)
    if k.size == 0:
        return idx, (empty((0,), k.dtype, k.device) if keep_keys else None)
    sorter = radix_sorter(k.device, k.dtype, descending)
    program = Program(k.device, label="argsort")
    keys_out = empty((k.size,), k.dtype, k.device) if keep_keys else \
        Array(program.temp(4 * k.size), k.dtype, (k.size,), k.device)
    sorter.record(program, k, keys_out, None, idx, index_values=True)
    program.run()
    return idx, (keys_out if keep_keys else None)
