"""memory_stats() and empty_cache(): the device memory wgprim holds, as torch.cuda's
functions of those names report and release it. The memory pool (wgprim/memory.py) keeps
the bytes; this adds how many objects each cache keeps."""
from __future__ import annotations

from wgprim.caches import watch_pool
from wgprim.device import get_device
from wgprim.memory import pool_of

# Per-device caches counted by memory_stats: its key -> the cache's name.
COUNTED = {"kept_recordings": "recordings", "bind_groups": "bind groups", "parameter_buffers": "params",
           "building_blocks": "lookup", "pipelines": "pipelines", "shader_modules": "modules"}


def memory_stats(device=None) -> dict:
    """What wgprim holds on `device` (the current device by default), in bytes:

    - ``used_bytes``: in use by Arrays and plans (and by a call while it runs);
      ``peak_bytes`` its most so far;
    - ``cached_bytes``: kept for reuse, none of it needed by a live Array: ``free_bytes``
      (free blocks of the memory pool), ``kept_recording_bytes`` (the temporaries of the
      recordings kept for repeated calls), ``parameter_bytes`` and ``staging_bytes``;
      ``empty_cache()`` releases all of it;
    - ``total_bytes``: the two together; ``limit_bytes``: what the pool keeps at most of
      free blocks, and of kept recordings' temporaries (``memory_pool().get_limit()``);

    and how many objects the caches keep: ``kept_recordings``, ``bind_groups``,
    ``parameter_buffers``, ``building_blocks``, ``pipelines``, ``shader_modules``,
    ``free_blocks``; ``hits``/``misses`` count the pool's requests that did or did not find
    a free block."""
    device = device or get_device()
    watch_pool(device)
    stats = pool_of(device).stats()
    stats.setdefault("parameter_bytes", 0)
    stats.setdefault("staging_bytes", 0)
    for key, name in COUNTED.items():
        stats[key] = len(device.cache(name))
    return stats


def empty_cache(device=None) -> None:
    """Release every byte wgprim caches on `device` (the current device by default): the
    free blocks of the memory pool, the kept recordings and their temporaries, bind groups,
    parameter and staging buffers. Arrays alive keep their data; a call after it records
    and allocates what it needs again (compiled pipelines are kept). The same as
    ``wgprim.memory_pool().free_all_blocks()``."""
    device = device or get_device()
    watch_pool(device)
    pool_of(device).free_all_blocks()
