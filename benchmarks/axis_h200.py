"""axis=, segmented and top-k primitives on one GPU against torch and CuPy, same run.

wgprim: GPU timestamps summed over every dispatch of a call (wgprim.profiling.profile);
torch/CuPy: CUDA events around the call. Cases interleaved (each repetition runs every
side of every case), after a warm-up; medians. Correctness checked first against torch
(or numpy). Writes JSON to --out.
  python benchmarks/axis_h200.py --out DIR [--repeat 10] [--small]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import wgprim
from wgprim.bench import harness, timing
from wgprim.profiling import profile


def gpu_ms(call) -> float:
    return timing.call_gpu_ms(call)


def cuda_ms(lib, call) -> float:
    return timing.cuda_call_ms(lib, call)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--small", action="store_true", help="small sizes (a CPU adapter)")
    args = ap.parse_args()
    import torch

    try:
        import cupy as cp
    except Exception:  # noqa: BLE001
        cp = None
    rng = np.random.default_rng(0)
    s = 1 if args.small else 0
    side = 1024 if s else 16384
    rows_a, rows_b, width = (1 << 12, 64, 1 << 12) if s else (1 << 20, 64, 1 << 20)
    n_seg = 1 << 18 if s else 1 << 26
    n_topk = 1 << 20 if s else 1 << 28
    dev = torch.device("cuda")
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "adapter": wgprim.get_device().summary,
              "torch": torch.__version__, "cupy": cp.__version__ if cp else None, "cases": {}, "checks": {}}
    cases = {}

    # sum along each axis of a square matrix
    m = rng.standard_normal((side, side), dtype=np.float32)
    gm, tm = wgprim.asarray(m), torch.from_numpy(m).to(dev)
    cm = cp.asarray(m) if cp else None
    for ax in (0, 1):
        ref = tm.double().sum(dim=ax).float().cpu().numpy()
        got = wgprim.sum(gm, axis=ax).numpy()
        report["checks"][f"sum axis={ax}"] = float(np.max(np.abs(got - ref)))
        cases[f"sum axis={ax} {side}x{side} f32"] = {
            "wgprim": lambda ax=ax: wgprim.sum(gm, axis=ax), "torch": lambda ax=ax: tm.sum(dim=ax),
            "cupy": (lambda ax=ax: cm.sum(axis=ax)) if cp else None, "bytes": m.nbytes}

    # batched sort along the last axis
    for shape in ((rows_a, 64), (rows_b, width)):
        x = rng.standard_normal(shape, dtype=np.float32)
        gx, tx = wgprim.asarray(x), torch.from_numpy(x).to(dev)
        cx = cp.asarray(x) if cp else None
        ok = np.array_equal(wgprim.sort(gx).numpy(), torch.sort(tx, dim=-1).values.cpu().numpy())
        report["checks"][f"sort {shape}"] = bool(ok)
        cases[f"sort axis=-1 {shape} f32"] = {
            "wgprim": lambda gx=gx: wgprim.sort(gx), "torch": lambda tx=tx: torch.sort(tx, dim=-1),
            "cupy": (lambda cx=cx: cp.sort(cx, axis=-1)) if cp else None, "bytes": 2 * x.nbytes}

    # segment sort: u32 keys in random segments of mean 64
    lengths = rng.integers(1, 128, n_seg // 64 + 16)
    lengths = lengths[: np.searchsorted(np.cumsum(lengths), n_seg)]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint32)
    n = int(offsets[-1])
    keys = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    gk = wgprim.asarray(keys)
    seg = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    tkey = torch.from_numpy((seg << 32) | keys.astype(np.int64)).to(dev)
    got = wgprim.segment_sort(gk, offsets).numpy()
    want = (torch.sort(tkey).values & 0xFFFFFFFF).cpu().numpy().astype(np.uint32)
    report["checks"]["segment_sort"] = bool(np.array_equal(got, want))
    cases[f"segment_sort {n} u32 mean 64"] = {
        "wgprim": lambda: wgprim.segment_sort(gk, offsets), "torch": lambda: torch.sort(tkey), "cupy": None,
        "bytes": 2 * keys.nbytes}

    # topk 1-D and row-wise
    t = rng.standard_normal(n_topk, dtype=np.float32)
    gt, tt = wgprim.asarray(t), torch.from_numpy(t).to(dev)
    v, i = wgprim.topk(gt, 100)
    tv = torch.topk(tt, 100).values.cpu().numpy()
    report["checks"]["topk 1-D"] = bool(np.array_equal(v.numpy(), tv) and np.array_equal(t[i.numpy()], tv))
    cases[f"topk(x, 100) {n_topk} f32"] = {
        "wgprim": lambda: wgprim.topk(gt, 100), "torch": lambda: torch.topk(tt, 100), "cupy": None, "bytes": t.nbytes}
    r = rng.standard_normal((rows_a, 256), dtype=np.float32)
    gr, tr = wgprim.asarray(r), torch.from_numpy(r).to(dev)
    v, i = wgprim.topk(gr, 16)
    tv = torch.topk(tr, 16, dim=-1).values.cpu().numpy()
    report["checks"]["topk rows"] = bool(np.array_equal(v.numpy(), tv))
    cases[f"topk(r, 16, axis=-1) ({rows_a}, 256) f32"] = {
        "wgprim": lambda: wgprim.topk(gr, 16), "torch": lambda: torch.topk(tr, 16, dim=-1), "cupy": None,
        "bytes": r.nbytes}

    report["copy_GBps"] = harness.copy_bandwidth(1 << 30 if not s else 1 << 24, harness.Protocol())
    t0 = time.time()
    while time.time() - t0 < 1.0:  # the GPU at its working clock before the first timing
        gpu_ms(next(iter(cases.values()))["wgprim"])
    times = {name: {"wgprim": [], "torch": [], "cupy": []} for name in cases}
    for name, c in cases.items():  # warm-up
        c["wgprim"]()
        cuda_ms("torch", c["torch"])
        if c["cupy"]:
            cuda_ms("cupy", c["cupy"])
    for _ in range(args.repeat):
        for name, c in cases.items():
            times[name]["wgprim"].append(gpu_ms(c["wgprim"]))
            times[name]["torch"].append(cuda_ms("torch", c["torch"]))
            if c["cupy"]:
                times[name]["cupy"].append(cuda_ms("cupy", c["cupy"]))
    for name, c in cases.items():
        row = {k: float(np.median(v)) for k, v in times[name].items() if v}
        row["wgprim_GBps"] = c["bytes"] / (row["wgprim"] * 1e6)
        row["fraction_of_copy"] = row["wgprim_GBps"] / report["copy_GBps"]
        best = min(row[k] for k in ("torch", "cupy") if k in row)
        row["speedup_vs_best"] = best / row["wgprim"]
        with profile() as steps:
            c["wgprim"]()
        row["steps"] = [(st.label, round(st.ms, 4)) for st in steps]
        report["cases"][name] = row
        print(name, {k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items() if k != "steps"}, flush=True)
    print(json.dumps(report["checks"]))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "axis_h200.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
