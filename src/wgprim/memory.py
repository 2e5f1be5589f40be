"""The caching allocator: every storage buffer wgprim makes (results and temporaries) comes
from a per-device pool of size-binned buffers, and goes back to it when its Array is
garbage-collected (or, for a temporary, when the work using it is submitted, or when the
kept recording holding it is dropped).

Why: wgpu's Vulkan allocator gives any buffer over its 256 MiB memory block a driver
allocation of its own and frees it with the buffer: on an H200 a 1 GiB buffer costs 46 ms to
create (benchmarks/callpath-h200-2026-12-01-before.json), 64 MiB 16 us. CuPy's MemoryPool and
PyTorch's caching allocator never go back to the driver on a repeated call; neither does this.

- Sizes are rounded up to one of 8 classes per power of two (at most 12.5% more than asked,
  16 bytes the least step), so nearby lengths share blocks; a request takes a free block of
  its class and usage, or makes one.
- Bytes in use (`used_bytes`) are those lent to Arrays and to calls while they run; the
  temporaries of kept recordings (recordings.py) are lent too but counted apart
  (`kept_bytes`): they are a cache, dropped when the cache is emptied.
- Free blocks are kept up to a byte limit; past it the least recently freed are destroyed.
  The same limit bounds the kept recordings' temporaries. By default the limit follows the
  program: twice the most bytes in use at once so far, and at least LIMIT_FLOOR (a call's
  results and temporaries all come back when it is over, and the next call of that shape
  takes them again: a limit below one call's footprint would destroy and remake a buffer on
  every call, 37 ms for 1 GiB on an H200; twice that lets two shapes alternate). Cached
  bytes therefore never grow with the number of distinct lengths a program has seen.
  `set_limit` or WGPRIM_POOL_MB fix it instead.
- `free_all_blocks` empties every cache of device memory: it drops the kept recordings,
  bind groups, parameter and staging buffers (the `releasers` that caches register), then
  destroys every free block. Arrays alive keep their buffers.
- Out of memory: every free block is destroyed and the request tried once more.
- Reuse is safe because all work goes through the device's one queue, in order: a block
  handed out again is written only by work submitted after the work that used it. The one
  exception is work recorded but not yet submitted (an open `batch()`): buffers it binds
  are pinned (`pin`), and a block freed while pinned goes back only once that work is
  submitted.

`Block` is the lease: an Array (and every view made by reshape) holds its block; when the
last holder goes, the buffer returns to the pool. A buffer the user owns (`from_buffer`,
`use_device`) has no block and never enters the pool.
"""
from __future__ import annotations

import heapq
import math
import os
import threading
import weakref
from collections import Counter, OrderedDict, deque

from wgprim.device import get_device
from wgprim.errors import WgprimError, explain_gpu_error


# Tests: fill every storage buffer the pool hands out with this byte (None: leave it), so
# that code which assumes a zeroed buffer fails at once instead of on the pool's second use.
POISON = int(os.environ["WGPRIM_POISON"], 0) if os.environ.get("WGPRIM_POISON") else None


def size_class(nbytes: int) -> int:
    """The bytes a request of `nbytes` takes: rounded up to one of 8 steps per power of two
    (a multiple of 16, at least 16)."""
    found = _CLASSES.get(nbytes)
    if found is None:
        n = max(16, int(nbytes))
        step = max(16, 1 << max(0, n.bit_length() - 4))
        found = -(-n // step) * step
        if len(_CLASSES) < 4096:
            _CLASSES[nbytes] = found
    return found


_CLASSES: dict = {}  # the sizes asked for so far (a call asks for the same few again and again)

# The default limit (see the module's text): LIMIT_PEAKS times the most bytes in use at
# once so far, and at least LIMIT_FLOOR.
LIMIT_FLOOR = 16 << 20
LIMIT_PEAKS = 2
# The C heap is trimmed (return_host_memory) each time this many bytes of buffers have been
# destroyed: a trim took 0.05-20 ms on lavapipe (the more freed pages, the longer), a small
# share of what making these bytes of buffers again costs.
TRIM_EVERY = 64 << 20


class Block:
    """A pooled buffer lent to one holder (an Array and its views, or a Program's
    temporaries); the buffer goes back to its pool when the block is collected."""

    __slots__ = ("buffer", "_pool", "staged", "__weakref__")

    def __init__(self, buffer, pool: "MemoryPool"):
        self.buffer = buffer
        self._pool = pool
        # A small result's bytes already copied into a MAP_READ buffer (a Block of its own)
        # by the submit that made them, so that reading them is one map, no second submit;
        # None once anything may have written the buffer since (program.Program.run).
        self.staged = None

    def __del__(self):
        pool, self._pool = self._pool, None
        if pool is not None:
            # Only noted here: a finalizer may run inside any allocation, the pool's own
            # critical sections included; the pool takes it back at its next operation.
            pool.returned.append(self.buffer)


class MemoryPool:
    """Size-binned free buffers of one device, bounded by bytes. Thread-safe."""

    def __init__(self, device, limit: int | None = None):
        self.device = device
        # A fixed limit (set_limit, WGPRIM_POOL_MB), or None: the default that follows the peak.
        self._fixed: int | None = env_pool_limit() if limit is None else byte_count(limit, "limit")
        self._largest = device.max_buffer_bytes  # the device's largest buffer
        self._peak = 0  # the most bytes in use at once (lent, less the kept recordings')
        # Free buffers per (size, usage): heaps of (serial, buffer), the oldest buffer taken
        # first. Which buffer a request gets then depends only on which are free, not on the
        # order they were freed in (the garbage collector's): a call whose intermediates come
        # and go gets the same buffers every time, and finds its bind groups and recordings.
        self._free: dict[tuple[int, int], list] = {}
        self._serials: dict[int, int] = {}  # id(buffer) -> when it was made
        self._made = 0
        self._lru: OrderedDict[int, object] = OrderedDict()  # id(buffer) -> buffer, oldest first
        self._pins: Counter = Counter()  # id(buffer) -> pins by unsubmitted work
        self._held_back: dict[int, object] = {}  # freed while pinned: returned on unpin
        # Every lent buffer, referenced from here: a Block collected in a reference cycle
        # must not take its buffer along (the buffer would be finalized with it).
        self._lent: dict[int, object] = {}
        self._lock = threading.Lock()
        self._free_bytes = 0
        self._lent_bytes = 0  # bytes lent out now
        self.kept_bytes = 0  # of those, lent to kept recordings (a cache: recordings.py keeps it)
        self.hits = 0
        self.misses = 0
        self._destroyed_bytes = 0  # destroyed since the C heap was last trimmed
        self.on_destroy = []  # callbacks(buffer) before a buffer is destroyed (caches that bind it)
        # What caches register: releasers() drop what they keep (kept recordings, bind groups,
        # parameter and staging buffers), called first by free_all_blocks; outside[name]()
        # is the bytes a cache holds on the device in buffers that are not the pool's.
        self.releasers: dict = {}
        self.outside: dict = {}
        # Buffers of collected Blocks, and pins of collected Programs, noted by their
        # finalizers (which must take no lock: they may run while one is held) and settled
        # at the start of the next operation.
        self.returned: deque = deque()
        self.unpins: deque = deque()

    # -- lending -----------------------------------------------------------------------
    def take(self, nbytes: int, usage) -> object:
        """A buffer of at least `nbytes` (its size class) with `usage`, from the free
        blocks or new. The caller gives it back (give_back) or wraps it in a Block."""
        size = size_class(nbytes)
        if size > self._largest:  # the largest buffer: no rounding past it
            size = max(16, -(-int(nbytes) // 16) * 16)
        key = (size, int(usage))
        buffer = None
        if self.returned or self.unpins:
            self.settle()
        with self._lock:
            stack = self._free.get(key)
            if stack:
                _, buffer = heapq.heappop(stack)
                del self._lru[id(buffer)]
                self._free_bytes -= size
                self._lent_bytes += size
                self._peak = max(self._peak, self._lent_bytes - self.kept_bytes)
                self.hits += 1
                self._lent[id(buffer)] = buffer
            else:
                self.misses += 1
        if buffer is None:
            buffer = self._create(size, usage, nbytes)
            with self._lock:
                self._lent_bytes += size
                self._peak = max(self._peak, self._lent_bytes - self.kept_bytes)
                self._lent[id(buffer)] = buffer
                self._made += 1
                self._serials[id(buffer)] = self._made
        if POISON is not None:
            self._poison(buffer, usage)
        return buffer

    def block(self, nbytes: int, usage) -> Block:
        return Block(self.take(nbytes, usage), self)

    def _poison(self, buffer, usage) -> None:
        import wgpu

        if POISON is not None and int(usage) & int(wgpu.BufferUsage.STORAGE):
            import numpy as np

            self.device.device.queue.write_buffer(buffer, 0, np.full(buffer.size, POISON, np.uint8))

    def _create(self, size: int, usage, asked: int):
        try:
            return self.device.device.create_buffer(size=size, usage=usage)
        except Exception as error:
            if self.free_bytes():  # the cache may be what fills the GPU: free it, try once more
                self._destroy_free()  # (not the recordings: the one asking may be running one)
                try:
                    return self.device.device.create_buffer(size=size, usage=usage)
                except Exception as again:
                    error = again
            raise explain_gpu_error(error, f"allocating a {asked}-byte ({asked / 2**20:.1f} MiB) buffer") from error

    def settle(self) -> None:
        """Take back what finalizers noted (collected Blocks, collected Programs' pins)."""
        while self.unpins:
            try:
                buffers = self.unpins.popleft()
            except IndexError:
                break
            self._unpin(buffers)
        while self.returned:
            try:
                buffer = self.returned.popleft()
            except IndexError:
                break
            self._give_back(buffer)

    def give_back(self, buffer) -> None:
        """Return a lent buffer (it is reused by later requests of its class)."""
        self.settle()
        self._give_back(buffer)

    def _give_back(self, buffer) -> None:
        with self._lock:
            if self._pins[id(buffer)]:
                self._held_back[id(buffer)] = buffer
                return
            self._return(buffer)
            doomed = self._trim(self.limit)
        self._destroy(doomed)

    def _return(self, buffer) -> None:
        self._lent.pop(id(buffer), None)
        size = buffer.size
        self._lent_bytes -= size
        heapq.heappush(self._free.setdefault((size, int(buffer.usage)), []), (self._serials[id(buffer)], buffer))
        self._lru[id(buffer)] = buffer
        self._free_bytes += size

    # -- pins: buffers bound by recorded, unsubmitted work ------------------------------
    def pin(self, buffers) -> None:
        with self._lock:
            for b in buffers:
                self._pins[id(b)] += 1

    def unpin(self, buffers) -> None:
        self.settle()
        self._unpin(buffers)

    def _unpin(self, buffers) -> None:
        with self._lock:
            for b in buffers:
                key = id(b)
                self._pins[key] -= 1
                if self._pins[key] <= 0:
                    del self._pins[key]
                    held = self._held_back.pop(key, None)
                    if held is not None:
                        self._return(held)
            doomed = self._trim(self.limit)
        self._destroy(doomed)

    def pinned(self, buffer) -> bool:
        """True while unsubmitted work (an open batch) binds `buffer`."""
        return bool(self._pins.get(id(buffer)))

    # -- what is held ----------------------------------------------------------------
    def note_kept(self, nbytes: int) -> None:
        """`nbytes` of lent buffers are now held by a kept recording (negative: no longer)."""
        with self._lock:
            self.kept_bytes += nbytes

    def used_bytes(self) -> int:
        """Bytes in use: lent to Arrays (and plans), and to calls while they run; not the
        kept recordings' temporaries (kept_bytes), which are a cache."""
        self.settle()
        return self._lent_bytes - self.kept_bytes

    def free_bytes(self) -> int:
        """Bytes of free blocks kept (after what finalizers noted is taken back)."""
        self.settle()
        return self._free_bytes

    def cached_bytes(self) -> int:
        """Bytes held for reuse, none of them needed by a live Array: free blocks, the kept
        recordings' temporaries, parameter and staging buffers. free_all_blocks drops them."""
        return self.free_bytes() + self.kept_bytes + self.outside_bytes()

    def total_bytes(self) -> int:
        """Every byte wgprim holds on the device: in use, and cached."""
        return self.used_bytes() + self.cached_bytes()

    def outside_bytes(self) -> int:
        """Bytes of the buffers caches hold outside the pool (parameter, staging)."""
        return sum(count() for count in list(self.outside.values()))

    def peak_bytes(self) -> int:
        """The most bytes in use at once so far (used_bytes' peak)."""
        return self._peak

    def reset_peak(self) -> None:
        """Start peak_bytes again from the bytes in use now (e.g. after a service's warm-up:
        the default limit then follows the peak of what runs from here on)."""
        self.settle()
        with self._lock:
            self._peak = self._lent_bytes - self.kept_bytes

    def n_free_blocks(self) -> int:
        self.settle()
        return len(self._lru)

    def pinned(self, buffer) -> bool:
        """True while unsubmitted work (an open batch) binds `buffer`."""
        return bool(self._pins.get(id(buffer)))

    # -- bounds ------------------------------------------------------------------------
    @property
    def limit(self) -> int:
        """The most bytes of free blocks kept, and of kept recordings' temporaries: the fixed
        limit, or by default LIMIT_PEAKS times the most bytes in use at once so far, at
        least LIMIT_FLOOR."""
        return self._fixed if self._fixed is not None else max(LIMIT_FLOOR, LIMIT_PEAKS * self._peak)

    def get_limit(self) -> int:
        """The limit in bytes (see `limit`)."""
        return self.limit

    def set_limit(self, nbytes: int | None) -> None:
        """Keep at most `nbytes` of free blocks (the least recently freed go first) and of
        kept recordings' temporaries; None goes back to the default, which follows the most
        bytes in use at once."""
        nbytes = None if nbytes is None else byte_count(nbytes, "set_limit(nbytes)")
        with self._lock:
            self._fixed = nbytes
            doomed = self._trim(self.limit)
        self._destroy(doomed)

    def free_all_blocks(self) -> None:
        """Release every cached byte: drop the kept recordings, bind groups, parameter and
        staging buffers (so their temporaries come back), then destroy every free block.
        Buffers of live Arrays are not touched; a call after it makes what it needs again."""
        for release in list(self.releasers.values()):
            release()
        self._destroy_free()
        return_host_memory()

    def _destroy_free(self) -> None:
        self.settle()
        with self._lock:
            doomed = self._trim(0)
        self._destroy(doomed)

    def _trim(self, limit: int) -> list:
        doomed = []
        while self._free_bytes > limit and self._lru:
            _, buffer = self._lru.popitem(last=False)
            stack = self._free[(buffer.size, int(buffer.usage))]
            stack.remove((self._serials.pop(id(buffer)), buffer))
            heapq.heapify(stack)
            self._free_bytes -= buffer.size
            doomed.append(buffer)
        return doomed

    def _destroy(self, buffers: list) -> None:
        for buffer in buffers:
            for forget in self.on_destroy:
                forget(buffer)
            # Work already submitted keeps it alive until done (wgpu defers destruction).
            buffer.destroy()
            self._destroyed_bytes += buffer.size
        if self._destroyed_bytes >= TRIM_EVERY:
            # A program meeting ever larger sizes frees buffers the C heap cannot reuse for
            # the next, larger ones; without this, on lavapipe (buffers in host memory) RSS
            # grew ~2 MB per new length in a long loop while the cached bytes stayed flat.
            self._destroyed_bytes = 0
            return_host_memory()

    def free_buffers(self) -> list:
        """The free buffers (tests)."""
        self.settle()
        with self._lock:
            return [b for stack in self._free.values() for _, b in stack]

    def stats(self) -> dict:
        """What wgprim holds on the device, in bytes: in use (`used_bytes`); cached
        (`cached_bytes`): free blocks, kept recordings' temporaries and the parameter and
        staging buffers caches hold outside the pool (`parameter_bytes`, `staging_bytes`,
        once made); their sum (`total_bytes`); the most in use at once (`peak_bytes`), the
        limit; how many requests found a free block. wgprim.memory_stats() adds how many
        objects the caches keep."""
        self.settle()
        outside = {name: count() for name, count in list(self.outside.items())}
        with self._lock:
            used = self._lent_bytes - self.kept_bytes
            cached = self._free_bytes + self.kept_bytes + sum(outside.values())
            return {"used_bytes": used, "free_bytes": self._free_bytes, "kept_recording_bytes": self.kept_bytes,
                    **outside, "cached_bytes": cached, "total_bytes": used + cached, "peak_bytes": self._peak,
                    "limit_bytes": self.limit, "limit_fixed": self._fixed is not None,
                    "free_blocks": len(self._lru), "hits": self.hits, "misses": self.misses}


def return_host_memory() -> None:
    """Give the C heap's free memory back to the system (glibc's malloc_trim; elsewhere
    nothing). Buffers the driver keeps in host memory (all of them on a CPU adapter such as
    lavapipe) are freed into that heap, which otherwise keeps the pages: on lavapipe the
    process's RSS after a release stayed ~50 MB higher without it."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            import ctypes

            _malloc_trim = getattr(ctypes.CDLL(None), "malloc_trim", False)
        except (OSError, AttributeError, ImportError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim = None  # glibc's malloc_trim, False where there is none


def byte_count(value, name: str) -> int:
    """`value` as a count of bytes (an integer >= 0), or a TypeError/ValueError naming `name`."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} takes an integer number of bytes (or None for the default), not {value!r}")
    count = value.__index__()
    if count < 0:
        raise ValueError(f"{name} takes a number of bytes >= 0, not {count}")
    return count


def env_pool_limit() -> int | None:
    """WGPRIM_POOL_MB in bytes (a number of MiB >= 0, fractions allowed), or None when unset
    or empty; anything else is a ValueError that names the variable."""
    text = os.environ.get("WGPRIM_POOL_MB", "").strip()
    if not text:
        return None
    try:
        mib = float(text)
    except ValueError:
        mib = math.nan
    if not (math.isfinite(mib) and mib >= 0):
        raise ValueError(f"WGPRIM_POOL_MB must be a number of MiB >= 0 (e.g. 512), not {text!r}: "
                         "fix or unset the environment variable")
    return int(mib * 2**20)


def default_limit(device) -> int:
    """WGPRIM_POOL_MB, or LIMIT_FLOOR (the least the default limit is)."""
    fixed = env_pool_limit()
    return LIMIT_FLOOR if fixed is None else fixed


_pools_lock = threading.Lock()


def pool_of(device) -> MemoryPool:
    """The device's memory pool, made on first use."""
    cache = device.cache("memory")
    found = cache.get("pool")
    if found is None:
        with _pools_lock:
            found = cache.setdefault("pool", MemoryPool(device))
    return found


def memory_pool(device=None) -> MemoryPool:
    """The memory pool of `device` (the current device by default): `.used_bytes()`,
    `.total_bytes()`, `.stats()`, `.free_all_blocks()`, `.get_limit()`, `.set_limit(bytes)`
    (wgprim.memory_stats() and wgprim.empty_cache() are the same for the current device)."""
    return pool_of(device or get_device())


def buffer_size_for(nbytes: int) -> int:
    """Bytes allocated for `nbytes` of data: rounded up to 16 (whole vec4 reads), never 0."""
    return max(16, -(-nbytes // 16) * 16)


# Buffers of from_buffer Arrays that their owner destroyed: using one would fail inside
# the driver (a submit that reads it aborts the process), so wgprim refuses them first.
_destroyed: "weakref.WeakSet" = weakref.WeakSet()


def watch_destroy(buffer) -> None:
    """Note when the caller destroys `buffer` (its own `destroy()`, wrapped on this object)."""
    if "destroy" in vars(buffer):
        return
    owner_destroy = buffer.destroy
    ref = weakref.ref(buffer)

    def destroy():
        found = ref()
        if found is not None:
            _destroyed.add(found)
        owner_destroy()

    buffer.destroy = destroy


def check_alive(buffers) -> None:
    """WgprimError naming the fix when one of `buffers` (an iterable, not looked at unless a
    caller ever destroyed a wrapped buffer) was destroyed before wgprim used it."""
    if _destroyed and any(b in _destroyed for b in buffers):
        raise WgprimError(
            "a buffer given to Array.from_buffer was destroyed (buffer.destroy()) by its owner before "
            "wgprim used it -> not a bug in wgprim: keep the buffer alive while wgprim works with it "
            "(read the results first), or wrap a live buffer again")
