"""Long segments: the segmented radix sort against the two-argsort path it replaces, and
torch, same run (H200 target rows: sort(x, axis=-1) of (64, 2^20) f32; segment_sort of a
few long segments).

wgprim: GPU timestamps summed over every dispatch of a call (wgprim.profiling.profile), the
path forced per case ("segments": RadixSorter.record_segments; "two argsorts": the
fallback, SegmentSorter.sort_long); torch: CUDA events. Cases interleaved, medians;
correctness against numpy's stable sort first. Writes segmented_long_h200.json to --out.
  python benchmarks/segmented_long_h200.py --out DIR [--repeat 10] [--small]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import wgprim
from wgprim.ops import radix_sort
from wgprim.profiling import profile


def gpu_ms(call) -> float:
    with profile() as steps:
        call()
    return sum(s.ms for s in steps)


def cuda_ms(call) -> float:
    import torch

    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    call()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


FITS = radix_sort.RadixSorter.fits_segments


def on_path(path: str, call):
    """Run `call` on the segmented radix sort ("segments") or the fallback."""
    def run():
        radix_sort.RadixSorter.fits_segments = FITS if path == "segments" else (lambda self, end, tiles: False)
        try:
            return call()
        finally:
            radix_sort.RadixSorter.fits_segments = FITS
    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--small", action="store_true", help="small sizes, no torch (a CPU adapter)")
    args = ap.parse_args()
    torch = None
    if not args.small:
        import torch
    rng = np.random.default_rng(0)
    rows, width = (4, 1 << 14) if args.small else (64, 1 << 20)
    seg_n = 1 << 16 if args.small else 1 << 26
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "adapter": wgprim.get_device().summary,
              "torch": torch.__version__ if torch else None, "cases": {}, "checks": {}}
    cases = {}

    x = rng.standard_normal((rows, width), dtype=np.float32)
    gx = wgprim.asarray(x)
    order = np.argsort(x, axis=-1, kind="stable")
    tx = torch.from_numpy(x).cuda() if torch else None
    for path in ("segments", "two argsorts"):
        report["checks"][f"sort rows {path}"] = bool(np.array_equal(
            on_path(path, lambda: wgprim.sort(gx))().numpy(), np.take_along_axis(x, order, -1)))
        report["checks"][f"argsort rows {path}"] = bool(np.array_equal(
            on_path(path, lambda: wgprim.argsort(gx))().numpy(), order))
        cases[f"sort axis=-1 {(rows, width)} f32, {path}"] = {
            "wgprim": on_path(path, lambda: wgprim.sort(gx)),
            "torch": (lambda: torch.sort(tx, dim=-1)) if torch else None, "bytes": 2 * x.nbytes}
        cases[f"argsort axis=-1 {(rows, width)} f32, {path}"] = {
            "wgprim": on_path(path, lambda: wgprim.argsort(gx)),
            "torch": (lambda: torch.sort(tx, dim=-1, stable=True)) if torch else None, "bytes": 3 * x.nbytes}

    # a few long segments of uneven lengths (and some short and empty ones between them)
    lengths = np.array([seg_n // 4 + 3, 0, 17, seg_n // 2 - 1000, 2000, seg_n // 8, 1])
    lengths = np.append(lengths, seg_n - lengths.sum())
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint32)
    keys = rng.integers(0, 2**32, seg_n, dtype=np.uint64).astype(np.uint32)
    vals = np.arange(seg_n, dtype=np.uint32)
    gk, gv = wgprim.asarray(keys), wgprim.asarray(vals)
    ref = np.concatenate([a + np.argsort(keys[a:b], kind="stable") for a, b in zip(offsets[:-1], offsets[1:])])
    tkey = None
    if torch:
        seg = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        tkey = torch.from_numpy((seg << 32) | keys.astype(np.int64)).cuda()
    for path in ("segments", "two argsorts"):
        k, v = on_path(path, lambda: wgprim.segment_sort(gk, offsets, gv))()
        report["checks"][f"segment_sort pairs {path}"] = bool(
            np.array_equal(v.numpy(), ref) and np.array_equal(k.numpy(), keys[ref]))
        cases[f"segment_sort {seg_n} u32, {lengths.size} uneven segments, {path}"] = {
            "wgprim": on_path(path, lambda: wgprim.segment_sort(gk, offsets)),
            "torch": (lambda: torch.sort(tkey)) if torch else None, "bytes": 2 * keys.nbytes}
        cases[f"segment_sort pairs {seg_n} u32, {lengths.size} uneven segments, {path}"] = {
            "wgprim": on_path(path, lambda: wgprim.segment_sort(gk, offsets, gv)),
            "torch": (lambda: torch.sort(tkey, stable=True)) if torch else None, "bytes": 4 * keys.nbytes}
    flat = rng.integers(0, 2**32, seg_n, dtype=np.uint64).astype(np.uint32)
    gf = wgprim.asarray(flat)
    cases[f"flat sort {seg_n} u32 (reference)"] = {"wgprim": lambda: wgprim.sort(gf), "torch": None, "bytes": 0}
    print(json.dumps(report["checks"]), flush=True)

    t0 = time.time()
    while time.time() - t0 < 1.0:  # the GPU at its working clock before the first timing
        gpu_ms(next(iter(cases.values()))["wgprim"])
    times = {name: {"wgprim": [], "torch": []} for name in cases}
    for c in cases.values():  # warm-up
        c["wgprim"]()
        if c["torch"]:
            cuda_ms(c["torch"])
    for _ in range(args.repeat):
        for name, c in cases.items():
            times[name]["wgprim"].append(gpu_ms(c["wgprim"]))
            if c["torch"]:
                times[name]["torch"].append(cuda_ms(c["torch"]))
    for name, c in cases.items():
        row = {k: float(np.median(v)) for k, v in times[name].items() if v}
        if "torch" in row:
            row["speedup_vs_torch"] = row["torch"] / row["wgprim"]
        with profile() as steps:
            c["wgprim"]()
        row["steps"] = [(st.label, round(st.ms, 4)) for st in steps]
        report["cases"][name] = row
        print(name, {k: round(v, 3) for k, v in row.items() if k != "steps"}, flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "segmented_long_h200.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
