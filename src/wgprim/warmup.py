"""Pay the first calls' compile time up front: `wgprim.warmup()` and `wgprim warmup`.

The first call of a primitive compiles its kernels (WGSL to the driver's code, one pipeline
per kernel variant); later calls reuse them for the life of the process. A service that must
answer its first request quickly calls `warmup()` at start. It runs each primitive of
wgprim.registry once on small random inputs of each size and dtype asked for and reads the
result back, so every pipeline those calls use is compiled and kept.

Schedules depend on the size (a sort past one tile's reach, a scan past one workgroup's) and
on the dtype, so warm the sizes and dtypes the service will see: a pipeline that no warm-up
call used is compiled on its first real call, as it would be without a warm-up.

wgpu-native (wgpu 0.32) has no pipeline cache that outlives the process (its header names
a PipelineCache feature and no call that makes one), so each process compiles again.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Warmed:
    """One primitive warmed at one size and dtype: how long its first call and the same
    call again took (seconds, wall clock, with the result read back)."""

    name: str
    dtype: str
    n: int
    first_s: float
    again_s: float

    @property
    def compile_s(self) -> float:
        """What the first call cost beyond a warm one: mostly compiling its pipelines."""
        return max(self.first_s - self.again_s, 0.0)


def _names(names) -> list:
    from wgprim.registry import entries

    shown = [p for p in entries("demo") if not p.missing()]
    if names is None:
        return shown
    if isinstance(names, str):
        names = [names]
    by_name = {p.name: p for p in shown}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"no primitive named {', '.join(map(repr, unknown))} "
                         f"(choose from {', '.join(sorted(by_name))})")
    return [by_name[n] for n in names]


def _sizes(sizes) -> list[int]:
    sizes = [sizes] if isinstance(sizes, (int, np.integer)) else list(sizes)
    for n in sizes:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"sizes must be positive integers, not {n!r}")
    return [int(n) for n in sizes]


def _read(result) -> None:
    for r in result if isinstance(result, tuple) else (result,):
        r.numpy()


def _timed(p, wgprim, inputs) -> float:
    start = time.perf_counter()
    _read(p.call(wgprim, *inputs))
    return time.perf_counter() - start


def warmup(names=None, *, dtypes=None, sizes=(4096,), seed: int = 0) -> list[Warmed]:
    """Compile the pipelines of wgprim's primitives now, on the current device.

    names: primitive names as `wgprim demo` lists them (e.g. "sum", "cumsum", "argsort");
    default: every primitive. dtypes: dtype names or numpy dtypes to warm (those a primitive
    does not take are passed over); default: each primitive's own list. sizes: element
    counts, one call per size (default 4096). Returns one `Warmed` per call made, with the
    first call's time and the same call's again; raises ValueError for an unknown name.
    """
    import wgprim

    has_f16 = wgprim.get_device().has_f16
    todo = _names(names)
    if isinstance(dtypes, (str, type, np.dtype)):
        dtypes = [dtypes]
    wanted = None if dtypes is None else {np.dtype(d).name for d in dtypes}
    counts = _sizes(sizes)
    rng = np.random.default_rng(seed)
    done = []
    for p in todo:
        for dtype in p.dtypes:
            if wanted is not None and np.dtype(dtype).name not in wanted:
                continue
            if np.dtype(dtype) == np.float16 and not has_f16:
                continue
            for n in counts:
                if not p.min_n <= n <= p.max_n:
                    continue
                inputs = tuple(wgprim.asarray(a) for a in p.make(rng, n, np.dtype(dtype)))
                first = _timed(p, wgprim, inputs)
                again = _timed(p, wgprim, inputs)
                done.append(Warmed(p.name, np.dtype(dtype).name, n, first, again))
    return done


def configure(parser: argparse.ArgumentParser) -> None:
    from wgprim.bench.cli import parse_size

    parser.add_argument("names", nargs="*", help="primitives to warm (default: all; names as `wgprim demo` lists them)")
    parser.add_argument("--dtype", action="append", default=None, help="warm only this dtype (repeatable)")
    parser.add_argument("-n", "--size", action="append", type=parse_size, default=None,
                        help="elements per call (repeatable; default 4096)")


def run(args) -> int:
    from wgprim.device import get_device
    from wgprim.errors import NoAdapterError

    try:
        start = time.perf_counter()
        dev = get_device()
        opened = time.perf_counter() - start
    except NoAdapterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        done = warmup(args.names or None, dtypes=args.dtype, sizes=args.size or (4096,))
    except ValueError as error:
        print(f"wgprim warmup: error: {error}", file=sys.stderr)
        return 2
    print(f"wgprim warmup on {dev.summary}: device opened in {opened:.2f} s")
    header = f"{'primitive':<24} {'dtype':<8} {'n':>11} {'first s':>8} {'again s':>8}"
    print(header)
    print("-" * len(header))
    for w in done:
        print(f"{w.name:<24} {w.dtype:<8} {w.n:>11,} {w.first_s:>8.3f} {w.again_s:>8.3f}")
    total = sum(w.first_s for w in done)
    print(f"{len(done)} calls warmed in {total:.2f} s; "
          f"their pipelines are kept for this process")
    return 0
