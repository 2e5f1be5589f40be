"""What `wgprim bench` measures: one entry per primitive, with its input, wgprim's call,
the references (numpy always; CuPy and PyTorch when importable), a correctness check,
and the bytes a call must move at least (for GB/s)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

BINS = 256  # histogram bins, as in the reference figure


@dataclass
class Primitive:
    name: str
    dtypes: tuple
    make: Callable  # (rng, n, dtype) -> tuple of numpy inputs
    run: Callable  # (*gpu_inputs) -> wgprim result (Array or tuple of Arrays)
    numpy: Callable  # (*numpy inputs) -> reference result
    cupy: Callable | None = None  # (cupy module, *cupy inputs) -> result
    torch: Callable | None = None  # (torch module, *tensors) -> result
    same: Callable | None = None  # (wgprim result on host, reference) -> bool
    bytes: Callable = lambda n, itemsize: n * itemsize  # minimum traffic of one call
    max_n: int = 2**32
    notes: str = ""
    extra: dict = field(default_factory=dict)


def _values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    if dtype == np.int32:
        return rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def _one(rng, n, dtype):
    return (_values(rng, n, dtype),)


def _with_mask(rng, n, dtype):
    return _values(rng, n, dtype), rng.random(n) < 0.5


def _duplicates(rng, n, dtype):
    return (rng.integers(0, max(n // 4, 1), n).astype(dtype),)


def _exact(got, ref) -> bool:
    if isinstance(ref, tuple):
        return all(_exact(g, r) for g, r in zip(got, ref))
    return np.array_equal(np.asarray(got), np.asarray(ref), equal_nan=np.asarray(ref).dtype.kind == "f")


def _sum_close(got, ref) -> bool:
    return abs(float(got) - float(ref)) <= 1e-4 * max(abs(float(ref)), 1.0) + 2e-5 * np.sqrt(1 << 28)


def _cumsum_close(got, ref) -> bool:
    ref = np.asarray(ref, np.float64)
    scale = np.maximum(np.abs(ref), np.sqrt(np.arange(1, ref.size + 1)))
    return bool(np.all(np.abs(np.asarray(got, np.float64) - ref) <= 1e-4 * scale))


def primitives() -> dict[str, Primitive]:
    import wgprim
    from wgprim.ops import histogram as hist_ops, select, sort as sort_ops

    def hist(x):
        return hist_ops.histogram(x, bins=BINS, range=(-4.0, 4.0))[0]

    table = [
        Primitive("sum", ("float32", "int32", "uint32"), _one, wgprim.sum,
                  lambda x: x.astype(np.float64).sum() if x.dtype.kind == "f" else x.sum(dtype=x.dtype),
                  lambda cp, x: cp.sum(x), lambda torch, x: torch.sum(x),
                  same=lambda g, r: _sum_close(g, r) if np.asarray(r).dtype.kind == "f" else _exact(g, r)),
        Primitive("min", ("float32", "int32", "uint32"), _one, wgprim.min, np.min,
                  lambda cp, x: cp.min(x), lambda torch, x: torch.min(x)),
        Primitive("argmax", ("float32", "int32", "uint32"), _one, wgprim.argmax, np.argmax,
                  lambda cp, x: cp.argmax(x), lambda torch, x: torch.argmax(x)),
        Primitive("cumsum", ("float32", "int32", "uint32"), _one, wgprim.cumsum,
                  lambda x: np.cumsum(x.astype(np.float64)) if x.dtype.kind == "f" else np.cumsum(x, dtype=x.dtype),
                  lambda cp, x: cp.cumsum(x), lambda torch, x: torch.cumsum(x, 0),
                  same=lambda g, r: _cumsum_close(g, r) if np.asarray(r).dtype == np.float64 else _exact(g, r),
                  bytes=lambda n, s: 2 * n * s, notes="torch/CuPy cumsum of int32 produce int64"),
        Primitive("sort", ("uint32", "int32", "float32"), _one, sort_ops.sort, np.sort,
                  lambda cp, x: cp.sort(x), lambda torch, x: torch.sort(x)[0],
                  bytes=lambda n, s: 2 * n * s),
        Primitive("argsort", ("uint32", "float32"), _one, sort_ops.argsort, lambda x: np.argsort(x, kind="stable"),
                  lambda cp, x: cp.argsort(x), lambda torch, x: torch.argsort(x, stable=True),
                  bytes=lambda n, s: n * s + n * 4),
        Primitive("sort_pairs", ("uint32",), lambda rng, n, dt: (_values(rng, n, dt), np.arange(n, dtype=np.uint32)),
                  sort_ops.sort_pairs,
                  lambda k, v: (np.sort(k, kind="stable"), v[np.argsort(k, kind="stable")]),
                  None, lambda torch, k, v: torch.sort(k, stable=True),
                  bytes=lambda n, s: 4 * n * s, notes="torch reference: sort with indices (stable)"),
        Primitive("bitonic_sort", ("uint32",), _one, lambda x: sort_ops.sort(x, method="bitonic"), np.sort,
                  lambda cp, x: cp.sort(x), lambda torch, x: torch.sort(x)[0],
                  bytes=lambda n, s: 2 * n * s, max_n=2**24),
        Primitive("histogram", ("float32",), _one, hist, lambda x: np.histogram(x, bins=BINS, range=(-4.0, 4.0))[0],
                  lambda cp, x: cp.histogram(x, bins=BINS, range=(-4.0, 4.0))[0],
                  lambda torch, x: torch.histc(x, bins=BINS, min=-4.0, max=4.0),
                  same=lambda g, r: _exact(np.asarray(g).astype(np.int64), np.asarray(r).astype(np.int64))),
        Primitive("histogram_skewed", ("float32",), lambda rng, n, dt: (np.full(n, 0.5, dt),), hist,
                  lambda x: np.histogram(x, bins=BINS, range=(-4.0, 4.0))[0],
                  lambda cp, x: cp.histogram(x, bins=BINS, range=(-4.0, 4.0))[0],
                  lambda torch, x: torch.histc(x, bins=BINS, min=-4.0, max=4.0),
                  same=lambda g, r: _exact(np.asarray(g).astype(np.int64), np.asarray(r).astype(np.int64)),
                  notes="every element in one bin: worst case for atomics"),
        Primitive("compact", ("float32",), _with_mask, select.compact, lambda x, m: x[m],
                  lambda cp, x, m: x[m], lambda torch, x, m: x[m],
                  bytes=lambda n, s: n * s + n + n * s // 2, notes="x[mask], half selected"),
        Primitive("compact_unordered", ("float32",), _with_mask, lambda x, m: select.compact(x, m, ordered=False),
                  lambda x, m: x[m], lambda cp, x, m: x[m], lambda torch, x, m: x[m],
                  same=lambda g, r: _exact(np.sort(np.asarray(g)), np.sort(np.asarray(r))),
                  bytes=lambda n, s: n * s + n + n * s // 2, notes="append-buffer form; same set, any order"),
        Primitive("unique", ("uint32",), _duplicates, select.unique, np.unique,
                  lambda cp, x: cp.unique(x), lambda torch, x: torch.unique(x, sorted=True),
                  bytes=lambda n, s: 2 * n * s),
    ]
    return {p.name: p for p in table}
