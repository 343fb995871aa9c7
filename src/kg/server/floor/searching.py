"""The current store version's search index (kg.search), opened once per version and kept for the newest few."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from ...config import Config
from ...search import INDEX_FILE, SearchIndex
from ...search.matches import Hits
from .handle import StoreHandle

KEPT_VERSIONS = 2  # a server follows a swap; the version before may still be finishing requests
_OPEN: OrderedDict[tuple[Path, Config], SearchIndex] = OrderedDict()
_LOCK = threading.Lock()


def search_index(store_handle: StoreHandle) -> SearchIndex | None:
    """The index of the version being served, or None (a remote or in-memory store, a version built without one)."""
    if not store_handle.config.search_index:
        return None
    path = getattr(store_handle.get(), "path", None)
    if path is None:
        return None
    key = (Path(path), store_handle.config)
    with _LOCK:
        found = _OPEN.get(key)
        if found is not None:
            _OPEN.move_to_end(key)
            return found
    file = Path(path) / INDEX_FILE
    if not file.is_file():
        return None
    config = store_handle.config
    index = SearchIndex(file, config.search_timeout, config.search_max_results, config.search_max_chars)
    with _LOCK:
        _OPEN[key] = index
        while len(_OPEN) > KEPT_VERSIONS:
            _OPEN.popitem(last=False)
    return index


def matching_iris(store_handle: StoreHandle) -> Hits | None:
    """kg:matches' source of IRIs for the version being served (None without an index)."""
    index = search_index(store_handle)
    if index is None:
        return None
    limit = store_handle.config.search_max_results
    return lambda text: index.iris(text, limit)
