"""Histograms: the building block of histogram(x, bins, range, weights) and bincount(x,
weights, minlength) (their front doors are in api/histogram.py).

One dispatch per binding-sized chunk of the input (kernels/histogram.wgsl): each
workgroup fills a private histogram in workgroup memory, then adds its non-empty bins
into the global histogram with atomics. The global histogram is read only after the
dispatch. Bins too many for workgroup memory go straight to global atomics.

Semantics follow numpy. The bin edges are numpy's own (np.histogram_bin_edges, in
numpy's bin dtype), and each value's bin is defined by comparisons against those edges
in the precision numpy compares them, so values on an edge land where numpy puts them.
The host turns the edges into thresholds in the data's dtype ("x >= edge" becomes
"x >= threshold", ops/search.bound_in) so the kernel never needs float64.

64-bit data (uint64, int64, float64) is binned by searching those thresholds (compared as
64-bit order keys, kernels/search.wgsl: record_wide), and the bin numbers are counted by
the same kernel as uint32 data. bincount of 64-bit integers (all below 2^32 once the host
has checked their range) reads their low words.

Results: counts are uint32 (numpy gives int64); weighted sums have the weights' dtype
(uint32/int32 sums are exact modulo 2^32; float32 sums are accumulated in f32 in an
unspecified order, so the last bits may differ from run to run — see
docs/histogram_select.md). bincount with float32 weights returns float32 (numpy: float64).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from wgprim.array import Array, asarray
from wgprim.device import Device
from wgprim.ops import order_key
from wgprim.ops.common import chunks
from wgprim.ops.search import bound_in, search_recorder
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.tuning import policy

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
U64, I64, F64 = np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.float64)
WEIGHT_TYPES = (U32, I32, F32)
DATA_TYPES = WEIGHT_TYPES + (U64, I64, F64)  # 64-bit data: its bins found by the search (record_wide)
WGSL = {U32: "u32", I32: "i32", F32: "f32"}

WG = 256
VEC_TILE = WG * 4        # elements per workgroup per round; chunks are multiples of it
GUIDE_MAX_CELLS = 16384  # the guide table's cells at most (64 KiB, read through the cache)


@dataclasses.dataclass(frozen=True)
class HistogramPolicy:
    """The histogram's choices (read where its steps are recorded; wgprim.tuning). Set from
    H200 measurements, docs/histogram_select.md."""

    # Workgroups per chunk. Few and fat: each strides over many tiles and zeroes, fills and
    # merges its private histogram once.
    max_groups: int = 1056
    # Copies of each private histogram; invocation t uses copy t / (WG / copies), i.e. one
    # copy per 32 consecutive invocations with 8 copies: a hot bin contends inside one
    # subgroup-sized group instead of the whole workgroup. A power of two up to WG.
    max_copies: int = 8
    # Compute each bin's key range into workgroup memory once per workgroup (read per
    # element by the estimate's check and the binary search) when it fits next to the
    # private histogram.
    shared_edges: bool = True
    # Uneven explicit edges: a guide table of this many cells per bin (at most
    # GUIDE_MAX_CELLS) gives most elements their bin without a search; 0: the search alone.
    guide_cells_per_bin: int = 64

    def __post_init__(self):
        if not (1 <= self.max_copies <= WG and self.max_copies & (self.max_copies - 1) == 0):
            raise ValueError(f"max_copies must be a power of two from 1 to {WG}, not {self.max_copies}")
MODE_UNIFORM, MODE_SEARCH, MODE_DIRECT = 0, 1, 2


# -- kernel specialization -----------------------------------------------------------


def _preamble(dt: np.dtype, wdt: np.dtype | None) -> str:
    if dt in (U64, I64):  # bincount of 64-bit integers below 2^32: their low words
        src = ("@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;  // two values a load\n"
               "fn load_src(v: u32) -> vec4<T> { let a = src[2u * v]; let b = src[2u * v + 1u]; "
               "return vec4<T>(a.x, a.z, b.x, b.z); }\n")
        dt = U32
    else:
        src = ("@group(0) @binding(1) var<storage, read> src: array<vec4<T>>;\n"
               "fn load_src(v: u32) -> vec4<T> { return src[v]; }\n")
    t = WGSL[dt]
    if dt == F32:
        offset = "fn offset_of(x: T, lo: T) -> f32 { return x - lo; }\n"
    else:  # exact wrap-around difference, then one rounding to f32
        offset = "fn offset_of(x: T, lo: T) -> f32 { return f32(bitcast<u32>(x - lo)); }\n"
    if wdt is None:
        weights = "alias W = u32;\nconst FLOAT_ACC = false;\nfn load_weights(v: u32) -> vec4<u32> { return vec4<u32>(1u); }\n"
    else:
        weights = (
            f"alias W = {WGSL[wdt]};\nconst FLOAT_ACC = {'true' if wdt == F32 else 'false'};\n"
            "fn load_weights(v: u32) -> vec4<u32> { return bitcast<vec4<u32>>(weights[v]); }\n"
        )
    # Comparisons with the edges go through order-preserving keys (histogram.wgsl).
    return f"alias T = {t};\n" + offset + weights + order_key.preamble(dt) + src


def _private_shape(device: Device, nbins: int, mode: int) -> tuple[int, int, int] | None:
    """(bins per copy, copies, shared bin ranges) for a workgroup-memory histogram, or None
    when even one copy does not fit. 1 shared bin range means: computed from storage."""
    priv = max(64, 1 << (nbins - 1).bit_length())  # powers of two: few pipeline variants
    room = device.max_workgroup_storage // 4  # 4-byte words
    if priv > room:
        return None
    # bin key ranges: nbins of them at most, two words each
    chosen = policy(HistogramPolicy)
    edges = priv if chosen.shared_edges and mode != MODE_DIRECT and 3 * priv <= room else 1
    copies = max(1, min(chosen.max_copies, WG, 4096 // priv))  # many bins spread contention by themselves
    while copies > 1 and priv * copies + 2 * edges > room:
        copies //= 2
    return priv, copies, edges


def _kernel_dtype(dt: np.dtype) -> np.dtype:
    """The dtype the kernel's T holds: the data's, or for 64-bit integers (bincount, values
    below 2^32) their low words."""
    return U32 if dt in (U64, I64) else dt


def _bits(value, dt: np.dtype) -> int:
    return int(np.array(value, dtype=dt).view(np.uint32))


def _record(program: Program, x: Array, weights: Array | None, thresholds: Array, hist: Array,
            nbins: int, mode: int, m: int = 0, lo=0, hi=0, scale: float = 0.0, first: float = 0.0,
            cells: int = 0, hist_view: dict | None = None) -> None:
    """Add the histogram steps for all of x (chunk by chunk) to `program`; the counts go
    to `hist` (or to the window `hist_view` of it)."""
    dev = program.device
    dt = x.dtype
    wdt = weights.dtype if weights is not None else None
    preamble = _preamble(dt, wdt)
    shape = _private_shape(dev, nbins, mode)
    if shape is not None:
        priv, copies, edges = shape
        pipeline = get_pipeline(dev, "histogram", preamble, "hist_shared",
                                {"WG": WG, "MODE": mode, "PRIV": priv, "COPIES": copies, "EDGES": edges})
        label = "histogram shared"
    else:
        pipeline = get_pipeline(dev, "histogram", preamble, "hist_global", {"WG": WG, "MODE": mode})
        label = "histogram global"
    lo_bits = _bits(lo, _kernel_dtype(dt)) if mode != MODE_DIRECT else 0
    hi_bits = _bits(hi, _kernel_dtype(dt)) if mode != MODE_DIRECT else 0
    scale_bits = _bits(scale, F32)
    shift_bits = _bits((float(lo) - first) * scale if mode != MODE_DIRECT else 0.0, F32)
    for c in chunks(x.size, dt.itemsize, VEC_TILE, dev):
        groups = min(policy(HistogramPolicy).max_groups, -(-c.count // VEC_TILE))
        params = program.params(c.count, groups, nbins, m, lo_bits, hi_bits, scale_bits, shift_bits, cells)
        bindings = {0: params, 1: c.view(x), 3: thresholds.buffer, 4: hist_view or hist.buffer}
        if weights is not None:
            bindings[2] = c.view(weights)
        program.dispatch(label, pipeline, bindings, groups)


# -- more bins than one storage binding holds ------------------------------------------
def _needs_windows(device: Device, nbins: int, nthresholds: int) -> bool:
    return 4 * max(nbins, nthresholds) > device.max_binding_bytes


def _below(t, dt: np.dtype):
    """The largest value of dt below t (in key order: -0.0 and +0.0 are one value), or None."""
    if dt == F32:
        return None if np.isneginf(t) else np.nextafter(np.float32(t), np.float32(-np.inf))
    return None if int(t) == np.iinfo(dt).min else dt.type(int(t) - 1)


def _record_windows(program: Program, x: Array, weights: Array | None, total: int, thresholds,
                    hi, hist: Array) -> None:
    """A histogram whose bins (or thresholds) do not fit one storage binding: one pass over
    x per window of bins, each counting only the values of its own bins (binary search over
    its thresholds) into its window of hist. `thresholds(b0, b1)` gives thresholds b0..b1-1
    of `total` (a numpy array of x's dtype): thresholds[0] is the smallest kept value and
    thresholds[b] the smallest value of bin b; bins past `total` stay empty."""
    dev, dt = program.device, _kernel_dtype(x.dtype)
    align = dev.storage_offset_alignment // 4
    per = (dev.max_binding_bytes // 4) // align * align  # window offsets stay aligned
    if per <= 0:
        raise ValueError(f"the storage binding limit ({dev.max_binding_bytes} bytes) is too small for a histogram window")
    for b0 in range(0, total, per):
        b1 = min(b0 + per, total)
        window = thresholds(b0, b1)
        lo = window[0]
        top = hi if b1 == total else _below(thresholds(b1, b1 + 1)[0], dt)
        if top is None or order_key.host_keys(np.array([top], dt))[0] < order_key.host_keys(np.array([lo], dt))[0]:
            continue  # no value of dt falls in these bins
        view = {"buffer": hist.buffer, "offset": 4 * b0, "size": 4 * (b1 - b0)}
        _record(program, x, weights, asarray(window), hist, b1 - b0, MODE_SEARCH,
                m=b1 - b0 - 1, lo=lo, hi=top, first=float(lo), hist_view=view)


# -- 64-bit data: the bins by the search, then a histogram of the bin numbers ----------
def search_table(lo, hi, interior: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The sorted values whose "right" search gives each 64-bit value its bin + 1: the
    thresholds (lo, then the interior ones), then the value after hi (none when hi is the
    dtype's largest): 0 below lo, len(interior) + 2 above hi (NaN included), dropped both."""
    table = [np.array([lo], dt), interior.astype(dt)]
    key = int(order_key.host_keys(np.array([hi], dt))[0])
    if key < (1 << 64) - 1 and not (dt.kind == "f" and key >= order_key.NAN_KEY64):
        table.append(order_key.host_values(np.array([key + 1], np.uint64), dt))
    return np.concatenate(table)


def record_wide(program: Program, x: Array, weights: Array | None, table: Array, kept: int, nbins: int,
                hist: Array) -> None:
    """The histogram of 64-bit data x (uint64, int64, float64) into hist: each element's
    bin + 1 by the search of `table` (search_table; searchsorted side "right",
    kernels/search.wgsl), then the uint32 histogram of those numbers: 1..kept are bins
    0..kept - 1, the others are outside the range."""
    dev = program.device
    ids = Array(program.temp(4 * max(x.size, 1)), U32, (x.size,), dev)
    search_recorder(dev, x.dtype, "right").record(program, table, x, ids)
    numbers = lambda b0, b1: np.arange(b0 + 1, b1 + 1, dtype=np.uint32)  # noqa: E731  bin b holds b + 1
    if _needs_windows(dev, nbins, kept):
        _record_windows(program, ids, weights, kept, numbers, np.uint32(kept), hist)
    else:
        _record(program, ids, weights, asarray(numbers(0, kept), device=dev), hist, nbins, MODE_UNIFORM,
                m=kept - 1, lo=np.uint32(1), hi=np.uint32(kept), scale=1.0, first=1.0)


# -- edges -> thresholds in the data's dtype ------------------------------------------
def _thresholds(edges: np.ndarray, dt: np.dtype):
    """(lo, hi, interior thresholds) such that x is kept iff lo <= x <= hi and its bin is
    the number of interior thresholds <= x; None when no value of dt can be kept. numpy
    compares x with the edges in their common dtype (x converted: float64 for integer data,
    the range's own precision for a longdouble range); ops/search.bound_in gives the
    thresholds in dt that decide every x the same way."""
    ct = np.result_type(dt, edges.dtype)
    e = np.asarray(edges).astype(ct)
    lo, lo_found = bound_in(e[:1], dt, "left")    # x >= edge[0]  <=> key(x) >= key(lo)
    hi, hi_found = bound_in(e[-1:], dt, "right")  # x <= edge[-1] <=> key(x) <= key(hi)
    if not (lo_found[0] and hi_found[0]) or order_key.host_keys(lo)[0] > order_key.host_keys(hi)[0]:
        return None
    interior, found = bound_in(e[1:-1], dt, "left")
    if not found.all():  # past the dtype's largest value: this and later bins stay empty
        interior = interior[:int(np.argmin(found))]
    return lo[0], hi[0], interior


def _evenly_spaced(edges: np.ndarray) -> bool:
    """Whether every edge lies within a tenth of a bin of its place on an even grid from
    the first edge to the last: then the uniform estimate is almost always right."""
    e = np.asarray(edges, np.float64)
    n = len(e) - 1
    with np.errstate(over="ignore", invalid="ignore"):
        width = (e[-1] - e[0]) / n if n > 0 else 0.0
        if not (np.isfinite(width) and width > 0):
            return False
        grid = e[0] + width * np.arange(n + 1)
        return bool(np.max(np.abs(e - grid)) <= 0.1 * width)


def _guide(thresholds: np.ndarray, first: float, last: float, nbins: int) -> np.ndarray | None:
    """For uneven edges: the bin (index into thresholds) of each boundary of `cells` equal
    cells from the first edge to the last, as uint32, or None when the range is not a
    finite positive width. Only a hint: the kernel checks every answer it gives."""
    width = last - first
    cells = min(GUIDE_MAX_CELLS, policy(HistogramPolicy).guide_cells_per_bin * nbins)
    if cells < 1 or not (np.isfinite(width) and width > 0):
        return None
    bounds = first + width * (np.arange(cells + 1) / cells)
    bins = np.searchsorted(thresholds.astype(np.float64), bounds, side="right") - 1
    return np.clip(bins, 0, len(thresholds) - 1).astype(np.uint32)
