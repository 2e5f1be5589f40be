"""Benchmark wgprim against numpy, CuPy and PyTorch, timed on the GPU in the same run.

wgprim's time is the sum of the GPU timestamps of every dispatch of one call (median of
--repeat runs after a warm-up); references use CUDA events (numpy: wall clock). Every
result is checked before it is timed. `blockscan-claim` measures the reference text's
claim that 8 dispatches instead of one in-workgroup block scan are "hundreds of times
slower".
"""
from __future__ import annotations

import argparse
import json
import sys


def _size(text: str) -> int:
    text = text.strip()
    if "^" in text:
        base, exp = text.split("^")
        return int(base) ** int(exp)
    return int(text)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("primitives", nargs="*", metavar="PRIMITIVE",
                        help="what to measure (default: all); 'blockscan-claim' for the block-scan experiment")
    parser.add_argument("--sizes", default="2^16,2^20,2^24,2^26", help="comma-separated, e.g. 2^16,2^28 or 1000000")
    parser.add_argument("--dtype", default=None, help="comma-separated dtypes (default: each primitive's first)")
    parser.add_argument("--compare", default="numpy,cupy,torch", help="references: numpy,cupy,torch")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement (median)")
    parser.add_argument("--json", default=None, metavar="FILE", help="write every row as JSON")
    parser.add_argument("--plot", default=None, metavar="FILE.png", help="throughput plot (needs matplotlib)")


def _progress(i: int, total: int, text: str) -> None:
    width = 30
    done = int(width * i / max(total, 1))
    print(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{total} {text}".ljust(100)[:100], end="", file=sys.stderr, flush=True)


def _fmt(ms):
    return "-" if ms is None else f"{ms:.4f}"


def _row_line(r, ref_names) -> str:
    ratios = r.ratios()
    line = f"{r.primitive:<18} {r.dtype:<8} {r.n:>11,} {_fmt(r.wgprim_ms):>10} "
    line += " ".join(f"{_fmt(r.refs.get(x)):>10}" for x in ref_names)
    line += " " + " ".join(f"{ratios[x]:>8.2f}" if x in ratios else f"{'-':>8}" for x in ref_names if x != "numpy")
    line += f" {(r.gbps or 0):>7.0f} {100 * (r.copy_fraction or 0):>5.0f}% {_fmt(r.end_to_end_ms):>8}  {'ok' if r.ok else 'WRONG ' + r.note}"
    return line


def run(args) -> int:
    import numpy as np

    import wgprim
    from wgprim.bench import claim, harness, timing
    from wgprim.bench.cases import primitives

    try:
        sizes = [_size(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        print(f"error: bad --sizes {args.sizes!r}", file=sys.stderr)
        return 2
    if args.repeat < 1 or not sizes or min(sizes) < 1:
        print("error: --repeat and sizes must be positive", file=sys.stderr)
        return 2
    table = primitives()
    wanted = args.primitives or list(table) + ["blockscan-claim"]
    unknown = [w for w in wanted if w not in table and w != "blockscan-claim"]
    if unknown:
        print(f"error: unknown primitive(s) {', '.join(unknown)}; known: {', '.join(table)}, blockscan-claim", file=sys.stderr)
        return 2
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("error: --plot needs matplotlib: pip install 'wgprim[plot]'", file=sys.stderr)
            return 2
    try:
        refs = harness.available_references([r.strip() for r in args.compare.split(",") if r.strip()])
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    dev = wgprim.get_device()
    if not dev.has_timestamps:
        print("note: this adapter has no timestamp queries; wgprim GPU times are unavailable", file=sys.stderr)
    print(f"wgprim bench on {dev.summary}; references: {', '.join(refs) or 'none'}")
    timing.warm_gpu(dev)
    copy_gbps = harness.copy_bandwidth(min(max(sizes) * 4, 1 << 30), args.repeat)
    print(f"copy kernel: {copy_gbps:.0f} GB/s (read + write)")
    rng = np.random.default_rng(0)
    jobs = []
    for name in wanted:
        if name == "blockscan-claim":
            continue
        p = table[name]
        dtypes = args.dtype.split(",") if args.dtype else [p.dtypes[0]]
        jobs += [(p, n, d) for d in dtypes if d in p.dtypes for n in sizes if n <= p.max_n]
    ref_names = list(refs)
    head = f"{'primitive':<18} {'dtype':<8} {'n':>11} {'wgprim ms':>10} " + " ".join(f"{r + ' ms':>10}" for r in ref_names)
    head += " " + " ".join(f"{'x ' + r:>8}" for r in ref_names if r != "numpy") + f" {'GB/s':>7} {'%copy':>6} {'e2e ms':>8}  ok"
    print(head)
    print("-" * len(head))
    rows, failures = [], 0
    for i, (p, n, d) in enumerate(jobs):
        _progress(i, len(jobs), f"{p.name} {d} n={n}")
        try:
            row = harness.measure(p, n, d, refs, args.repeat, copy_gbps, rng)
        except Exception as error:
            row = harness.Row(p.name, n, d, False, None, note=f"error: {type(error).__name__}: {error}")
        failures += not row.ok
        rows.append(row)
        print("\r".ljust(101) + "\r", end="", file=sys.stderr)
        print(_row_line(row, ref_names), flush=True)
        if row.steps and len(row.steps) > 1:
            by_label: dict = {}
            for label, ms in row.steps:
                by_label[label] = by_label.get(label, 0.0) + ms
            print("    steps: " + ", ".join(f"{k} {v:.4f}" for k, v in by_label.items()), flush=True)
    claim_rows = []
    if "blockscan-claim" in wanted:
        claim_sizes = [1 << k for k in range(12, 29, 2) if (1 << k) <= max(max(sizes), 1 << 12)]
        for i, n in enumerate(claim_sizes):
            _progress(i, len(claim_sizes), f"blockscan-claim n={n}")
            claim_rows.append(claim.measure(n, args.repeat))
    print("\r".ljust(101) + "\r", end="", file=sys.stderr)
    print("x REF = REF ms / wgprim ms (above 1: wgprim faster). GB/s: minimum bytes a call moves / GPU time.")
    if claim_rows:
        print("\nblock scan of 256-element segments: one dispatch (barriers inside) vs one dispatch per step (8)")
        print(f"{'n':>11} {'fused GPU ms':>13} {'8-step GPU ms':>14} {'ratio':>7} {'fused e2e ms':>13} {'8-step e2e ms':>14} {'ratio':>7}  ok")
        for c in claim_rows:
            gr = f"{c.gpu_ratio:.1f}" if c.gpu_ratio else "-"
            print(f"{c.n:>11,} {_fmt(c.fused_gpu_ms):>13} {_fmt(c.steps_gpu_ms):>14} {gr:>7} {c.fused_end_to_end_ms:>13.3f} "
                  f"{c.steps_end_to_end_ms:>14.3f} {c.end_to_end_ratio:>7.1f}  {'ok' if c.ok else 'WRONG'}")
    if args.json:
        from dataclasses import asdict

        with open(args.json, "w") as f:
            json.dump({"adapter": dev.summary, "copy_gbps": copy_gbps if copy_gbps == copy_gbps else None, "rows": [harness.as_dict(r) for r in rows],
                       "blockscan_claim": [dict(asdict(c), gpu_ratio=c.gpu_ratio, end_to_end_ratio=c.end_to_end_ratio)
                                           for c in claim_rows]}, f, indent=1)
    if args.plot:
        from wgprim.bench.plot import plot

        plot([harness.as_dict(r) for r in rows], args.plot, f"wgprim vs references on {dev.summary}")
    return 1 if failures else 0
