"""unique(return_counts=) of a dask array: each chunk's distinct values (and counts) by
wgprim on its worker's GPU, merged pairwise-and-up in a tree (split_every at a time):
a merge concatenates the children's values, takes wgprim.unique of them with the inverse
indices, and adds the children's counts into the merged values' slots."""
from __future__ import annotations

import numpy as np

import wgprim
from wgprim.dask._chunk import as_dask, blocks_1d, on_gpu, tree_merge


@on_gpu
def _unique_chunk(x, counts: bool):
    if counts:
        values, n = wgprim.unique(x.ravel(), return_counts=True)
        return values.numpy(), n.numpy().astype(np.int64)
    return wgprim.unique(x.ravel()).numpy()


@on_gpu
def _merge_values(*parts):
    return wgprim.unique(np.concatenate(parts)).numpy()


@on_gpu
def _merge_counts(*parts):
    values = np.concatenate([v for v, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    if values.size == 0:
        return values, counts
    merged, inverse = wgprim.unique(values, return_inverse=True)
    # counts are below 2^53: float64 sums are exact
    total = np.bincount(inverse.numpy().astype(np.intp), weights=counts, minlength=merged.size)
    return merged.numpy(), np.rint(total).astype(np.int64)


def unique(x, return_counts: bool = False, split_every: int = 8):
    """numpy.unique of the flattened dask array (NaNs collapse into one, as numpy): the
    sorted distinct values, and with return_counts their int64 counts, as lazy dask arrays
    whose length is known only after computing."""
    import dask
    import dask.array as da

    x = as_dask(x)
    leaves = [dask.delayed(_unique_chunk, pure=True)(b, return_counts) for b in blocks_1d(x)]
    merged = tree_merge(leaves, _merge_counts if return_counts else _merge_values, split_every)
    meta = np.empty((0,), x.dtype)
    if not return_counts:
        return da.from_delayed(merged, shape=(np.nan,), dtype=x.dtype, meta=meta)
    values = da.from_delayed(merged[0], shape=(np.nan,), dtype=x.dtype, meta=meta)
    counts = da.from_delayed(merged[1], shape=(np.nan,), dtype=np.int64, meta=np.empty((0,), np.int64))
    return values, counts
