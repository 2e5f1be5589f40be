"""What a repeated call finds instead of making it again, per device: building blocks
(`lookup`: recorders, sorters), parameter buffers (per values) and bind groups (per pipeline
and bound buffers), each a bounded LRU (lru.py); a bind group is forgotten when the memory
pool destroys a buffer it binds. All three, and the staging buffers of large copies, are
dropped by the pool's free_all_blocks (`watch_pool`), which also counts the parameter and
staging buffers' bytes (they are not the pool's)."""
from __future__ import annotations

import weakref

import numpy as np

from wgprim import transfer
from wgprim.device import Device
from wgprim.memory import pool_of

LOOKUP_SIZE = 512  # building blocks kept per device
PARAMS_CACHE_SIZE = 16384  # parameter buffers kept per device
PARAMS_CACHE_BYTES = 1 << 20  # ... holding at most this many bytes together
BIND_GROUP_CACHE_SIZE = 8192  # bind groups kept per device (they hold no memory of their own)


def watch_pool(device: Device) -> None:
    """Register with the device's memory pool, once: its free_all_blocks drops the building
    blocks, parameter buffers, bind groups and staging buffers kept here (a call after it
    makes them again), and its accounting counts the parameter and staging bytes."""
    pool = pool_of(device)
    if "caches" in pool.releasers:
        return
    params = device.lru("params", PARAMS_CACHE_SIZE)
    params.max_bytes = PARAMS_CACHE_BYTES
    pool.outside["parameter_bytes"] = lambda: params.bytes
    pool.outside["staging_bytes"] = lambda: transfer.staging_bytes(device)
    pool.releasers["caches"] = lambda: _release(device)


def _release(device: Device) -> None:
    table, index = _bind_groups(device)
    with table.lock:
        table.clear()
        index.clear()
    device.lru("lookup", LOOKUP_SIZE).clear()
    device.lru("params", PARAMS_CACHE_SIZE).clear()  # dropped, not destroyed: a live plan's steps may bind one
    transfer.drop_stages(device)


def lookup(device: Device, key: tuple, make):
    """What `make()` builds for `key` on `device` (a recorder, a sorter: anything whose
    construction depends only on the key), built on the first call with that key and kept
    in a bounded LRU of LOOKUP_SIZE entries per device. Thread-safe: two threads asking for
    a new key at once may both build it; one result is kept. This is the lookup of a call's
    path: a repeated one-shot call finds what the first one built."""
    table = device.lru("lookup", LOOKUP_SIZE)
    found = table.get(key)
    if found is not None:
        return found
    watch_pool(device)
    return table.keep(key, make())


def params_buffer(device: Device, values: tuple):
    """A uniform buffer holding `values` as u32, made and written once per distinct values
    and kept (LRU; an evicted one is dropped, not destroyed: cached bind groups may hold
    it): a step's parameters depend only on its call's shape, so a repeated call binds the
    same buffer. Never written again, so sharing it is safe."""
    table = device.lru("params", PARAMS_CACHE_SIZE)
    buffer = table.get(values)
    if buffer is not None:
        return buffer
    watch_pool(device)
    import wgpu

    data = np.zeros(-(-max(len(values), 1) // 4) * 4, np.uint32)
    data[: len(values)] = np.asarray(values, dtype=np.int64).astype(np.uint32)
    buffer = device.device.create_buffer(size=data.nbytes, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
    transfer.write(device, buffer, 0, data)
    return table.keep(values, buffer, data.nbytes)


def _layout(device: Device, pipeline):
    """The pipeline's bind group layout, asked of wgpu once per pipeline while it lives."""
    layouts = device.cache("layouts").get("by pipeline")
    if layouts is None:
        layouts = device.cache("layouts").setdefault("by pipeline", weakref.WeakKeyDictionary())
    found = layouts.get(pipeline)
    if found is None:
        found = layouts[pipeline] = pipeline.get_bind_group_layout(0)
    return found


def _bind_groups(device: Device):
    """The device's bind groups (LRU) and their index by buffer (id -> keys binding it):
    the pool's destroying a buffer forgets the bind groups that bind it."""
    index = device.cache("bind groups by buffer")

    def evicted(key, _group):
        unindex(index, key, {id(e[1]) for e in key[1]})

    table = device.lru("bind groups", BIND_GROUP_CACHE_SIZE, evicted)
    with table.lock:
        if "forget" not in device.cache("memory"):
            device.cache("memory")["forget"] = True
            pool_of(device).on_destroy.append(lambda buffer: _forget_bind_groups(device, buffer))
            watch_pool(device)
    return table, index


def bind_group(device: Device, pipeline, entries: tuple):
    """The bind group of `pipeline` for `entries` ((binding, buffer, offset, size), sorted),
    made once per distinct entries and kept (LRU; forgotten when the memory pool destroys a
    buffer it binds)."""
    table, index = _bind_groups(device)
    key = (pipeline, entries)
    found = table.get(key)
    if found is not None:
        return found
    descriptor = [{"binding": b, "resource": {"buffer": buf, "offset": off, "size": size}}
                  for b, buf, off, size in entries]
    made = device.device.create_bind_group(layout=_layout(device, pipeline), entries=descriptor)
    with table.lock:
        if key not in table:
            for e in entries:
                index.setdefault(id(e[1]), set()).add(key)
        return table.keep(key, made)


def _forget_bind_groups(device: Device, buffer) -> None:
    table, index = _bind_groups(device)
    with table.lock:
        for key in list(index.get(id(buffer), ())):
            if table.pop(key) is not None:
                unindex(index, key, {id(e[1]) for e in key[1]})
        index.pop(id(buffer), None)


def unindex(index: dict, key, ids) -> None:
    """Take `key` out of the sets of a by-buffer index (id(buffer) -> keys binding it)."""
    for i in ids:
        keys = index.get(i)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del index[i]
