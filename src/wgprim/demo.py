"""Run every primitive on random data on the default adapter and check it against numpy.

Prints a table (primitive, n, dtype, GPU ms, numpy ms, ok). GPU ms is the sum of the GPU
timestamps of every dispatch of one call (wall-clock time of the call and its readback,
marked *, where the adapter has no timestamp queries). Exits 1 if any result is wrong.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--size", type=int, default=None,
                        help="elements per input (default: 2^20 on a CPU adapter, 2^24 on a GPU)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default=None, help="run only primitives whose name contains this")


@dataclass
class Case:
    name: str
    dtype: str
    make: Callable  # (rng, n) -> tuple of numpy inputs
    gpu: Callable  # (*inputs) -> Array or tuple of Arrays
    ref: Callable  # (*inputs) -> numpy result (or tuple)
    same: Callable = None  # (gpu_numpy, ref, *inputs) -> bool; default exact equality


def _exact(got, ref, *inputs) -> bool:
    if isinstance(ref, tuple):
        return all(_exact(g, r) for g, r in zip(got, ref))
    return np.array_equal(np.asarray(got), np.asarray(ref), equal_nan=np.asarray(ref).dtype.kind == "f")


def _close_sum(got, ref, x) -> bool:
    from wgprim.ops.reduce import sum_error_bound

    return abs(float(got) - float(ref)) <= sum_error_bound(x.size, np.abs(x.astype(np.float64)).sum())


def _close_prod(got, ref, x) -> bool:
    from wgprim.ops.reduce import prod_error_bound

    return abs(float(got) - float(ref)) <= prod_error_bound(x.size) * abs(float(ref))


def _close_cumsum(got, ref, x) -> bool:
    from wgprim.ops.scan import cumsum_error_bound

    bound = cumsum_error_bound(np.cumsum(np.abs(x.astype(np.float64))))
    return bool(np.all(np.abs(got.astype(np.float64) - ref) <= bound))


def _values(dtype: str):
    def make(rng, n):
        if dtype == "float32":
            return (rng.standard_normal(n).astype(np.float32),)
        if dtype == "int32":
            return (rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32),)
        return (rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),)
    return make


def _odd(dtype: str):
    # Odd factors: a product of random integers is 0 modulo 2^32 after ~64 of them.
    def make(rng, n):
        return (_values(dtype)(rng, n)[0] | np.array(1, dtype),)
    return make


def _near_one(rng, n):
    return (rng.uniform(0.9999, 1.0001, n).astype(np.float32),)


def cases() -> list[Case]:
    import wgprim

    out: list[Case] = []
    for dt in ("float32", "int32", "uint32"):
        cast = np.dtype(dt)
        if dt == "float32":
            out.append(Case("sum", dt, _values(dt), wgprim.sum, lambda x: x.astype(np.float64).sum(), _close_sum))
            out.append(Case("prod", dt, _near_one, wgprim.prod, lambda x: x.astype(np.float64).prod(), _close_prod))
        else:
            out.append(Case("sum", dt, _values(dt), wgprim.sum, lambda x, c=cast: x.sum(dtype=c)))
            out.append(Case("prod", dt, _odd(dt), wgprim.prod, lambda x, c=cast: x.prod(dtype=c)))
        out.append(Case("min", dt, _values(dt), wgprim.min, np.min))
        out.append(Case("max", dt, _values(dt), wgprim.max, np.max))
        out.append(Case("argmin", dt, _values(dt), wgprim.argmin, np.argmin))
        out.append(Case("argmax", dt, _values(dt), wgprim.argmax, np.argmax))
        if dt != "float32":
            for op, uf in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)):
                out.append(Case(f"reduce {op}", dt, _values(dt), lambda x, o=op: wgprim.reduce(x, o), uf.reduce))
        if dt == "float32":
            out.append(Case("cumsum", dt, _values(dt), wgprim.cumsum, lambda x: np.cumsum(x.astype(np.float64)), _close_cumsum))
        else:
            out.append(Case("cumsum", dt, _values(dt), wgprim.cumsum, lambda x, c=cast: np.cumsum(x, dtype=c)))
        out.append(Case("scan max exclusive", dt, _values(dt),
                        lambda x: wgprim.scan(x, "max", exclusive=True),
                        lambda x: np.concatenate([[np.float32(-np.inf) if x.dtype.kind == "f" else np.iinfo(x.dtype).min],
                                                  np.maximum.accumulate(x)[:-1]]).astype(x.dtype)))
    for dt in ("uint32", "int32", "float32"):
        out.append(Case("sort", dt, _values(dt), wgprim.sort, np.sort))
        out.append(Case("sort descending", dt, _values(dt), lambda x: wgprim.sort(x, descending=True),
                        lambda x: np.sort(x)[::-1]))
        out.append(Case("argsort (stable)", dt, _few_distinct(dt), wgprim.argsort, lambda x: np.argsort(x, kind="stable")))
    out.append(Case("sort_pairs", "uint32", lambda rng, n: (_few_distinct("uint32")(rng, n)[0], np.arange(n, dtype=np.uint32)),
                    wgprim.sort_pairs, lambda k, v: (np.sort(k, kind="stable"), v[np.argsort(k, kind="stable")])))
    out.append(Case("sort bitonic", "float32", _values("float32"), lambda x: wgprim.sort(x, method="bitonic"), np.sort))
    out.append(Case("min (atomic)", "float32", _values("float32"), lambda x: wgprim.min(x, method="atomic"), np.min))
    out.append(Case("max (atomic)", "int32", _values("int32"), lambda x: wgprim.max(x, method="atomic"), np.max))
    out.append(Case("histogram 256 bins", "float32", _values("float32"),
                    lambda x: wgprim.histogram(x, bins=256, range=(-4, 4))[0],
                    lambda x: np.histogram(x, bins=256, range=(-4, 4))[0], _same_counts))
    out.append(Case("histogram range=None", "float32", _values("float32"),
                    lambda x: wgprim.histogram(x, bins=100)[0], lambda x: np.histogram(x, bins=100)[0], _same_counts))
    out.append(Case("histogram weighted", "float32", lambda rng, n: (_values("float32")(rng, n)[0], rng.random(n).astype(np.float32)),
                    lambda x, w: wgprim.histogram(x, bins=64, range=(-4, 4), weights=w)[0],
                    lambda x, w: np.histogram(x, bins=64, range=(-4, 4), weights=w.astype(np.float64))[0],
                    lambda g, r, x, w: bool(np.all(np.abs(g - r) <= 1e-5 * np.maximum(r, 1.0)))))
    out.append(Case("bincount", "int32", lambda rng, n: (rng.integers(0, 1000, n).astype(np.int32),),
                    wgprim.bincount, np.bincount, _same_counts))
    out.append(Case("compact x[mask]", "float32", _masked, wgprim.compact, lambda x, m: x[m]))
    out.append(Case("compact unordered", "float32", _masked, lambda x, m: wgprim.compact(x, m, ordered=False),
                    lambda x, m: x[m], lambda g, r, *a: np.array_equal(np.sort(g), np.sort(r))))
    out.append(Case("nonzero", "bool", lambda rng, n: (rng.random(n) < 0.3,), wgprim.nonzero, np.flatnonzero))
    out.append(Case("unique (counts)", "uint32", _few_distinct("uint32"), lambda x: wgprim.unique(x, return_counts=True),
                    lambda x: np.unique(x, return_counts=True),
                    lambda g, r, x: all(np.array_equal(a, b) for a, b in zip(g, r))))
    out.append(Case("run_length_encode", "int32", lambda rng, n: (np.repeat(rng.integers(0, 5, n // 4 + 1), 4)[:n].astype(np.int32),),
                    wgprim.run_length_encode, _rle))
    return out


def _masked(rng, n):
    return _values("float32")(rng, n)[0], rng.random(n) < 0.5


def _same_counts(got, ref, *inputs) -> bool:
    return np.array_equal(np.asarray(got).astype(np.int64), np.asarray(ref).astype(np.int64))


def _rle(x):
    starts = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]])) if x.size else np.zeros(0, np.int64)
    return x[starts], np.diff(np.concatenate([starts, [x.size]])).astype(np.uint32)


def _few_distinct(dtype: str):
    # Many equal keys: stability shows in argsort and sort_pairs.
    def make(rng, n):
        return (rng.integers(0, 1000, n).astype(dtype),)
    return make


def _to_numpy(result):
    if isinstance(result, tuple):
        return tuple(_to_numpy(r) for r in result)
    return result.numpy()


def _run_case(case: Case, n: int, rng, timestamps: bool) -> tuple[float, float, bool]:
    import wgprim
    from wgprim.program import profile

    inputs = case.make(rng, n)
    on_gpu = tuple(wgprim.asarray(a) for a in inputs)
    _to_numpy(case.gpu(*on_gpu))  # warm-up: builds the pipelines
    start = time.perf_counter()
    with profile() as steps:
        result = case.gpu(*on_gpu)
        got = _to_numpy(result)
    wall_ms = (time.perf_counter() - start) * 1e3
    gpu_ms = sum(s.ms for s in steps) if timestamps else wall_ms
    start = time.perf_counter()
    ref = case.ref(*inputs)
    numpy_ms = (time.perf_counter() - start) * 1e3
    same = case.same or _exact
    return gpu_ms, numpy_ms, bool(same(got, ref, *inputs))


def run(args) -> int:
    from wgprim.device import get_device
    from wgprim.errors import NoAdapterError

    try:
        dev = get_device()
    except NoAdapterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    cpu = "cpu" in str(dev.adapter.info.get("adapter_type", "")).lower()
    n = args.size or (2**20 if cpu else 2**24)
    rng = np.random.default_rng(args.seed)
    todo = [c for c in cases() if not args.only or args.only in c.name]
    print(f"wgprim demo on {dev.summary}, n = {n:,}")
    star = "" if dev.has_timestamps else "*"
    header = f"{'primitive':<24} {'n':>11} {'dtype':<8} {'GPU ms' + star:>9} {'numpy ms':>9}  ok"
    rows, failures = [header, "-" * len(header)], 0
    for i, case in enumerate(todo, 1):
        print(f"\r[{i}/{len(todo)}] {case.name} {case.dtype} ...".ljust(60), end="", file=sys.stderr, flush=True)
        try:
            gpu_ms, numpy_ms, ok = _run_case(case, n, rng, dev.has_timestamps)
        except Exception as error:  # a crash is a failure of that row, not of the demo
            rows.append(f"{case.name:<24} {n:>11,} {case.dtype:<8} {'-':>9} {'-':>9}  ERROR {error}")
            failures += 1
            continue
        failures += not ok
        rows.append(f"{case.name:<24} {n:>11,} {case.dtype:<8} {gpu_ms:>9.3f} {numpy_ms:>9.3f}  {'ok' if ok else 'WRONG'}")
    print("\r".ljust(61) + "\r", end="", file=sys.stderr)
    print("\n".join(rows))
    if not dev.has_timestamps:
        print("* no timestamp queries on this adapter: wall-clock time of the call and its readback")
    print(f"{len(todo) - failures} of {len(todo)} ok" if failures else f"all {len(todo)} ok")
    return 1 if failures else 0
