"""The app's store handle: opened lazily, reopened when a build swaps the store link."""

from __future__ import annotations

import threading
from pathlib import Path

from flask import Flask, current_app

from ..config import Config
from ..errors import StoreMissing
from ..store import Store
from .cache import ResultCache
from .executor import QueryJob, QueryPool, answer

EXTENSION = "kg"


class StoreHandle:
    """Hands out the current Store; a given store is fixed, a configured path follows the symlink."""

    def __init__(self, config: Config, store: Store | None = None) -> None:
        self.config = config
        self._fixed = store is not None
        self._store = store
        self._target: Path | None = store.path if store is not None else None
        self._lock = threading.Lock()
        self._pool: QueryPool | None = None
        self._pool_path: Path | None = None
        self.cache = ResultCache(config.cache_bytes, max(1, config.cache_bytes // 16))

    @property
    def fixed(self) -> bool:
        """Whether the app serves a store given in code (no store directory, so no writes)."""
        return self._fixed

    def pool(self, store: Store) -> QueryPool | None:
        """The worker pool for the current store version (replaced when a build swaps the store)."""
        if self.config.query_workers <= 0 or store.path is None:
            return None
        with self._lock:
            if self._pool is None or self._pool_path != store.path:
                if self._pool is not None:
                    self._pool.close()
                self._pool = QueryPool(store.path, self.config.query_workers, in_memory=self.config.store_in_memory,
                                       max_pending=self.config.max_pending)
                self._pool_path = store.path
            return self._pool

    def execute(self, job: QueryJob) -> bytes:
        """Answer a query job: from the result cache, a worker process, or in this thread without workers."""
        store = self.get()
        key = job.cache_key(str(store.path or id(store)))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        pool = self.pool(store)
        body = pool.run(job) if pool is not None else answer(store, job)
        self.cache.put(key, body)
        return body

    def get(self) -> Store:
        """The current store (raises StoreMissing while none has been built)."""
        if self._fixed and self._store is not None:
            return self._store
        target = self.config.store.resolve()
        if self._store is None or target != self._target:
            with self._lock:
                if self._store is None or target != self._target:
                    self._store = Store.open(self.config.store)
                    self._target = self._store.path
        return self._store


def handle() -> StoreHandle:
    """The StoreHandle of the current app."""
    found: StoreHandle = current_app.extensions[EXTENSION]
    return found


def get_store() -> Store:
    """The current app's store."""
    return handle().get()


def get_config() -> Config:
    """The current app's configuration."""
    return handle().config


def warm_up(app: Flask) -> None:
    """Open the store and start the query workers now rather than on the first request (when a store exists)."""
    store_handle: StoreHandle = app.extensions[EXTENSION]
    try:
        store_handle.pool(store_handle.get())
    except StoreMissing:
        return
