"""The app's store handle: opened lazily, reopened when a build swaps the store link."""

from __future__ import annotations

import threading
from pathlib import Path

from flask import current_app

from ..config import Config
from ..store import Store

EXTENSION = "kg"


class StoreHandle:
    """Hands out the current Store; a given store is fixed, a configured path follows the symlink."""

    def __init__(self, config: Config, store: Store | None = None) -> None:
        self.config = config
        self._fixed = store is not None
        self._store = store
        self._target: Path | None = store.path if store is not None else None
        self._lock = threading.Lock()

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
