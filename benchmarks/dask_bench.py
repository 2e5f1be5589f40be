"""wgprim.dask on a multi-GPU machine: histogram, sum and sort of arrays held in host memory.

    python3 benchmarks/dask_bench.py --out dask.json           # full: 2^32 f32, 2^31 u32 sort
    python3 benchmarks/dask_bench.py --quick --out quick.json  # small sizes (CI box, lavapipe)

What it measures (one run, same machine, all references in the same run):
  1. host-to-GPU bandwidth wgpu reaches on each GPU worker: `queue.write_buffer` and
     wgprim's staged upload (wgprim.transfer, what the tasks use) of a
     pageable 256 MiB chunk into an existing buffer, and `wgprim.asarray` of it (allocate +
     write), each followed by a 16-byte read as the sync; one worker alone, then all at
     once; and `queue.read_buffer` back (GPU to host);
  2. histogram (256 bins) and sum of N f32 generated in the workers and persisted in host
     memory (N = 2^32: 16 GiB, more than one WebGPU buffer), on 1 GPU worker (a copy held
     by that worker) and on all GPU workers; each worker's share as bytes / (its busy time
     and the wall time), as a fraction of its measured upload bandwidth (the better path);
  3. the same with dask.array.histogram / dask.array.sum on numpy chunks in this process,
     threaded scheduler with every CPU core (same data: same generator graph);
  4. sort of M u32 (M = 2^31) on all GPU workers, stage by stage (local GPU sort of each
     chunk, sampling, partition, partition sort) plus a per-chunk profile of the transfer
     and sort parts, against np.sort of the whole on the host; the sorted result is
     verified (counts, order, boundaries, sums).
Prints a table and writes everything to --out (JSON). Stages that would pass the time
budget (--budget seconds, default 420) are skipped and say so.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback

import numpy as np

T0 = time.perf_counter()
GiB = 2**30


def elapsed() -> float:
    return time.perf_counter() - T0


def log(msg: str) -> None:
    print(f"[{elapsed():7.1f}s] {msg}", flush=True)


# ---------------------------------------------------------------- run on the workers

def worker_info():
    import wgprim

    dev = wgprim.get_device()
    return {"adapter_env": os.environ.get("WGPRIM_ADAPTER"), "summary": dev.summary, "backend": dev.backend,
            "max_buffer_bytes": dev.max_buffer_bytes, "max_binding_bytes": dev.max_binding_bytes}


def warm_up():
    """Compile every pipeline the timed runs use (the first call builds them)."""
    import wgprim

    x = np.random.default_rng(0).random(1 << 20, dtype=np.float32)
    wgprim.histogram(x, bins=256, range=(0.0, 1.0))[0].numpy()
    wgprim.sum(x).numpy()
    k = np.random.default_rng(0).integers(0, 2**32, 1 << 20, dtype=np.uint32)
    wgprim.sort(k).numpy()
    wgprim.sort(k[:1000]).numpy()
    return True


def transfer_bandwidth(nbytes: int, reps: int):
    """GB/s of host->GPU (write_buffer into an existing buffer; wgprim.asarray) and
    GPU->host (read_buffer), pageable numpy memory, each timed to a completed sync."""
    import wgprim
    from wgprim import transfer

    dev = wgprim.get_device()
    queue = dev.device.queue
    host = np.random.default_rng(1).random(nbytes // 4, dtype=np.float32)
    target = wgprim.asarray(host)
    queue.read_buffer(target.buffer, 0, 16)

    def best(fn):
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return {"best_GBps": nbytes / min(times) / 1e9, "median_GBps": nbytes / float(np.median(times)) / 1e9}

    def write():
        queue.write_buffer(target.buffer, 0, host)
        queue.read_buffer(target.buffer, 0, 16)

    def upload():
        a = wgprim.asarray(host)
        queue.read_buffer(a.buffer, 0, 16)

    def read():
        queue.read_buffer(target.buffer, 0, nbytes)

    def staged_write():  # wgprim's own upload path (wgprim.transfer): what the tasks use
        transfer.write(dev, target.buffer, 0, host)
        queue.read_buffer(target.buffer, 0, 16)

    def staged_read():
        transfer.read(dev, target.buffer, 0, nbytes)

    result = {"bytes": nbytes, "write_buffer": best(write), "asarray": best(upload), "read_buffer": best(read),
              "staged_write": best(staged_write), "staged_read": best(staged_read)}
    # The host-to-GPU bandwidth wgpu reaches: the better of the two upload paths.
    result["upload"] = max(result["write_buffer"], result["staged_write"], key=lambda r: r["best_GBps"])
    return result


def sort_chunk_profile(n: int, reps: int):
    """Seconds per chunk of n u32 keys: upload, GPU sort (wgprim.sort of an Array already on
    the GPU, to a completed sync), download; as the sample sort's steps 1 and 4 do."""
    import wgprim

    dev = wgprim.get_device()
    queue = dev.device.queue
    keys = np.random.default_rng(2).integers(0, 2**32, n, dtype=np.uint32)
    out = {"n": n, "upload_s": [], "sort_s": [], "download_s": []}
    for _ in range(reps + 1):  # the first is a warm-up
        t = time.perf_counter()
        g = wgprim.asarray(keys)
        queue.read_buffer(g.buffer, 0, 16)
        t1 = time.perf_counter()
        s = wgprim.sort(g)
        queue.read_buffer(s.buffer, 0, 16)
        t2 = time.perf_counter()
        s.numpy()
        t3 = time.perf_counter()
        for name, v in (("upload_s", t1 - t), ("sort_s", t2 - t1), ("download_s", t3 - t2)):
            out[name].append(v)
    return {k: (float(np.median(v[1:])) if isinstance(v, list) else v) for k, v in out.items()}


def partition_stats(part):
    part = np.asarray(part)
    ok = bool(np.all(part[:-1] <= part[1:])) if part.size > 1 else True
    return {"n": int(part.size), "first": int(part[0]) if part.size else None,
            "last": int(part[-1]) if part.size else None, "sorted": ok,
            "sum": int(part.astype(np.uint64).sum()), "sumsq": int((part.astype(np.uint64) ** 2).sum())}


# ---------------------------------------------------------------- helpers on the client

def busy_by_worker(stream):
    """Seconds each worker spent computing tasks, from a distributed task stream."""
    busy = {}
    for task in stream:
        for ss in task.get("startstops", ()):
            if ss.get("action") == "compute":
                busy[task["worker"]] = busy.get(task["worker"], 0.0) + ss["stop"] - ss["start"]
    return busy


def host_sums(keys, block=2**24):
    """(sum, sum of squares mod 2^64) of u32 keys, a block at a time (no 2 x 8-byte copies)."""
    total = square = 0
    for i in range(0, keys.size, block):
        b = keys[i:i + block].astype(np.uint64)
        total += int(b.sum())
        square = (square + int((b * b).sum())) % 2**64
    return total, square


def place_evenly(client, x, workers):
    """x persisted with an equal run of its chunks on each worker (the scheduler alone may
    put more on one), as one dask array with x's data and chunks; and the bytes each holds."""
    import dask.array as da
    from distributed import wait

    bounds = np.linspace(0, x.numblocks[0], len(workers) + 1).round().astype(int)
    offsets = np.concatenate([[0], np.cumsum(x.chunks[0])])
    parts = [client.persist(x[offsets[a]:offsets[b]], workers=[w], allow_other_workers=False)
             for w, a, b in zip(workers, bounds[:-1], bounds[1:]) if b > a]
    wait(parts)
    held = {w: float(p.nbytes) for w, p in zip(workers, parts)}
    return da.concatenate(parts), held


def timed(fn, reps: int):
    times, result = [], None
    for _ in range(reps):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return result, times


# ---------------------------------------------------------------- the benchmark

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="dask_bench.json")
    ap.add_argument("--quick", action="store_true", help="small sizes (a CI box or lavapipe)")
    ap.add_argument("--n-log2", type=int, help="log2 of the histogram/sum size (default 32; quick 22)")
    ap.add_argument("--sort-log2", type=int, help="log2 of the sort size (default 31; quick 20)")
    ap.add_argument("--chunk-log2", type=int, help="log2 of the chunk size in elements (default 26: 256 MiB; quick 18)")
    ap.add_argument("--workers", type=int, help="GPU workers (default: one per adapter of gpu_adapters(); quick 2)")
    ap.add_argument("--budget", type=float, default=420.0, help="seconds; later stages are skipped past it")
    ap.add_argument("--hard-limit", type=float, default=470.0, help="seconds; the np.sort reference is estimated if it would end later")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()

    import dask
    import dask.array as da
    import distributed
    from distributed import get_task_stream, wait

    import wgprim
    import wgprim.dask as wd

    quick = args.quick
    n = 2 ** (args.n_log2 or (22 if quick else 32))
    m = 2 ** (args.sort_log2 or (20 if quick else 31))
    chunk = 2 ** (args.chunk_log2 or (18 if quick else 26))
    ncpu = os.cpu_count() or 1
    result = {
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "quick": quick,
        "host": platform.node(), "cpu_count": ncpu, "python": sys.version.split()[0],
        "numpy": np.__version__, "dask": dask.__version__, "distributed": distributed.__version__,
        "adapters": wgprim.list_adapters(), "gpu_adapters": wd.gpu_adapters(),
        "sizes": {"n": n, "n_bytes": 4 * n, "sort_n": m, "chunk_elements": chunk, "chunk_bytes": 4 * chunk},
        "stages": {}, "skipped": [], "errors": {},
    }
    out_path = args.out

    def save():
        with open(out_path, "w") as f:
            json.dump(result, f, indent=1, default=str)

    def stage(name, fn):
        if elapsed() > args.budget:
            result["skipped"].append(f"{name}: past the {args.budget:.0f} s budget")
            log(f"SKIP {name} (time budget)")
            return None
        log(f"start {name}")
        try:
            value = fn()
            result["stages"][name] = value
            return value
        except Exception as error:  # record and go on: one failing stage must not lose the rest
            result["errors"][name] = "".join(traceback.format_exception(error))[-4000:]
            log(f"ERROR in {name}: {error!r}")
            return None
        finally:
            save()

    n_workers = args.workers or (2 if quick else len(wd.gpu_adapters()))
    log(f"adapters: {result['adapters']}; starting {n_workers} GPU workers")
    cluster = wd.gpu_cluster(n_workers=n_workers, memory_limit=0, silence_logs=40)
    client = cluster.get_client()
    workers = sorted(client.scheduler_info()["workers"])
    result["workers"] = client.run(worker_info)
    log(f"workers: {json.dumps(result['workers'])}")
    client.run(warm_up)
    log("warmed up")

    # 1. host <-> GPU bandwidth, each worker alone, then all at once
    bw_bytes, bw_reps = (256 * 2**20, 8) if not quick else (16 * 2**20, 3)

    def bandwidth():
        alone = {w: client.run(transfer_bandwidth, bw_bytes, bw_reps, workers=[w])[w] for w in workers}
        together = client.run(transfer_bandwidth, bw_bytes, bw_reps)
        return {"alone": alone, "together": together}

    bw = stage("bandwidth", bandwidth) or {}

    # 2. histogram and sum of n f32 in host memory, 1 GPU and all GPUs
    gen = da.random.default_rng(0)
    x = gen.random(n, dtype=np.float32, chunks=chunk)

    def gpu_runs(arr, on_workers, label):
        t = time.perf_counter()
        arr, held = place_evenly(client, arr, on_workers or workers)
        gen_s = time.perf_counter() - t
        runs = {}
        for name, build in (("histogram", lambda: wd.histogram(arr, bins=256, range=(0.0, 1.0))[0]),
                            ("sum", lambda: wd.sum(arr))):
            value = None
            times, busy = [], []
            for _ in range(args.reps):
                with get_task_stream(client) as ts:
                    t = time.perf_counter()
                    value = client.compute(build(), workers=on_workers, allow_other_workers=False).result()
                    times.append(time.perf_counter() - t)
                busy.append(busy_by_worker(ts.data))
            best = int(np.argmin(times))
            share = {}
            for w in (on_workers or workers):
                b = held.get(w, 0.0)
                wb = bw.get("alone", {}).get(w, {}).get("upload", {}).get("best_GBps")
                wt = bw.get("together", {}).get(w, {}).get("upload", {}).get("best_GBps")
                busy_s = busy[best].get(w, 0.0)
                share[w] = {"bytes": b, "busy_s": busy_s,
                            "GBps_busy": b / busy_s / 1e9 if busy_s else None,
                            "GBps_wall": b / times[best] / 1e9,
                            "fraction_of_write_buffer_alone": (b / busy_s / 1e9 / wb) if busy_s and wb else None,
                            "fraction_of_write_buffer_together": (b / busy_s / 1e9 / wt) if busy_s and wt else None}
            runs[name] = {"times_s": times, "best_s": times[best], "GBps": 4 * n / times[best] / 1e9,
                          "per_worker": share, "value": value.tolist() if name == "sum" else int(value.sum())}
            log(f"{label} {name}: best {times[best]:.3f} s ({4 * n / times[best] / 1e9:.2f} GB/s)")
        runs["generate_and_persist_s"] = gen_s
        return arr, runs

    state = {}

    def one_gpu():
        arr, runs = gpu_runs(x, [workers[0]], "1 GPU")  # the same data, all held by one worker
        client.cancel(arr)
        del arr
        return runs

    def all_gpus():
        arr, runs = gpu_runs(x, None, f"{len(workers)} GPUs")
        state["x"] = arr
        state["hist"] = wd.histogram(arr, bins=256, range=(0.0, 1.0))[0].compute()
        return runs

    stage("gpu_all", all_gpus)
    stage("gpu_one", one_gpu)

    # 3. the CPU reference: dask.array on numpy chunks, every core, same data
    def cpu_runs():
        t = time.perf_counter()
        local = x.persist(scheduler="threads", num_workers=ncpu)
        gen_s = time.perf_counter() - t
        out = {"generate_s": gen_s, "scheduler": f"threads x {ncpu}"}
        for name, build in (("histogram", lambda: da.histogram(local, bins=256, range=(0.0, 1.0))[0]),
                            ("sum", lambda: local.sum(dtype=np.float32))):
            reps = args.reps
            value, times = None, []
            for _ in range(reps):
                t = time.perf_counter()
                value = build().compute(scheduler="threads", num_workers=ncpu)
                times.append(time.perf_counter() - t)
                if times[-1] > 40 and not quick:
                    break  # slow enough: one or two runs say it
            out[name] = {"times_s": times, "best_s": min(times), "GBps": 4 * n / min(times) / 1e9}
            if name == "histogram":
                out[name]["equal_to_gpu"] = bool(np.array_equal(value, state["hist"])) if "hist" in state else None
            else:
                out[name]["value"] = float(value)
            log(f"CPU {name}: best {min(times):.3f} s")
        del local
        return out

    stage("cpu", cpu_runs)
    if "x" in state:
        client.cancel(state.pop("x"))

    # 4. sort of m u32 on all GPU workers, stage by stage, against np.sort on the host
    keys = da.random.default_rng(3).integers(0, 2**32, m, dtype=np.uint32, chunks=min(chunk * 2, m))

    def gpu_sort():
        from wgprim.dask.sort import sample_sort_stages

        k, _ = place_evenly(client, keys, workers)
        prof = client.run(sort_chunk_profile, int(k.chunks[0][0]), 2 if not quick else 1)
        t_all = time.perf_counter()
        st = sample_sort_stages(k)
        times = {}
        t = time.perf_counter()
        runs = client.persist(st.runs)
        wait(runs)
        times["local_sort_s"] = time.perf_counter() - t
        t = time.perf_counter()
        splitters = client.persist(st.splitters, optimize_graph=False)
        wait(splitters)
        times["sampling_s"] = time.perf_counter() - t
        t = time.perf_counter()
        pieces = client.persist(st.pieces)
        wait(pieces)
        times["partition_s"] = time.perf_counter() - t
        t = time.perf_counter()
        parts = client.persist(st.partitions)
        wait(parts)
        times["partition_sort_s"] = time.perf_counter() - t
        times["total_staged_s"] = time.perf_counter() - t_all
        stats = client.compute([dask.delayed(partition_stats)(p) for p in parts], sync=True)
        del runs, splitters, pieces
        # once more in one go (no stage barriers): the throughput figure
        t = time.perf_counter()
        sorted_k = client.persist(wd.sort(k))
        wait(sorted_k)
        times["end_to_end_s"] = time.perf_counter() - t
        del sorted_k, parts
        # per chunk profile -> the split of the two GPU passes
        chunks_per_worker = k.npartitions / len(workers)
        p = np.mean([[v["upload_s"], v["sort_s"], v["download_s"]] for v in prof.values()], axis=0)
        gpu_pass = chunks_per_worker * (p[0] + p[1] + p[2])
        split = {
            "sampling_s": times["sampling_s"],
            "partition_s": times["partition_s"],
            "host_gpu_transfer_s": 2 * chunks_per_worker * (p[0] + p[2]),
            "gpu_sort_s": 2 * chunks_per_worker * p[1],
            "worker_exchange_and_overhead_s": max(0.0, times["local_sort_s"] + times["partition_sort_s"] - 2 * gpu_pass),
        }
        # verification against the host data (only sums and order: no 2 x m bytes gathered)
        host = keys.compute(scheduler="threads", num_workers=ncpu)
        ok = (sum(s["n"] for s in stats) == m and all(s["sorted"] for s in stats)
              and all(a["last"] <= b["first"] for a, b in zip([s for s in stats if s["n"]], [s for s in stats if s["n"]][1:]))
              and (sum(s["sum"] for s in stats), sum(s["sumsq"] for s in stats) % 2**64) == host_sums(host))
        out = {"n": m, "chunks": k.npartitions, "partitions": len(stats), "times": times, "split": split,
               "chunk_profile": prof, "verified": bool(ok),
               "partition_sizes": [s["n"] for s in stats],
               "Gkeys_per_s_end_to_end": m / times["end_to_end_s"] / 1e9}
        result["stages"]["sort"] = out
        save()  # the GPU figures are kept even if the host reference runs out of time
        # np.sort of the whole when it fits the time left (estimated from a 2^26 slice), else
        # the slice's rate extrapolated (n log n) and said so
        small = min(m, 2**26)
        t = time.perf_counter()
        np.sort(host[:small])
        t_small = time.perf_counter() - t
        estimate = t_small * (m / small) * np.log2(max(m, 2)) / np.log2(max(small, 2))
        if elapsed() + estimate < args.hard_limit:
            t = time.perf_counter()
            ref = np.sort(host)
            out["np_sort_s"] = time.perf_counter() - t
            out["np_sort_how"] = f"np.sort of all {m} keys, one thread"
            if quick:
                out["equal_to_np_sort"] = bool(np.array_equal(wd.sort(k).compute(), ref))
        else:
            out["np_sort_s"] = estimate
            out["np_sort_how"] = f"estimated from np.sort of {small} keys ({t_small:.2f} s) times (n log n) ratio: the whole did not fit the time left"
            result["skipped"].append("np.sort of the whole sort input (estimated instead)")
        out["np_sort_Gkeys_per_s"] = m / out["np_sort_s"] / 1e9
        client.cancel(k)
        log(f"sort: {times}")
        return out

    stage("sort", gpu_sort)
    result["total_s"] = elapsed()
    report(result)
    save()
    client.close()
    cluster.close()
    return 0 if not result["errors"] else 1


def report(r) -> None:
    """The table printed at the end (the JSON has everything)."""
    s = r["stages"]
    print("\n=== wgprim.dask benchmark", r["date_utc"], "quick" if r["quick"] else "", "===")
    print("adapters:", r["adapters"])
    for w, info in r.get("workers", {}).items():
        print(f"  worker {w}: WGPRIM_ADAPTER={info['adapter_env']} {info['summary']}")
    bw = s.get("bandwidth")
    if bw:
        print(f"\nhost<->GPU bandwidth, {bw['alone'][next(iter(bw['alone']))]['bytes'] >> 20} MiB pageable chunk (best GB/s):")
        print(f"  {'worker':28s} {'write_buffer':>12s} {'asarray':>9s} {'read_buffer':>11s} {'write (all at once)':>20s}"
              f" {'staged write':>12s} {'staged read':>11s}")
        for w, v in bw["alone"].items():
            tog = bw["together"].get(w, {}).get("upload", {}).get("best_GBps", float("nan"))
            print(f"  {w:28s} {v['write_buffer']['best_GBps']:12.2f} {v['asarray']['best_GBps']:9.2f} "
                  f"{v['read_buffer']['best_GBps']:11.2f} {tog:20.2f} {v['staged_write']['best_GBps']:12.2f} "
                  f"{v['staged_read']['best_GBps']:11.2f}")
    n_bytes = r["sizes"]["n_bytes"]
    print(f"\nhistogram (256 bins) and sum of {r['sizes']['n']} f32 ({n_bytes / GiB:.1f} GiB) in host memory, best of runs:")
    print(f"  {'':24s} {'histogram s':>11s} {'GB/s':>7s} {'sum s':>8s} {'GB/s':>7s}")
    rows = [("1 GPU worker", s.get("gpu_one")), (f"{len(r.get('workers', {}))} GPU workers", s.get("gpu_all")),
            (f"dask numpy, {r['cpu_count']} threads", s.get("cpu"))]
    for label, v in rows:
        if v:
            print(f"  {label:24s} {v['histogram']['best_s']:11.3f} {v['histogram']['GBps']:7.2f} {v['sum']['best_s']:8.3f} {v['sum']['GBps']:7.2f}")
    if s.get("gpu_one") and s.get("gpu_all"):
        for op in ("histogram", "sum"):
            print(f"  {op}: all GPUs {s['gpu_one'][op]['best_s'] / s['gpu_all'][op]['best_s']:.2f}x faster than 1"
                  + (f", {s['cpu'][op]['best_s'] / s['gpu_all'][op]['best_s']:.2f}x faster than dask on the CPUs" if s.get("cpu") else ""))
    for label, v in rows[:2]:
        if v:
            for w, sh in v["histogram"]["per_worker"].items():
                frac = sh["fraction_of_write_buffer_alone"]
                print(f"  {label}, histogram, worker {w}: {sh['bytes'] / 2**20:.0f} MiB, busy {sh['busy_s']:.3f} s, "
                      f"{sh['GBps_busy'] or 0:.2f} GB/s = {100 * (frac or 0):.0f}% of its upload bandwidth")
    targets = []
    for op in ("histogram", "sum"):
        if s.get("gpu_one") and s.get("gpu_all"):
            speedup = s["gpu_one"][op]["best_s"] / s["gpu_all"][op]["best_s"]
            targets.append((f"{op}: all GPUs >= 1.8x faster than 1 ({speedup:.2f}x)", speedup >= 1.8))
        if s.get("cpu") and s.get("gpu_all"):
            ratio = s["cpu"][op]["best_s"] / s["gpu_all"][op]["best_s"]
            targets.append((f"{op}: faster than dask on {r['cpu_count']} CPU threads ({ratio:.2f}x)", ratio > 1))
        for label, key in (("1 GPU", "gpu_one"), ("all GPUs", "gpu_all")):
            for w, sh in (s.get(key) or {}).get(op, {}).get("per_worker", {}).items():
                frac = sh["fraction_of_write_buffer_alone"]
                if frac is not None:
                    targets.append((f"{op}, {label}, worker {w}: >= 80% of its upload bandwidth ({100 * frac:.0f}%)", frac >= 0.8))
    if targets:
        print("\ntargets:")
        for text, ok in targets:
            print(f"  {'PASS' if ok else 'FAIL'}  {text}")
    r["targets"] = [{"target": text, "met": ok} for text, ok in targets]
    if s.get("cpu") and "equal_to_gpu" in s["cpu"]["histogram"]:
        print(f"  histogram counts equal to dask.array.histogram's: {s['cpu']['histogram']['equal_to_gpu']}")
    so = s.get("sort")
    if so:
        t = so["times"]
        print(f"\nsort of {so['n']} u32 ({so['n'] * 4 / GiB:.1f} GiB) on {len(r.get('workers', {}))} GPU workers, "
              f"{so['chunks']} chunks -> {so['partitions']} partitions, verified: {so['verified']}")
        print(f"  end to end {t['end_to_end_s']:.2f} s = {so['Gkeys_per_s_end_to_end']:.3f} Gkeys/s"
              + (f"; np.sort on the host {so['np_sort_s']:.2f} s = {so['np_sort_Gkeys_per_s']:.3f} Gkeys/s ({so['np_sort_how']})" if "np_sort_s" in so else ""))
        print(f"  stages: local sort {t['local_sort_s']:.2f} s, sampling {t['sampling_s']:.2f} s, partition "
              f"{t['partition_s']:.2f} s, partition sort {t['partition_sort_s']:.2f} s (total {t['total_staged_s']:.2f} s)")
        sp = so["split"]
        print(f"  split: sampling {sp['sampling_s']:.2f} s, partition {sp['partition_s']:.2f} s, host<->GPU transfer "
              f"{sp['host_gpu_transfer_s']:.2f} s, GPU sort {sp['gpu_sort_s']:.2f} s, worker exchange + overhead "
              f"{sp['worker_exchange_and_overhead_s']:.2f} s (transfer and sort from a per-chunk profile)")
    for name in r["skipped"]:
        print("  skipped:", name)
    for name, err in r["errors"].items():
        print(f"  ERROR in {name}: {err.strip().splitlines()[-1]}")
    print(f"total {r.get('total_s', 0):.1f} s")


if __name__ == "__main__":
    sys.exit(main())
