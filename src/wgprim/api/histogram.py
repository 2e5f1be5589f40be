"""Histograms' front doors: histogram(x, bins, range, weights) and bincount(x, weights,
minlength), as numpy's. The building block (kernels/histogram.wgsl, numpy's edges turned
into thresholds in the data's dtype, the windows for more bins than one binding holds) and
the semantics are in ops/histogram.py; numpy's range=None takes the data's min and max
from the atomic min/max (ops/atomic_minmax.py).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, asarray, empty, zeros
from wgprim.ops.atomic_minmax import atomic_min_max
from wgprim.ops.common import as_input
from wgprim.ops.histogram import (DATA_TYPES, I32, MODE_DIRECT, MODE_SEARCH, MODE_UNIFORM, U32, _evenly_spaced, _guide,
                                  _needs_windows, _record, _record_windows, _thresholds)
from wgprim.program import Program, run_recorded


def _data_range(x: Array):
    """numpy's range=None: the data's min and max (scalars of the data's dtype)."""
    mn, mx = atomic_min_max(x).numpy()
    return mn, mx


def _as_weights(weights, x: Array) -> Array | None:
    if weights is None:
        return None
    w = as_input(weights, DATA_TYPES)
    if w.size != x.size:
        raise ValueError(f"weights should have the same shape as x: {w.shape} vs {x.shape}")
    return w.ravel()


SUPPORTED_BINS = "bins must be a number of bins or a monotonic sequence of edges"

# What a histogram's bins take on the host (numpy's edges, their thresholds in the data's
# dtype, the mode and the guide: about 0.5 ms of numpy's checks and rounding) is kept for
# the last few (dtype, bins, range, binding size) asked for.
_SETUPS: dict = {}
_SETUPS_KEPT = 64


def _setup(dt: np.dtype, bins, range, device):
    """The bins' host side for data of dtype `dt`: a dict with numpy's `edges`, `nbins`,
    and when there is anything to count, `thresholds` (lo, then the interior edges, then a
    guide's cells), `hi`, `windows` (more bins than one binding holds), and `params` and
    `key` for ops/histogram._record. Computed once per (dt, bins, range, binding size)."""
    bins_key = ("count", bins) if np.ndim(bins) == 0 else ("edges", np.asarray(bins).dtype.str,
                                                            np.asarray(bins).tobytes())
    range_key = None if range is None else tuple((type(v).__name__, np.asarray(v).tobytes()) for v in range)
    key = (dt.str, bins_key, range_key, device.max_binding_bytes)
    found = _SETUPS.get(key)
    if found is None:
        found = _make_setup(dt, bins, range, device)
        if len(_SETUPS) >= _SETUPS_KEPT:
            _SETUPS.pop(next(iter(_SETUPS)))
        _SETUPS[key] = found
    return found


def _make_setup(dt: np.dtype, bins, range, device) -> dict:
    edges = np.histogram_bin_edges(np.zeros(0, dt), bins=bins, range=range)
    nbins = max(len(edges) - 1, 0)  # no edges at all: no bins (numpy returns empty arrays)
    limits = _thresholds(edges, dt) if nbins else None
    setup = {"edges": edges, "nbins": nbins, "thresholds": None}
    if limits is None:
        return setup
    lo, hi, interior = limits
    # The estimate is only a first guess, checked against the bin's own edges, so it
    # serves explicit edges too when they are evenly spaced (np.linspace edges).
    uniform = np.ndim(bins) == 0 or _evenly_spaced(edges)
    first, last = float(edges[0]), float(edges[-1])
    # thresholds[0] = lo, then the interior edges
    thresholds = np.concatenate([np.array([lo], dt), interior])
    setup.update(hi=hi, thresholds=thresholds, windows=_needs_windows(device, nbins, len(thresholds)))
    if setup["windows"]:
        return setup
    guide = None if uniform else _guide(thresholds, first, last, nbins)
    cells = 0 if guide is None else len(guide) - 1
    # estimate units (bins or guide cells) per unit of value; capped so that a tiny range
    # does not overflow f32
    units = nbins if uniform else cells
    scale = min(units / (last - first), 3e38) if units and last > first else 0.0
    if guide is not None and 4 * (len(thresholds) + len(guide)) > device.max_binding_bytes:
        guide, cells = None, 0  # the search alone (the guide is only a shortcut)
    if guide is not None:
        thresholds = np.concatenate([thresholds, guide.view(dt)])
    mode = MODE_UNIFORM if uniform else MODE_SEARCH
    setup["thresholds"] = thresholds
    setup["params"] = dict(m=len(interior), lo=lo, hi=hi, scale=scale, first=first, cells=cells)
    setup["mode"] = mode
    setup["key"] = ("histogram", thresholds.tobytes(), nbins, mode, len(interior), lo.item(), hi.item(), scale,
                    first, cells)
    return setup


def histogram(x, bins=10, range=None, weights=None, *, density=None):
    """numpy.histogram: `bins` a count or monotonic edges; `range` (lo, hi) or None for the
    data's min/max; values outside the range (and NaN) are ignored; the last bin is closed.
    Returns (hist, bin_edges): hist an Array (uint32 counts, or the weights' dtype) and
    bin_edges numpy's own edges (a numpy array). numpy's bin-estimator names (bins="auto",
    "fd", ...) and density=True raise NotImplementedError."""
    if isinstance(bins, str):
        raise NotImplementedError(f"bins={bins!r} (a bin estimator) is not supported: {SUPPORTED_BINS}")
    if density:
        raise NotImplementedError("density=True is not supported: histogram returns counts (or sums of "
                                  "weights); divide by their total and the bin widths (np.diff(edges))")
    arr = as_input(x, DATA_TYPES).ravel()
    w = _as_weights(weights, arr)
    dt = arr.dtype
    if np.ndim(bins) == 0 and range is None and arr.size:
        range = _data_range(arr)
        if not (np.isfinite(range[0]) and np.isfinite(range[1])):
            raise ValueError(f"autodetected range of [{range[0]}, {range[1]}] is not finite")
    setup = _setup(dt, bins, range, arr.device)
    edges = setup["edges"].copy()  # the caller's own (the kept one stays as computed)
    nbins, thresholds = setup["nbins"], setup["thresholds"]
    out_dt = U32 if w is None else w.dtype
    if arr.size == 0 or nbins == 0 or thresholds is None:
        return zeros((nbins,), out_dt, arr.device), edges
    hist = empty((nbins,), out_dt, arr.device)  # zeroed by the recording's first step: the kernels add into it
    if setup["windows"]:
        program = Program(arr.device, label="histogram")
        program.clear(hist.buffer)
        _record_windows(program, arr, w, len(thresholds), lambda b0, b1: thresholds[b0:b1], setup["hi"], hist)
        program.run()
        return hist, edges
    mode, params = setup["mode"], setup["params"]

    def record(p, x, hist, *weights):  # the thresholds uploaded once, kept by the recording
        p.clear(hist.buffer)
        _record(p, x, weights[0] if weights else None, asarray(thresholds), hist, nbins, mode, **params)

    run_recorded(arr.device, setup["key"], (arr, hist) + ((w,) if w is not None else ()), record, "histogram")
    return hist, edges


def bincount(x, weights=None, minlength: int = 0) -> Array:
    """numpy.bincount for non-negative uint32/int32 values: counts (uint32) of each value
    0..max(x), at least `minlength` bins; with weights, their sums (weights' dtype)."""
    arr = as_input(x, (U32, I32))
    if arr.ndim != 1:
        raise ValueError(f"bincount takes a 1-D array (as numpy), got shape {arr.shape}")
    w = _as_weights(weights, arr)
    minlength = int(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if arr.size:
        mn, mx = _data_range(arr)
        if int(mn) < 0:
            raise ValueError("'list' argument must have no negative elements")
        nbins = max(int(mx) + 1, minlength)
    else:
        nbins = minlength
    out_dt = U32 if w is None else w.dtype
    if arr.size == 0:
        return zeros((nbins,), out_dt, arr.device)
    hist = empty((nbins,), out_dt, arr.device)  # zeroed by the program's first step: the kernels add into it
    if _needs_windows(arr.device, nbins, 0):
        program = Program(arr.device, label="bincount")
        program.clear(hist.buffer)
        # bin b holds the value b: thresholds b0..b1-1 are those values
        _record_windows(program, arr, w, nbins, lambda b0, b1: np.arange(b0, b1).astype(arr.dtype),
                        arr.dtype.type(nbins - 1), hist)
        program.run()
        return hist

    def record(p, x, hist, *weights):
        p.clear(hist.buffer)
        unread = Array(p.temp(16), x.dtype, (4,), x.device)  # MODE_DIRECT reads no thresholds
        _record(p, x, weights[0] if weights else None, unread, hist, nbins, MODE_DIRECT)

    run_recorded(arr.device, ("bincount", nbins), (arr, hist) + ((w,) if w is not None else ()), record, "bincount")
    return hist
