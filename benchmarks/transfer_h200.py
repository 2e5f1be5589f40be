"""Host <-> GPU copy bandwidth: the queue's write_buffer/read_buffer against wgprim's
staged copies (wgprim.transfer) for several stage sizes and thread counts, pageable numpy
memory, each timed to a completed sync; best and median of --reps.
    python benchmarks/transfer_h200.py --mib 256 --out transfer.json
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

import wgprim
from wgprim import transfer
from wgprim.tuning import using


def timed(fn, nbytes: int, reps: int) -> dict:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return {"best_GBps": round(nbytes / min(times) / 1e9, 3), "median_GBps": round(nbytes / float(np.median(times)) / 1e9, 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    nbytes = args.mib << 20
    dev = wgprim.get_device()
    queue = dev.device.queue
    host = np.random.default_rng(0).random(nbytes // 4, dtype=np.float32)
    target = wgprim.asarray(host)
    sync = lambda: queue.read_buffer(target.buffer, 0, 16)  # noqa: E731
    rows = {"adapter": dev.summary, "bytes": nbytes, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    rows["write_buffer"] = timed(lambda: (queue.write_buffer(target.buffer, 0, host), sync()), nbytes, args.reps)
    rows["read_buffer"] = timed(lambda: queue.read_buffer(target.buffer, 0, nbytes), nbytes, args.reps)
    for stage_mib in (8, 32, 64):
        for threads in (1, 4, 8):
            key = f"staged {stage_mib} MiB x{threads}"
            with using(transfer.TransferPolicy, stage_bytes=stage_mib << 20, threads=threads):
                rows[key + " write"] = timed(lambda: (transfer.write(dev, target.buffer, 0, host), sync()), nbytes, args.reps)
                rows[key + " read"] = timed(lambda: transfer.read(dev, target.buffer, 0, nbytes), nbytes, args.reps)
    assert np.array_equal(transfer.read(dev, target.buffer, 0, nbytes).view(np.float32), host)
    for k, v in rows.items():
        print(f"{k:32s} {v}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
