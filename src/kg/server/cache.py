"""A bounded, thread-safe LRU cache of serialised query results, keyed by data version."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable


class ResultCache:
    """Least-recently-used byte strings, bounded in total size; entries larger than max_entry are not kept."""

    def __init__(self, max_bytes: int, max_entry: int) -> None:
        self.max_bytes, self.max_entry = max_bytes, max_entry
        self.entries: OrderedDict[Hashable, bytes] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable) -> bytes | None:
        """The cached value, or None."""
        with self.lock:
            value = self.entries.get(key)
            if value is None:
                self.misses += 1
                return None
            self.entries.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: Hashable, value: bytes) -> None:
        """Keep a value, evicting the least recently used ones past max_bytes."""
        if len(value) > self.max_entry or self.max_bytes <= 0:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= len(old)
            self.entries[key] = value
            self.size += len(value)
            while self.size > self.max_bytes:
                _, evicted = self.entries.popitem(last=False)
                self.size -= len(evicted)

    def clear(self) -> None:
        """Drop everything."""
        with self.lock:
            self.entries.clear()
            self.size = 0
