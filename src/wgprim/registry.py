"""The primitives wgprim offers, in one list that `wgprim demo`, `wgprim bench` and the
README's table all follow.

Each entry says what to call, on which dtypes, with which input, and what the answer
must be: numpy's, and (for `wgprim bench`) what CuPy and PyTorch run for the same job.
Adding a primitive to the demo and the benchmark is adding one `Primitive` to `ENTRIES`.
An entry whose wgprim function (or keyword) does not exist yet is skipped, with the
reason, by both commands: entries can be written before the function lands.

Functions in an entry receive numpy inputs (`make`, `numpy`, `same`), wgprim Arrays
(`call`, after the module itself) or the library's arrays (`cupy`, `torch`). The inputs
entries make are in registry_inputs.py, numpy's answers and the comparisons that accept a
result in registry_checks.py.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np

from wgprim.registry_checks import (close_cumsum, close_prod, close_segment_sum, close_sum, cumsum_ref,
                                    cumulative_sum_ref, exact, kth_ref, prod_ref, rle, same_argpartition, same_counts,
                                    same_partition, same_set, same_topk, same_unique_all, scan_max_exclusive,
                                    segment_cumsum_ref, segment_sort_ref, segment_sum_ref, stable_pairs, sum_ref,
                                    topk_ref)
from wgprim.registry_inputs import (SEGMENT_MEAN, few_distinct, matrix, mostly_zero, near_one, odd, one, quarter_distinct,
                                    runs, search_inputs, segment_ids, segmented, square, two_keys, values, with_mask,
                                    with_nans)
from wgprim.registry_inputs import segment_offsets  # noqa: F401  (registry.segment_offsets: tests)

ALL_DTYPES = ("float32", "int32", "uint32")
INT64 = ("int64", "uint64")  # the 64-bit integers: exact sums, products, scans
WIDE = INT64 + ("float64",)  # 64-bit dtypes: float64 where the work only compares
BINS = 256  # histogram bins, as in the reference figure


@dataclass(frozen=True)
class Primitive:
    name: str  # unique; what `wgprim bench NAME` and `wgprim demo --only` match
    requires: tuple  # (wgprim function, keyword...) the call needs; missing -> skipped
    dtypes: tuple  # the demo runs each; the bench runs the first unless --dtype says
    make: Callable  # (rng, n, dtype) -> tuple of numpy inputs (n elements in the first)
    call: Callable  # (wgprim module, *wgprim Arrays) -> Array or tuple of Arrays
    numpy: Callable  # (*numpy inputs) -> the expected result (or tuple)
    same: Callable | None = None  # (got, expected, *numpy inputs) -> bool; None: exact
    cupy: Callable | None = None  # (cupy, *cupy inputs) -> the same job in CuPy
    torch: Callable | None = None  # (torch, *tensors) -> the same job in PyTorch
    # (library name, module, *numpy inputs) -> inputs of `cupy`/`torch`, when uploading
    # each input as it is will not do (e.g. segment ids folded into the keys)
    ref_inputs: Callable | None = None
    cupy_checks: bool | None = None  # CuPy's result is numpy's (exactly): above 2^24 it
    #                                  checks wgprim instead of numpy. Default: same is None
    bytes: Callable = lambda n, itemsize: n * itemsize  # least traffic of one call (GB/s)
    min_n: int = 1
    max_n: int = 2**32
    demo: bool = True
    bench: bool = True
    notes: str = ""

    @property
    def function(self) -> str:
        return self.requires[0]

    def missing(self, module=None) -> str | None:
        """Why this entry cannot run with this wgprim (None when it can)."""
        if module is None:
            import wgprim as module
        fn = getattr(module, self.function, None)
        if fn is None:
            return f"wgprim.{self.function} does not exist"
        for keyword in self.requires[1:]:
            if not accepts(fn, keyword):
                return f"wgprim.{self.function} has no {keyword}= argument"
        return None

    def checked_by_cupy(self) -> bool:
        return self.cupy is not None and (self.same is None if self.cupy_checks is None else self.cupy_checks)


def accepts(fn, keyword: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True  # cannot tell: let the call decide
    return keyword in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def torch_segment_keys(lib, module, keys, offsets):
    """What a PyTorch user sorts segments with: one int64 key = segment << 32 | key."""
    merged = (segment_ids(offsets) << 32) | keys.astype(np.int64)
    return (module.from_numpy(merged).cuda(),) if lib == "torch" else (module.asarray(merged),)


def _cupy_pairs(cp, k, v):
    order = cp.argsort(k)  # CuPy sorts stably (CUB's radix sort)
    return k[order], v[order]


def _hist(wp, x):
    return wp.histogram(x, bins=BINS, range=(-4.0, 4.0))[0]


def _np_hist(x):
    return np.histogram(x, bins=BINS, range=(-4.0, 4.0))[0]


def _cp_hist(cp, x):
    return cp.histogram(x, bins=BINS, range=(-4.0, 4.0))[0]


def _torch_hist(torch, x):
    return torch.histc(x, bins=BINS, min=-4.0, max=4.0)


def _searchsorted(wp, v, a):
    return wp.searchsorted(a, v)


_SEARCH_BYTES = lambda n, s: n * s + 4 * n  # noqa: E731  read the queries, write the indices


_SORT_BYTES = lambda n, s: 2 * n * s  # noqa: E731  read the keys, write them sorted
_COMPACT_BYTES = lambda n, s: n * s + n + n * s // 2  # noqa: E731  read x and mask, write half


# -- the entries -----------------------------------------------------------------------------
ENTRIES: list[Primitive] = [
    # reductions
    Primitive("sum", ("sum",), ALL_DTYPES + INT64 + ("float64",), one, lambda wp, x: wp.sum(x), sum_ref, close_sum,
              lambda cp, x: cp.sum(x), lambda torch, x: torch.sum(x), notes="int64/uint64 wrap modulo 2^64; float64 correctly rounded (docs/exact.md)"),
    Primitive("prod", ("prod",), ALL_DTYPES + INT64,
              lambda rng, n, dt: (near_one if np.dtype(dt).kind == "f" else odd)(rng, n, dt),
              lambda wp, x: wp.prod(x), prod_ref, close_prod, bench=False),
    Primitive("min", ("min",), ALL_DTYPES + WIDE, one, lambda wp, x: wp.min(x), np.min, None,
              lambda cp, x: cp.min(x), lambda torch, x: torch.min(x)),
    Primitive("max", ("max",), ALL_DTYPES + WIDE, one, lambda wp, x: wp.max(x), np.max, bench=False),
    Primitive("argmin", ("argmin",), ALL_DTYPES + WIDE, one, lambda wp, x: wp.argmin(x), np.argmin, bench=False),
    Primitive("argmax", ("argmax",), ALL_DTYPES + WIDE, one, lambda wp, x: wp.argmax(x), np.argmax, None,
              lambda cp, x: cp.argmax(x), lambda torch, x: torch.argmax(x)),
    Primitive("reduce_bitwise_and", ("reduce",), ("int32", "uint32") + INT64, one,
              lambda wp, x: wp.reduce(x, "bitwise_and"), np.bitwise_and.reduce, bench=False),
    Primitive("reduce_bitwise_or", ("reduce",), ("int32", "uint32") + INT64, one,
              lambda wp, x: wp.reduce(x, "bitwise_or"), np.bitwise_or.reduce, bench=False),
    Primitive("reduce_bitwise_xor", ("reduce",), ("int32", "uint32") + INT64, one,
              lambda wp, x: wp.reduce(x, "bitwise_xor"), np.bitwise_xor.reduce, bench=False),
    Primitive("min_atomic", ("min", "method"), ("float32", "int32", "uint32"), one,
              lambda wp, x: wp.min(x, method="atomic"), np.min, bench=False),
    Primitive("max_atomic", ("max", "method"), ("int32", "float32", "uint32"), one,
              lambda wp, x: wp.max(x, method="atomic"), np.max, bench=False),
    Primitive("sum_axis0", ("sum", "axis"), ("float32",), square, lambda wp, x: wp.sum(x, axis=0),
              lambda x: sum_ref(x, 0), lambda g, r, x: close_sum(g, r, x, 0),
              lambda cp, x: cp.sum(x, axis=0), lambda torch, x: torch.sum(x, dim=0),
              notes="square matrix, sum of each column"),
    Primitive("sum_axis1", ("sum", "axis"), ("float32",), square, lambda wp, x: wp.sum(x, axis=1),
              lambda x: sum_ref(x, 1), lambda g, r, x: close_sum(g, r, x, 1),
              lambda cp, x: cp.sum(x, axis=1), lambda torch, x: torch.sum(x, dim=1),
              notes="square matrix, sum of each row"),
    # statistics (docs/statistics.md)
    Primitive("median", ("median",), ("float32", "int32") + WIDE, one, lambda wp, x: wp.median(x), np.median, None,
              lambda cp, x: cp.median(x), lambda torch, x: torch.quantile(x, 0.5) if x.numel() <= 2**24 else None,
              notes="two order statistics by selection, no sort"),
    Primitive("quantile", ("quantile",), ("float32", "float64"), one,
              lambda wp, x: wp.quantile(x, [0.1, 0.5, 0.9]), lambda x: np.quantile(x, [0.1, 0.5, 0.9]), bench=False),
    Primitive("percentile", ("percentile",), ("float32", "int64"), one,
              lambda wp, x: wp.percentile(x, 25, method="nearest"), lambda x: np.percentile(x, 25, method="nearest"),
              bench=False),
    Primitive("nanmedian", ("nanmedian",), ("float32", "float64"), with_nans,
              lambda wp, x: wp.nanmedian(x), np.nanmedian, bench=False),
    Primitive("nanmin", ("nanmin",), ("float32", "float64"), with_nans, lambda wp, x: wp.nanmin(x), np.nanmin,
              bench=False),
    Primitive("nanmax", ("nanmax",), ("float32", "float64"), with_nans, lambda wp, x: wp.nanmax(x), np.nanmax,
              bench=False),
    Primitive("nanargmin", ("nanargmin",), ("float32", "float64"), with_nans, lambda wp, x: wp.nanargmin(x),
              np.nanargmin, bench=False),
    Primitive("nanargmax", ("nanargmax",), ("float32", "float64"), with_nans, lambda wp, x: wp.nanargmax(x),
              np.nanargmax, bench=False),
    Primitive("any", ("any",), ("float32", "int32", "uint64"), mostly_zero, lambda wp, x: wp.any(x), np.any,
              bench=False),
    Primitive("all", ("all",), ("float32", "int32", "uint64"), one, lambda wp, x: wp.all(x), np.all, bench=False),
    Primitive("count_nonzero", ("count_nonzero",), ("float32", "int32", "int64"), mostly_zero,
              lambda wp, x: wp.count_nonzero(x), np.count_nonzero, bench=False),
    Primitive("cumulative_prod", ("cumulative_prod",), ("int32", "int64"), odd,
              lambda wp, x: wp.cumulative_prod(x), np.cumulative_prod, bench=False,
              notes="array API; int32 multiplies in int64 as numpy, wrapping"),
    # scans
    Primitive("cumsum", ("cumsum",), ALL_DTYPES + INT64, one, lambda wp, x: wp.cumsum(x), cumsum_ref, close_cumsum,
              lambda cp, x: cp.cumsum(x), lambda torch, x: torch.cumsum(x, 0), bytes=lambda n, s: 2 * n * s,
              notes="torch/CuPy cumsum of int32 produce int64"),
    Primitive("cumulative_sum", ("cumulative_sum",), ("int32", "int64", "uint32", "float32"), one,
              lambda wp, x: wp.cumulative_sum(x), cumulative_sum_ref, close_cumsum,
              lambda cp, x: cp.cumsum(x), lambda torch, x: torch.cumsum(x, 0), bench=False,
              notes="array API; int32 and uint32 sum in int64 and uint64 as numpy"),
    Primitive("cumulative_sum_initial", ("cumulative_sum", "include_initial"), ("int32", "int64", "uint64"), one,
              lambda wp, x: wp.cumulative_sum(x, include_initial=True),
              lambda x: cumulative_sum_ref(x, include_initial=True), bench=False,
              notes="include_initial=True: 0 first, n + 1 values"),
    Primitive("cumsum_single_pass", ("scan", "method"), ("float32", "uint32"), one,
              lambda wp, x: wp.scan(x, "sum", method="single-pass"), cumsum_ref,
              lambda g, r, x: close_cumsum(g, r, x, method="single-pass"),
              lambda cp, x: cp.cumsum(x), lambda torch, x: torch.cumsum(x, 0), bytes=lambda n, s: 2 * n * s,
              notes="scan(x, 'sum', method='single-pass')"),
    Primitive("scan_max_exclusive", ("scan",), ALL_DTYPES + WIDE, one, lambda wp, x: wp.scan(x, "max", exclusive=True),
              scan_max_exclusive, bench=False),
    Primitive("segment_reduce", ("segment_reduce",), ("float32", "uint32"), segmented,
              lambda wp, x, off: wp.segment_reduce(x, off, "sum"), segment_sum_ref, close_segment_sum,
              notes=f"random segments of mean length {SEGMENT_MEAN}, sum of each"),
    Primitive("segment_scan", ("segment_scan",), ("uint32",), segmented,
              lambda wp, x, off: wp.segment_scan(x, off, "sum"), segment_cumsum_ref, bytes=lambda n, s: 2 * n * s,
              notes=f"random segments of mean length {SEGMENT_MEAN}, inclusive sum"),
    # sorts
    Primitive("sort", ("sort",), ("uint32", "int32", "float32", "uint64", "int64", "float64"), one,
              lambda wp, x: wp.sort(x), np.sort, None,
              lambda cp, x: cp.sort(x), lambda torch, x: torch.sort(x)[0], bytes=_SORT_BYTES,
              notes="64-bit keys: two chained 32-bit sorts (docs/sort.md)"),
    Primitive("sort_descending", ("sort",), ("uint32", "int32", "float32"), one,
              lambda wp, x: wp.sort(x, descending=True), lambda x: np.sort(x)[::-1], bench=False),
    Primitive("argsort", ("argsort",), ("uint32", "int32", "float32", "float64", "int64", "uint64"), one,
              lambda wp, x: wp.argsort(x),
              lambda x: np.argsort(x, kind="stable"), None,
              lambda cp, x: cp.argsort(x), lambda torch, x: torch.argsort(x, stable=True),
              bytes=lambda n, s: n * s + n * 4),
    Primitive("argsort_ties", ("argsort",), ("uint32", "int32", "float32"), few_distinct, lambda wp, x: wp.argsort(x),
              lambda x: np.argsort(x, kind="stable"), bench=False, notes="1000 distinct keys: stability shows"),
    Primitive("sort_pairs", ("sort_pairs",), ("uint32", "int64", "float64"),
              lambda rng, n, dt: (values(rng, n, dt), np.arange(n, dtype=np.uint32)),
              lambda wp, k, v: wp.sort_pairs(k, v), stable_pairs, None,
              lambda cp, k, v: _cupy_pairs(cp, k, v), lambda torch, k, v: torch.sort(k, stable=True),
              bytes=lambda n, s: 4 * n * s,
              notes="CuPy: argsort (stable), then gather both; torch: stable sort with indices"),
    Primitive("lexsort", ("lexsort",), ("int64", "float32", "float64", "uint32"), two_keys,
              lambda wp, a, b: wp.lexsort((a, b)), lambda a, b: np.lexsort((a, b)), None,
              lambda cp, a, b: cp.lexsort(cp.stack((a, b))), None, bytes=lambda n, s: 2 * n * s + n * 4,
              notes="2 keys, the primary one with n/16 distinct values; one chain of 32-bit sorts over "
                    "their words; torch has no lexsort"),
    Primitive("bitonic_sort", ("sort", "method"), ("float32", "uint32"), one, lambda wp, x: wp.sort(x, method="bitonic"),
              np.sort, None, lambda cp, x: cp.sort(x), lambda torch, x: torch.sort(x)[0],
              bytes=_SORT_BYTES, max_n=2**24),
    Primitive("sort_rows_of_64", ("sort", "axis"), ("float32",), matrix(cols=64), lambda wp, x: wp.sort(x, axis=-1),
              lambda x: np.sort(x, axis=-1), None, lambda cp, x: cp.sort(x, axis=-1),
              lambda torch, x: torch.sort(x, dim=-1)[0], bytes=_SORT_BYTES, notes="(n/64, 64), axis=-1"),
    Primitive("sort_64_rows", ("sort", "axis"), ("float32",), matrix(rows=64), lambda wp, x: wp.sort(x, axis=-1),
              lambda x: np.sort(x, axis=-1), None, lambda cp, x: cp.sort(x, axis=-1),
              lambda torch, x: torch.sort(x, dim=-1)[0], bytes=_SORT_BYTES, notes="(64, n/64), axis=-1"),
    Primitive("segment_sort", ("segment_sort",), ("uint32",), segmented,
              lambda wp, k, off: wp.segment_sort(k, off), segment_sort_ref, None,
              None, lambda torch, k64: torch.sort(k64)[0], ref_inputs=torch_segment_keys, bytes=_SORT_BYTES,
              notes=f"random segments of mean length {SEGMENT_MEAN}; torch sorts one int64 key = segment << 32 | key"),
    Primitive("topk", ("topk",), ("float32", "float64", "int64", "uint64"), one, lambda wp, x: wp.topk(x, 100),
              topk_ref(100), same_topk, None, lambda torch, x: torch.topk(x, 100), min_n=100,
              notes="k = 100, largest first"),
    Primitive("top_k", ("top_k",), ("float32",), one, lambda wp, x: wp.top_k(x, 100), topk_ref(100), same_topk,
              min_n=100, bench=False, notes="the array API's name: top_k(x, k, /, *, axis=None, mode='largest')"),
    Primitive("partition", ("partition",), ("float32", "uint32", "int64", "float64"), one,
              lambda wp, x: wp.partition(x, x.size // 2), lambda x: np.partition(x, x.size // 2),
              lambda g, r, x: same_partition(x.size // 2)(g, r, x), lambda cp, x: cp.partition(x, x.size // 2),
              bytes=_SORT_BYTES, notes="kth = n/2; the k-th key by radix select, then one stable split"),
    Primitive("argpartition", ("argpartition",), ("float32",), one, lambda wp, x: wp.argpartition(x, x.size // 2),
              lambda x: np.argpartition(x, x.size // 2), same_argpartition, bench=False),
    Primitive("kth_smallest", ("kth_smallest",), ("float32", "int64"), one,
              lambda wp, x: wp.kth_smallest(x, x.size // 2), kth_ref, None, None,
              lambda torch, x: torch.kthvalue(x, x.numel() // 2 + 1), notes="k = n/2; torch.kthvalue (1-based k)"),
    Primitive("topk_rows", ("topk", "axis"), ("float32",), matrix(cols=256), lambda wp, x: wp.topk(x, 16, axis=-1),
              topk_ref(16), same_topk, None, lambda torch, x: torch.topk(x, 16, dim=-1),
              notes="(n/256, 256), k = 16 per row"),
    # histograms
    Primitive("histogram", ("histogram",), ("float32",), one, _hist, _np_hist, same_counts, _cp_hist, _torch_hist,
              notes=f"{BINS} bins over [-4, 4)"),
    Primitive("histogram_skewed", ("histogram",), ("float32",), lambda rng, n, dt: (np.full(n, 0.5, dt),),
              _hist, _np_hist, same_counts, _cp_hist, _torch_hist, demo=False,
              notes="every element in one bin: worst case for atomics"),
    Primitive("histogram_auto_range", ("histogram",), ("float32",), one, lambda wp, x: wp.histogram(x, bins=100)[0],
              lambda x: np.histogram(x, bins=100)[0], same_counts, bench=False),
    Primitive("histogram_weighted", ("histogram",), ("float32",),
              lambda rng, n, dt: (values(rng, n, dt), rng.random(n).astype(np.float32)),
              lambda wp, x, w: wp.histogram(x, bins=64, range=(-4, 4), weights=w)[0],
              lambda x, w: np.histogram(x, bins=64, range=(-4, 4), weights=w.astype(np.float64))[0],
              lambda g, r, x, w: bool(np.all(np.abs(np.asarray(g) - r) <= 1e-5 * np.maximum(r, 1.0))), bench=False),
    Primitive("histogram_float64", ("histogram",), ("float64",), one, _hist, _np_hist, same_counts, _cp_hist,
              _torch_hist,
              notes=f"{BINS} bins over [-4, 4): the bins by searching the edges as float64"),
    Primitive("histogram_int64", ("histogram",), ("int64", "uint64"),
              lambda rng, n, dt: (rng.integers(0, 2000, n).astype(dt),),
              lambda wp, x: wp.histogram(x, bins=100, range=(0, 2000))[0],
              lambda x: np.histogram(x, bins=100, range=(0, 2000))[0], same_counts, bench=False),
    Primitive("bincount", ("bincount",), ("int32", "int64"), lambda rng, n, dt: (rng.integers(0, 1000, n).astype(dt),),
              lambda wp, x: wp.bincount(x), np.bincount, same_counts, bench=False),
    # searches
    Primitive("searchsorted", ("searchsorted",), ("float32", "uint32", "int32", "float64", "int64", "uint64"),
              search_inputs(), _searchsorted, lambda v, a: np.searchsorted(a, v), same_counts,
              lambda cp, v, a: cp.searchsorted(a, v), lambda torch, v, a: torch.searchsorted(a, v),
              bytes=_SEARCH_BYTES, notes="n random queries into n sorted values"),
    Primitive("searchsorted_sorted", ("searchsorted",), ("float32", "int64"), search_inputs("sorted"), _searchsorted,
              lambda v, a: np.searchsorted(a, v), same_counts,
              lambda cp, v, a: cp.searchsorted(a, v), lambda torch, v, a: torch.searchsorted(a, v),
              bytes=_SEARCH_BYTES, notes="n sorted queries into n sorted values"),
    Primitive("searchsorted_few", ("searchsorted", "side"), ("float32", "uint64"), search_inputs(table=1000),
              lambda wp, v, a: wp.searchsorted(a, v, side="right"), lambda v, a: np.searchsorted(a, v, side="right"),
              same_counts, lambda cp, v, a: cp.searchsorted(a, v, side="right"),
              lambda torch, v, a: torch.searchsorted(a, v, right=True), bytes=_SEARCH_BYTES,
              notes="n queries into 1000 sorted values (the table in workgroup memory), side='right'"),
    # selection
    Primitive("compact", ("compact",), ("float32", "float64"), with_mask, lambda wp, x, m: wp.compact(x, m),
              lambda x, m: x[m], None, lambda cp, x, m: x[m], lambda torch, x, m: x[m], bytes=_COMPACT_BYTES,
              notes="x[mask], half selected (float64: gathered from the kept positions)"),
    Primitive("compact_unordered", ("compact",), ("float32",), with_mask,
              lambda wp, x, m: wp.compact(x, m, ordered=False), lambda x, m: x[m], same_set,
              lambda cp, x, m: x[m], lambda torch, x, m: x[m], bytes=_COMPACT_BYTES,
              notes="append-buffer form; same set, any order"),
    Primitive("compact_single_pass", ("compact", "method"), ("float32",), with_mask,
              lambda wp, x, m: wp.compact(x, m, method="single-pass"), lambda x, m: x[m],
              None, lambda cp, x, m: x[m], lambda torch, x, m: x[m], bytes=_COMPACT_BYTES,
              notes="compact(x, mask, method='single-pass')"),
    Primitive("nonzero", ("nonzero",), ("bool",), lambda rng, n, dt: (rng.random(n) < 0.3,),
              lambda wp, m: wp.nonzero(m), np.flatnonzero, same_counts, bench=False),
    Primitive("unique", ("unique",), ("uint32", "int32", "float32", "int64"), quarter_distinct,
              lambda wp, x: wp.unique(x), np.unique, None, lambda cp, x: cp.unique(x),
              lambda torch, x: torch.unique(x, sorted=True), bytes=_SORT_BYTES,
              notes="n/4 distinct values (int64: the bitmap of 64-bit keys)"),
    Primitive("unique_counts", ("unique",), ("uint32",), few_distinct, lambda wp, x: wp.unique(x, return_counts=True),
              lambda x: np.unique(x, return_counts=True), lambda g, r, *a: exact(tuple(np.asarray(v) for v in g),
                                                                               (r[0], r[1].astype(np.uint32))),
              bench=False),
    Primitive("run_length_encode", ("run_length_encode",), ("int32", "float64"), runs,
              lambda wp, x: wp.run_length_encode(x), rle, bench=False),
    Primitive("unique_values", ("unique_values",), ("float32",), few_distinct, lambda wp, x: wp.unique_values(x),
              lambda x: np.sort(np.unique_values(x)), bench=False, notes="the array API's names"),
    Primitive("array_api_unique_counts", ("unique_counts",), ("int32",), few_distinct,
              lambda wp, x: tuple(wp.unique_counts(x)), lambda x: tuple(np.unique_counts(x)), same_unique_all,
              bench=False),
    Primitive("unique_inverse", ("unique_inverse",), ("uint32",), few_distinct,
              lambda wp, x: tuple(wp.unique_inverse(x)), lambda x: tuple(np.unique_inverse(x)), same_unique_all,
              bench=False),
    Primitive("unique_all", ("unique_all",), ("float32",), few_distinct, lambda wp, x: tuple(wp.unique_all(x)),
              lambda x: tuple(np.unique_all(x)), same_unique_all, bench=False),
]

BY_NAME: dict[str, Primitive] = {p.name: p for p in ENTRIES}
assert len(BY_NAME) == len(ENTRIES), "entry names must be unique"

# What benchmarks/run_h200.sh measures: (entry, dtype, n). `sum` comes first because the
# protocol check (`--repeat-first`) measures the first row again at the end; rows that
# share an input generator, dtype and size follow each other (the bench makes it once).
TARGETS: list[tuple[str, str, int]] = [
    ("sum", "float32", 2**28), ("cumsum", "float32", 2**28), ("cumsum_single_pass", "float32", 2**28),
    ("sum", "int64", 2**28), ("cumsum", "int64", 2**28),
    ("histogram", "float32", 2**28), ("topk", "float32", 2**28),
    ("cumsum", "uint32", 2**28), ("cumsum_single_pass", "uint32", 2**28),
    ("sort", "uint32", 2**28), ("argsort", "uint32", 2**28),
    ("sort", "uint32", 2**26), ("argsort", "uint32", 2**26),
    ("sort", "float32", 2**26), ("sort", "int32", 2**26),
    ("sort", "int64", 2**26), ("sort", "uint64", 2**26), ("sort", "float64", 2**26),
    ("argsort", "float64", 2**26), ("lexsort", "int64", 2**26),
    ("compact", "float32", 2**28), ("compact_single_pass", "float32", 2**28),
    ("sort_pairs", "uint32", 2**26), ("sort_pairs", "uint32", 2**28),
    ("unique", "uint32", 2**26), ("unique", "int64", 2**26),
    ("searchsorted", "float32", 2**24),
    ("sum_axis0", "float32", 2**28), ("sum_axis1", "float32", 2**28),
    ("sort_rows_of_64", "float32", 2**26), ("sort_64_rows", "float32", 2**26),
    ("segment_sort", "uint32", 2**26),
    ("topk_rows", "float32", 2**28),
    ("partition", "float32", 2**28),
]
for _name, _dtype, _n in TARGETS:
    assert _dtype in BY_NAME[_name].dtypes, (_name, _dtype)


def entries(for_what: str | None = None) -> list[Primitive]:
    """Every entry, or those shown by `demo` or measured by `bench`."""
    return [p for p in ENTRIES if for_what is None or getattr(p, for_what)]
