"""The floor of a call through wgpu-py on this card: what one submit, one bind group, one
map and one readback cost, each the median of many after a warm-up, in one process.

    PYTHONPATH=src python benchmarks/callpath_h200.py [--json out.json] [--calls]

Rows (microseconds):
- submit_empty: an encoder finished and submitted with nothing in it;
- dispatch1 / dispatch16: an encoder, one compute pass with 1 (16) dispatches of a tiny
  kernel, finish, submit, through wgpu-py's objects; *_raw: the same calls made on wgpu-native
  directly (the handles wgpu-py holds), without wgpu-py's wrappers and error capture;
- bind_group: create_bind_group with three buffer entries; layout: get_bind_group_layout(0);
- write16: queue.write_buffer of 16 bytes;
- buffer_64MiB / buffer_1GiB: create_buffer then destroy;
- read4_queue: queue.read_buffer of 4 bytes (a MAP_READ buffer made and destroyed each time);
- read4_kept_*: a copy of 4 bytes into one kept MAP_READ buffer, submitted, mapped, read,
  unmapped: waiting on wgpu-py's poll thread (event), by blocking polls on the calling thread
  (poll), or by non-blocking polls in a loop (spin);
- dispatch_read4_*: one dispatch and that copy in one submit, then the map (what
  `sum(x).item()` cannot go below).
With --calls, also wall time per call of a few one-shot primitives as the library makes them
(call: 100 calls back to back then one read; latency: one call then a read of its result);
with --phases, where such a call's time goes (phase_rows).
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import statistics
import sys
import time

import numpy as np

KERNEL = """
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(0) @binding(2) var<uniform> p: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < p.x) { b[g.x] = a[g.x] + 1u; }
}
"""


SCALE = float(os.environ.get("CALLPATH_SCALE", "1"))  # fewer repeats on a slow adapter


def median_us(fn, repeat: int = 300, warm: int = 30) -> float:
    repeat, warm = max(3, int(repeat * SCALE)), max(1, int(warm * SCALE))
    for _ in range(warm):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def floor_rows() -> dict:
    import wgpu
    from wgpu.backends.wgpu_native import _api
    from wgpu.backends.wgpu_native._ffi import ffi, lib

    dev = wgpu.utils.get_default_device()
    q = dev.queue
    U = wgpu.BufferUsage
    a = dev.create_buffer(size=4096, usage=U.STORAGE | U.COPY_SRC | U.COPY_DST)
    b = dev.create_buffer(size=4096, usage=U.STORAGE | U.COPY_SRC | U.COPY_DST)
    p = dev.create_buffer(size=16, usage=U.UNIFORM | U.COPY_DST)
    q.write_buffer(p, 0, np.array([64, 0, 0, 0], np.uint32))
    mod = dev.create_shader_module(code=KERNEL)
    pipe = dev.create_compute_pipeline(layout="auto", compute={"module": mod, "entry_point": "main"})
    layout = pipe.get_bind_group_layout(0)
    entries = [{"binding": 0, "resource": {"buffer": a, "offset": 0, "size": 4096}},
               {"binding": 1, "resource": {"buffer": b, "offset": 0, "size": 4096}},
               {"binding": 2, "resource": {"buffer": p, "offset": 0, "size": 16}}]
    bg = dev.create_bind_group(layout=layout, entries=entries)
    staging = dev.create_buffer(size=256, usage=U.MAP_READ | U.COPY_DST)
    rows = {}

    def submit_empty():
        enc = dev.create_command_encoder()
        q.submit([enc.finish()])

    def dispatches(k):
        def run():
            enc = dev.create_command_encoder()
            cp = enc.begin_compute_pass()
            for _ in range(k):
                cp.set_pipeline(pipe)
                cp.set_bind_group(0, bg)
                cp.dispatch_workgroups(1, 1, 1)
            cp.end()
            q.submit([enc.finish()])
        return run

    dev_h, q_h, pipe_h, bg_h = dev._internal, q._internal, pipe._internal, bg._internal
    cb_array = ffi.new("WGPUCommandBuffer[1]")

    def raw_dispatches(k):
        def run():
            enc = lib.wgpuDeviceCreateCommandEncoder(dev_h, ffi.NULL)
            cp = lib.wgpuCommandEncoderBeginComputePass(enc, ffi.NULL)
            for _ in range(k):
                lib.wgpuComputePassEncoderSetPipeline(cp, pipe_h)
                lib.wgpuComputePassEncoderSetBindGroup(cp, 0, bg_h, 0, ffi.NULL)
                lib.wgpuComputePassEncoderDispatchWorkgroups(cp, 1, 1, 1)
            lib.wgpuComputePassEncoderEnd(cp)
            lib.wgpuComputePassEncoderRelease(cp)
            cb = lib.wgpuCommandEncoderFinish(enc, ffi.NULL)
            cb_array[0] = cb
            lib.wgpuQueueSubmit(q_h, 1, cb_array)
            lib.wgpuCommandBufferRelease(cb)
            lib.wgpuCommandEncoderRelease(enc)
        return run

    rows["submit_empty"] = median_us(submit_empty)
    rows["dispatch1"] = median_us(dispatches(1))
    rows["dispatch16"] = median_us(dispatches(16))
    rows["dispatch1_raw"] = median_us(raw_dispatches(1))
    rows["dispatch16_raw"] = median_us(raw_dispatches(16))
    dev._poll_wait()
    rows["bind_group"] = median_us(lambda: dev.create_bind_group(layout=layout, entries=entries))
    rows["layout"] = median_us(lambda: pipe.get_bind_group_layout(0))
    data16 = np.arange(4, dtype=np.uint32)
    rows["write16"] = median_us(lambda: q.write_buffer(p, 0, data16))

    def make(size):
        def run():
            buf = dev.create_buffer(size=size, usage=U.STORAGE | U.COPY_SRC | U.COPY_DST)
            buf.destroy()
        return run

    rows["buffer_64MiB"] = median_us(make(64 << 20), repeat=30, warm=3)
    rows["buffer_1GiB"] = median_us(make(1 << 30), repeat=10, warm=2)
    dev._poll_wait()
    rows["read4_queue"] = median_us(lambda: q.read_buffer(b, 0, 4))

    def wait_event(promise):
        promise.sync_wait()

    def wait_poll(promise):
        while not promise._thread_event.is_set():
            dev._poll_wait()
        promise.sync_wait()

    def wait_spin(promise):
        while not promise._thread_event.is_set():
            dev._poll(False)
        promise.sync_wait()

    def read_kept(wait, dispatch: bool):
        def run():
            enc = dev.create_command_encoder()
            if dispatch:
                cp = enc.begin_compute_pass()
                cp.set_pipeline(pipe)
                cp.set_bind_group(0, bg)
                cp.dispatch_workgroups(1, 1, 1)
                cp.end()
            enc.copy_buffer_to_buffer(b, 0, staging, 0, 4)
            q.submit([enc.finish()])
            wait(staging.map_async("READ_NOSYNC", 0, 256))
            value = bytes(staging.read_mapped(0, 4, copy=False))
            staging.unmap()
            return value
        return run

    for name, wait in (("event", wait_event), ("poll", wait_poll), ("spin", wait_spin)):
        rows[f"read4_kept_{name}"] = median_us(read_kept(wait, False))
        rows[f"dispatch_read4_{name}"] = median_us(read_kept(wait, True))
    return rows


def first(result):
    """The first element of a result on the host (a scalar result: .item())."""
    from wgprim import transfer

    if result.size <= 1:
        return result.item() if result.size else None
    return transfer.read(result.device, result.buffer, 0, 4)


def call_rows() -> dict:
    import wgprim

    rng = np.random.default_rng(0)
    rows = {}
    top = int(os.environ.get("CALLPATH_MAX_N", 1 << 24))
    for n in [s for s in (1 << 10, 1 << 16, 1 << 20, 1 << 24) if s <= top]:
        x = wgprim.asarray(rng.standard_normal(n).astype(np.float32))
        u = wgprim.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
        m = wgprim.asarray(rng.random(n) < 0.5)
        calls = {"sum": lambda: wgprim.sum(x), "cumsum": lambda: wgprim.cumsum(x),
                 "sort": lambda: wgprim.sort(u), "compact": lambda: wgprim.compact(x, m)}
        for name, fn in calls.items():
            for _ in range(5):
                fn()
            first(fn())
            k = 100 if n <= 1 << 20 else 20
            t = time.perf_counter()
            for _ in range(k):
                r = fn()
            first(r)
            rows[f"{name}_call_{n}"] = (time.perf_counter() - t) / k * 1e3
            lat = []
            for _ in range(20):
                t = time.perf_counter()
                first(fn())
                lat.append(time.perf_counter() - t)
            rows[f"{name}_latency_{n}"] = statistics.median(lat) * 1e3
            print(f"{name:8s} n={n:<9d} call {rows[f'{name}_call_{n}']:.4f} ms  latency "
                  f"{rows[f'{name}_latency_{n}']:.4f} ms", flush=True)
    return rows


def phase_rows() -> dict:
    """Where a call's wall time goes, per call (us): `python` with submits and maps made
    no-ops (the front door, lookups, recording lookup, pool), then for real calls the time
    inside wgpu-native's encode + submit (`submit`), inside the wait for a mapped read
    (`map`), and the whole call (`total`, each call waiting for its result as a user's
    `.item()` or a compaction's count does)."""
    import wgprim
    from wgprim import native

    rng = np.random.default_rng(1)
    rows = {}
    real_submit, real_map = native.submit_steps, native.map_read
    spent = {"submit": 0.0, "map": 0.0}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t
        return wrapper

    cases = []
    for n in (1 << 16, 1 << 20, 1 << 24, 1 << 28):
        if n > int(os.environ.get("CALLPATH_MAX_N", 1 << 28)):
            continue
        x = wgprim.asarray(rng.standard_normal(n).astype(np.float32))
        m = wgprim.asarray(rng.random(n) < 0.5)
        cases += [(f"sum_item_{n}", lambda x=x: wgprim.sum(x).item()),
                  (f"cumsum_{n}", lambda x=x: first(wgprim.cumsum(x))),
                  (f"compact_{n}", lambda x=x, m=m: wgprim.compact(x, m)),
                  (f"histogram_range_{n}", lambda x=x: first(wgprim.histogram(x, 256, range=(-4, 4))[0]))]
    for name, fn in cases:
        for _ in range(5):
            fn()
        k = 50
        native.submit_steps = lambda *a, **kw: None
        native.map_read = lambda buffer, nbytes: bytes(-(-nbytes // 4) * 4)
        try:
            t = time.perf_counter()
            for _ in range(k):
                fn()
            python = (time.perf_counter() - t) / k
        finally:
            native.submit_steps, native.map_read = timed("submit", real_submit), timed("map", real_map)
        spent.update(submit=0.0, map=0.0)
        try:
            t = time.perf_counter()
            for _ in range(k):
                fn()
            total = (time.perf_counter() - t) / k
        finally:
            native.submit_steps, native.map_read = real_submit, real_map
        rows[name] = {"python_us": python * 1e6, "submit_us": spent["submit"] / k * 1e6,
                      "map_us": spent["map"] / k * 1e6, "total_us": total * 1e6}
        print(f"{name:24s} " + "  ".join(f"{key} {v:8.1f}" for key, v in rows[name].items()), flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--calls", action="store_true")
    ap.add_argument("--phases", action="store_true")
    args = ap.parse_args(argv)
    faulthandler.dump_traceback_later(float(os.environ.get("CALLPATH_WATCHDOG", "240")), exit=True)
    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "floor_us": floor_rows()}
    for k, v in out["floor_us"].items():
        print(f"{k:24s} {v:10.1f} us", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if args.calls:
        out["calls_ms"] = call_rows()
    if args.phases:
        out["phases_us"] = phase_rows()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
