"""One bounded table, least recently used out first, for every per-device cache of what a
repeated call finds (building blocks, parameter buffers, bind groups, shader modules and
pipelines): lookups move an entry to the back, and keeping one past the capacity evicts
from the front, telling `on_evict`. Thread-safe; `lock` (reentrant) also guards whatever
the owner keeps beside the table (an index), so the two never disagree."""
from __future__ import annotations

import threading

_MISSING = object()
# The lock each table takes (tests swap it to run the garbage collector inside the
# critical sections, where finalizers may run at any allocation).
new_lock = threading.RLock


class LRU:
    def __init__(self, capacity: int, on_evict=None):
        if capacity < 1:
            raise ValueError(f"an LRU holds at least one entry, not {capacity}")
        self.capacity = int(capacity)
        self.on_evict = on_evict  # on_evict(key, value), called with `lock` held
        self.lock = new_lock()
        self._items: dict = {}

    def get(self, key, default=None):
        """The value kept for `key` (now the most recently used), or `default`."""
        with self.lock:
            value = self._items.pop(key, _MISSING)
            if value is _MISSING:
                return default
            self._items[key] = value
            return value

    def keep(self, key, value):
        """Keep `value` for `key` unless one is kept already (another thread may have made
        it first); returns the one kept. Evicts the least recently used past the capacity."""
        with self.lock:
            found = self._items.get(key, _MISSING)
            if found is not _MISSING:
                return found
            self._items[key] = value
            while len(self._items) > self.capacity:
                oldest = next(iter(self._items))
                evicted = self._items.pop(oldest, _MISSING)
                if evicted is not _MISSING and self.on_evict is not None:
                    self.on_evict(oldest, evicted)
            return value

    def pop(self, key, default=None):
        with self.lock:
            return self._items.pop(key, default)

    def clear(self) -> None:
        with self.lock:
            self._items.clear()

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
