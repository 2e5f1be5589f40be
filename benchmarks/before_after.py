"""Two versions of wgprim measured in one run: wall time of the same one-shot calls, each
version in its own process, processes alternating A, B, A, B (so drift hits both alike).

    python3 benchmarks/before_after.py --a OLD/src --b NEW/src [--rounds 2] [--json out.json]

Each process: inputs uploaded once, then per case a warm-up of the case itself (~1 s) right
before timing, then 3 batches of `runs` calls back to back (results kept on the GPU), each
batch ended by a 4-byte read that waits for the GPU; a case's time is the fastest batch's
wall time per call. Wall time, not GPU timestamps: the two versions' profiling differs,
and per-call timestamps with a wait after each call let the GPU idle (and slow down)
between calls; for these sizes the GPU work dominates each call, and both versions pay
the same host costs. The report gives per case the median over rounds for A and B and B/A.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CASES = [  # (name, n, dtype), grouped by input
    ("sum", 2**28, "float32"),
    ("min", 2**28, "float32"),
    ("cumsum", 2**28, "float32"),
    ("histogram", 2**28, "float32"),
    ("compact", 2**28, "float32"),
    ("cumsum", 2**28, "uint32"),
    ("sort", 2**26, "uint32"),
    ("argsort", 2**26, "uint32"),
]

CHILD = r"""
import json, sys, time
import numpy as np
import wgprim

cases, runs = json.loads(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
out, inputs = {}, {}
for name, n, dtype in cases:
    if (n, dtype) not in inputs:  # one input per size and dtype, shared by its cases
        inputs.clear()
        if dtype == "float32":
            host = rng.standard_normal(n, dtype=np.float32)
        else:
            host = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        inputs[(n, dtype)] = (host, wgprim.asarray(host))
    host, x = inputs[(n, dtype)]
    if name == "compact":
        mask = wgprim.asarray(host > 0)
        call = lambda: wgprim.compact(x, mask)
    elif name == "histogram":
        call = lambda: wgprim.histogram(x, bins=256, range=(-4.0, 4.0))
    else:
        fn = getattr(wgprim, name)
        call = lambda: fn(x)
    def sync(r):
        r = r[0] if isinstance(r, tuple) else r
        wgprim.get_device().device.queue.read_buffer(r.buffer, 0, 4)

    end = time.perf_counter() + 1.0
    while time.perf_counter() < end:
        sync(call())
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(runs):
            r = call()
        sync(r)
        times.append((time.perf_counter() - t0) * 1e3 / runs)
    out[f"{name} {dtype} {n}"] = float(min(times))
print("RESULT " + json.dumps(out))
"""


def measure(src: str, runs: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(CASES), str(runs)], env=env,
                          capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{src}: {proc.stderr[-2000:]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="src folder of version A (before)")
    ap.add_argument("--b", required=True, help="src folder of version B (after)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json")
    args = ap.parse_args()
    rounds = {"a": [], "b": []}
    for _ in range(args.rounds):
        for side in ("a", "b"):
            rounds[side].append(measure(getattr(args, side), args.runs))
    import statistics

    report = {}
    print(f"{'case':32s} {'A ms':>9s} {'B ms':>9s} {'B/A':>6s}")
    for key in rounds["a"][0]:
        a = statistics.median(r[key] for r in rounds["a"])
        b = statistics.median(r[key] for r in rounds["b"])
        report[key] = {"a_ms": a, "b_ms": b, "ratio": b / a, "a_rounds": [r[key] for r in rounds["a"]],
                       "b_rounds": [r[key] for r in rounds["b"]]}
        print(f"{key:32s} {a:9.4f} {b:9.4f} {b / a:6.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"a": args.a, "b": args.b, "cases": report}, f, indent=1)


if __name__ == "__main__":
    main()
