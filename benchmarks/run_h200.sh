#!/usr/bin/env bash
# The commands that produced benchmarks/h200.md, run on the GPU machine from the repo root
# (wgprim importable, CuPy and PyTorch installed). Writes into ${OUT:-benchmarks/out}.
# About 5 minutes on an H200 (numpy is left out: at 2^28 it alone takes minutes).
set -uo pipefail
out=${OUT:-benchmarks/out}
mkdir -p "$out"
{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  python3 -m wgprim info
} > "$out/machine.txt" 2>&1
python3 -m wgprim bench --sizes 2^20,2^24,2^28 --compare cupy,torch --repeat 5 \
  --json "$out/h200.json" --plot "$out/h200.png" 2>/dev/null | tee "$out/bench.txt"
# The sort target is stated at 2^26.
python3 -m wgprim bench sort argsort --sizes 2^26 --compare cupy,torch --repeat 5 2>/dev/null \
  | tee -a "$out/bench.txt"
