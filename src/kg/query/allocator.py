"""The memory allocator preloaded into query worker processes (``KG_QUERY_ALLOCATOR``).

pyoxigraph allocates through the C library's malloc. Under jemalloc the same queries ran 5-10 % faster
(GROUP BY 83 -> 75 ms, a 2-hop join 357 -> 339 ms at 100k triples, docs/benchmarks.md), which is about the
gap to the Oxigraph server on the same store. A worker is a fresh process, so the library is put in its
``LD_PRELOAD``; the web process keeps the system allocator.
"""

from __future__ import annotations

import logging
from pathlib import Path

logger = logging.getLogger(__name__)
AUTO, SYSTEM = "auto", "system"
# where Debian/Ubuntu (libjemalloc2), Fedora/RHEL (jemalloc) and source installs put the library
JEMALLOC_PATHS = tuple(Path(p) for p in (
    "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
    "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2"))


def preload_library(setting: str, candidates: tuple[Path, ...] = JEMALLOC_PATHS) -> str | None:
    """The allocator library a worker should preload for a setting, or None for the system allocator.

    >>> preload_library("system") is None
    True
    """
    setting = setting.strip()
    if not setting or setting.lower() == SYSTEM:
        return None
    if setting.lower() == AUTO:
        return next((str(path) for path in candidates if path.is_file()), None)
    if not Path(setting).is_file():
        logger.warning("KG_QUERY_ALLOCATOR=%s is not a file; query workers use the system allocator", setting)
        return None
    return setting


def worker_environment(environ: dict[str, str], library: str | None) -> dict[str, str]:
    """A worker's environment: the parent's, with the allocator library first in LD_PRELOAD.

    >>> worker_environment({"LD_PRELOAD": "/x.so"}, "/lib/j.so")["LD_PRELOAD"]
    '/lib/j.so:/x.so'
    """
    if library is None:
        return dict(environ)
    preloaded = [library, *(item for item in environ.get("LD_PRELOAD", "").split(":") if item and item != library)]
    return dict(environ, LD_PRELOAD=":".join(preloaded))
