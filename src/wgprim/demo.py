"""Run every primitive on random data on the default adapter and check it against numpy.

Prints a table (primitive, n, dtype, GPU ms, numpy ms, ok): one row per entry of
wgprim.registry and dtype. GPU ms is the sum of the GPU timestamps of every dispatch of
one call (wall-clock time of the call and its readback, marked *, where the adapter has
no timestamp queries). Entries whose function this wgprim lacks are listed as skipped.
Exits 1 if any result is wrong.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from wgprim.bench.cli import non_negative_int, parse_size


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--size", type=parse_size, default=None,
                        help="elements per input (default: 2^20 on a CPU adapter, 2^24 on a GPU)")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--only", default=None,
                        help="run only primitives whose name contains this (names: see wgprim.registry)")


def _host(result):
    if isinstance(result, tuple):
        return tuple(_host(r) for r in result)
    return result.numpy()


def _run_case(p, dtype: str, n: int, rng, timestamps: bool) -> tuple[float, float, bool]:
    import wgprim
    from wgprim.profiling import profile

    inputs = p.make(rng, n, np.dtype(dtype))
    on_gpu = tuple(wgprim.asarray(a) for a in inputs)
    _host(p.call(wgprim, *on_gpu))  # warm-up: builds the pipelines
    start = time.perf_counter()
    with profile() as steps:
        got = _host(p.call(wgprim, *on_gpu))
    wall_ms = (time.perf_counter() - start) * 1e3
    from wgprim.bench.timing import profile_scale

    gpu_ms = sum(s.ms for s in steps) * profile_scale(wgprim.get_device()) if timestamps else wall_ms
    start = time.perf_counter()
    ref = p.numpy(*inputs)
    numpy_ms = (time.perf_counter() - start) * 1e3
    from wgprim.registry import exact

    same = p.same or exact
    return gpu_ms, numpy_ms, bool(same(got, ref, *inputs))


def _progress(text: str) -> None:
    # A line rewritten in place on a terminal; nothing in a log or a pipe.
    if sys.stderr.isatty():
        print(f"\r{text}".ljust(61)[:61], end="", file=sys.stderr, flush=True)


def run(args) -> int:
    from wgprim.device import get_device
    from wgprim.errors import NoAdapterError
    from wgprim.registry import entries

    shown = entries("demo")
    todo = [p for p in shown if not args.only or args.only in p.name]
    if not todo:
        print(f"wgprim demo: error: --only {args.only!r} matches no primitive "
              f"(choose from {', '.join(p.name for p in shown)})", file=sys.stderr)
        return 2
    try:
        dev = get_device()
    except NoAdapterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    cpu = "cpu" in str(dev.adapter.info.get("adapter_type", "")).lower()
    n = args.size or (2**20 if cpu else 2**24)
    if 4 * n > dev.max_buffer_bytes:
        print(f"wgprim demo: error: -n {n}: {n} elements of 4 bytes need {4 * n} bytes; the largest buffer of "
              f"{dev.summary} holds {dev.max_buffer_bytes}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    print(f"wgprim demo on {dev.summary}, n = {n:,}")
    star = "" if dev.has_timestamps else "*"
    header = f"{'primitive':<24} {'n':>11} {'dtype':<8} {'GPU ms' + star:>9} {'numpy ms':>9}  ok"
    rows, failures, skipped, count = [header, "-" * len(header)], 0, [], 0
    for i, p in enumerate(todo, 1):
        reason = p.missing() or (f"needs n >= {p.min_n}" if n < p.min_n else None)
        if reason:
            skipped.append(f"{p.name} ({reason})")
            continue
        for dtype in p.dtypes:
            _progress(f"[{i}/{len(todo)}] {p.name} {dtype} ...")
            count += 1
            try:
                gpu_ms, numpy_ms, ok = _run_case(p, dtype, n, rng, dev.has_timestamps)
            except Exception as error:  # a crash is a failure of that row, not of the demo
                rows.append(f"{p.name:<24} {n:>11,} {dtype:<8} {'-':>9} {'-':>9}  ERROR {type(error).__name__}: {error}")
                failures += 1
                continue
            failures += not ok
            rows.append(f"{p.name:<24} {n:>11,} {dtype:<8} {gpu_ms:>9.3f} {numpy_ms:>9.3f}  {'ok' if ok else 'WRONG'}")
    if sys.stderr.isatty():
        print("\r" + " " * 61 + "\r", end="", file=sys.stderr, flush=True)
    print("\n".join(rows))
    if not dev.has_timestamps:
        print("* no timestamp queries on this adapter: wall-clock time of the call and its readback")
    if skipped:
        print(f"skipped, not in this wgprim: {', '.join(skipped)}")
    print(f"{count - failures} of {count} ok" if failures else f"all {count} ok")
    return 1 if failures else 0
