#!/usr/bin/env bash
# The H200 measurements behind benchmarks/h200.md: every target row (wgprim.registry.TARGETS)
# against CuPy and PyTorch in the same run, the first row measured again at the end (the
# protocol check), into ${OUT:-benchmarks}/h200-YYYY-MM-DD[-N].{json,txt,png} and a
# -machine.txt. RUNS=2 then runs the 2^28 rows again, in a second process, and compares the
# two runs row by row (the acceptance: within 5%). The block-scan claim runs once, up to 2^28,
# and so does the per-call grid (`--calls-grid`: one-shot call and latency ms of sum, cumsum,
# sort, argsort, compact, unique, histogram and topk at 2^10..2^28, against CuPy and PyTorch),
# into h200-YYYY-MM-DD-calls.{json,txt} and its markdown table -calls.md
# (benchmarks/per_call_table.py; benchmarks/h200.md's "Per call" table). CALLS=0 leaves it out.
# Run from the repository root on the GPU machine (wgprim importable, CuPy and PyTorch
# installed); numpy is left out (at 2^28 it takes seconds per call). Rows whose wgprim
# function does not exist are skipped and listed.
set -uo pipefail
out=${OUT:-benchmarks}
runs=${RUNS:-1}
calls=${CALLS:-1}
mkdir -p "$out"
day=$(date -u +%Y-%m-%d)
made=()
for ((r = 1; r <= runs; r++)); do
  base="$out/h200-$day"
  i=2
  while [ -e "$base.json" ]; do base="$out/h200-$day-$i"; i=$((i + 1)); done
  {
    date -u +"date: %Y-%m-%d %H:%M UTC"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
    python3 -m wgprim info
  } > "$base-machine.txt" 2>&1
  if [ "$r" = 1 ]; then rows=(--repeat-first); else rows=(--min-size 2^28); fi
  python3 -m wgprim bench --targets "${rows[@]}" --compare cupy,torch \
    --json "$base.json" --plot "$base.png" 2>&1 | tee "$base.txt"
  made+=("$base.json")
  if [ "$r" = 1 ]; then
    python3 -m wgprim bench blockscan-claim --sizes 2^28 --compare "" --json "$base-claim.json" 2>&1 \
      | tee "$base-claim.txt"
    if [ "$calls" != 0 ]; then
      python3 -m wgprim bench --calls-grid --compare cupy,torch --json "$base-calls.json" 2>&1 \
        | tee "$base-calls.txt"
      python3 benchmarks/per_call_table.py "$base-calls.json" > "$base-calls.md"
    fi
  fi
done
if [ "${#made[@]}" -ge 2 ]; then
  python3 -m wgprim.bench.agree "${made[0]}" "${made[1]}" --min-n 2^28 | tee "${made[1]%.json}-agree.txt"
fi
