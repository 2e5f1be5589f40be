#!/usr/bin/env bash
# The command that produced benchmarks/h200.md, run on the GPU machine from the repo root
# (wgprim importable, CuPy and PyTorch installed). Writes into ${OUT:-benchmarks/out}.
set -uo pipefail
out=${OUT:-benchmarks/out}
mkdir -p "$out"
{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  python3 -m wgprim info
} > "$out/machine.txt" 2>&1
python3 -m wgprim bench --sizes 2^16,2^20,2^24,2^26,2^28 --repeat 10 \
  --json "$out/h200.json" --plot "$out/h200.png" 2>/dev/null | tee "$out/bench.txt"
# Variants for the scan: block scan without subgroups, downsweep without staged stores.
python3 - <<'PY' 2>/dev/null | tee "$out/variants.txt"
import numpy as np, wgprim
from wgprim.bench import timing
from wgprim.ops import scan as scan_ops
from wgprim.program import consecutive_subgroups
dev = wgprim.get_device()
timing.warm_gpu(dev)
x = wgprim.asarray(np.random.default_rng(0).standard_normal(1 << 28).astype(np.float32))
def cumsum_ms(label):
    plan = scan_ops.ScanPlan(x.size, np.float32, "sum")
    ms = timing.wgprim_gpu_ms(lambda: plan(x), 10)
    steps = timing.wgprim_steps(lambda: plan(x))
    print(f"cumsum f32 2^28 {label}: {ms:.4f} ms; steps: " + ", ".join(f"{l} {m:.4f}" for l, m in steps))
cumsum_ms("default (subgroup lane scan, staged stores)")
scan_ops.STAGE_STORES = False
cumsum_ms("stores without staging")
scan_ops.STAGE_STORES = True
dev.cache("probes")["subgroups"] = False
cumsum_ms("barrier lane scan (no subgroups)")
PY
