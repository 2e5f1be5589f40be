"""Memory of a long-running process that meets ever new lengths: one-shot sort + cumsum +
unique of uint32 arrays of BASE + STEP*k elements, k = 0..LENGTHS-1, each call's results
dropped at once, as a stream of batches of varying length does. Prints, every few lengths,
the process's resident memory (RSS) and wgprim's own accounting, then releases what wgprim
caches (`wgprim.empty_cache()`) and prints both again.

    python3 benchmarks/memory_growth.py [--lengths 300] [--base 1000000] [--step 4096]
        [--every 10] [--ops sort,cumsum,unique] [--json out.json]

Runs on any adapter (lavapipe included: there the device's memory is the process's, so RSS
shows it all; on a discrete GPU RSS shows the host side and the accounting the device side).
Versions without `memory_stats`/`empty_cache` are measured too: the script falls back to
the pool's `stats()` and `free_all_blocks()`, so one script compares two versions.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import time

import numpy as np


def rss_mb() -> float:
    """Resident memory of this process in MB (10**6 bytes), from /proc (Linux), else the peak."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def accounting(wgprim) -> dict:
    """wgprim's view of its memory: memory_stats() where the version has it, else the pool's stats()."""
    if hasattr(wgprim, "memory_stats"):
        return dict(wgprim.memory_stats())
    return dict(wgprim.memory_pool().stats())


def release(wgprim) -> None:
    gc.collect()
    if hasattr(wgprim, "empty_cache"):
        wgprim.empty_cache()
    else:
        wgprim.memory_pool().free_all_blocks()


def brief(stats: dict) -> str:
    keys = ["used_bytes", "peak_bytes", "cached_bytes", "free_bytes", "kept_recording_bytes", "staging_bytes"]
    text = " ".join(f"{k.replace('_bytes', '')}={stats[k] / 2**20:.0f}MiB" for k in keys if k in stats)
    counts = [k for k in ("kept_recordings", "bind_groups", "pipelines") if k in stats]
    return text + "".join(f" {k}={stats[k]}" for k in counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, default=300)
    parser.add_argument("--base", type=int, default=1_000_000)
    parser.add_argument("--step", type=int, default=4096)
    parser.add_argument("--every", type=int, default=10, help="print every this many lengths")
    parser.add_argument("--ops", default="sort,cumsum,unique")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()

    import wgprim

    ops = [getattr(wgprim, name) for name in args.ops.split(",")]
    device = wgprim.get_device()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, "
          f"{os.cpu_count()} CPUs, {device.name}, wgprim from {os.path.dirname(wgprim.__file__)}")
    print(f"# ops {args.ops}, lengths {args.base} + {args.step}*k, k = 0..{args.lengths - 1}")
    rng = np.random.default_rng(0)
    rows = []
    start = time.perf_counter()
    for k in range(args.lengths):
        x = rng.integers(0, 2**32, args.base + args.step * k, dtype=np.uint64).astype(np.uint32)
        for op in ops:
            result = op(x)
            del result
        if k == 0 or (k + 1) % args.every == 0 or k == args.lengths - 1:
            stats = accounting(wgprim)
            rows.append({"lengths": k + 1, "rss_mb": rss_mb(), "seconds": time.perf_counter() - start, **stats})
            print(f"lengths {k + 1:4d}  rss {rows[-1]['rss_mb']:7.0f} MB  {brief(stats)}", flush=True)
    release(wgprim)
    stats = accounting(wgprim)
    rows.append({"lengths": "after release", "rss_mb": rss_mb(), **stats})
    print(f"after release  rss {rows[-1]['rss_mb']:7.0f} MB  {brief(stats)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "device": device.name, "rows": rows}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
