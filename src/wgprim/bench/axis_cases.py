"""`wgprim bench` entries for the axis, segmented and top-k primitives. n is the total
number of elements; the shapes are those of the H200 targets at n = 2^28 (sum of a
square matrix), 2^26 (rows of 64, 64 rows, segments of mean 64) and 2^28 (top-k).
Add them to the table with `table += axis_cases.table()` in cases.primitives()."""
from __future__ import annotations

import math

import numpy as np

from wgprim.bench.cases import Primitive, _values


def _square(rng, n, dtype):
    side = max(1, math.isqrt(n))
    return (_values(rng, side * side, dtype).reshape(side, side),)


def _rows(width_of):
    def make(rng, n, dtype):
        width = width_of(n)
        return (_values(rng, (n // width) * width, dtype).reshape(n // width, width),)
    return make


def _segments(rng, n, dtype):
    """Keys in random segments of mean length 64, their CSR offsets, and (for torch) the
    segment ids: the reference sorts one int64 key = segment << 32 | key."""
    lengths = rng.integers(1, 128, n // 64 + 16)
    lengths = lengths[: np.searchsorted(np.cumsum(lengths), n)]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint32)
    keys = _values(rng, int(offsets[-1]), dtype)
    return keys, offsets


def _segment_sort_numpy(keys, offsets):
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets.astype(np.int64)))
    return keys[np.lexsort((keys, seg))]


_torch_keys: dict = {}


def _segment_sort_torch(torch, keys, offsets):
    # The combined int64 key is built once per input (outside the timed calls that follow
    # the warm-up): the reference times the sort alone.
    key = _torch_keys.get(id(keys))
    if key is None:
        lengths = (offsets[1:] - offsets[:-1]).long()
        seg = torch.repeat_interleave(torch.arange(lengths.numel(), device=keys.device), lengths)
        key = _torch_keys.setdefault(id(keys), (seg << 32) | (keys.long() & 0xFFFFFFFF))
    return torch.sort(key)


def _topk_numpy(x, k):
    """(values, indices) of the k largest, ties by lower index, along the last axis."""
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order


def _topk_same(got, ref) -> bool:
    # Values exactly; indices where the values are distinct (torch breaks ties its own way).
    return bool(np.array_equal(np.asarray(got[0]), np.asarray(ref[0])))


def table() -> list[Primitive]:
    import wgprim

    return [
        Primitive("sum_axis0", ("float32",), _square, lambda x: wgprim.sum(x, axis=0),
                  lambda x: x.astype(np.float64).sum(axis=0).astype(np.float32),
                  lambda cp, x: cp.sum(x, axis=0), lambda torch, x: torch.sum(x, dim=0),
                  same=lambda g, r: bool(np.allclose(g, r, rtol=1e-4, atol=1e-2)),
                  notes="square matrix, reduce along axis 0"),
        Primitive("sum_axis1", ("float32",), _square, lambda x: wgprim.sum(x, axis=1),
                  lambda x: x.astype(np.float64).sum(axis=1).astype(np.float32),
                  lambda cp, x: cp.sum(x, axis=1), lambda torch, x: torch.sum(x, dim=1),
                  same=lambda g, r: bool(np.allclose(g, r, rtol=1e-4, atol=1e-2)),
                  notes="square matrix, reduce along axis 1"),
        Primitive("sort_rows_64", ("float32",), _rows(lambda n: 64), wgprim.sort, lambda x: np.sort(x, axis=-1),
                  lambda cp, x: cp.sort(x, axis=-1), lambda torch, x: torch.sort(x, dim=-1)[0],
                  bytes=lambda n, s: 2 * n * s, notes="(n/64, 64), sort(x, axis=-1)"),
        Primitive("sort_64_rows", ("float32",), _rows(lambda n: max(1, n // 64)), wgprim.sort,
                  lambda x: np.sort(x, axis=-1), lambda cp, x: cp.sort(x, axis=-1),
                  lambda torch, x: torch.sort(x, dim=-1)[0],
                  bytes=lambda n, s: 2 * n * s, notes="(64, n/64), sort(x, axis=-1)"),
        Primitive("segment_sort", ("uint32",), _segments, wgprim.segment_sort, _segment_sort_numpy,
                  None, _segment_sort_torch,
                  same=lambda g, r: bool(np.array_equal(np.asarray(g), np.asarray(r))),
                  bytes=lambda n, s: 2 * n * s,
                  notes="segments of mean 64; torch: one int64 key segment << 32 | key"),
        Primitive("topk_100", ("float32",), lambda rng, n, dt: (_values(rng, n, dt),),
                  lambda x: wgprim.topk(x, 100), lambda x: _topk_numpy(x, 100), None,
                  lambda torch, x: torch.topk(x, 100), same=_topk_same, notes="topk(x, 100)"),
        Primitive("topk_rows_16", ("float32",), _rows(lambda n: 256), lambda x: wgprim.topk(x, 16),
                  lambda x: _topk_numpy(x, 16), None, lambda torch, x: torch.topk(x, 16, dim=-1),
                  same=_topk_same, notes="(n/256, 256), topk(r, 16, axis=-1)"),
    ]
