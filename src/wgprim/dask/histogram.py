"""histogram and bincount of dask arrays: per-chunk counts by wgprim on the worker's GPU,
added up by dask (a sum of small count vectors; a tree of padded adds for bincount)."""
from __future__ import annotations

from functools import partial

import numpy as np

import wgprim
from wgprim.api.histogram import SUPPORTED_BINS
from wgprim.dask._chunk import I32, U32, as_dask, blocks_1d, on_gpu, tree_merge, upload


@on_gpu
def _hist_chunk(x, w=None, bins=None, range=None):
    """Counts of one chunk, shaped (1, ..., 1, nbins) to stack along the chunk grid."""
    counts, _ = wgprim.histogram(upload(x), bins=bins, range=range, weights=w)
    out = counts.numpy()
    out = out.astype(np.int64) if w is None else out.astype(np.float64)
    return out.reshape((1,) * x.ndim + (-1,))


def histogram(x, bins=10, range=None, weights=None, density: bool = False):
    """numpy.histogram of a dask array, as `dask.array.histogram`: `bins` a count (then
    `range` is required: dask cannot look at the data first) or monotonic edges. Returns
    (hist, bin_edges): hist a lazy dask array (int64 counts; float64 sums of weights or
    densities), bin_edges numpy's own edges (a numpy array)."""
    x = as_dask(x)
    if isinstance(bins, str):
        raise NotImplementedError(f"bins={bins!r} (a bin estimator) is not supported: {SUPPORTED_BINS}")
    if np.ndim(bins) == 0 and range is None:
        raise ValueError("histogram of a dask array needs `range` with a bin count (or explicit edges), as dask.array.histogram")
    edges = np.histogram_bin_edges(np.zeros(0, x.dtype), bins=bins, range=range)
    nbins = len(edges) - 1
    # Every chunk gets the same edges; a count is passed on as is so the chunk takes
    # wgprim's fast evenly-spaced path.
    chunk_bins, chunk_range = (bins, range) if np.ndim(bins) == 0 else (edges, None)
    grid = tuple((1,) * n for n in x.numblocks) + ((nbins,),)
    dtype = np.int64 if weights is None else np.float64
    fn = partial(_hist_chunk, bins=chunk_bins, range=chunk_range)
    if weights is None:
        parts = x.map_blocks(fn, chunks=grid, new_axis=x.ndim, dtype=dtype, token="wgprim-histogram")
    else:
        w = as_dask(weights)
        if w.shape != x.shape:
            raise ValueError(f"weights should have the same shape as x: {w.shape} vs {x.shape}")
        w = w.rechunk(x.chunks)
        parts = x.map_blocks(fn, w, chunks=grid, new_axis=x.ndim, dtype=dtype, token="wgprim-histogram")
    hist = parts.sum(axis=tuple(np.arange(x.ndim).tolist()), dtype=dtype)
    if density:
        hist = hist / hist.sum() / np.diff(edges)
    return hist, edges



@on_gpu
def _bincount_chunk(x, w=None, minlength=0):
    counts = wgprim.bincount(x.ravel(), weights=None if w is None else w.ravel(), minlength=minlength).numpy()
    return counts.astype(np.int64) if w is None else counts.astype(np.float64)


def _add_padded(*parts):
    out = np.zeros(max(len(p) for p in parts), parts[0].dtype)
    for p in parts:
        out[: len(p)] += p
    return out


def bincount(x, weights=None, minlength: int = 0, split_every: int = 8):
    """numpy.bincount of a 1-D dask array of non-negative uint32/int32 values: int64 counts
    (float64 sums of float32 weights). Per-chunk counts by wgprim, added in a tree. The
    result's length is known only after computing (a dask array of unknown chunk size)."""
    import dask
    import dask.array as da

    x = as_dask(x, allowed=(U32, I32))
    if x.ndim != 1:
        raise ValueError(f"bincount takes a 1-D array (as numpy), got shape {x.shape}")
    if int(minlength) < 0:
        raise ValueError("'minlength' must not be negative")
    blocks = blocks_1d(x)
    if weights is None:
        leaves = [dask.delayed(_bincount_chunk, pure=True)(b, None, int(minlength)) for b in blocks]
        dtype = np.int64
    else:
        w = as_dask(weights)
        if w.shape != x.shape:
            raise ValueError(f"weights should have the same shape as x: {w.shape} vs {x.shape}")
        leaves = [dask.delayed(_bincount_chunk, pure=True)(b, wb, int(minlength))
                  for b, wb in zip(blocks, blocks_1d(w.rechunk(x.chunks)))]
        dtype = np.float64
    total = tree_merge(leaves, _add_padded, split_every)
    return da.from_delayed(total, shape=(np.nan,), dtype=dtype, meta=np.empty((0,), dtype))
