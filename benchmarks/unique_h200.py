"""unique() on a CUDA machine: the bitmap path (ops/unique_dense.py) against the sort path
and torch / CuPy, for key distributions from narrow to wide. Every variant is checked
against numpy first; then GPU times (wgprim: the timestamps of each call's dispatches;
torch / CuPy: CUDA events around one call), interleaved round by round after a warm-up,
medians. Prints a table and writes JSON.

    python3 benchmarks/unique_h200.py --out DIR              # 2^26 keys (H200: ~1-2 minutes)
    python3 benchmarks/unique_h200.py --quick --out DIR      # small, no CuPy/torch needed

wgprim must be importable (PYTHONPATH=src).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time

import numpy as np

import wgprim
from wgprim.array import asarray
from wgprim.bench.timing import CallTimer, CudaTimer, steps_ms
from wgprim.device import get_device
from wgprim.ops.select import SelectPolicy
from wgprim.ops.unique_dense import UniqueDensePolicy
from wgprim.tuning import using


def distributions(n: int, rng) -> dict:
    """name -> uint32 keys."""
    quarter = rng.integers(0, max(n // 4, 1), n).astype(np.uint32)
    heavy = quarter.copy()
    heavy[rng.random(n) < 0.5] = 0
    return {
        "quarter": quarter,                                              # the bench row: n/4 distinct of [0, n/4)
        "all-n": rng.integers(0, n, n).astype(np.uint32),                # [0, n)
        "2^27": rng.integers(0, 2**27, n).astype(np.uint32),             # the widest bitmap
        "heavy": heavy,                                                  # half the keys 0
        "sorted": np.sort(quarter),
        "equal": np.full(n, 7, np.uint32),
        "wide": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),  # sorts
        "2^20": rng.integers(0, 2**20, n).astype(np.uint32),             # counters in L2
        "2^22": rng.integers(0, 2**22, n).astype(np.uint32),             # the widest counters
    }


# the distributions measured with return_counts and return_inverse as well
ALL_KINDS = ("quarter", "wide", "2^20", "2^22")


# dense_mark's grid: workgroups (each fills and flushes its cache once)
MARK_VARIANTS = ["bitmap-g1024", "bitmap-g16384"]
DEFAULT_GROUPS = UniqueDensePolicy().mark_groups
_configured = contextlib.ExitStack()


def configure(path: str) -> None:
    """bitmap[-gN]: the default (N: dense_mark's workgroups); sort: the sort path;
    sort-direct: the sort path with the inverse's scatter not ordered by window first.
    In force until the next configure()."""
    global _configured
    _configured.close()
    _configured = contextlib.ExitStack()
    _configured.enter_context(using(SelectPolicy, inverse_by_windows=path != "sort-direct"))
    _configured.enter_context(using(UniqueDensePolicy, enabled=not path.startswith("sort"),
                                    mark_groups=int(path.split("-g")[1]) if "-g" in path else DEFAULT_GROUPS))


# (name, keyword arguments of unique)
KINDS = [("values", {}), ("counts", {"return_counts": True}), ("inverse", {"return_inverse": True})]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=".")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="", help="comma-separated distributions")
    args = ap.parse_args()
    n = 2**16 if args.quick else 2**26
    dev = get_device()
    rng = np.random.default_rng(0)
    data = distributions(n, rng)
    if args.only:
        data = {k: v for k, v in data.items() if k in args.only.split(",")}
    refs = {}
    if not args.quick:
        import cupy
        import torch

        refs = {"torch": torch, "cupy": cupy}
    report = {"device": dev.name, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "n": n,
              "checks": [], "rows": [], "steps": {}}
    timers = {}
    for dist, host in data.items():
        x = asarray(host)
        kinds = KINDS if dist in ALL_KINDS else KINDS[:1]
        values, inverse, counts = np.unique(host, return_inverse=True, return_counts=True)
        for kind, kw in kinds:
            want = {"values": values, "counts": (values, counts), "inverse": (values, inverse)}[kind]
            paths = ["bitmap", "sort"] + (MARK_VARIANTS if kind == "values" and dist in ("quarter", "heavy") else [])
            paths += ["sort-direct"] if kind == "inverse" and dist in ("quarter", "wide") else []
            for path in paths:
                configure(path)
                got = wgprim.unique(x, **kw)
                got, w = (got, want) if isinstance(want, tuple) else ((got,), (want,))
                ok = all(np.array_equal(g.numpy(), e) for g, e in zip(got, w))
                report["checks"].append({"dist": dist, "kind": kind, "path": path, "ok": ok})
                print(f"check {dist:8s} {kind:8s} {path:7s} {ok}", flush=True)
                name = f"{dist} {kind} {path}"

                def call(x=x, kw=kw, path=path):
                    configure(path)
                    return wgprim.unique(x, **kw)

                timers[name] = CallTimer(dev, call, 3)
            configure("bitmap")
            for lib, mod in refs.items():
                if lib == "cupy" and kind != "values":
                    continue
                # torch: the same bits as int32, as `wgprim bench` gives it (keys below 2^31 here
                # but in "wide", where the order differs and only the time counts)
                t = mod.from_numpy(host.view(np.int32)).cuda() if lib == "torch" else mod.asarray(host)
                if lib == "torch":
                    def ref(t=t, kw=kw, mod=mod):
                        return mod.unique(t, sorted=True, **kw)
                else:
                    def ref(t=t, mod=mod):
                        return mod.unique(t)
                timers[f"{dist} {kind} {lib}"] = CudaTimer(lib, mod, ref, 3)
    for t in timers.values():  # warm-up
        t.run()
    times = {name: [] for name in timers}
    for _ in range(args.rounds):
        for name, t in timers.items():
            times[name].append(t.run().ms)
    for name, t in timers.items():  # where each wgprim call's time goes, warm
        if isinstance(t, CallTimer):
            report["steps"][name] = steps_ms(dev, t.call)
    for name, ms in times.items():
        row = {"name": name, "median_ms": statistics.median(ms), "min_ms": min(ms), "rounds": ms}
        report["rows"].append(row)
        print(f"{name:32s} {row['median_ms']:8.4f} ms  (min {row['min_ms']:.4f})", flush=True)
    for name, steps in report["steps"].items():
        print(name, " ".join(f"{label}={ms:.4f}" for label, ms in steps))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "unique.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
