"""The store's write lock: one writer at a time across processes (the server's write workers, `kg build`)."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import WriteBusy


def lock_path(store_dir: Path) -> Path:
    """The lock file beside the store link (``.kg/store.lock`` for ``.kg/store``)."""
    store_dir = store_dir.absolute()
    return store_dir.parent / f"{store_dir.name}.lock"


@contextmanager
def write_lock(store_dir: Path, timeout: float = 120.0) -> Iterator[None]:
    """Hold the exclusive write lock of a store (one writer at a time across processes and threads).

    Raises:
        WriteBusy: the lock was not free within timeout seconds.
    """
    path = lock_path(store_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WriteBusy("another write is in progress; retry shortly") from None
                time.sleep(0.02)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
