"""sort and argsort of a 1-D dask array (which dask itself lacks), and topk.

sort is a sample sort by regular sampling (PSRS, Shi & Schaeffer 1992):
  1. each chunk is sorted by wgprim on its worker's GPU;
  2. sampling: every chunk gives `oversample` evenly spaced values per output partition
     from its sorted run; one small task sorts the samples (wgprim) and picks the
     partitions' splitters at even ranks;
  3. partition: each sorted chunk is cut at the splitters (a binary search per splitter:
     the GPU sort of step 1 already grouped the elements by partition);
  4. each output partition gathers its piece of every chunk and wgprim sorts them on a
     worker's GPU.
The output chunks are the partitions, whose sizes are known after computing. argsort
carries each key's global index (int64) with it: stable, as np.argsort(kind="stable").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import wgprim
from wgprim.dask._chunk import as_dask, blocks_1d, on_gpu, tree_merge, upload


@on_gpu
def _sort_chunk(x):
    return wgprim.sort(upload(x)).numpy()


@on_gpu
def _argsort_chunk(x, offset):
    """(sorted keys, their global indices): a stable GPU argsort of the chunk."""
    order = wgprim.argsort(upload(x)).numpy()
    return x[order], order.astype(np.int64) + offset


def _keys(run):
    return run[0] if isinstance(run, tuple) else run


def _regular_sample(run, count):
    keys = _keys(run)
    if keys.size == 0:
        return keys[:0]
    return keys[(np.arange(1, count + 1) * keys.size) // (count + 1)]


@on_gpu
def _splitters(parts, *samples):
    """parts - 1 splitters at even ranks of all the samples (sorted by wgprim)."""
    pool = np.concatenate(samples)
    if pool.size == 0:  # every chunk is empty: any splitters cut them into empty pieces
        return np.zeros(parts - 1, pool.dtype)
    pool = wgprim.sort(pool).numpy()
    return pool[(np.arange(1, parts) * pool.size) // parts]


def _cut(run, splitters):
    """The pieces of a sorted run between consecutive splitters (NaN sorts last, as in
    np.searchsorted; -0.0 == +0.0, so equal keys always land in the same piece)."""
    keys = _keys(run)
    bounds = [0, *np.searchsorted(keys, splitters, side="left").tolist(), keys.size]
    if isinstance(run, tuple):
        return tuple((run[0][a:b], run[1][a:b]) for a, b in zip(bounds[:-1], bounds[1:]))
    return tuple(run[a:b] for a, b in zip(bounds[:-1], bounds[1:]))


@on_gpu
def _sort_partition(*pieces):
    return wgprim.sort(np.concatenate(pieces)).numpy()


@on_gpu
def _argsort_partition(*pieces):
    # Pieces are in chunk order and each is stable, so equal keys come in global index
    # order; wgprim's argsort is stable, so they stay in it.
    keys = np.concatenate([k for k, _ in pieces])
    index = np.concatenate([i for _, i in pieces])
    return index[wgprim.argsort(keys).numpy()] if keys.size else index


@dataclass
class SampleSortStages:
    """The delayed objects of each step (for timing them one by one, as the benchmark does)."""

    runs: list        # step 1: each chunk sorted
    samples: list     # step 2
    splitters: object
    pieces: list      # step 3: per chunk, a tuple of one piece per partition
    partitions: list  # step 4: each output partition sorted


def sample_sort_stages(x, partitions: int | None = None, oversample: int = 32, index: bool = False):
    """Build the sample sort's graph (nothing runs); `index=True` for argsort."""
    import dask

    x = as_dask(x)
    if x.ndim != 1:
        raise ValueError(f"sort input must be one-dimensional, got shape {x.shape} (use .ravel() to sort every element)")
    parts = int(partitions or x.numblocks[0])
    if parts < 1:
        raise ValueError("partitions must be at least 1")
    blocks = blocks_1d(x)
    if index:
        if any(np.isnan(c) for c in x.chunks[0]):
            raise ValueError("argsort needs known chunk sizes (call x.compute_chunk_sizes() first)")
        starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64).tolist()
        runs = [dask.delayed(_argsort_chunk, pure=True)(b, s) for b, s in zip(blocks, starts)]
    else:
        runs = [dask.delayed(_sort_chunk, pure=True)(b) for b in blocks]
    samples = [dask.delayed(_regular_sample, pure=True)(r, oversample * parts) for r in runs]
    splitters = dask.delayed(_splitters, pure=True)(parts, *samples)
    pieces = [dask.delayed(_cut, pure=True, nout=parts)(r, splitters) for r in runs]
    merge = _argsort_partition if index else _sort_partition
    out = [dask.delayed(merge, pure=True)(*[p[b] for p in pieces]) for b in range(parts)]
    return SampleSortStages(runs, samples, splitters, pieces, out)


def _assemble(stages: SampleSortStages, dtype):
    import dask.array as da

    meta = np.empty((0,), dtype)
    return da.concatenate([da.from_delayed(p, shape=(np.nan,), dtype=dtype, meta=meta) for p in stages.partitions])


def sort(x, partitions: int | None = None, oversample: int = 32):
    """A sorted 1-D dask array with the elements of the 1-D `x` (uint32, int32, float32),
    equal to np.sort of the whole (NaN last). Its chunks are `partitions` (default: as many
    as x has) ranges of values, sizes known after computing (`.compute_chunk_sizes()`)."""
    x = as_dask(x)
    return _assemble(sample_sort_stages(x, partitions, oversample), x.dtype)


def argsort(x, partitions: int | None = None, oversample: int = 32):
    """int64 indices that sort the 1-D dask array `x` stably, as np.argsort(kind="stable")."""
    x = as_dask(x)
    return _assemble(sample_sort_stages(x, partitions, oversample, index=True), np.int64)


@on_gpu
def _topk_chunk(x, k):
    return wgprim.sort(x.ravel(), descending=k > 0).numpy()[: abs(k)]


@on_gpu
def _topk_merge(k, *parts):
    return _topk_chunk(np.concatenate(parts), k)


def topk(x, k: int, split_every: int = 8):
    """The k largest elements of the flattened `x` in descending order (k < 0: the -k
    smallest, ascending), as dask.array.topk of a 1-D array; NaN counts as the largest
    (np.sort(x)[::-1][:k]). Per-chunk top-k by wgprim's sort, merged in a tree."""
    import dask
    import dask.array as da
    from functools import partial

    x = as_dask(x)
    k = int(k)
    leaves = [dask.delayed(_topk_chunk, pure=True)(b, k) for b in blocks_1d(x)]
    best = tree_merge(leaves, partial(_topk_merge, k), split_every)
    n = min(abs(k), int(x.size)) if not np.isnan(x.size) else np.nan
    return da.from_delayed(best, shape=(n,), dtype=x.dtype, meta=np.empty((0,), x.dtype))
