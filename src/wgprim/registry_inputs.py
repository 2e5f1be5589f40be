"""The inputs the registry's entries make (wgprim/registry.py): `make(rng, n, dtype)` gives
a tuple of numpy inputs with n elements in the first."""
from __future__ import annotations

import math

import numpy as np

SEGMENT_MEAN = 64  # mean segment length of the segmented entries


def values(rng, n, dtype):
    """n random values over the dtype's whole range (standard normal for floats)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:  # uint64, int64, float64
        if dtype.kind == "f":
            return rng.standard_normal(n)
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if dtype.kind == "f":
        return rng.standard_normal(n, dtype=np.float32).astype(dtype, copy=False)
    if dtype == np.int32:
        return rng.integers(-(2**31), 2**31, n, dtype=np.int32)
    return rng.integers(0, 2**32, n, dtype=np.uint32)


def one(rng, n, dtype):
    return (values(rng, n, dtype),)


def odd(rng, n, dtype):
    # Odd factors: a product of random integers is 0 modulo 2^32 after ~64 of them.
    return (values(rng, n, dtype) | np.array(1, dtype),)


def with_nans(rng, n, dtype):
    # About one element in ten NaN (the nan* functions' case), the rest random.
    x = values(rng, n, dtype)
    x[rng.random(n) < 0.1] = np.nan
    return (x,)


def mostly_zero(rng, n, dtype):
    # About one element in a thousand nonzero: any and count_nonzero have something to find.
    x = values(rng, n, dtype)
    x[rng.random(n) >= 0.001] = 0
    return (x,)


def near_one(rng, n, dtype):
    return (rng.uniform(0.9999, 1.0001, n).astype(dtype),)


def with_mask(rng, n, dtype):
    return values(rng, n, dtype), rng.random(n, dtype=np.float32) < 0.5


def few_distinct(rng, n, dtype):
    # Many equal keys: stability shows in argsort.
    return (rng.integers(0, 1000, n).astype(dtype),)


def quarter_distinct(rng, n, dtype):
    return (rng.integers(0, max(n // 4, 1), n, dtype=np.int64).astype(dtype),)


def two_keys(rng, n, dtype):
    """Two keys of n values (lexsort): the primary one with n/16 distinct values, so that
    the secondary one decides among ties."""
    primary = rng.integers(0, max(n // 16, 1), n).astype(dtype)
    return values(rng, n, dtype), primary


def runs(rng, n, dtype):
    return (np.repeat(rng.integers(0, 5, n // 4 + 1), 4)[:n].astype(dtype),)


def matrix(rows: int | None = None, cols: int | None = None):
    """Inputs of n elements shaped (rows, n // rows), (n // cols, cols), or square."""
    def make(rng, n, dtype):
        if rows:
            shape = (rows, max(n // rows, 1))
        elif cols:
            shape = (max(n // cols, 1), cols)
        else:
            side = max(math.isqrt(n), 1)
            shape = (side, side)
        return (values(rng, shape[0] * shape[1], dtype).reshape(shape),)
    return make


square = matrix()


def segment_offsets(rng, n: int, mean: int = SEGMENT_MEAN) -> np.ndarray:
    """CSR offsets (first 0, last n) of random segments of mean length `mean`, some empty."""
    lengths = rng.integers(0, 2 * mean + 1, n // mean + 16)
    ends = np.cumsum(lengths)
    ends = ends[ends < n]
    return np.concatenate([[0], ends, [n]]).astype(np.uint32)


def segmented(rng, n, dtype):
    return values(rng, n, dtype), segment_offsets(rng, n)


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets.astype(np.int64)))


def wide_values(rng, n, dtype):
    """n random values of any key dtype, 64-bit ones over their whole range too."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8 and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return values(rng, n, dtype)


def search_inputs(queries: str = "random", table: int | None = None):
    """(queries, sorted values) for searchsorted: n queries (random, or sorted) into n sorted
    values of the same distribution, or into `table` of them (many queries into few values)."""
    def make(rng, n, dtype):
        a = np.sort(wide_values(rng, table or n, dtype))
        v = wide_values(rng, n, dtype)
        return (np.sort(v) if queries == "sorted" else v), a
    return make
