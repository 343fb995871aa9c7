"""A bounded, thread-safe LRU cache (serialised query results, query forms, whole responses), counted in total
bytes: each value's size (its length, unless told), its key (the query texts in it) and a fixed overhead."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

ENTRY_OVERHEAD = 200
V = TypeVar("V")


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


class ResultCache(Generic[V]):
    """Least-recently-used values, bounded in total size (keys included); entries larger than max_entry are not
    kept."""

    def __init__(self, max_bytes: int, max_entry: int) -> None:
        self.max_bytes, self.max_entry = max_bytes, max_entry
        self.entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable) -> V | None:
        """The cached value, or None."""
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self.entries.move_to_end(key)
            self.hits += 1
            return entry[0]

    def put(self, key: Hashable, value: V, size: int | None = None) -> None:
        """Keep a value of the given size in bytes (default: its length), evicting the least recently used ones
        past max_bytes."""
        if self.max_bytes <= 0:
            return
        total = (len(value) if size is None else size) + key_size(key) + ENTRY_OVERHEAD  # type: ignore[arg-type]
        if total > self.max_entry:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self.entries[key] = (value, total)
            self.size += total
            while self.size > self.max_bytes:
                _, (_, evicted) = self.entries.popitem(last=False)
                self.size -= evicted

    def clear(self) -> None:
        """Drop everything."""
        with self.lock:
            self.entries.clear()
            self.size = 0
