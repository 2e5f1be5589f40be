"""Histograms' front doors: histogram(x, bins, range, weights) and bincount(x, weights,
minlength), as numpy's. The building block (kernels/histogram.wgsl, numpy's edges turned
into thresholds in the data's dtype, the windows for more bins than one binding holds) and
the semantics are in ops/histogram.py; numpy's range=None takes the data's min and max
from the atomic min/max (ops/atomic_minmax.py). 64-bit data is binned by searching the
thresholds (ops/histogram.record_wide, ops/search.py).
"""
from __future__ import annotations

import operator

import numpy as np

from wgprim.array import WIDE_DTYPES, Array, asarray, empty, zeros
from wgprim.ops.atomic_minmax import atomic_min_max, key_range64
from wgprim.ops.common import as_input
from wgprim.ops.histogram import (DATA_TYPES, I32, I64, MODE_DIRECT, MODE_SEARCH, MODE_UNIFORM, U32, U64,
                                  WEIGHT_TYPES, HistogramPolicy, _evenly_spaced, _guide, _needs_windows, _record, _record_windows,
                                  _thresholds, record_wide, search_table)
from wgprim.program import Program
from wgprim.recordings import run_recorded
from wgprim.tuning import policy


def _data_range(x: Array):
    """numpy's range=None: the data's min and max (scalars of the data's dtype)."""
    if x.dtype in WIDE_DTYPES:
        mn, mx = key_range64(x)  # its keys hold one zero: which one the data has, min and max tell
        if x.dtype.kind == "f" and (mn == 0 or mx == 0):
            from wgprim.api.reduce import max as max_of, min as min_of

            mn = min_of(x).numpy()[()] if mn == 0 else mn
            mx = max_of(x).numpy()[()] if mx == 0 else mx
        return mn, mx
    mn, mx = atomic_min_max(x).numpy()
    return mn, mx


def _as_weights(weights, x: Array, message: str) -> Array | None:
    """The weights as a flat Array: of x's shape (numpy's rule; ValueError `message`)."""
    if weights is None:
        return None
    w = as_input(weights, WEIGHT_TYPES)
    if tuple(w.shape) != tuple(x.shape):
        raise ValueError(f"{message} (weights {w.shape}, data {x.shape})")
    return w.ravel()


def _minlength(minlength) -> int:
    """numpy's minlength: an integer (TypeError for a float, a string, a bool or None)."""
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    if isinstance(minlength, (bool, np.bool_)):
        raise TypeError(f"minlength must be an integer, not {minlength!r}")
    try:
        minlength = operator.index(minlength)
    except TypeError:
        raise TypeError(f"'{type(minlength).__name__}' object cannot be interpreted as an integer") from None
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    return minlength


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
    `key` for ops/histogram._record; for 64-bit data `wide` (the search's table and the
    number of kept thresholds, ops/histogram.record_wide) instead. Computed once per (dt,
    bins, range, binding size)."""
    bins_key = ("count", bins) if np.ndim(bins) == 0 else ("edges", np.asarray(bins).dtype.str,
                                                            np.asarray(bins).tobytes())
    range_key = None if range is None else tuple((type(v).__name__, np.asarray(v).tobytes()) for v in range)
    key = (dt.str, bins_key, range_key, device.max_binding_bytes, policy(HistogramPolicy))  # the guide's cells
    found = _SETUPS.get(key)
    if found is None:
        found = _make_setup(dt, bins, range, device)
        if len(_SETUPS) >= _SETUPS_KEPT:
            _SETUPS.pop(next(iter(_SETUPS), None), None)  # another thread may have emptied it
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
    if dt in WIDE_DTYPES:  # the bins by a search over the thresholds (ops/histogram.record_wide)
        table = search_table(lo, hi, interior, dt)
        setup.update(thresholds=table, wide=(len(interior) + 1, ("histogram 64-bit", table.tobytes(), nbins)))
        return setup
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
    data = as_input(x, DATA_TYPES)
    w = _as_weights(weights, data, "weights should have the same shape as a.")
    arr = data.ravel()
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
    if "wide" in setup:
        kept, key = setup["wide"]

        def record_wide_bins(p, x, hist, *weights):  # the table uploaded once, kept by the recording
            p.clear(hist.buffer)
            record_wide(p, x, weights[0] if weights else None, asarray(thresholds, device=x.device), kept, nbins, hist)

        run_recorded(arr.device, key, (arr, hist) + ((w,) if w is not None else ()), record_wide_bins, "histogram")
        return hist, edges
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


def bincount(x, weights=None, minlength=0) -> Array:
    """numpy.bincount for non-negative integers (uint32, int32, uint64, int64): counts
    (uint32) of each value 0..max(x), at least `minlength` bins; with weights (of x's
    shape), their sums (weights' dtype). A negative value raises ValueError as numpy; a
    maximum too large for a result on this device raises MemoryError."""
    arr = as_input(x, (U32, I32, U64, I64))
    if arr.ndim != 1:
        raise ValueError(f"bincount takes a 1-D array (as numpy), got shape {arr.shape}")
    w = _as_weights(weights, arr, "The weights and list don't have the same length.")
    minlength = _minlength(minlength)
    if arr.size:
        mn, mx = _data_range(arr)
        if int(mn) < 0:
            raise ValueError("'list' argument must have no negative elements")
        nbins = max(int(mx) + 1, minlength)
    else:
        nbins = minlength
    out_dt = U32 if w is None else w.dtype
    if nbins * 8 > np.iinfo(np.intp).max:  # numpy's own error for such a maximum
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    if nbins > 2**32 - 1 or 4 * nbins > arr.device.max_buffer_bytes:
        raise MemoryError(f"bincount needs max(x) + 1 = {nbins} bins of 4 bytes, more than this device's largest "
                          f"buffer ({arr.device.max_buffer_bytes} bytes) or wgprim's 2^32 - 1 elements")
    if arr.size == 0:
        return zeros((nbins,), out_dt, arr.device)
    hist = empty((nbins,), out_dt, arr.device)  # zeroed by the program's first step: the kernels add into it
    if _needs_windows(arr.device, nbins, 0):
        program = Program(arr.device, label="bincount")
        program.clear(hist.buffer)
        # bin b holds the value b: thresholds b0..b1-1 are those values (64-bit: their low words)
        kt = U32 if arr.dtype in WIDE_DTYPES else arr.dtype
        _record_windows(program, arr, w, nbins, lambda b0, b1: np.arange(b0, b1).astype(kt), kt.type(nbins - 1), hist)
        program.run()
        return hist

    def record(p, x, hist, *weights):
        p.clear(hist.buffer)
        unread = Array(p.temp(16), x.dtype, (2,), x.device)  # MODE_DIRECT reads no thresholds
        _record(p, x, weights[0] if weights else None, unread, hist, nbins, MODE_DIRECT)

    run_recorded(arr.device, ("bincount", nbins), (arr, hist) + ((w,) if w is not None else ()), record, "bincount")
    return hist
