"""A bounded, thread-safe LRU cache of byte strings (serialised query results, query forms), counted in total
bytes: values, keys (the query texts in them) and a fixed overhead per entry."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

ENTRY_OVERHEAD = 200


def key_size(key: Hashable) -> int:
    """Approximate bytes a key holds: its strings and byte strings, nested tuples included.

    >>> key_size(("v1", "ASK {}", ("a", "b")))
    10
    """
    if isinstance(key, (str, bytes)):
        return len(key)
    if isinstance(key, tuple):
        return sum(key_size(part) for part in key)
    return 8


class ResultCache:
    """Least-recently-used byte strings, bounded in total size (keys included); entries larger than max_entry are
    not kept."""

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
        size = len(value) + key_size(key) + ENTRY_OVERHEAD
        if size > self.max_entry or self.max_bytes <= 0:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= len(old) + key_size(key) + ENTRY_OVERHEAD
            self.entries[key] = value
            self.size += size
            while self.size > self.max_bytes:
                evicted_key, evicted = self.entries.popitem(last=False)
                self.size -= len(evicted) + key_size(evicted_key) + ENTRY_OVERHEAD

    def clear(self) -> None:
        """Drop everything."""
        with self.lock:
            self.entries.clear()
            self.size = 0
