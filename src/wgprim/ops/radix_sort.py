"""LSD radix sort: records the dispatch chain of the radix kernels into a Program.

Keys are 32 bits, sorted 8 bits per pass (at most 4 passes), in one of two schedules:
- multi-pass: per digit radix count (1 dispatch) -> radix scan of the counts (the scan's
  own rule: the single-pass scan, 2 dispatches, from 4097 counts on) -> radix scatter (1
  dispatch);
- one-sweep (kernels/radix_onesweep.wgsl): clear + histogram of all 4 digits + digit
  starts (3 small dispatches), then per digit ONE dispatch that ranks, looks back at the
  tiles before it for its global offsets (decoupled fallback: never waits) and scatters.
  SortPolicy.onesweep says when (by default never: on an H200 the multi-pass sort is
  faster since its passes' loads go out together; docs/sort.md); inputs beyond one binding
  or 2^30 keys always take the multi-pass schedule.
The scatter ranks keys by subgroup match (kernels/radix_scatter_match.wgsl) on adapters
with subgroups, else by two 4-bit splits (kernels/radix_sort.wgsl); the tile shapes and
every other choice are the sorter's SortPolicy (ops/sort_policy.py). The passes follow each
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
from wgprim.ops import loop_budget
from wgprim.ops import scan
from wgprim.ops.common import Chunk, chunks
from wgprim.ops.sort_policy import (RADIX, WG, SortPolicy, match_items, match_preamble, match_shared_bytes, preamble,
                                    split_items, split_scatter_bytes, subgroups_per_workgroup)
from wgprim.batching import active_batch
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline
from wgprim.probes import consecutive_subgroups
from wgprim.program import Program, view
from wgprim.tuning import policy

DIGIT_BITS = 8
ALL_DIGITS = (0, 1, 2, 3)
# Loop cap (ops/loop_budget.py): loop iterations of the look-back per predecessor besides its
# polls and its fallback count (the walk's loop, the round's, their exits).
ONESWEEP_WALK_TRIPS = 8
PARAMS_WORDS = 20  # the Params uniform of kernels/radix_sort.wgsl

U32 = np.dtype(np.uint32)
KIND = {np.dtype(np.uint32): 0, np.dtype(np.int32): 1, np.dtype(np.float32): 2}
DESCENDING = 4
TRANSFORM_IN, TRANSFORM_OUT, INDEX_VALUES, CLAIM_TILES = 1, 2, 4, 8


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
    """Pipelines for one (device, key dtype, direction, policy); records sorts into
    Programs."""

    def __init__(self, device: Device, dtype: np.dtype, descending: bool = False, policy: SortPolicy | None = None):
        self.device = device
        self.policy = policy = policy or SortPolicy.for_device(device)
        self.dtype = np.dtype(dtype)
        self.mode = KIND[self.dtype] | (DESCENDING if descending else 0)
        self.raw_keys = self.dtype.kind == "f"  # passes move raw bits (kernels/radix_sort.wgsl)
        self.items = match_items(device, policy)
        self.match = self.items > 0
        if self.match:
            # Ranked by subgroup match (kernels/radix_scatter_match.wgsl).
            pre = match_preamble(device, policy, self.items)
            files = ("radix_sort", "radix_scatter_match")
            entries = {"radix_probe_init": "radix_probe_init", "radix_probe": "radix_probe",
                       "radix_count": "radix_count",
                       "radix_transpose_offsets": "radix_transpose_offsets",
                       "radix_scatter_keys": "radix_scatter_match_keys",
                       "radix_scatter_pairs": "radix_scatter_match_pairs",
                       "radix_count_segments": "radix_count_segments",
                       "radix_scatter_segments_keys": "radix_scatter_match_segments_keys",
                       "radix_scatter_segments_pairs": "radix_scatter_match_segments_pairs"}
        else:
            # Two 4-bit splits per digit (kernels/radix_sort.wgsl).
            self.items = split_items(device, policy)
            pre = preamble(device, policy, self.items)
            files = "radix_sort"
            entries = {e: e for e in ("radix_probe_init", "radix_probe", "radix_count",
                                      "radix_transpose_offsets",
                                      "radix_scatter_keys", "radix_scatter_pairs", "radix_count_segments",
                                      "radix_scatter_segments_keys", "radix_scatter_segments_pairs")}
        self.tile = (policy.match_wg if self.match else WG) * self.items
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
        key = (name, mode, flags, windows)
        if key not in self.pipes:
            files, entries = ((self._onesweep_files, self._onesweep_entries) if name in self._onesweep_entries
                              else (self._files, self._entries))
            self.pipes[key] = get_pipeline(self.device, files, self._pre, entries[name],
                                           {"KEY_MODE": mode, "PASS_FLAGS": flags, "OUTPUT_WINDOWS": int(windows)})
        return self.pipes[key]

    def record_scan(self, p: Program, counts: Array, offsets: Array) -> None:
        """The exclusive sum of the per-tile digit counts: the scan's own rule picks the
        single pass (ops/chained_scan.py) or reduce-then-scan by size; the policy's
        scan_method forces one."""
        if counts.size not in self._scans:
            self._scans[counts.size] = scan.recorder(self.device, counts.dtype, "sum", counts.size,
                                                     self.policy.scan_method)
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
            wg = self.policy.match_wg
            ranking = match_shared_bytes(self.items, subgroups_per_workgroup(self.device, wg), wg)
        else:
            ranking = split_scatter_bytes(self.items)
        return ranking + lookback

    def onesweep_schedule(self, tiles: int) -> tuple[int, int]:
        """(polls of a predecessor's word, tiles per dispatch) of the one-sweep passes. Where
        the driver caps loops (ops/loop_budget.py) a look-back walks back over at most a
        window of tiles, each costing its polls and, unpublished, the count of its keys (a
        loop of ITEMS): the window and the polls are bounded so that a walk over the whole
        window (and a tile that never publishes before it, policy.silent_every) fits.
        Elsewhere policy.spin polls, and every tile in one dispatch."""
        total = loop_budget.budget(self.device)
        if total is None:
            return self.policy.spin, max(1, tiles)
        spin = min(self.policy.spin, total // 16)
        per_tile = spin + self.items + ONESWEEP_WALK_TRIPS
        return spin, max(1, total // per_tile - 1)

    def uses_onesweep(self, n: int, pairs: bool = False) -> bool:
        """One-sweep passes (as policy.onesweep says for keys alone or with values) where
        keys and values fit one binding each, the counts fit the state words' 30 bits and
        workgroup memory holds the pass; else the multi-pass sort."""
        return (self.policy.wants_onesweep(pairs) and 0 < n <= self.policy.onesweep_max_keys
                and 4 * n <= self.device.max_binding_bytes
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
    def record_probe(self, p: Program, keys: Array, bits) -> None:
        """Add the dispatches leaving (OR, AND) of all transformed keys in `bits` (8 bytes)."""
        p.dispatch("radix probe", self.pipe("radix_probe_init"), {7: bits}, 1)
        tiles = self.tiles(keys.size)
        for c in self.chunks(keys.size):
            groups = self.tiles(c.count)
            params = self._params(p, c.count, tiles, groups, 0, TRANSFORM_IN, self.mode, c.start // self.tile,
                                  c.start, 0xFFFFFFFF, 0)
            p.dispatch("radix probe", self.pipe("radix_probe", TRANSFORM_IN), {0: params, 1: c.view(keys), 7: bits},
                       groups)

    def probe(self, keys: Array) -> tuple[int, ...]:
        """The digits worth a pass for these keys (runs the probe and waits for it; inside a
        batch, where nothing runs before its end, every digit)."""
        self.check_size(keys.size)
        if active_batch(self.device) is not None:
            return ALL_DIGITS
        # Through Program.run, so that profile() and bench see these dispatches too.
        p = Program(self.device, label="radix probe", transient=False)
        bits = p.temp(16)
        self.record_probe(p, keys, bits)
        p.run()
        key_or, key_and = (int(v) for v in p.read(bits, 0, 8, np.uint32))
        p.release()
        return varying_digits(key_or, key_and)

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
               digits: tuple[int, ...] = ALL_DIGITS) -> None:
        """Add the passes sorting keys_in into keys_out (and values along, when vals_out is
        given: from vals_in, or the key indices with `index_values`). `digits`: the passes to
        run, least significant first (at least one pass always runs: it writes the output)."""
        n = keys_in.size
        if n == 0:
            return
        self.check_size(n)
        digits = pass_digits(digits)
        pairs = vals_out is not None
        sizes = self.temp_bytes(n, pairs)
        temps = {k: p.temp(v) for k, v in sizes.items() if v}
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
            for c in parts:
                groups = self.tiles(c.count)
                params = self._params(p, c.count, tiles, groups, DIGIT_BITS * d, flags, self.mode,
                                  c.start // self.tile, c.start, 0xFFFFFFFF, 0)
                p.dispatch("radix count", self.pipe("radix_count", flags & TRANSFORM_IN),
                           {0: params, 1: c.view(_as(src_k, n)), 2: counts.buffer}, groups)
            with p.scope("radix scan"):
                self.record_scan(p, counts, offsets)
            scatter_offsets = offsets.buffer
            if self.policy.offsets_by_tile:  # the offsets tile-major, into the counts (read by then)
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
        hist_tiles = self.policy.hist_tiles
        hist_groups = -(-tiles // hist_tiles)
        p.dispatch("radix count", self.pipe("clear"), {11: hist, 12: claims}, 1)
        params = self._params(p, n, tiles, hist_groups, 0, TRANSFORM_IN, self.mode, 0, 0, 0xFFFFFFFF, 0,
                              0, region[0], region[1], 0, 0, hist_tiles)
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
            if self.policy.claim_tiles:
                flags |= CLAIM_TILES
            # One dispatch per window of tiles: all of a window's predecessors in earlier
            # windows have published when it starts (tiles claimed from the counter go on
            # from where the window before stopped; by index, from tile_offset).
            for first in range(0, tiles, window):
                groups = min(window, tiles - first)
                params = self._params(p, n, tiles, groups, DIGIT_BITS * d, flags, self.mode, first, 0, 0xFFFFFFFF,
                                      0, spin, region[i % 2], region[(i + 1) % 2], d, self.policy.silent_every, hist_tiles)
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


def radix_sorter(device: Device, dtype, descending: bool, sort_policy: SortPolicy | None = None) -> RadixSorter:
    """The RadixSorter of (dtype, direction) on `device` with `sort_policy` (default: the
    one in force, wgprim.tuning.policy), looked up (caches.lookup) by what its pipelines
    depend on: the device's subgroups (and their block-scan path), its workgroup memory and
    the policy."""
    sort_policy = sort_policy or policy(SortPolicy, device)
    key = ("radix", np.dtype(dtype), bool(descending), device.has_subgroups, consecutive_subgroups(device),
           device.max_workgroup_storage, sort_policy)
    return lookup(device, key, lambda: RadixSorter(device, dtype, descending, sort_policy))


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
