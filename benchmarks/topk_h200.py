"""top-k (1-D and rows) and sum along an axis on one GPU against torch and CuPy, same run,
with the variants the defaults were chosen from.

wgprim: GPU timestamps summed over every dispatch of a call (wgprim.profiling.profile), and
the per-dispatch times of one call; torch/CuPy: CUDA events around the call. Cases
interleaved (each repetition runs every side of every case) after a warm-up; medians.
Correctness first, at full size, against numpy (the registry's references).
  python benchmarks/topk_h200.py --out DIR [--repeat 7] [--small]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import wgprim
from wgprim import registry
from wgprim.bench import harness, timing
from wgprim.ops import topk as topk_ops
from wgprim.ops.topk import TopkPolicy
from wgprim.profiling import profile
from wgprim.tuning import using


def gpu_ms(call) -> float:
    return timing.call_gpu_ms(call)


def cuda_ms(lib, call) -> float:
    return timing.cuda_call_ms(lib, call)


def with_setting(module, name, value, call):
    """`call` run with module.name = value (a variant of a default)."""
    def run():
        saved = getattr(module, name)
        setattr(module, name, value)
        try:
            return call()
        finally:
            setattr(module, name, saved)
    return run


def with_policy(call, **changes):
    """`call` run with these TopkPolicy fields changed (a variant of a default)."""
    def run():
        with using(TopkPolicy, **changes):
            return call()
    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--small", action="store_true", help="small sizes (a CPU adapter)")
    args = ap.parse_args()
    import torch

    try:
        import cupy as cp
    except Exception:  # noqa: BLE001
        cp = None
    rng = np.random.default_rng(0)
    n = 1 << 20 if args.small else 1 << 28
    rows = n // 256
    side = 1 << 10 if args.small else 1 << 14
    dev = torch.device("cuda")
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "adapter": wgprim.get_device().summary,
              "torch": torch.__version__, "cupy": cp.__version__ if cp else None, "cases": {}, "checks": {}}
    cases = {}

    def add(name, wgprim_call, torch_call=None, cupy_call=None, nbytes=0):
        cases[name] = {"wgprim": wgprim_call, "torch": torch_call, "cupy": cupy_call, "bytes": nbytes}

    # 1-D top-k: the registry's values (standard normal) and floats in [0, 1) (crowded top bits)
    for label, x in (("normal", rng.standard_normal(n, dtype=np.float32)), ("unit", rng.random(n, dtype=np.float32))):
        gx, tx = wgprim.asarray(x), torch.from_numpy(x).to(dev)
        for largest in (True, False):
            v, i = wgprim.topk(gx, 100, largest=largest)
            xr = x if largest else -x
            ok = registry.same_topk((v.numpy() if largest else -v.numpy(), i.numpy().astype(np.int64)),
                                    registry.topk_ref(100)(xr), xr)
            report["checks"][f"topk 1-D {label} largest={largest}"] = bool(ok)
        add(f"topk(x, 100) {n} f32 {label}", lambda gx=gx: wgprim.topk(gx, 100),
            lambda tx=tx: torch.topk(tx, 100), None, x.nbytes)
        if label == "normal":
            for groups in (512, 2048):
                add(f"topk(x, 100) {label} MAX_GROUPS={groups}",
                    with_policy(lambda gx=gx: wgprim.topk(gx, 100), max_groups=groups), nbytes=x.nbytes)
        del x

    # top-k of rows of 256
    r = rng.standard_normal((rows, 256), dtype=np.float32)
    gr, tr = wgprim.asarray(r), torch.from_numpy(r).to(dev)
    v, i = wgprim.topk(gr, 16)
    report["checks"]["topk rows"] = bool(registry.same_topk((v.numpy(), i.numpy().astype(np.int64)),
                                                            registry.topk_ref(16)(r), r))
    add(f"topk(r, 16, axis=-1) ({rows}, 256) f32", lambda: wgprim.topk(gr, 16),
        lambda: torch.topk(tr, 16, dim=-1), None, r.nbytes)
    for per_lane, min_lanes in ((8, 16), (32, 8)):
        add(f"topk rows ROWS_PER_LANE={per_lane} ROWS_MIN_LANES={min_lanes}",
            with_policy(lambda: wgprim.topk(gr, 16), rows_per_lane=per_lane, rows_min_lanes=min_lanes),
            nbytes=r.nbytes)
    add("topk rows, bitonic top-k (previous)",
        with_setting(topk_ops, "ROWS_MAX_K", 0, lambda: wgprim.topk(gr, 16)), nbytes=r.nbytes)
    del r

    # sum along each axis of a square matrix, and the flat sum (one read of the same bytes)
    m = rng.standard_normal((side, side), dtype=np.float32)
    gm, tm = wgprim.asarray(m), torch.from_numpy(m).to(dev)
    cm = cp.asarray(m) if cp else None
    for ax in (0, 1):
        ref = tm.double().sum(dim=ax).float().cpu().numpy()
        report["checks"][f"sum axis={ax} max abs err"] = float(np.max(np.abs(wgprim.sum(gm, axis=ax).numpy() - ref)))
        add(f"sum axis={ax} {side}x{side} f32", lambda ax=ax: wgprim.sum(gm, axis=ax), lambda ax=ax: tm.sum(dim=ax),
            (lambda ax=ax: cm.sum(axis=ax)) if cp else None, m.nbytes)
    add(f"sum (flat) {side}x{side} f32", lambda: wgprim.sum(gm), lambda: tm.sum(),
        (lambda: cm.sum()) if cp else None, m.nbytes)
    print(json.dumps(report["checks"]), flush=True)

    report["copy_GBps"] = harness.copy_bandwidth(1 << 30 if not args.small else 1 << 24, harness.Protocol())
    t0 = time.time()
    while time.time() - t0 < 1.0:  # the GPU at its working clock before the first timing
        gpu_ms(next(iter(cases.values()))["wgprim"])
    times = {name: {"wgprim": [], "torch": [], "cupy": []} for name in cases}
    for c in cases.values():  # warm-up
        c["wgprim"]()
        for lib in ("torch", "cupy"):
            if c[lib]:
                cuda_ms(lib, c[lib])
    for _ in range(args.repeat):
        for name, c in cases.items():
            times[name]["wgprim"].append(gpu_ms(c["wgprim"]))
            for lib in ("torch", "cupy"):
                if c[lib]:
                    times[name][lib].append(cuda_ms(lib, c[lib]))
    for name, c in cases.items():
        row = {k: float(np.median(v)) for k, v in times[name].items() if v}
        row["spread"] = {k: [round(min(v), 4), round(max(v), 4)] for k, v in times[name].items() if v}
        for k in ("wgprim", "torch", "cupy"):
            if k in row:
                row[f"{k}_read_GBps"] = c["bytes"] / (row[k] * 1e6)
        refs = [row[k] for k in ("torch", "cupy") if k in row]
        if refs:
            row["speedup_vs_best"] = min(refs) / row["wgprim"]
        with profile() as steps:
            c["wgprim"]()
        row["steps"] = [(st.label, round(st.ms, 4)) for st in steps]
        report["cases"][name] = row
        print(name, {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
                     if k not in ("steps", "spread")}, flush=True)
        print("   ", row["steps"], flush=True)
    print("copy GB/s (read + write)", round(report["copy_GBps"], 1))
    print(json.dumps(report["checks"]))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "topk_h200.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
