"""Order statistics of the rows of a 2-D Array, read back to the host: the building block
of median, quantile, percentile (api/quantile.py) and the nan-functions' slices that hold
a NaN (api/nanfunctions.py).

The element at rank k of a row is the one a stable sort of the row puts at position k, in
numpy's order (NaN after +inf, -0.0 equal to +0.0), its own bits; its index is its
position in the row. They come from the selection primitives, never a full sort of the
data where a few ranks are asked for:
- one row and at most SELECTS distinct ranks: wgprim.kth_smallest for each rank (a radix
  select: two or three reads of the row, 64-bit keys twice that, no write of it);
- otherwise wgprim.partition (argpartition for indices) of every row at the union of the
  ranks, then a gather on the GPU of the asked positions only: partition places the
  stable sort's element at every k-th it is given (it sorts the rows where that is
  cheaper, its own rule).
Only the asked values cross to the host.
"""
from __future__ import annotations

import numpy as np

from wgprim.api.partition import argpartition, kth_smallest, partition
from wgprim.api.search import searchsorted
from wgprim.api.slices import row_reduce
from wgprim.array import Array, asarray, empty
from wgprim.ops.gather import record_gather
from wgprim.program import Program, batch

U32 = np.dtype(np.uint32)
# Distinct ranks of one row taken one select each; more partition the row once. Each
# select reads the row two or three times and a partition is a select per rank plus a
# split (a read and a write), so up to partition's own pivot count the selects alone
# are cheaper; past it partition sorts.
SELECTS = 8


def take(flat: Array, positions: np.ndarray) -> np.ndarray:
    """flat[positions] on the host: gathered on the GPU, only those elements read back."""
    where = np.asarray(positions, np.int64)
    if where.size == 0:
        return np.zeros(where.shape, flat.dtype)
    index = asarray(where.astype(np.uint32).ravel(), device=flat.device)
    out = empty((index.size,), flat.dtype, flat.device)
    p = Program(flat.device, label="take order statistics")
    record_gather(p, flat, index, out)
    p.run()
    return out.numpy().reshape(where.shape)


def at_ranks(table: Array, ranks, indices: bool = False) -> np.ndarray:
    """For each row r of the 2-D `table` and each column j of `ranks` ((rows, j), or (j,)
    shared by every row; 0 <= rank < row length), the element at rank ranks[r, j] of row r:
    its value in table's dtype, or with indices=True its uint32 position in the row.
    Returns a (rows, j) numpy array."""
    count, length = table.shape
    ranks = np.asarray(ranks, np.int64)
    ranks = np.broadcast_to(ranks, (count, ranks.shape[-1]))
    wanted = np.unique(ranks)
    if count == 0 or wanted.size == 0:
        return np.zeros(ranks.shape, U32 if indices else table.dtype)
    if count == 1 and wanted.size <= SELECTS:
        row = table.reshape((length,))
        with batch():  # one submit for every select
            found = [kth_smallest(row, int(k))[1 if indices else 0] for k in wanted]
        column = {int(k): found[i].numpy()[()] for i, k in enumerate(wanted)}
        return np.array([[column[int(k)] for k in ranks[0]]], U32 if indices else table.dtype)
    split = argpartition if indices else partition
    parted = split(table.reshape((length,)) if count == 1 else table, wanted.tolist(), axis=-1)  # 1-D: no row copies
    return take(parted.ravel(), np.arange(count, dtype=np.int64)[:, None] * length + ranks)


def nan_counts(table: Array) -> np.ndarray:
    """The NaNs of each row of the 2-D float `table` (int64, on the host): per element a
    0/1 from searchsorted against [+inf] (only NaN is above it), summed per row."""
    count, length = table.shape
    if count == 0 or length == 0:
        return np.zeros(count, np.int64)
    above_inf = searchsorted(np.array([np.inf], table.dtype), table, side="left")
    return row_reduce(above_inf, "sum").astype(np.int64)


def rows_with_nan(table: Array) -> np.ndarray:
    """Whether each row of the 2-D `table` holds a NaN (its max is NaN: one read)."""
    count, length = table.shape
    if table.dtype.kind != "f" or count == 0 or length == 0:
        return np.zeros(count, bool)
    return np.isnan(row_reduce(table, "max"))
