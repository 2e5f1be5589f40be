"""What a repeated call finds instead of making it again, per device: building blocks
(`lookup`: recorders, sorters), parameter buffers (per values) and bind groups (per pipeline
and bound buffers), each a bounded LRU; a bind group is forgotten when the memory pool
destroys a buffer it binds."""
from __future__ import annotations

import threading

import numpy as np

from wgprim import transfer
from wgprim.device import Device
from wgprim.memory import pool_of

LOOKUP_SIZE = 512
_lookup_lock = threading.Lock()


def lookup(device: Device, key: tuple, make):
    """What `make()` builds for `key` on `device` (a recorder, a sorter: anything whose
    construction depends only on the key), built on the first call with that key and kept
    in a bounded LRU of LOOKUP_SIZE entries per device. Thread-safe: two threads asking for
    a new key at once may both build it; one result is kept. This is the lookup of a call's
    path: a repeated one-shot call finds what the first one built."""
    table = device.cache("lookup")
    with _lookup_lock:
        found = table.get(key)
        if found is not None:
            table[key] = table.pop(key)  # most recently used last
            return found
    made = make()
    with _lookup_lock:
        table.setdefault(key, made)
        while len(table) > LOOKUP_SIZE:
            del table[next(iter(table))]
        return table[key]


PARAMS_CACHE_SIZE = 16384  # parameter buffers kept per device
BIND_GROUP_CACHE_SIZE = 8192  # bind groups kept per device
_cache_lock = threading.Lock()


def params_buffer(device: Device, values: tuple):
    """A uniform buffer holding `values` as u32, made and written once per distinct values
    and kept (LRU): a step's parameters depend only on its call's shape, so a repeated call
    binds the same buffer. Never written again, so sharing it is safe."""
    table = device.cache("params")
    with _cache_lock:
        buffer = table.pop(values, None)
        if buffer is not None:
            table[values] = buffer
            return buffer
    import wgpu

    data = np.zeros(-(-max(len(values), 1) // 4) * 4, np.uint32)
    data[: len(values)] = np.asarray(values, dtype=np.int64).astype(np.uint32)
    buffer = device.device.create_buffer(size=data.nbytes, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
    transfer.write(device, buffer, 0, data)
    with _cache_lock:
        buffer = table.setdefault(values, buffer)
        while len(table) > PARAMS_CACHE_SIZE:  # dropped, not destroyed: cached bind groups may hold it
            del table[next(iter(table))]
    return buffer


def _layout(device: Device, pipeline):
    layouts = device.cache("layouts")
    found = layouts.get(pipeline)
    if found is None:
        found = layouts[pipeline] = pipeline.get_bind_group_layout(0)
    return found


def bind_group(device: Device, pipeline, entries: tuple):
    """The bind group of `pipeline` for `entries` ((binding, buffer, offset, size), sorted),
    made once per distinct entries and kept (LRU; forgotten when the memory pool destroys a
    buffer it binds)."""
    table = device.cache("bind groups")
    key = (pipeline, entries)
    with _cache_lock:
        found = table.pop(key, None)
        if found is not None:
            table[key] = found
            return found
    descriptor = [{"binding": b, "resource": {"buffer": buf, "offset": off, "size": size}}
                  for b, buf, off, size in entries]
    made = device.device.create_bind_group(layout=_layout(device, pipeline), entries=descriptor)
    with _cache_lock:
        if "forget" not in device.cache("memory"):
            device.cache("memory")["forget"] = True
            pool_of(device).on_destroy.append(lambda buffer: _forget_bind_groups(device, buffer))
        index = device.cache("bind groups by buffer")
        if key not in table:
            for e in entries:
                index.setdefault(id(e[1]), set()).add(key)
        found = table.setdefault(key, made)
        while len(table) > BIND_GROUP_CACHE_SIZE:
            oldest = next(iter(table))
            del table[oldest]
            unindex(index, oldest, {id(e[1]) for e in oldest[1]})
    return found


def _forget_bind_groups(device: Device, buffer) -> None:
    table = device.cache("bind groups")
    index = device.cache("bind groups by buffer")
    with _cache_lock:
        for key in list(index.get(id(buffer), ())):
            if table.pop(key, None) is not None:
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
