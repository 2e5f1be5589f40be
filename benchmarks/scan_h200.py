"""Single-pass scan and compaction against today's reduce-then-scan, a copy kernel, and
torch / CuPy, in one process (run from the repository root on a machine with CUDA):

    python3 benchmarks/scan_h200.py --out DIR [--sizes 20,24,28] [--rounds 7] [--variants ...]
                                   [--compact-variants ...] [--fault-variants ...]

A variant is `rts` (reduce-then-scan), `default` (what scan() runs), or a name made of
parts: r<rows> (vec4s per invocation of the striped layout: tiles of 1024 * rows
elements), k<states per look-back lane>, spin<budget>, blocked (the blocked layout),
nolb (no look-back: wrong results, not checked; what the kernel costs without it), loops
(the kernel's `// unroll` loops compiled as written). E.g. r8-k1, r4-loops. Compaction variants: `3phase`, `default`, or k<states per lane>,
each with `-words` for the tiles written one invocation per 4 elements (SelectPolicy.emit).

benchmarks/scan-h200-2026-12-01-confirm.json came from
    --variants rts,default,nolb,r4-w1-s4-pf,r4-w1-s4-if,r8-w1-s4,r8-nolb,r16-nolb,r4-spin0,r4-spin16
    --compact-variants 3phase,default,k1-pre,k4-pre,k4-late,nolb
and benchmarks/scan-h200-2026-12-01-variants.json from a version of this script that
also had look-back variants since removed (they lost, docs/scan.md): w<subgroups reading
one window>, s<state words per tile: 2 or 4>, pf (the first window read while the tile's
loads are in flight), if (inclusive words first), and for compaction pre / late (values
loaded before / after the look-back).
(benchmarks/scan-h200-2026-12-01.json came from an earlier version of this script with
--variants rts,striped4,striped4-k1,striped4-k8,striped8,striped8-k8,striped8-k2,blocked,
striped4-spin0,striped4-spin16: stripedR = rR-k4, -kK its states per lane.)

1. Correctness of every variant at every size (u32 exact against numpy's wrapping cumsum,
   f32 within the documented bound against a float64 cumsum), every operator and dtype at
   an awkward size, and the forced-fallback modes (spin budget 0, tiles that publish
   nothing, late, or only their aggregate) on this GPU's real concurrency.
2. Timing: wgprim by GPU timestamps around every dispatch of the call (the state reset
   included), torch / CuPy by CUDA events, interleaved round by round after a warm-up;
   medians over rounds. GB/s counts bytes read + written once (2 * n * 4 for a scan).

Prints a table and writes DIR/scan_h200.json.
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import wgprim  # noqa: E402
from wgprim.array import empty  # noqa: E402
from wgprim.ops import chained_scan as cs  # noqa: E402
from wgprim.ops import compaction, select  # noqa: E402
from wgprim.ops.scan import ScanRecorder, cumsum_error_bound  # noqa: E402
from wgprim.bench.timing import profile_scale  # noqa: E402
from wgprim.pipelines import get_pipeline
from wgprim.program import Program  # noqa: E402
from wgprim.tuning import using  # noqa: E402


CHECK_SHRINK = 1  # --check-shrink: smaller check sizes for a dry run on a CPU adapter


def log(*a):
    print(*a, flush=True)


# -- wgprim programs recorded once -------------------------------------------------------
def parse_variant(name: str) -> dict:
    """Recorder options of a variant name (see the module docstring); {} for `default`."""
    if name in ("default", "3phase", "rts"):
        return {}
    opts = {}
    for part in name.split("-"):
        if part == "nolb":  # measurement only: no look-back (wrong results, not checked)
            opts["fault"] = cs.Fault("no-lookback")
        elif part == "loops":  # measurement only: the kernel's loops not unrolled (unroll.py)
            opts["unroll"] = False
        elif part == "blocked":
            opts["layout"] = "blocked"
        elif part == "words":  # compaction: each invocation writes its own kept elements
            opts["emit"] = "words"
        elif part in ("3phase", "default"):
            pass
        elif part.startswith("spin"):
            opts["spin_budget"] = int(part[4:])
        elif part[0] == "r":
            opts["rows"] = int(part[1:])
        elif part[0] == "k":
            opts["per_lane"] = int(part[1:])
        else:
            raise ValueError(f"variant part {part!r} of {name!r}")
    return opts


def scan_program(dev, x, out, variant):
    p = Program(dev, "bench scan", transient=False)
    if variant == "rts":
        ScanRecorder(dev, x.dtype, "sum").record(p, x, out, False)
    else:
        cs.ChainedRecorder(dev, x.dtype, "sum", **parse_variant(variant)).record(p, x, out, False)
    return p


def copy_program(dev, src, dst):
    vecs = src.size // 4
    groups = -(-vecs // 1024)
    pipe = get_pipeline(dev, "copy", "", "copy", {"WG": 256})
    p = Program(dev, "copy", transient=False)
    p.dispatch("copy", pipe, {0: p.params(vecs, groups), 1: src.buffer, 2: dst.buffer}, groups)
    return p


class Compaction:
    """A recorded compaction (single-pass or today's three phases) and its result."""

    def __init__(self, x, m, variant):
        opts = parse_variant(variant)
        with using(select.SelectPolicy, emit=opts.pop("emit", None)):  # how tiles are written
            self.p = Program(m.device, label="compact", transient=False)
            if variant.startswith("3phase"):
                recorder = select.CompactRecorder(m.device, x.dtype, True)
                self.outs = [wgprim.empty((c.count,), x.dtype) for c in recorder.parts(m.size)]
                self.totals = wgprim.empty((len(self.outs),), np.uint32)
                recorder.record(self.p, x, m, self.outs, self.totals)
            else:
                self.outs = [wgprim.empty((c.count,), x.dtype) for c in compaction.parts(m.device, m.size)]
                self.totals = wgprim.empty((len(self.outs),), np.uint32)
                compaction.record_compact(self.p, x, m, self.outs, self.totals, **opts)

    def result(self, dt):
        return select._gather_outputs(self.outs, self.totals.numpy(), dt).numpy()


def gpu_ms(program) -> float:
    steps = program.run(profile=True)
    return float(sum(s.ms for s in steps)) * profile_scale(program.device)


def step_ms(program) -> list:
    return [(s.label, round(s.ms * profile_scale(program.device), 4)) for s in program.run(profile=True)]


def warm_gpu(programs, ms: float) -> None:
    """Run `programs` over and over for `ms` of wall time (clocks up before timing)."""
    end = time.time() + ms / 1000
    while time.time() < end:
        for p in programs:
            p.run()
        gpu_ms(programs[0])  # waits for the GPU


# -- checks ------------------------------------------------------------------------------
_REFS: dict = {}


def check_cumsum(got: np.ndarray, x: np.ndarray, method: str) -> tuple[bool, str]:
    """u32/i32 exactly against numpy's wrapping cumsum, f32 within the documented bound of
    `method` against a float64 cumsum (references cached per input)."""
    sp = "single-pass" if method != "rts" else "reduce-then-scan"
    key = (id(x), x.size, x.dtype.str, sp)
    if key not in _REFS:
        if len(_REFS) > 4:
            _REFS.clear()
        if x.dtype.kind == "f":
            _REFS[key] = (np.cumsum(x.astype(np.float64)),
                          cumsum_error_bound(np.cumsum(np.abs(x.astype(np.float64))), x.dtype, sp), x)
        else:
            _REFS[key] = (np.cumsum(x, dtype=x.dtype), None, x)  # x kept: its id stays its own
    ref, bound, _ = _REFS[key]
    if bound is not None:
        err = np.abs(got.astype(np.float64) - ref)
        ok = bool(np.all(err <= bound))
        return ok, f"max err/bound {float(np.max(err / np.maximum(bound, 1e-300))):.3g}"
    ok = bool(np.array_equal(got, ref))
    return ok, "exact" if ok else f"{int(np.sum(got != ref))} wrong"


UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
         "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def operator_checks(rng, results, variant="default"):
    """Every operator and dtype, inclusive and exclusive, both layouts, default spin and
    spin 0, at an awkward size, with the look-back and tile of `variant`."""
    vopts = {k: v for k, v in parse_variant(variant).items() if k not in ("layout", "spin_budget", "fault")}
    n = (1 << 22) // CHECK_SHRINK + 77
    last = wgprim.Monoid("select(a, b, b != 0u)", identity=0)
    for dt in (np.uint32, np.int32, np.float32):
        for op in UFUNC:
            if dt == np.float32 and op.startswith("bitwise"):
                continue
            if op == "prod":
                x = (rng.integers(0, 50, n) == 0).astype(dt) + 1 if dt != np.float32 else \
                    rng.uniform(0.9999, 1.0001, n).astype(dt)
            elif op.startswith("bitwise"):
                x = rng.integers(0, 2**31, n).astype(dt) | (rng.integers(0, 2, n).astype(dt) << 3)
            else:
                x = (rng.standard_normal(n) * 100).astype(dt) if dt == np.float32 else \
                    rng.integers(-1000 if dt == np.int32 else 0, 1000, n).astype(dt)
            for layout in ("striped", "blocked"):
                for spin in (cs.SPIN_BUDGET, 0):
                    for exclusive in (False, True):
                        opts = {k: v for k, v in vopts.items() if layout == "striped" or k != "rows"}
                        got, stats = cs.chained_scan(x, op, exclusive, layout=layout, spin_budget=spin, stats=True,
                                                     **opts)
                        got = got.numpy()
                        ref = UFUNC[op].accumulate(x, dtype=x.dtype)
                        if exclusive:
                            from wgprim.ops.operators import identity_value
                            ref = np.concatenate([[identity_value(op, np.dtype(dt))], ref[:-1]]).astype(dt)
                        if dt == np.float32 and op in ("sum", "prod"):
                            if op == "sum":
                                r64 = np.cumsum(x.astype(np.float64))
                                b = cumsum_error_bound(np.cumsum(np.abs(x.astype(np.float64))), dt, "single-pass")
                                if exclusive:
                                    r64, b = np.concatenate([[0.0], r64[:-1]]), np.concatenate([[0.0], b[:-1]])
                                ok = bool(np.all(np.abs(got - r64) <= b))
                            else:
                                r64 = np.cumprod(x.astype(np.float64))
                                if exclusive:
                                    r64 = np.concatenate([[1.0], r64[:-1]])
                                ok = bool(np.all(np.abs(got - r64) <= (200 + np.arange(n)) * 1.2e-7 * np.abs(r64)))
                        else:
                            ok = bool(np.array_equal(got, ref))
                        results.append({"check": "operator", "variant": variant, "dtype": np.dtype(dt).name, "op": op, "layout": layout,
                                        "spin": spin, "exclusive": exclusive, "n": n, "ok": ok, **stats})
                        if not ok:
                            log("FAIL operator", dt, op, layout, spin, exclusive)
    x = rng.integers(0, 3, n).astype(np.uint32) * rng.integers(0, 2, n).astype(np.uint32)
    idx = np.where(x != 0, np.arange(n), 0)
    ref = x[np.maximum.accumulate(idx)]
    ref[: np.argmax(x != 0)] = 0
    for layout in ("striped", "blocked"):
        opts = {k: v for k, v in vopts.items() if layout == "striped" or k != "rows"}
        got, stats = cs.chained_scan(x, last, layout=layout, spin_budget=0, stats=True, **opts)
        ok = bool(np.array_equal(got.numpy(), ref))
        results.append({"check": "monoid last-nonzero", "variant": variant, "layout": layout, "n": n, "ok": ok, **stats})


def fault_checks(rng, results, variants, deadline):
    """The forced-fallback modes at sizes of millions on this GPU's concurrency, for each
    of `variants` (scan and compaction), until `deadline` (time.time())."""
    faults = [None, cs.Fault("silent", 7, 3), cs.Fault("late", 5, 0, 20000), cs.Fault("aggregate-only", 3, 1),
              cs.Fault("silent", 1, 0)]
    for n in ((1 << 24) // CHECK_SHRINK + 123, 3_000_017 // CHECK_SHRINK):
        xs = {np.uint32: rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
              np.float32: rng.standard_normal(n).astype(np.float32)}
        m = rng.random(n) < 0.5
        for v in variants:
            opts = parse_variant(v)
            for fault in faults:
                if time.time() > deadline:
                    results.append({"check": "fault", "variant": v, "ok": True, "note": "skipped: out of time"})
                    return
                if fault is not None and fault.every == 1 and n > 4_000_000:
                    continue  # every tile silent: quadratic for floats
                for dt, x in xs.items():
                    got, stats = cs.chained_scan(x, spin_budget=0, fault=fault, stats=True, **opts)
                    ok, note = check_cumsum(got.numpy(), x, "sp")
                    results.append({"check": "fault", "variant": v, "fault": None if fault is None else fault.mode,
                                    "every": None if fault is None else fault.every, "dtype": np.dtype(dt).name,
                                    "n": n, "ok": ok, "note": note, **stats})
                    if not ok:
                        log("FAIL fault", v, fault, dt, n, note)
                if fault is not None and fault.every == 1:
                    continue
                lb = {"per_lane": opts["per_lane"]} if "per_lane" in opts else {}
                x = xs[np.float32]
                got, stats = compaction.compact_single_pass(x, m, spin_budget=0, fault=fault, **lb)
                ok = bool(np.array_equal(got.numpy(), x[m]))
                got2, _ = compaction.compact_single_pass(None, m, spin_budget=0, fault=fault, **lb)
                ok2 = bool(np.array_equal(got2.numpy(), np.flatnonzero(m)))
                results.append({"check": "compact fault", "variant": v, "fault": None if fault is None else fault.mode,
                                "n": n, "ok": ok and ok2, **stats})
                if not (ok and ok2):
                    log("FAIL compact fault", v, fault, n)


# -- timing ------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument("--sizes", default="20,24,28")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--variants", default="rts,default")
    ap.add_argument("--compact-variants", default="3phase,default")
    ap.add_argument("--fault-variants", default="default", help="variants whose forced-fallback checks run")
    ap.add_argument("--operator-variant", default="default")
    ap.add_argument("--skip-checks", action="store_true")
    ap.add_argument("--check-shrink", type=int, default=1)
    ap.add_argument("--budget-s", type=float, default=240, help="stop the fault checks after this long")
    args = ap.parse_args()
    global CHECK_SHRINK
    CHECK_SHRINK = args.check_shrink
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    dev = wgprim.get_device()
    report = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "adapter": dev.summary
              if hasattr(dev, "summary") else str(dev), "python": platform.python_version(), "argv": sys.argv[1:],
              "checks": [], "timing": {}, "steps": {}, "stats": {}}
    try:
        report["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True).stdout.strip()
    except Exception:
        pass
    log("device:", report.get("gpu"), report["adapter"])
    try:
        import torch
        import cupy as cp
        have_refs = torch.cuda.is_available()
    except ImportError:  # a dry run without CUDA: wgprim only
        have_refs = False

    rng = np.random.default_rng(0)

    chosen = [v for v in args.variants.split(",") if v]
    compact_chosen = [v for v in args.compact_variants.split(",") if v]
    for v in chosen + compact_chosen:
        parse_variant(v)  # a misspelt name fails before any work

    # correctness of each variant at each size, and the programs to time
    sizes = [1 << int(s) for s in args.sizes.split(",")]
    progs, refs_t = {}, {}
    for n in sizes:
        for dtn in ("float32", "uint32"):
            dt = np.dtype(dtn)
            x = rng.standard_normal(n).astype(dt) if dt.kind == "f" else \
                rng.integers(0, 2**32, n, dtype=np.uint64).astype(dt)
            gx = wgprim.asarray(x)
            out = empty((n,), dt)
            for v in chosen:
                try:
                    p = scan_program(dev, gx, out, v)
                    p.run()
                    ok, note = (True, "not checked: measurement only") if "nolb" in v else \
                        check_cumsum(out.numpy(), x, v)
                except Exception as e:  # a variant that does not build is reported, not fatal
                    ok, note, p = False, f"error: {e}", None
                    traceback.print_exc()
                report["checks"].append({"check": "cumsum", "variant": v, "dtype": dtn, "n": n, "ok": ok, "note": note})
                log(f"check cumsum {v:18s} {dtn} 2^{n.bit_length() - 1}: {ok} {note}")
                if p is not None and ok:
                    progs[(v, dtn, n)] = p
            tx = torch.from_numpy(x.view(np.int32) if dt.kind == "u" else x).cuda() if have_refs else None
            cx = cp.asarray(x) if have_refs else None
            refs_t[(dtn, n)] = (tx, cx, gx, out)
        _REFS.clear()
        # compaction, half selected, f32
        x = rng.standard_normal(n).astype(np.float32)
        m = rng.random(n) < 0.5
        gx, gm = wgprim.asarray(x), wgprim.asarray(m)
        for v in compact_chosen:
            try:
                c = Compaction(gx, gm, v)
                c.p.run()
                ok = "nolb" in v or bool(np.array_equal(c.result(np.dtype(np.float32)), x[m]))
            except Exception as e:
                ok, c = False, None
                traceback.print_exc()
            report["checks"].append({"check": "compact", "variant": v, "n": n, "ok": ok})
            log(f"check compact {v:18s} 2^{n.bit_length() - 1}: {ok}")
            if ok:
                progs[("compact " + v, "float32", n)] = c.p
        progs[("copy", "float32", n)] = copy_program(dev, refs_t[("float32", n)][2], refs_t[("float32", n)][3])
        if have_refs:
            refs_t[("compact", n)] = (torch.from_numpy(x).cuda(), torch.from_numpy(m).cuda(), cp.asarray(x), cp.asarray(m))
    log(f"[{time.time() - t0:.0f}s] timing")

    warm_gpu([p for k, p in progs.items() if k[2] == max(sizes)], 2000)
    samples: dict = {}

    def ev(call):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        call()
        torch.cuda.synchronize()
        s.record()
        call()
        e.record()
        e.synchronize()
        return s.elapsed_time(e)

    for r in range(args.rounds):
        for n in sizes:
            for key, p in progs.items():
                if key[2] == n:
                    samples.setdefault(key, []).append(gpu_ms(p))
            if not have_refs:
                continue
            for dtn in ("float32", "uint32"):
                tx, cx, _, _ = refs_t[(dtn, n)]
                samples.setdefault(("torch.cumsum", dtn, n), []).append(ev(lambda: torch.cumsum(tx, 0)))
                samples.setdefault(("cupy.cumsum", dtn, n), []).append(ev(lambda: cp.cumsum(cx)))
            tx, tm, cx, cm = refs_t[("compact", n)]
            samples.setdefault(("torch x[mask]", "float32", n), []).append(ev(lambda: tx[tm]))
            samples.setdefault(("cupy x[mask]", "float32", n), []).append(ev(lambda: cx[cm]))
    for key, vals in samples.items():
        report["timing"]["|".join(map(str, key))] = {"median_ms": float(np.median(vals)), "samples": vals}
    for key, p in progs.items():
        if key[2] == max(sizes):
            report["steps"]["|".join(map(str, key))] = step_ms(p)
    log(f"[{time.time() - t0:.0f}s] stats")

    # look-back statistics at the largest size, on this GPU's real concurrency
    n = max(sizes)
    for dtn in ("float32", "uint32"):
        for v in chosen:
            if v == "rts" or "nolb" in v:
                continue
            _, st = cs.chained_scan(refs_t[(dtn, n)][2], stats=True, **parse_variant(v))
            tiles = -(-n // cs.ChainedRecorder(dev, np.dtype(dtn), "sum", **parse_variant(v)).tile)
            st["tiles"] = tiles
            st["windows_per_tile"] = round(st["rounds"] / tiles, 3)
            report["stats"][f"{v}|{dtn}|{n}"] = st
    log(f"[{time.time() - t0:.0f}s] table")

    # table
    def med(key):
        t = report["timing"].get("|".join(map(str, key)))
        return t["median_ms"] if t else float("nan")

    lines = ["| variant | dtype | n | ms | GB/s | % of copy |", "|---|---|---:|---:|---:|---:|"]
    for n in sizes:
        copy = med(("copy", "float32", n))
        for key in sorted(k for k in samples if k[2] == n):
            ms = med(key)
            is_compact = "compact" in key[0] or "mask" in key[0]
            moved = n * 4 + n + n * 2 if is_compact else 2 * n * 4
            gbps = moved / (ms * 1e6)
            lines.append(f"| {key[0]} | {key[1]} | 2^{n.bit_length() - 1} | {ms:.4f} | {gbps:.0f} | "
                         f"{100 * copy / ms if not is_compact else float('nan'):.0f} |")
    table = "\n".join(lines)
    log(table)
    report["table"] = table
    for k, st in report["stats"].items():
        log("stats", k, st)
    (out_dir / "scan_h200.json").write_text(json.dumps(report, indent=1))  # kept if the checks run out of time

    if not args.skip_checks:
        log(f"[{time.time() - t0:.0f}s] fault and operator checks")
        try:
            fault_checks(rng, report["checks"], [v for v in args.fault_variants.split(",") if v],
                         t0 + args.budget_s)
            if time.time() < t0 + args.budget_s:
                operator_checks(rng, report["checks"], args.operator_variant)
            else:
                report["checks"].append({"check": "operator", "ok": True, "note": "skipped: out of time"})
        except Exception:
            report["checks"].append({"check": "crash", "ok": False, "note": traceback.format_exc()})
            traceback.print_exc()
    bad = [c for c in report["checks"] if not c.get("ok")]
    report["all_ok"] = not bad
    log(f"checks: {len(report['checks'])}, failed: {len(bad)}")
    for c in bad:
        log("  FAILED", c)
    (out_dir / "scan_h200.json").write_text(json.dumps(report, indent=1))
    log(f"[{time.time() - t0:.0f}s] done")


if __name__ == "__main__":
    main()
