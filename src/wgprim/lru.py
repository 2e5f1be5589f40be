"""One bounded table, least recently used out first, for every per-device cache of what a
repeated call finds (kept recordings, building blocks, parameter buffers, bind groups, shader
modules and pipelines): lookups move an entry to the back, and keeping one past the
capacity (a count) or past `max_bytes` (the sum of the sizes entries were kept with) evicts
from the front, telling `on_evict`. Thread-safe; `lock` (reentrant) also guards whatever the
owner keeps beside the table (an index), so the two never disagree."""
from __future__ import annotations

import threading

_MISSING = object()
# The lock each table takes (tests swap it to run the garbage collector inside the
# critical sections, where finalizers may run at any allocation).
new_lock = threading.RLock


class LRU:
    def __init__(self, capacity: int, on_evict=None, max_bytes: int | None = None):
        if capacity < 1:
            raise ValueError(f"an LRU holds at least one entry, not {capacity}")
        self.capacity = int(capacity)
        self.max_bytes = max_bytes  # None: bounded by count alone
        self.on_evict = on_evict  # on_evict(key, value), called with `lock` held
        self.lock = new_lock()
        self._items: dict = {}
        self._sizes: dict = {}  # key -> bytes, for entries kept with a size
        self.bytes = 0  # the sum of the kept entries' sizes

    def get(self, key, default=None):
        """The value kept for `key` (now the most recently used), or `default`."""
        with self.lock:
            value = self._items.pop(key, _MISSING)
            if value is _MISSING:
                return default
            self._items[key] = value
            return value

    def keep(self, key, value, nbytes: int = 0):
        """Keep `value` (of `nbytes`) for `key` unless one is kept already (another thread may
        have made it first); returns the one kept. Evicts the least recently used past the
        capacity or `max_bytes` (`value` itself when it alone is more than `max_bytes`)."""
        with self.lock:
            found = self._items.get(key, _MISSING)
            if found is not _MISSING:
                return found
            self._items[key] = value
            if nbytes:
                self._sizes[key] = int(nbytes)
                self.bytes += int(nbytes)
            self.trim()
            return value

    def trim(self, capacity: int | None = None, max_bytes: int | None = None) -> None:
        """Evict the least recently used until at most `capacity` entries of at most
        `max_bytes` together are left (by default the table's own bounds)."""
        capacity = self.capacity if capacity is None else capacity
        max_bytes = self.max_bytes if max_bytes is None else max_bytes
        with self.lock:
            while self._items and (len(self._items) > capacity or (max_bytes is not None and self.bytes > max_bytes)):
                oldest = next(iter(self._items))
                evicted = self._items.pop(oldest)
                self.bytes -= self._sizes.pop(oldest, 0)
                if self.on_evict is not None:
                    self.on_evict(oldest, evicted)

    def evict_all(self) -> None:
        """Evict every entry, telling `on_evict` of each (clear() forgets them silently)."""
        self.trim(0, 0)

    def pop(self, key, default=None):
        with self.lock:
            self.bytes -= self._sizes.pop(key, 0)
            return self._items.pop(key, default)

    def clear(self) -> None:
        with self.lock:
            self._items.clear()
            self._sizes.clear()
            self.bytes = 0

    def __contains__(self, key) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):
        return iter(self.keys())

    def keys(self) -> list:
        with self.lock:
            return list(self._items)

    def values(self) -> list:
        with self.lock:
            return list(self._items.values())

    def items(self) -> list:
        with self.lock:
            return list(self._items.items())
