"""Files replaced whole or not at all: a temporary file beside the target, then one rename; and the store link
swapped the same way. The one place kg writes a file that readers may open at any moment."""

from __future__ import annotations

import os
import threading
from pathlib import Path


def fsync_path(path: Path) -> None:
    """Flush one file or directory (its entries, such as a rename in it) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temporary_beside(path: Path) -> Path:
    """A temporary name in the target's folder, unique to this process and thread."""
    return path.parent / f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"


def write_atomically(path: Path, data: bytes | str, *, durable: bool = False) -> None:
    """Replace path with data in one rename (text is written as UTF-8); with durable, the content and then the
    rename are flushed to disk first. On any failure the temporary file is removed and path is untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = temporary_beside(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with partial.open("wb") as out:
            out.write(payload)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if durable:
        fsync_path(path.parent)


def swap_symlink(link: Path, target_name: str, *, durable: bool = False) -> None:
    """Point the symlink link at target_name (relative to its folder) in one rename, so readers find the old
    target or the new one, never none."""
    partial = link.parent / f".{link.name}.link-{os.getpid()}.{threading.get_ident()}"
    if partial.is_symlink():
        partial.unlink()
    partial.symlink_to(target_name)
    try:
        os.replace(partial, link)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if durable:
        fsync_path(link.parent)
