"""The app's store handle: opened lazily, reopened when a build swaps the store link."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from flask import Flask, current_app

from ...config import Config
from ...errors import Saturated, StoreMissing
from ...query.allocator import preload_library
from ...query.cache import ResultCache
from ...query.executor import PoolSettings, QueryPool
from ...query.results import answer
from ...query.wire import QueryJob
from ...store import GraphStore, Store

if TYPE_CHECKING:
    from ...store.remote import RemoteStore

EXTENSION = "kg"
REMOTE_REFRESH_SECONDS = 1.0
# issue 18: resolving the store symlink on every request was 4 % of a cheap query. Each request now lstat()s the
# link only (a build swaps it by renaming a new symlink over it: a new inode and times), and resolves it when that
# changed, after invalidate(), or at most STORE_RESOLVE_SECONDS after the last resolve as a backstop.
STORE_RESOLVE_SECONDS = 1.0


def data_version(store: GraphStore) -> str:
    """A short digest naming the store's data version (its version and build or write time)."""
    stamp = (store.version, str(store.metadata.get("built_at")), str(store.metadata.get("written_at")))
    return hashlib.sha256(json.dumps(stamp).encode("utf-8")).hexdigest()[:20]


class StoreHandle:
    """Hands out the current Store; a given store is fixed, a configured path follows the symlink."""

    def __init__(self, config: Config, store: Store | None = None) -> None:
        self.config = config
        self._fixed = store is not None
        self._store: Store | RemoteStore | None = store
        self._target: Path | None = store.path if store is not None else None
        self._lock = threading.Lock()
        self._pool: QueryPool | None = None
        self._pool_path: Path | None = None
        self._checked = 0.0
        self._link: tuple[int, int, int] | None = None  # (inode, mtime, ctime) of the store link when resolved
        self._resolved = 0.0  # time.monotonic() of the last resolve
        self._remote_admission = threading.BoundedSemaphore(max(1, config.max_pending))
        self.cache: ResultCache[bytes] = ResultCache(config.cache_bytes, max(1, config.cache_bytes // 16))
        self.pages: ResultCache[bytes] = ResultCache(config.page_cache_bytes, max(1, config.page_cache_bytes // 8))
        self._version: tuple[GraphStore, str] | None = None  # (store object, its data_version)

    @property
    def fixed(self) -> bool:
        """Whether the app serves a store given in code (no store directory, so no writes)."""
        return self._fixed

    def pool(self, store: GraphStore) -> QueryPool | None:
        """The worker pool for the current store version (replaced when a build swaps the store)."""
        if self.config.query_workers <= 0 or store.path is None:
            return None
        with self._lock:
            if self._pool is None or self._pool_path != store.path:
                if self._pool is not None:
                    self._pool.close()
                settings = PoolSettings(max_pending=self.config.max_pending, memory_mb=self.config.query_memory_mb,
                                        queue_wait=self.config.queue_wait,
                                        fast_lane_timeout=self.config.fast_lane_timeout,
                                        allocator=preload_library(self.config.query_allocator))
                self._pool = QueryPool(store.path, self.config.query_workers, in_memory=self.config.store_in_memory,
                                       settings=settings)
                self._pool_path = store.path
            return self._pool

    def execute(self, job: QueryJob) -> bytes:
        """Answer a query job: from the result cache, a worker process, the remote store, or in this thread."""
        store = self.get()
        key = None if job.volatile else job.cache_key(store.version)
        cached = self.cache.get(key) if key is not None else None
        if cached is not None:
            return cached
        pool = self.pool(store)
        if pool is not None:
            body = pool.run(job)
        elif self.config.remote and not self._fixed:
            body = self._remote_answer(store, job)
        else:
            body = answer(store, job)
        if key is not None:
            self.cache.put(key, body)
        return body

    def _remote_answer(self, store: GraphStore, job: QueryJob) -> bytes:
        """Forward a job to the remote store, admitting at most max_pending at once (503 beyond)."""
        if not self._remote_admission.acquire(blocking=False):
            raise Saturated("the endpoint is busy: too many queries are running; retry shortly")
        try:
            return answer(store, job)
        finally:
            self._remote_admission.release()

    def version(self) -> str:
        """The data version of the current store (its digest computed once per store object)."""
        store = self.get()
        known = self._version
        if known is not None and known[0] is store:
            return known[1]
        digest = data_version(store)
        self._version = (store, digest)
        return digest

    def get(self) -> GraphStore:
        """The current store (raises StoreMissing while none has been built)."""
        if self._fixed and self._store is not None:
            return self._store
        if self.config.remote:
            return self._remote()
        link = _link_signature(self.config.store)
        now = time.monotonic()
        current = self._store
        if (current is not None and link is not None and link == self._link
                and now - self._resolved < STORE_RESOLVE_SECONDS):
            return current
        target = self.config.store.resolve()
        with self._lock:
            if self._store is None or target != self._target:
                self._store = Store.open(self.config.store)
                self._target = self._store.path
            self._link, self._resolved = link, now
            return self._store

    def invalidate(self) -> None:
        """Look for a new version on the next request (after a write, so the writer reads what it wrote)."""
        self._checked = 0.0
        self._resolved = 0.0

    def _remote(self) -> RemoteStore:
        """The remote store, re-reading its manifest at most once a second to notice new builds."""
        from ...store.remote import RemoteStore, read_manifest

        now = time.monotonic()
        current = self._store
        if isinstance(current, RemoteStore) and now - self._checked < REMOTE_REFRESH_SECONDS:
            return current
        with self._lock:
            if isinstance(current, RemoteStore):
                manifest = read_manifest(current.client, current.names)
                if manifest is not None and manifest.version != current.manifest.version:
                    current = RemoteStore(current.client, current.names, manifest, self.config.query_timeout)
            else:
                current = RemoteStore.open(self.config)
            self._store, self._checked = current, now
        return current


def _link_signature(link: Path) -> tuple[int, int, int] | None:
    """What changes when the store link is replaced: its inode and times (None when there is no link yet)."""
    try:
        found = os.lstat(link)
    except OSError:
        return None
    return found.st_ino, found.st_mtime_ns, found.st_ctime_ns


def handle() -> StoreHandle:
    """The StoreHandle of the current app."""
    found: StoreHandle = current_app.extensions[EXTENSION]
    return found


def get_store() -> GraphStore:
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
