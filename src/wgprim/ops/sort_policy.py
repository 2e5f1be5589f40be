"""The radix sort's policy (its choices as one value) and the tile shapes that follow from
it and the device: which ranking, keys per invocation, workgroup size, which schedule, the
one-sweep look-back's spin budget, the fault injection that forces its fallback.

`policy(SortPolicy, device)` (wgprim.tuning) is read where a sorter is looked up
(ops/radix_sort.py, radix_sorter); the sorter keeps it and every kernel it records takes
its constants from it. Tests and measurements change it with `using(SortPolicy, ...)`.
Measurements behind the defaults: docs/sort.md.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from wgprim.device import Device
from wgprim.ops import block_scan
from wgprim.pipelines import get_pipeline, kernel_source
from wgprim.program import Program

WG = 256  # invocations per workgroup of the split ranking
RADIX = 256
MAX_SUBGROUPS = 64  # the match path's per-subgroup counters are sized for at most this many
MATCH_ITEMS = (4, 8, 12, 16, 20, 24)  # keys per invocation the match kernel's for_* functions cover
MATCH_WGS = (256, 384, 512)  # at least one invocation per digit
SCAN_METHODS = (None, "reduce-then-scan", "single-pass")


@dataclasses.dataclass(frozen=True)
class SortPolicy:
    """The radix sort's choices. Every value gives exact results; they differ in speed,
    and `spin`, `silent_every` and `onesweep_max_keys` also let tests reach the one-sweep
    passes' fallbacks (the look-back that counts a tile itself, the multi-pass sort)."""

    # Rank keys by subgroup match (kernels/radix_scatter_match.wgsl) where the device has
    # subgroups that fit; False: two 4-bit splits per digit (kernels/radix_sort.wgsl).
    match: bool = True
    # Keys per invocation of the match path (its tile is match_wg * match_items keys; where
    # workgroup memory is short, the largest of 16, 12, 8, 4 below it that fits).
    match_items: int = 20
    # Invocations per workgroup of the match path.
    match_wg: int = 256
    # Keys per invocation of the split path: 8 where its scatter fits workgroup memory, else
    # 4 (for_device).
    split_items: int = 8
    # The match path writes through workgroup memory in sorted order (adjacent invocations,
    # adjacent addresses); False: each key straight from its invocation.
    shuffle: bool = True
    # Rank a tile's items one after another (each shuffle before the next atomic) instead
    # of issuing every item's atomics together.
    serial_ranking: bool = False
    # The scan of the multi-pass digit counts: None (the scan's own rule by size),
    # "reduce-then-scan" or "single-pass".
    scan_method: str | None = None
    # Multi-pass: transpose the scan's offsets to tile-major before each scatter (one small
    # dispatch) so that a workgroup reads its tile's offsets as one run.
    offsets_by_tile: bool = False
    # One-sweep passes (kernels/radix_onesweep.wgsl) where the keys fit one binding: True
    # (every sort), "pairs" (sort_pairs and argsort only) or False (never: the multi-pass
    # sort is faster on an H200).
    onesweep: bool | str = False
    # One-sweep match passes publish a tile's digit counts before ranking (False: after).
    onesweep_early: bool = True
    # Polls of a predecessor tile's state word before counting its keys itself (0: every
    # look-back falls back).
    spin: int = 256
    # Predecessors' state words one round of the look-back reads at once per digit.
    look_ahead: int = 4
    # One-sweep workgroups take the next tile from a counter (False: by workgroup id).
    claim_tiles: bool = True
    # Tiles per workgroup of the one-sweep upfront histogram.
    hist_tiles: int = 16
    # Fault injection: tiles t with t % silent_every == silent_every - 1 never publish their
    # state, so their successors must count their keys (0: every tile publishes).
    silent_every: int = 0
    # The one-sweep state words hold 30-bit counts: larger inputs take the multi-pass sort.
    onesweep_max_keys: int = 2**30 - 1

    def __post_init__(self):
        if self.match_items not in MATCH_ITEMS:
            raise ValueError(f"match_items must be one of {MATCH_ITEMS}, not {self.match_items}")
        if self.match_wg not in MATCH_WGS:
            raise ValueError(f"match_wg must be one of {MATCH_WGS}, not {self.match_wg}")
        if self.split_items not in (4, 8):
            raise ValueError(f"split_items must be 4 or 8, not {self.split_items}")
        if self.scan_method not in SCAN_METHODS:
            raise ValueError(f"scan_method must be one of {SCAN_METHODS}, not {self.scan_method!r}")
        if self.onesweep not in (True, False, "pairs"):
            raise ValueError(f"onesweep must be True, False or 'pairs', not {self.onesweep!r}")

    @classmethod
    def for_device(cls, device: Device) -> "SortPolicy":
        """The defaults on this device: the match ranking only with subgroups, the split
        path's tile by its workgroup memory."""
        return _for_limits(device.has_subgroups, device.max_workgroup_storage)

    def wants_onesweep(self, pairs: bool) -> bool:
        return self.onesweep is True or (self.onesweep == "pairs" and pairs)


@functools.lru_cache(maxsize=16)
def _for_limits(has_subgroups: bool, workgroup_bytes: int) -> SortPolicy:
    fits = split_scatter_bytes(8) <= workgroup_bytes
    return SortPolicy(match=has_subgroups, split_items=8 if fits else 4)


# -- tile shapes ---------------------------------------------------------------------------
def split_scatter_bytes(items: int) -> int:
    """Workgroup memory of the split ranking's scatter with `items` keys per invocation."""
    tile = WG * items
    return 4 * (tile + tile // 32) + 4 * (8 * WG + RADIX + WG)


def split_items(device: Device, policy: SortPolicy) -> int:
    """Keys per invocation of the split path (policy.split_items, or 4 where that does not
    fit this device's workgroup memory)."""
    for items in (policy.split_items, 4):
        if split_scatter_bytes(items) <= device.max_workgroup_storage:
            return items
    raise ValueError("this device's workgroup memory is too small for the radix sort")


def match_shared_bytes(items: int, subgroups: int, wg: int = 256) -> int:
    """Workgroup memory of the match scatter: the tile (or the counters, which share it),
    digit bases, starts and counts, subgroup totals."""
    return 4 * max(wg * items, 128 * subgroups + wg) + 4 * (3 * RADIX + subgroups)


def match_items(device: Device, policy: SortPolicy) -> int:
    """Keys per invocation of the match path (its tile is policy.match_wg * this), or 0
    where the match path does not apply: not asked for, no subgroups, more than
    MAX_SUBGROUPS subgroups per workgroup, or too little workgroup memory."""
    if not (policy.match and device.has_subgroups):
        return 0
    subgroups = subgroups_per_workgroup(device, policy.match_wg)
    if subgroups > MAX_SUBGROUPS:
        return 0
    for items in [policy.match_items] + [k for k in (16, 12, 8, 4) if k < policy.match_items]:
        if match_shared_bytes(items, subgroups, policy.match_wg) <= device.max_workgroup_storage:
            return items
    return 0


# -- kernel constants ----------------------------------------------------------------------
def _flag(value: bool) -> str:
    return str(bool(value)).lower()


def preamble(device: Device, policy: SortPolicy, items: int, wg: int = WG) -> str:
    """Constants and the block scan (subgroup path where the device has subgroups) of the
    radix kernels."""
    constants = (f"const WG: u32 = {wg}u;\nconst ITEMS: u32 = {items}u;\n"
                 f"const BY_TILE: bool = {_flag(policy.offsets_by_tile)};\n"
                 f"const LOOK_AHEAD: u32 = {policy.look_ahead}u;\n")
    return constants + kernel_source(("order_key", "radix_keys")) + block_scan.scan_preamble(device, "u32")


def match_preamble(device: Device, policy: SortPolicy, items: int, subgroups: int | None = None) -> str:
    """preamble() for a workgroup of policy.match_wg (kernels radix_sort +
    radix_scatter_match) and the match path's own constants: MAX_SG (the workgroup's
    subgroups), SERIAL_RANK, SHUFFLE, EARLY."""
    if subgroups is None:
        subgroups = subgroups_per_workgroup(device, policy.match_wg)
    return (preamble(device, policy, items, policy.match_wg) + f"const MAX_SG: u32 = {max(subgroups, 1)}u;\n"
            f"const SERIAL_RANK: bool = {_flag(policy.serial_ranking)};\n"
            f"const SHUFFLE: bool = {_flag(policy.shuffle)};\nconst EARLY: bool = {_flag(policy.onesweep_early)};\n")


def subgroups_per_workgroup(device: Device, wg: int = 256) -> int:
    """Subgroups in a workgroup of `wg` invocations (probed once per device and workgroup
    size)."""
    cache = device.cache("probes")
    key = ("radix subgroups", wg)
    if key not in cache:
        shape = SortPolicy(match_wg=wg)
        try:
            pipes = [get_pipeline(device, ("radix_sort", "radix_scatter_match"),
                                  match_preamble(device, shape, 4, MAX_SUBGROUPS), entry)
                     for entry in ("radix_probe_init", "radix_subgroup_count")]
        except Exception:
            cache[key] = wg  # cannot tell: not the match path
            return cache[key]
        p = Program(device, label="radix subgroup probe", transient=False)
        bits = p.temp(16)
        p.dispatch("probe", pipes[0], {7: bits}, 1)
        p.dispatch("probe", pipes[1], {7: bits}, 1)
        p.run(alone=True)  # a probe inside a batch reads its own result, not the batch's
        count = int(p.read(bits, 0, 4, np.uint32, alone=True)[0])
        p.release()
        cache[key] = count if count > 0 else wg
    return cache[key]
