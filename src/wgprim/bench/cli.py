"""Benchmark wgprim against numpy, CuPy and PyTorch, timed on the GPU in the same run.

Every row is checked before it is timed; then the GPU is warmed with the row's own work
and wgprim and the references are timed round by round, k runs back to back per round
(GPU timestamps for wgprim, CUDA events for CuPy and PyTorch). Rows report the median
and min over rounds and their spread, and flags for figures that cannot be trusted.
Then what a user feels, every side on the host's clock: the wall time per one-shot call
of 100 calls back to back and one sync (`call_ms`), and of one call and a read of its
first element (`latency_ms`); `--calls-grid` runs the per-call grid (cases.calls_grid).
`blockscan-claim` measures the claim that 8 dispatches instead of one in-workgroup block
scan are "hundreds of times slower". See docs/bench.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys

from wgprim.cli_files import check_output_file, check_plot_file

DEFAULT_SIZES = "2^16,2^20,2^24,2^26"
PROTOCOL_DEFAULTS = {"rounds": 5, "round_ms": 20.0, "warmup_ms": 300.0}
PROTOCOL_TOLERANCE = 0.05  # the first row measured again at the end must agree within this


def parse_size(text: str) -> int:
    """An element count for the command line: 1000000 or 2^20 (positive, at most the
    elements one wgprim array may hold)."""
    from wgprim.ops.common import MAX_ELEMENTS

    text = text.strip()
    try:
        if "^" in text:
            base, exp = text.split("^")
            if abs(int(exp)) > 64:  # never computed: 2^1000000000 would take forever
                raise argparse.ArgumentTypeError(f"size {text!r} is above the limit of {MAX_ELEMENTS} elements "
                                                 "(u32 indices)")
            value = int(base) ** int(exp)
        else:
            value = int(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 2^20 or 1000000)") from None
    if not isinstance(value, int):  # a negative exponent
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 2^20 or 1000000)")
    if value < 1:
        raise argparse.ArgumentTypeError(f"sizes must be positive, not {text!r}")
    if value > MAX_ELEMENTS:
        raise argparse.ArgumentTypeError(f"size {text!r} is above the limit of {MAX_ELEMENTS} elements "
                                         "(wgprim indexes arrays with u32)")
    return value


def non_negative_int(text: str) -> int:
    """A seed for the command line (numpy's generators take integers >= 0)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _sizes(text: str) -> list[int]:
    sizes = [parse_size(s) for s in text.split(",") if s.strip()]
    if not sizes:
        raise argparse.ArgumentTypeError("no sizes given")
    return sizes


def _dtypes(text: str) -> list[str]:
    from wgprim.registry import ENTRIES

    known = sorted({d for p in ENTRIES for d in p.dtypes})
    chosen = [d.strip() for d in text.split(",") if d.strip()]
    bad = [d for d in chosen if d not in known]
    if bad or not chosen:
        raise argparse.ArgumentTypeError(f"invalid dtype {', '.join(bad) or repr(text)} (choose from {', '.join(known)})")
    return chosen


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if not value > 0 or value == float("inf"):  # nan and inf too
            raise argparse.ArgumentTypeError(f"must be a positive finite number, not {text}")
        return value
    return parse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("primitives", nargs="*", metavar="PRIMITIVE",
                        help="registry entries to measure (default: all); 'blockscan-claim' for the block-scan experiment")
    parser.add_argument("--targets", action="store_true",
                        help="measure the target rows (wgprim.registry.TARGETS: entry, dtype and size each)")
    parser.add_argument("--calls-grid", action="store_true",
                        help="measure the per-call grid: sum cumsum sort argsort compact unique histogram topk at "
                             "2^10,2^16,2^20,2^24,2^28, with a lighter GPU-time protocol (3 rounds of ~10 ms, "
                             "200 ms warm-up) unless given")
    parser.add_argument("--sizes", type=_sizes, default=None,
                        help=f"comma-separated, e.g. 2^16,2^28 or 1000000 (default {DEFAULT_SIZES}; with --targets: "
                             "instead of each target's size, for a quick run of the same rows; with --calls-grid: "
                             "instead of the grid's sizes)")
    parser.add_argument("--min-size", type=parse_size, default=1,
                        help="leave out rows of fewer elements (e.g. --targets --min-size 2^28)")
    parser.add_argument("--dtype", type=_dtypes, default=None, help="comma-separated dtypes (default: each entry's first)")
    parser.add_argument("--compare", default="numpy,cupy,torch", help="references: numpy,cupy,torch")
    parser.add_argument("--repeat", "--rounds", dest="rounds", type=_positive(int), default=None,
                        help="timed rounds per row, each wgprim then every reference (median, min, spread over them; "
                             "default 5)")
    parser.add_argument("--round-ms", type=_positive(float), default=None,
                        help="GPU time of one side's round: k runs back to back, k chosen to fill it (default 20)")
    parser.add_argument("--warmup-ms", type=_positive(float), default=None,
                        help="least warm-up per row, with the row's own work, right before it is timed (default 300)")
    parser.add_argument("--no-per-call", dest="per_call", action="store_false",
                        help="leave out the per-call figures (call_ms, latency_ms) of every side")
    parser.add_argument("--calls", type=_positive(int), default=100,
                        help="one-shot calls back to back per per-call round (fewer where they would take over "
                             "~1 s, never below 10)")
    parser.add_argument("--repeat-first", action="store_true",
                        help="measure the first row again at the end and report whether the two agree within 5%%")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--json", default=None, metavar="FILE", help="write every row as JSON")
    parser.add_argument("--plot", default=None, metavar="FILE.png", help="throughput plot (needs matplotlib)")


def _progress(i: int, total: int, text: str) -> None:
    """On a terminal, one line rewritten in place; elsewhere (a log, a pipe) nothing."""
    if sys.stderr.isatty():
        width = 30
        done = int(width * i / max(total, 1))
        print(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{total} {text}".ljust(100)[:100], end="",
              file=sys.stderr, flush=True)


def _clear_progress() -> None:
    if sys.stderr.isatty():
        print("\r" + " " * 100 + "\r", end="", file=sys.stderr, flush=True)


def _fmt(ms):
    return "-" if ms is None else f"{ms:.4f}"


def _row_line(r, ref_names) -> str:
    ratios = r.ratios()
    spread = r.wgprim.get("spread")
    line = f"{r.primitive:<19} {r.dtype:<8} {r.n:>11,} {_fmt(r.wgprim_ms):>10} {_fmt(r.wgprim.get('min_ms')):>10} "
    line += f"{'-' if spread is None else f'{100 * spread:.1f}%':>6} "
    line += " ".join(f"{_fmt(r.refs.get(x)):>10}" for x in ref_names)
    line += " " + " ".join(f"{ratios[x]:>8.2f}" if x in ratios else f"{'-':>8}" for x in ref_names if x != "numpy")
    line += f" {(r.gbps or 0):>7.0f} {100 * (r.copy_fraction or 0):>5.0f}% {_fmt(r.end_to_end_ms):>8} "
    line += f"{r.wgprim.get('mode', '-'):>6}  {'ok' if r.ok else 'WRONG ' + r.note}"
    return line


def _jobs(args, parser_error):
    """(entry, n, dtype) rows to measure, entries skipped with why, and whether the claim runs."""
    from wgprim.registry import TARGETS, entries

    by_name = {p.name: p for p in entries()}
    bench_names = [p.name for p in entries("bench")]
    known = list(by_name) + ["blockscan-claim"]
    unknown = [w for w in args.primitives if w not in known]
    if unknown:
        parser_error(f"unknown primitive {', '.join(unknown)} (choose from {', '.join(known)})")
    skipped, jobs = {}, []
    if args.targets and args.calls_grid:
        parser_error("--targets and --calls-grid are two row sets: choose one")
    if args.calls_grid:
        from wgprim.bench.cases import CALLS_GRID_PRIMITIVES, CALLS_GRID_SIZES, calls_grid

        outside = [w for w in args.primitives if w not in CALLS_GRID_PRIMITIVES]
        if outside:
            parser_error(f"{', '.join(outside)} not in the per-call grid ({', '.join(CALLS_GRID_PRIMITIVES)})")
        wanted = []
        for p, n in calls_grid(args.primitives or CALLS_GRID_PRIMITIVES, args.sizes or CALLS_GRID_SIZES):
            dtypes = [d for d in args.dtype if d in p.dtypes] if args.dtype else [p.dtypes[0]]
            wanted += [(p, n, d) for d in dtypes if p.min_n <= n <= p.max_n]
        if args.dtype and not wanted:
            parser_error(f"no chosen primitive takes dtype {', '.join(args.dtype)}")
    elif args.targets:
        wanted = []
        for name, dtype, n in TARGETS:
            for size in args.sizes or [n]:
                if (not args.primitives or name in args.primitives) and (by_name[name], size, dtype) not in wanted:
                    wanted.append((by_name[name], size, dtype))
    else:
        args.sizes = args.sizes or _sizes(DEFAULT_SIZES)
        names = [w for w in args.primitives if w != "blockscan-claim"] if args.primitives else bench_names
        wanted = []
        for name in names:
            p = by_name[name]
            dtypes = [d for d in args.dtype if d in p.dtypes] if args.dtype else [p.dtypes[0]]
            if not dtypes:
                skipped[name] = f"takes {', '.join(p.dtypes)}, not {', '.join(args.dtype)}"
            elif not any(p.min_n <= n <= p.max_n for n in args.sizes):
                skipped[name] = f"no size is within its range of n, {p.min_n} to {p.max_n}"
            wanted += [(p, n, d) for d in dtypes for n in args.sizes if p.min_n <= n <= p.max_n]
        if args.dtype and not wanted and args.primitives != ["blockscan-claim"]:
            takes = sorted({d for name in names for d in by_name[name].dtypes})
            parser_error(f"no chosen primitive takes dtype {', '.join(args.dtype)} (they take {', '.join(takes)})")
    for p, n, d in wanted:
        if n < args.min_size:
            continue
        reason = skipped.get(p.name) or p.missing()
        if reason:
            skipped[p.name] = reason
        else:
            jobs.append((p, n, d))
    claim = "blockscan-claim" in args.primitives or not (args.primitives or args.targets or args.calls_grid)
    return jobs, skipped, claim


def run(args) -> int:
    import wgprim
    from wgprim.bench import claim, harness, timing

    def parser_error(message: str):
        raise _ArgumentError(message)

    try:
        for problem in (check_output_file(args.json, "--json"), check_plot_file(args.plot)):
            if problem:
                parser_error(problem)
        jobs, skipped, with_claim = _jobs(args, parser_error)
        if not jobs and not with_claim:
            parser_error("nothing to measure: " + ("; ".join(f"{k}: {v}" for k, v in skipped.items())
                                                   or "no row is at least --min-size"))
        try:
            refs = harness.available_references([r.strip() for r in args.compare.split(",") if r.strip()])
        except ValueError as error:
            parser_error(str(error))
    except _ArgumentError as error:
        print(f"wgprim bench: error: {error}", file=sys.stderr)
        return 2
    from wgprim.bench.cases import CALLS_GRID_PROTOCOL

    light = CALLS_GRID_PROTOCOL if args.calls_grid else {}
    given = {k: getattr(args, k) for k in PROTOCOL_DEFAULTS if getattr(args, k) is not None}
    protocol = harness.Protocol(**{**PROTOCOL_DEFAULTS, **light, **given}, seed=args.seed, per_call=args.per_call,
                                calls=args.calls)
    dev = wgprim.get_device()
    if not dev.has_timestamps:
        print(f"error: {dev.summary} has no timestamp queries, and wgprim bench times the GPU with them "
              "(`wgprim demo` checks every primitive without them)", file=sys.stderr)
        return 1
    period = timing.timestamp_period(dev)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"wgprim bench on {dev.summary}; references: {', '.join(refs) or 'none'}")
    print(f"protocol: per row check, warm >= {protocol.warmup_ms:.0f} ms, then {protocol.rounds} rounds of "
          f"~{protocol.round_ms:.0f} ms per side, interleaved; timestamp period {period} ns")
    if protocol.per_call:
        print(f"per call: {protocol.call_rounds} rounds of up to {protocol.calls} one-shot calls back to back and one "
              f"sync (~{protocol.calls_budget_ms / 1e3:.0f} s at most, at least {protocol.calls_min}), then "
              f"{protocol.latency_runs} of one call and a read of its first element; host wall time, every side")
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}")
    largest = max([4 * n for _p, n, _d in jobs] + [1 << 20])
    copy_gbps = harness.copy_bandwidth(min(largest, 1 << 30), protocol)
    print(f"copy kernel: {copy_gbps:.0f} GB/s (read + write)")
    ref_names = list(refs)
    head = (f"{'primitive':<19} {'dtype':<8} {'n':>11} {'wgprim ms':>10} {'min ms':>10} {'spread':>6} "
            + " ".join(f"{r + ' ms':>10}" for r in ref_names))
    head += " " + " ".join(f"{'x ' + r:>8}" for r in ref_names if r != "numpy")
    head += f" {'GB/s':>7} {'%copy':>6} {'e2e ms':>8} {'timing':>6}  ok"
    print(head)
    print("-" * len(head))
    rows, failures = [], 0

    def save(repeat_first=None, claim_rows=()):
        """The JSON so far: rewritten after every row, so a run cut short keeps its rows."""
        if not args.json:
            return
        from dataclasses import asdict

        with open(args.json, "w") as f:
            json.dump({
                "schema": 3,
                "date": started,
                "wgprim": wgprim.__version__,
                "adapter": dev.summary,
                "timestamp_period_ns": period,
                "protocol": vars(protocol),
                "references": ref_names,
                "copy_gbps": copy_gbps if copy_gbps == copy_gbps else None,
                "rows": [harness.as_dict(r) for r in rows],
                "skipped": [{"primitive": k, "reason": v} for k, v in skipped.items()],
                "repeat_first": repeat_first,
                "blockscan_claim": [dict(asdict(c), gpu_ratio=c.gpu_ratio, wall_ratio=c.wall_ratio) for c in claim_rows],
            }, f, indent=1)

    def one(p, n, d):
        try:
            return harness.measure(p, n, d, refs, protocol, copy_gbps)
        except Exception as error:  # one broken row must not take the others down
            return harness.Row(p.name, n, d, False, None, note=f"error: {type(error).__name__}: {error}")

    for i, (p, n, d) in enumerate(jobs):
        _progress(i, len(jobs), f"{p.name} {d} n={n}")
        row = one(p, n, d)
        failures += not row.ok
        rows.append(row)
        _clear_progress()
        print(_row_line(row, ref_names), flush=True)
        if row.steps and len(row.steps) > 1:
            by_label: dict = {}
            for label, ms in row.steps:
                by_label[label] = by_label.get(label, 0.0) + ms
            print("    steps: " + ", ".join(f"{k} {v:.4f}" for k, v in by_label.items()), flush=True)
        for flag in row.flags:
            print(f"    flag: {flag}", flush=True)
        save()
    repeat_first = None
    if args.repeat_first and rows and rows[0].ok:
        p, n, d = jobs[0]
        again = one(p, n, d)
        first, last = rows[0].wgprim_ms, again.wgprim_ms
        ratio = last / first if first and last else None
        repeat_first = {"primitive": p.name, "dtype": d, "n": n, "first_ms": first, "last_ms": last, "ratio": ratio,
                        "agree": ratio is not None and abs(ratio - 1) <= PROTOCOL_TOLERANCE,
                        "first_refs": rows[0].refs, "last_refs": again.refs}
        verdict = "agree" if repeat_first["agree"] else "DISAGREE"
        print(f"protocol check: {p.name} {d} n={n} measured first {_fmt(first)} ms and last {_fmt(last)} ms "
              f"(ratio {ratio:.3f}): {verdict} within {100 * PROTOCOL_TOLERANCE:.0f}%" if ratio else
              "protocol check: no GPU time")
    claim_rows = []
    if with_claim:
        top = max(max(n for _p, n, _d in jobs) if jobs else max(args.sizes or [1]), 1 << 12)
        claim_sizes = [1 << k for k in range(12, 29, 2) if (1 << k) <= top]
        for i, n in enumerate(claim_sizes):
            _progress(i, len(claim_sizes), f"blockscan-claim n={n}")
            claim_rows.append(claim.measure(n, protocol))
        _clear_progress()
    print("x REF = REF ms / wgprim ms (above 1: wgprim faster). GB/s: least bytes a call moves / GPU time. "
          "timing: submit = k runs in one submit, calls = k calls (it reads back between dispatches).")
    from wgprim.bench.results import CALL_REFS, text_table

    table = text_table([harness.as_dict(r) for r in rows], [k for k in CALL_REFS if k in refs])
    if table:
        print("\nper call (host wall time, ms): call = per call of N one-shot calls back to back, then one sync; "
              "latency = one call, then its first element on the host")
        print("\n".join(table))
        print("x REF = REF call ms / wgprim call ms (above 1: wgprim's call faster). "
              "call/GPU = wgprim call ms / wgprim GPU ms.")
    if claim_rows:
        print("\nblock scan of 256-element segments: one dispatch (barriers inside) vs one dispatch per step (8)")
        print(f"{'n':>11} {'fused GPU ms':>13} {'8-step GPU ms':>14} {'ratio':>7} {'fused wall ms':>14} "
              f"{'8-step wall ms':>15} {'ratio':>7}  ok")
        for c in claim_rows:
            gr = f"{c.gpu_ratio:.1f}" if c.gpu_ratio else "-"
            wr = f"{c.wall_ratio:.1f}" if c.wall_ratio else "-"
            print(f"{c.n:>11,} {_fmt(c.fused_gpu_ms):>13} {_fmt(c.steps_gpu_ms):>14} {gr:>7} {c.fused_wall_ms:>14.4f} "
                  f"{c.steps_wall_ms:>15.4f} {wr:>7}  {'ok' if c.ok else 'WRONG'}"
                  + "".join(f"\n    flag: {f}" for f in c.flags))
    save(repeat_first, claim_rows)
    if args.plot:
        from wgprim.bench.plot import plot

        plot([harness.as_dict(r) for r in rows], args.plot, f"wgprim vs references on {dev.summary}")
    return 1 if failures else 0


class _ArgumentError(Exception):
    pass

