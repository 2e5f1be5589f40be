"""Host <-> GPU copies: the one place wgprim moves bytes between numpy and a GPU buffer.

Small writes use the queue's own `write_buffer`; small reads a MAP_READ buffer of the memory
pool (wgprim/memory.py), copied into and mapped. Large ones go through
staging buffers kept per device (TransferPolicy.stages of stage_bytes each, mapped and unmapped, never
reallocated) with the host side of each chunk copied by several threads, while the GPU
copies the previous chunk. `write_buffer`/`read_buffer` allocate a staging buffer of the
whole size on every call and copy it on one thread: the staged path measured 5x
faster up and 12x down on an H200 (docs/design.md). Its shape is a TransferPolicy
(wgprim.tuning).

Ordering is the queue's, as `write_buffer`'s: a write is in the queue before any later
submit; a read waits for everything submitted before it.
"""
from __future__ import annotations

import dataclasses
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from wgprim import native
from wgprim.memory import pool_of
from wgprim.tuning import policy


@dataclasses.dataclass(frozen=True)
class TransferPolicy:
    """The shape of large copies (wgprim.tuning)."""
    staged_from: int = 16 << 20  # bytes; smaller copies take the queue's one-call path
    stage_bytes: int = 64 << 20
    stages: int = 2
    slice_bytes: int = 4 << 20  # the least host copy one thread takes
    threads: int = max(1, min(8, os.cpu_count() or 1))


STAGED_FROM = TransferPolicy.staged_from  # the shipped threshold (tests size their inputs by it)
_threads: tuple[int, ThreadPoolExecutor] | None = None  # (threads it was made for, pool)
_staging_lock = threading.Lock()  # guards the thread pool's and the staging locks' creation


def _pool(threads: int) -> ThreadPoolExecutor:
    global _threads
    with _staging_lock:
        if _threads is None or _threads[0] != threads:
            _threads = (threads, ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wgprim-copy"))
        return _threads[1]


def _parallel_copy(dst: np.ndarray, src: np.ndarray, shape: TransferPolicy) -> None:
    """dst[:] = src (1-D uint8), in slices on several threads (numpy drops the GIL)."""
    n = src.size
    parts = max(1, min(shape.threads, n // shape.slice_bytes))
    if parts == 1:
        np.copyto(dst, src)
        return
    edges = [n * i // parts for i in range(parts + 1)]
    pool = _pool(shape.threads)
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


def staging_bytes(device) -> int:
    """Bytes of the device's staging buffers (memory_stats' staging_bytes)."""
    return sum(b.size for stages in list(device.cache("wgprim staging").values()) for b in stages)


def drop_stages(device) -> None:
    """Destroy the device's staging buffers (empty_cache); the next large copy makes new ones."""
    cache = device.cache("wgprim staging")
    for key in list(cache):
        with _user(device, key[0]):  # none is mapped or being filled now
            for buffer in cache.pop(key, ()):
                buffer.destroy()


def _stages(device, kind: str, shape: TransferPolicy):
    """The device's staging buffers for `kind` ("up" or "down"), made on first use."""
    import wgpu

    cache = device.cache("wgprim staging")
    key = (kind, shape.stage_bytes, shape.stages)
    if key not in cache:
        for old in [k for k in cache if k[0] == kind]:  # sizes changed (tests): drop the old ones
            for b in cache.pop(old):
                b.destroy()
        usage = (wgpu.BufferUsage.MAP_WRITE | wgpu.BufferUsage.COPY_SRC if kind == "up"
                 else wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
        cache[key] = [device.device.create_buffer(size=shape.stage_bytes, usage=usage, label=f"wgprim staging {kind}")
                      for _ in range(shape.stages)]
    return cache[key]


def _as_bytes(data) -> np.ndarray:
    return np.ascontiguousarray(data).reshape(-1).view(np.uint8)


def write(device, buffer, offset: int, data) -> None:
    """Copy host `data` (numpy array or bytes; a multiple of 4 bytes) into `buffer` at `offset`."""
    src = _as_bytes(np.frombuffer(data, np.uint8) if isinstance(data, (bytes, bytearray)) else data)
    queue, shape = device.device.queue, policy(TransferPolicy)
    if src.nbytes < shape.staged_from:
        queue.write_buffer(buffer, int(offset), src)
        return
    with _user(device, "up"):
        _write_staged(device, buffer, int(offset), src, shape)


def _write_staged(device, buffer, offset: int, src: np.ndarray, shape: TransferPolicy) -> None:
    import wgpu

    queue, step = device.device.queue, shape.stage_bytes
    stages = _stages(device, "up", shape)
    for i, start in enumerate(range(0, src.nbytes, step)):
        chunk = src[start:start + step]
        stage = stages[i % shape.stages]
        native.map_now(stage, wgpu.MapMode.WRITE, 0, step)  # waits until its last copy has run
        try:
            mapped = np.frombuffer(stage._experimental_get_mapped_range(0, chunk.nbytes), np.uint8)
            _parallel_copy(mapped, chunk, shape)
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
    shape = policy(TransferPolicy)
    if nbytes < shape.staged_from:
        import wgpu

        pool = pool_of(device)
        stage = pool.take(-(-int(nbytes) // 4) * 4, wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
        try:
            return np.frombuffer(bytearray(native.read_through(device, buffer, int(offset), int(nbytes), stage)), np.uint8)
        finally:
            pool.give_back(stage)
    with _user(device, "down"):
        return _read_staged(device, buffer, int(offset), int(nbytes), shape)


def map_staged(stage, nbytes: int) -> bytes:
    """The first `nbytes` of a MAP_READ buffer a submitted copy fills (a small result
    staged by the submit that made it, program.Program.run(stage=...)): one map, which
    waits for that submit."""
    return native.map_read(stage, nbytes)


def _read_staged(device, buffer, offset: int, nbytes: int, shape: TransferPolicy) -> np.ndarray:
    import wgpu

    queue, step, count = device.device.queue, shape.stage_bytes, shape.stages
    out = np.empty(nbytes, np.uint8)
    stages = _stages(device, "down", shape)
    starts = list(range(0, nbytes, step))

    def submit_copy(i: int) -> None:
        size = min(step, nbytes - starts[i])
        encoder = device.device.create_command_encoder()
        encoder.copy_buffer_to_buffer(buffer, offset + starts[i], stages[i % count], 0, size)
        queue.submit([encoder.finish()])

    for i in range(min(count, len(starts))):
        submit_copy(i)
    for i, start in enumerate(starts):
        size = min(step, nbytes - start)
        stage = stages[i % count]
        native.map_now(stage, wgpu.MapMode.READ, 0, step)
        try:
            view = np.frombuffer(stage.read_mapped(0, size, copy=False), np.uint8)
            _parallel_copy(out[start:start + size], view, shape)
            del view
        finally:
            native.unmap_now(stage)
        if i + count < len(starts):  # the stage is free again: its next chunk's copy
            submit_copy(i + count)
    return out
