"""Host <-> GPU copies: the one place wgprim moves bytes between numpy and a GPU buffer.

Small writes use the queue's own `write_buffer`; small reads a MAP_READ buffer of the memory
pool (wgprim/memory.py), copied into and mapped. Large ones go through
staging buffers kept per device (STAGES of STAGE_BYTES each, mapped and unmapped, never
reallocated) with the host side of each chunk copied by several threads, while the GPU
copies the previous chunk. `write_buffer`/`read_buffer` allocate a staging buffer of the
whole size on every call and copy it on one thread. Measured on an H200 (Vulkan,
2026-12-01, 256 MiB of pageable memory, best of 4; benchmarks/transfer_h200.py,
benchmarks/transfer-h200-2026-12-01.json): write_buffer 4.4 GB/s, read_buffer 1.1 GB/s;
staged with 64 MiB stages and 8 threads 23.5 GB/s up, 13.3 GB/s down (8 MiB stages: 10.8
/ 5.1; one thread: 9.8 / 3.8).

Ordering is the queue's, as `write_buffer`'s: a write is in the queue before any later
submit; a read waits for everything submitted before it.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from wgprim import native
from wgprim.memory import pool_of

STAGED_FROM = 16 << 20  # bytes; smaller copies take the queue's one-call path
STAGE_BYTES = 64 << 20
STAGES = 2
SLICE_BYTES = 4 << 20  # the least host copy one thread takes
THREADS = max(1, min(8, os.cpu_count() or 1))
_threads: tuple[int, ThreadPoolExecutor] | None = None  # (THREADS it was made for, pool)
_staging_lock = threading.Lock()  # guards the thread pool's and the staging locks' creation


def _pool() -> ThreadPoolExecutor:
    global _threads
    with _staging_lock:
        if _threads is None or _threads[0] != THREADS:
            _threads = (THREADS, ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="wgprim-copy"))
        return _threads[1]


def _parallel_copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[:] = src (1-D uint8), in slices on several threads (numpy drops the GIL)."""
    n = src.size
    parts = max(1, min(THREADS, n // SLICE_BYTES))
    if parts == 1:
        np.copyto(dst, src)
        return
    edges = [n * i // parts for i in range(parts + 1)]
    pool = _pool()
    futures = [pool.submit(np.copyto, dst[edges[i]:edges[i + 1]], src[edges[i]:edges[i + 1]]) for i in range(parts)]
    try:
        for future in futures:
            future.result()
    except BaseException:
        # Interrupted (Ctrl-C): the threads still copy into memory that the caller unmaps
        # next, so they finish first.
        while True:
            try:
                wait(futures)
                break
            except KeyboardInterrupt:
                continue
        raise


def _user(device, kind: str) -> threading.Lock:
    """The lock of the device's `kind` staging buffers: one staged copy at a time uses them
    (threads of one process, e.g. Dask's threaded scheduler, share the device)."""
    with _staging_lock:
        return device.cache("wgprim staging locks").setdefault(kind, threading.Lock())


def _stages(device, kind: str):
    """The device's staging buffers for `kind` ("up" or "down"), made on first use."""
    import wgpu

    cache = device.cache("wgprim staging")
    key = (kind, STAGE_BYTES, STAGES)
    if key not in cache:
        for old in [k for k in cache if k[0] == kind]:  # sizes changed (tests): drop the old ones
            for b in cache.pop(old):
                b.destroy()
        usage = (wgpu.BufferUsage.MAP_WRITE | wgpu.BufferUsage.COPY_SRC if kind == "up"
                 else wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
        cache[key] = [device.device.create_buffer(size=STAGE_BYTES, usage=usage, label=f"wgprim staging {kind}")
                      for _ in range(STAGES)]
    return cache[key]


def _as_bytes(data) -> np.ndarray:
    return np.ascontiguousarray(data).reshape(-1).view(np.uint8)


def write(device, buffer, offset: int, data) -> None:
    """Copy host `data` (numpy array or bytes; a multiple of 4 bytes) into `buffer` at `offset`."""
    src = _as_bytes(np.frombuffer(data, np.uint8) if isinstance(data, (bytes, bytearray)) else data)
    queue = device.device.queue
    if src.nbytes < STAGED_FROM:
        queue.write_buffer(buffer, int(offset), src)
        return
    with _user(device, "up"):
        _write_staged(device, buffer, int(offset), src)


def _write_staged(device, buffer, offset: int, src: np.ndarray) -> None:
    import wgpu

    queue = device.device.queue
    stages = _stages(device, "up")
    for i, start in enumerate(range(0, src.nbytes, STAGE_BYTES)):
        chunk = src[start:start + STAGE_BYTES]
        stage = stages[i % STAGES]
        native.map_now(stage, wgpu.MapMode.WRITE, 0, STAGE_BYTES)  # waits until its last copy has run
        try:
            mapped = np.frombuffer(stage._experimental_get_mapped_range(0, chunk.nbytes), np.uint8)
            _parallel_copy(mapped, chunk)
            del mapped
        finally:  # also when interrupted: the next copy maps it again
            native.unmap_now(stage)
        encoder = device.device.create_command_encoder()
        encoder.copy_buffer_to_buffer(stage, 0, buffer, offset + start, chunk.nbytes)
        queue.submit([encoder.finish()])


def read(device, buffer, offset: int, nbytes: int) -> np.ndarray:
    """`nbytes` of `buffer` from `offset`, as a new uint8 numpy array, once everything
    submitted before has run. Small reads copy into a MAP_READ buffer from the memory pool
    (kept, not made and destroyed per read as queue.read_buffer does: 148 against 176 us
    for 4 bytes on an H200)."""
    if nbytes < STAGED_FROM:
        import wgpu

        pool = pool_of(device)
        stage = pool.take(-(-int(nbytes) // 4) * 4, wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
        try:
            return np.frombuffer(bytearray(native.read_through(device, buffer, int(offset), int(nbytes), stage)), np.uint8)
        finally:
            pool.give_back(stage)
    with _user(device, "down"):
        return _read_staged(device, buffer, int(offset), int(nbytes))


def map_staged(stage, nbytes: int) -> bytes:
    """The first `nbytes` of a MAP_READ buffer a submitted copy fills (a small result
    staged by the submit that made it, program.Program.run(stage=...)): one map, which
    waits for that submit."""
    return native.map_read(stage, nbytes)


def _read_staged(device, buffer, offset: int, nbytes: int) -> np.ndarray:
    import wgpu

    queue = device.device.queue
    out = np.empty(nbytes, np.uint8)
    stages = _stages(device, "down")
    starts = list(range(0, nbytes, STAGE_BYTES))

    def submit_copy(i: int) -> None:
        size = min(STAGE_BYTES, nbytes - starts[i])
        encoder = device.device.create_command_encoder()
        encoder.copy_buffer_to_buffer(buffer, offset + starts[i], stages[i % STAGES], 0, size)
        queue.submit([encoder.finish()])

    for i in range(min(STAGES, len(starts))):
        submit_copy(i)
    for i, start in enumerate(starts):
        size = min(STAGE_BYTES, nbytes - start)
        stage = stages[i % STAGES]
        native.map_now(stage, wgpu.MapMode.READ, 0, STAGE_BYTES)
        try:
            view = np.frombuffer(stage.read_mapped(0, size, copy=False), np.uint8)
            _parallel_copy(out[start:start + size], view)
            del view
        finally:
            native.unmap_now(stage)
        if i + STAGES < len(starts):  # the stage is free again: its next chunk's copy
            submit_copy(i + STAGES)
    return out
