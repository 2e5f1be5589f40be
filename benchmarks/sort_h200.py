"""Radix sort on a CUDA machine: correctness, then GPU times of wgprim's sorts (one-sweep
and multi-pass, per step from timestamps) against CuPy (CUB) and torch (CUDA events),
interleaved after warm-up, medians. Prints a table and writes JSON.

    python3 benchmarks/sort_h200.py --out DIR            # full run (H200: ~2-3 minutes)
    python3 benchmarks/sort_h200.py --quick --out DIR    # small sizes, no CuPy/torch needed
    python3 benchmarks/sort_h200.py --profile --out DIR  # where a scatter pass spends its
        # time: reshaped passes (PROFILE below), per-dispatch GPU times,
        # interleaved with the copy kernel, CuPy and torch (--quick: small, no references)

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
from wgprim.api.sort import SortPlan, argsort, sort, sort_pairs
from wgprim.ops.sort_policy import SortPolicy
from wgprim.profiling import profile
from wgprim.tuning import using

# The settings' names in this script (and its JSON) -> SortPolicy's fields.
FIELDS = dict(USE_ONESWEEP="onesweep", MATCH_ITEMS="match_items", ONESWEEP_SPIN="spin",
              ONESWEEP_FAULT="silent_every", HIST_TILES="hist_tiles", ONESWEEP_CLAIM="claim_tiles",
              MATCH_WG="match_wg", MATCH_SHUFFLE="shuffle", ONESWEEP_EARLY="onesweep_early",
              OFFSETS_BY_TILE="offsets_by_tile", ONESWEEP_LOOK_AHEAD="look_ahead", SCAN_METHOD="scan_method")
# The variants compared (ranking by subgroup match; items = keys per invocation).
CONFIGS = {
    "multi16": dict(USE_ONESWEEP=False, MATCH_ITEMS=16),
    "multi20": dict(USE_ONESWEEP=False, MATCH_ITEMS=20),
    "multi24": dict(USE_ONESWEEP=False, MATCH_ITEMS=24),
    "one16": dict(USE_ONESWEEP=True, MATCH_ITEMS=16),
    "one24": dict(USE_ONESWEEP=True, MATCH_ITEMS=24),
}


_configured = contextlib.ExitStack()


def configure(**overrides):
    """The SortPolicy with these settings in force from now on (none: the defaults);
    MATCH_RANK="serial" is the item-by-item ranking."""
    global _configured
    _configured.close()
    _configured = contextlib.ExitStack()
    changes = {FIELDS[name]: value for name, value in overrides.items() if name != "MATCH_RANK"}
    if overrides.get("MATCH_RANK") == "serial":
        changes["serial_ranking"] = True
    if changes:
        _configured.enter_context(using(SortPolicy, **changes))


_KEYS = {}


def keys_of(dtype, n, seed=0):
    if (dtype, n, seed) not in _KEYS:
        _KEYS[(dtype, n, seed)] = _make_keys(dtype, n, seed)
    return _KEYS[(dtype, n, seed)]


def _make_keys(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype == "f32":
        return rng.standard_normal(n).astype(np.float32)
    if dtype == "i32":
        return rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


# -- correctness ---------------------------------------------------------------------------
def check_argsort(x, idx, descending=False):
    """idx is a permutation that orders x stably (cheap at 2^26, unlike numpy's argsort)."""
    seen = np.zeros(x.size, bool)
    seen[idx] = True
    k = x[idx].astype(np.float64) if x.dtype != np.float32 else x[idx]
    if descending:
        k = -k
    ties = k[1:] == k[:-1]
    return bool(seen.all() and np.all(k[1:] >= k[:-1]) and np.all(idx[1:][ties] > idx[:-1][ties]))


def correctness(sizes):
    rows = []
    for n in sizes:
        for dt in ("u32", "i32", "f32") if n <= 2**20 else ("u32", "f32"):
            x = keys_of(dt, n, seed=n)
            ok_sort = np.array_equal(sort(x).numpy(), np.sort(x))
            ok_arg = check_argsort(x, argsort(x).numpy())
            vals = np.arange(n, dtype=np.uint32)
            k, v = sort_pairs(x, vals, descending=True)
            ok_pairs = check_argsort(x, v.numpy(), descending=True)
            rows.append(dict(n=n, dtype=dt, sort=ok_sort, argsort=ok_arg, pairs_desc=ok_pairs))
            print(f"correct n=2^{int(np.log2(n))} {dt}: sort {ok_sort} argsort {ok_arg} pairs(desc) {ok_pairs}",
                  flush=True)
    return rows


def forced_fallback(n_all, n_silent, config=None):
    """Exact results when every look-back falls back (spin 0) and when every 3rd tile never
    publishes (its successors count its keys), one-sweep passes under `config`."""
    out = []
    for spin, fault, n in ((0, 0, n_all), (64, 3, n_silent), (0, 5, n_all)):
        configure(**{**(config or {}), "USE_ONESWEEP": True}, ONESWEEP_SPIN=spin, ONESWEEP_FAULT=fault)
        x = keys_of("f32", n, seed=spin + fault)
        ok = np.array_equal(sort(x).numpy(), np.sort(x)) and check_argsort(x, argsort(x).numpy())
        out.append(dict(spin=spin, fault=fault, n=n, ok=bool(ok)))
        print(f"forced fallback spin={spin} fault={fault} n={n}: {ok}", flush=True)
    configure()
    return out


# -- timing --------------------------------------------------------------------------------
class WgCase:
    """A SortPlan built under a configuration; each call returns (GPU ms, per-step times)."""

    def __init__(self, n, dtype, what, **config):
        configure(**config)
        self.x = asarray(keys_of(dtype, n))
        self.v = asarray(np.arange(n, dtype=np.uint32)) if what == "pairs" else None
        self.plan = SortPlan(n, self.x.dtype, what=what)
        self.plan(self.x, self.v)  # records under this configuration
        configure()

    def __call__(self):
        _, steps = self.plan(self.x, self.v, profile=True)
        return sum(s.ms for s in steps), [(s.label, s.ms) for s in steps]


class WgUnique:
    def __init__(self, x, **config):
        self.x, self.config = asarray(x), config

    def __call__(self):
        configure(**self.config)
        with profile() as steps:
            wgprim.unique(self.x)
        configure()
        return sum(s.ms for s in steps), [(s.label, s.ms) for s in steps]


# -- profile: where a scatter pass spends its time ------------------------------------------
# Shapes of the match path compared as a grid: each in both schedules, keys and pairs
# (the one-sweep passes with early counts). name -> settings.
SHAPES = {
    "wg256x16": dict(),
    "wg256x16 direct": dict(MATCH_SHUFFLE=False),
    "wg256x20": dict(MATCH_ITEMS=20),
    "wg256x24": dict(MATCH_ITEMS=24),
    "wg384x16": dict(MATCH_WG=384, MATCH_ITEMS=16),
    "wg512x12": dict(MATCH_WG=512, MATCH_ITEMS=12),
    "wg512x16": dict(MATCH_WG=512, MATCH_ITEMS=16),
}
# name -> (what, config, exact).
PROFILE = {}
for _shape, _config in SHAPES.items():
    for _what in ("keys", "pairs"):
        PROFILE[f"multi {_shape} {_what}"] = (_what, dict(USE_ONESWEEP=False, **_config), True)
        PROFILE[f"one {_shape} {_what}"] = (_what, dict(USE_ONESWEEP=True, ONESWEEP_EARLY=True, **_config), True)
for _ahead in (8, 16, 32):  # state words one look-back round reads per digit (default 4)
    for _what in ("keys", "pairs"):
        PROFILE[f"one wg256x16 ahead{_ahead} {_what}"] = (_what, dict(USE_ONESWEEP=True, ONESWEEP_EARLY=True,
                                                                     ONESWEEP_LOOK_AHEAD=_ahead), True)
# The previous ranking (each item's shuffle before the next item's atomic: MATCH_RANK
# "serial"), against the default in the same shapes.
for _what in ("keys", "pairs"):
    for _shape in ("wg256x16", "wg256x20"):
        for _k in ("multi", "one"):
            PROFILE[f"{_k} {_shape} serial {_what}"] = (_what, dict(USE_ONESWEEP=_k == "one", ONESWEEP_EARLY=True,
                                                                   MATCH_RANK="serial", **SHAPES[_shape]), True)
PROFILE.update({
    "one wg256x16 late keys": ("keys", dict(USE_ONESWEEP=True, ONESWEEP_EARLY=False), True),
    "one wg256x16 late pairs": ("pairs", dict(USE_ONESWEEP=True, ONESWEEP_EARLY=False), True),
    "multi wg256x16 by-tile keys": ("keys", dict(USE_ONESWEEP=False, OFFSETS_BY_TILE=True), True),
    "multi wg256x16 by-tile pairs": ("pairs", dict(USE_ONESWEEP=False, OFFSETS_BY_TILE=True), True),
    "multi wg256x20 scan3 keys": ("keys", dict(USE_ONESWEEP=False, MATCH_ITEMS=20, SCAN_METHOD="reduce-then-scan"),
                                  True),
    "multi wg256x20 scan3 pairs": ("pairs", dict(USE_ONESWEEP=False, MATCH_ITEMS=20,
                                                 SCAN_METHOD="reduce-then-scan"), True),
})
for _what, _config, _exact in PROFILE.values():  # names say the shape: 16 keys per invocation
    if "MATCH_ITEMS" not in _config:
        _config["MATCH_ITEMS"] = 16
for _name, (_what, _config, _exact) in PROFILE.items():
    assert f"x{_config['MATCH_ITEMS']} " in _name, _name


def pick(medians):
    """The shape with the least keys + pairs time (each in its faster schedule) and the
    schedule setting that goes with it: (shape, settings for configure)."""
    best = None
    for shape, config in SHAPES.items():
        ms = {(k, w): medians.get(f"{k} {shape} {w}") for k in ("multi", "one") for w in ("keys", "pairs")}
        if any(v is None for v in ms.values()):
            continue
        keys_one = ms[("one", "keys")] < ms[("multi", "keys")]
        pairs_one = ms[("one", "pairs")] < ms[("multi", "pairs")]
        score = min(ms[("one", "keys")], ms[("multi", "keys")]) + min(ms[("one", "pairs")], ms[("multi", "pairs")])
        if keys_one and not pairs_one:  # no setting for that: take the better of all-one and all-multi
            keys_one = pairs_one = ms[("one", "keys")] + ms[("one", "pairs")] < ms[("multi", "keys")] + ms[("multi", "pairs")]
            score = ms[("one" if keys_one else "multi", "keys")] + ms[("one" if keys_one else "multi", "pairs")]
        use = True if keys_one else ("pairs" if pairs_one else False)
        if best is None or score < best[0]:
            best = (score, shape, dict(USE_ONESWEEP=use, ONESWEEP_EARLY=True, **config))
    return best[1], best[2]


class SharedInputCase(WgCase):
    """WgCase over one shared input Array (no upload per variant); checks its own result
    once (sorted, same keys; argsort and pairs: a stable permutation)."""

    def __init__(self, x_host, x, v, what, exact, **config):
        configure(**config)
        self.x, self.v = x, (v if what == "pairs" else None)
        self.plan = SortPlan(x.size, x.dtype, what=what)
        _, steps = self.plan(self.x, self.v, profile=True)
        self.config = dict(what=what, exact=exact, tile=self.plan.sorter.tile,
                           match=self.plan.sorter.match, **config)
        self.ok = None
        if exact:
            if what == "keys":
                out = self.plan.keys.numpy()
                self.ok = bool(np.all(out[1:] >= out[:-1]) and out.astype(np.uint64).sum() ==
                               x_host.astype(np.uint64).sum() and np.bitwise_xor.reduce(out) ==
                               np.bitwise_xor.reduce(x_host))
            else:
                self.ok = check_argsort(x_host, self.plan.values.numpy().view(np.uint32))
        configure()


class CopyCase:
    """The vec4 copy kernel over n u32 (what a scatter pass moves at best: n read, n written)."""

    def __init__(self, n):
        from wgprim.ops.common import chunks
        from wgprim.pipelines import get_pipeline
        from wgprim.program import Program
        dev = wgprim.get_device()
        tile = 256 * 4 * 4
        self.src, self.dst = wgprim.empty((n,), np.uint32), wgprim.empty((n,), np.uint32)
        pipe = get_pipeline(dev, "copy", "", "copy", {"WG": 256})
        self.program = Program(dev, "copy", transient=False)
        for c in chunks(n, 4, tile, dev):
            groups = -(-c.count // tile)
            self.program.dispatch("copy", pipe, {0: self.program.params(c.count // 4, groups), 1: c.view(self.src),
                                                 2: c.view(self.dst)}, groups)

    def __call__(self):
        steps = self.program.run(profile=True)
        return sum(s.ms for s in steps), [(s.label, s.ms) for s in steps]


def references(n, cases):
    try:
        import cupy as cp
        import torch
        if not torch.cuda.is_available():
            return
    except Exception:
        return

    def timed(event, elapsed, fn):
        def run():
            a, b = event(), event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            return elapsed(a, b), None
        return run
    cupy_ms = lambda fn: timed(cp.cuda.Event, cp.cuda.get_elapsed_time, fn)  # noqa: E731
    torch_ms = lambda fn: timed(lambda: torch.cuda.Event(enable_timing=True),  # noqa: E731
                                lambda a, b: a.elapsed_time(b), fn)
    c = cp.asarray(keys_of("u32", n))
    cases["cupy sort u32"] = cupy_ms(lambda: cp.sort(c))
    cases["cupy argsort u32"] = cupy_ms(lambda: cp.argsort(c))
    t = torch.as_tensor(keys_of("i32", n)).cuda()
    cases["torch sort i32 (values+indices)"] = torch_ms(lambda: torch.sort(t, stable=True))
    dst = cp.empty_like(c)
    cases["cupy copy u32"] = cupy_ms(lambda: cp.copyto(dst, c))


def profile_main(args):
    n = 2**16 + 1234 if args.quick else 2**26
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "n": n, "gpu": gpu_name()}
    print(result["date"], result["gpu"], flush=True)
    x_host = keys_of("u32", n)
    x, v = asarray(x_host), asarray(np.arange(n, dtype=np.uint32))
    cases, result["config"], result["exact"] = {}, {}, {}
    t0 = time.time()
    only = [part for part in (args.only or "").split(",") if part]
    for name, (what, config, exact) in PROFILE.items():
        if only and not any(part in name for part in only):
            continue
        try:
            case = SharedInputCase(x_host, x, v, what, exact, **config)
        except Exception as error:  # a variant the adapter cannot build: note it, go on
            print(f"{name}: FAILED {type(error).__name__}: {str(error)[:300]}", flush=True)
            result["config"][name] = dict(error=str(error)[:300])
            configure()
            continue
        cases[name] = case
        result["config"][name] = case.config
        result["exact"][name] = case.ok
        print(f"{name}: tile {case.config['tile']} match {case.config['match']} exact {case.ok}", flush=True)
    cases["wgprim copy u32"] = CopyCase(n)
    references(n, cases)
    print(f"setup {time.time() - t0:.1f} s", flush=True)
    path = os.path.join(args.out, "sort_profile.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    times, steps = interleave(cases, args.reps)
    result["median_ms"] = {name: statistics.median(t) for name, t in times.items()}
    result["steps"] = {}
    for name, runs in steps.items():
        if runs:
            result["steps"][name] = [(runs[0][i][0], statistics.median(r[i][1] for r in runs))
                                     for i in range(len(runs[0]))]
    print(f"\n{'case':34s} {'ms':>8s}  scatter passes (ms; GB/s moved)")
    for name, ms in result["median_ms"].items():
        per = [t for label, t in result["steps"].get(name, []) if label == "radix scatter"]
        moved = 8 * n * (2 if PROFILE.get(name, ("keys",))[0] != "keys" else 1)  # argsort: index reads are free
        passes = " ".join(f"{t:.3f}" for t in per)
        bw = f"; {moved / statistics.median(per) / 1e6:.0f}" if per else ""
        if name.endswith("copy u32"):
            bw = f"; {8 * n / ms / 1e6:.0f} GB/s"
        print(f"{name:34s} {ms:8.3f}  {passes}{bw}")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print("wrote", path, flush=True)
    if args.bench_json:
        shape, config = pick({k: v for k, v in result["median_ms"].items() if result["exact"].get(k)})
        result["picked"] = dict(shape=shape, config=config)
        print("picked", shape, config, flush=True)
        configure(**config)
        result["fallback"] = forced_fallback(2**20 if args.quick else 2**22, 2**21 if args.quick else 2**24,
                                             config)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
        bench(args, config)


def bench(args, config):
    """The target rows through `wgprim bench`, in this process, under `config`."""
    from wgprim.cli import main as cli
    configure(**config)
    size = "2^16" if args.quick else "2^26"
    refs = "" if args.quick else "cupy,torch"
    base = args.bench_json[:-5] if args.bench_json.endswith(".json") else args.bench_json
    cli(["bench", "sort", "argsort", "sort_pairs", "unique", "--sizes", size, "--dtype", "uint32",
         "--compare", refs, "--json", base + "-a.json"])
    cli(["bench", "sort", "--sizes", size, "--dtype", "float32,int32", "--compare", refs, "--json", base + "-b.json"])
    cli(["bench", "argsort", "unique", "--sizes", size, "--dtype", "float32,int32", "--compare", refs,
         "--json", base + "-c.json"])


def interleave(cases, reps):
    for fn in cases.values():  # warm-up
        for _ in range(3):
            fn()
    times = {name: [] for name in cases}
    steps = {name: [] for name in cases}
    for _ in range(reps):
        for name, fn in cases.items():
            ms, st = fn()
            times[name].append(ms)
            if st is not None:
                steps[name].append(st)
    return times, steps


def gpu_name():
    try:
        import subprocess
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip()
    except Exception:
        return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--only", help="with --profile: the variants whose names contain one of these "
                                    "comma-separated parts")
    ap.add_argument("--bench-json", help="with --profile: then configure the winner and record the target rows "
                                         "through `wgprim bench` into FILE-a/-b/-c.json")
    args = ap.parse_args()
    if args.profile:
        return profile_main(args)
    n26, n28 = (2**16, 2**18) if args.quick else (2**26, 2**28)
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "n": n26}
    try:
        import subprocess
        result["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True).stdout.strip()
    except Exception:
        result["gpu"] = "?"
    print(result["date"], result["gpu"], flush=True)

    t0 = time.time()
    result["correct"] = correctness([2**20 if not args.quick else 5000, n26])
    result["fallback"] = forced_fallback(2**20 if not args.quick else 20_000, 2**24 if not args.quick else 60_000)
    print(f"correctness {time.time() - t0:.1f} s", flush=True)
    path = os.path.join(args.out, "sort_h200.json")
    with open(path, "w") as f:  # partial, in case the timing does not finish
        json.dump(result, f, indent=1)

    cases = {}
    for cfg, config in CONFIGS.items():
        for dt in ("u32", "i32", "f32"):
            for what in ("keys", "argsort", "pairs"):
                cases[f"{cfg} {what} {dt}"] = WgCase(n26, dt, what, **config)
    cases["one20 keys u32"] = WgCase(n26, "u32", "keys", USE_ONESWEEP=True, MATCH_ITEMS=20)
    cases["one16 keys u32 by-index"] = WgCase(n26, "u32", "keys", USE_ONESWEEP=True, ONESWEEP_CLAIM=False)
    cases["one24 keys u32 by-index"] = WgCase(n26, "u32", "keys", USE_ONESWEEP=True, MATCH_ITEMS=24,
                                              ONESWEEP_CLAIM=False)
    cases["one24 keys u32 spin=32"] = WgCase(n26, "u32", "keys", USE_ONESWEEP=True, MATCH_ITEMS=24,
                                             ONESWEEP_SPIN=32)
    for cfg in ("multi16", "multi24", "one16", "one24"):
        cases[f"{cfg} keys u32 2^28"] = WgCase(n28, "u32", "keys", **CONFIGS[cfg])
    rng = np.random.default_rng(9)
    uniq = np.tile(np.arange(n26 // 4, dtype=np.uint32), 4)
    rng.shuffle(uniq)
    for cfg in ("multi16", "multi24", "one16", "one24"):
        cases[f"{cfg} unique u32"] = WgUnique(uniq, **CONFIGS[cfg])
    try:
        import cupy as cp
        import torch
        have_refs = torch.cuda.is_available()
    except Exception:
        have_refs = False
    if have_refs:
        def cupy_ms(fn):
            def run():
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                fn()
                b.record()
                b.synchronize()
                return cp.cuda.get_elapsed_time(a, b), None
            return run

        def torch_ms(fn):
            def run():
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                return a.elapsed_time(b), None
            return run
        for dt in ("u32", "i32", "f32"):
            c = cp.asarray(keys_of(dt, n26))
            cases[f"cupy sort {dt}"] = cupy_ms(lambda c=c: cp.sort(c))
            cases[f"cupy argsort {dt}"] = cupy_ms(lambda c=c: cp.argsort(c))
            t = torch.as_tensor(keys_of(dt if dt != "u32" else "i32", n26)).cuda()
            cases[f"torch sort {dt if dt != 'u32' else 'i32'} (values+indices)"] = \
                torch_ms(lambda t=t: torch.sort(t, stable=True))
        c28 = cp.asarray(keys_of("u32", n28))
        cases["cupy sort u32 2^28"] = cupy_ms(lambda: cp.sort(c28))
        tu = torch.as_tensor(uniq.astype(np.int32)).cuda()
        cases["torch unique u32"] = torch_ms(lambda: torch.unique(tu))
        cu = cp.asarray(uniq)
        cases["cupy unique u32"] = cupy_ms(lambda: cp.unique(cu))

    for name, fn in cases.items():  # warm-up
        for _ in range(3):
            fn()
    times = {name: [] for name in cases}
    steps = {name: [] for name in cases}
    for _ in range(args.reps):  # interleaved
        for name, fn in cases.items():
            ms, st = fn()
            times[name].append(ms)
            if st is not None:
                steps[name].append(st)
    med = {name: statistics.median(v) for name, v in times.items()}
    result["median_ms"] = med
    result["steps"] = {}
    for name in [f"{c} keys u32" for c in CONFIGS] + ["one24 pairs u32", "multi24 pairs u32"] + \
            [f"{c} keys u32 2^28" for c in CONFIGS] + ["one24 unique u32", "multi24 unique u32"]:
        runs = steps.get(name)
        if runs:
            per = [(runs[0][i][0], statistics.median(r[i][1] for r in runs)) for i in range(len(runs[0]))]
            result["steps"][name] = per

    print(f"\n{'case':44s} {'median ms':>10s}  G keys/s")
    for name, ms in med.items():
        n = n28 if "2^28" in name else n26
        print(f"{name:44s} {ms:10.3f}  {n / ms / 1e6:7.2f}")
    for name, per in result["steps"].items():
        print(f"\nsteps of {name}:")
        n = n28 if "2^28" in name else n26
        for label, ms in per:
            # scatter passes move keys (pairs: keys and values) in and out
            moved = {"radix scatter": 8 * n * (2 if "pairs" in name else 1), "radix count": 4 * n}.get(label)
            bw = f"  {moved / ms / 1e6:7.0f} GB/s" if moved and ms > 0.01 else ""
            print(f"  {label:20s} {ms:8.3f} ms{bw}")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
