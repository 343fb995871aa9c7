"""Bounded reads of source files: regular files only (checked on the open descriptor), never past a size limit."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .config import Config
from .errors import Location, SourceError

SOURCE_SETTING = "KG_MAX_SOURCE_BYTES"
IMPORT_SETTING = "KG_MAX_IMPORT_BYTES"
_CHUNK = 1 << 20


def max_source_bytes() -> int:
    """The size limit of data/ files, from KG_MAX_SOURCE_BYTES (default 16 MB)."""
    return Config.from_env().max_source_bytes


def max_import_bytes() -> int:
    """The size limit of `kg import` input files, from KG_MAX_IMPORT_BYTES (default 5 MB)."""
    return Config.from_env().max_import_bytes


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a plain file"


def _not_regular(where: Location, kind: str) -> SourceError:
    return SourceError(where, f"is not a regular file ({kind}); kg reads only regular files, never a device, "
                              "FIFO or socket; put the file itself there (a symlink to a regular file is fine)")


def _too_large(where: Location, size: str, limit: int, setting: str) -> SourceError:
    return SourceError(where, f"is {size} bytes, larger than the limit of {limit:,} bytes; split the file, or "
                              f"raise the limit with the environment variable {setting}=BYTES")


def read_limited(path: Path, limit: int, display: str | Path | None = None,
                 setting: str = SOURCE_SETTING) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is a SourceError naming the file.

    The file is opened without blocking (a FIFO cannot stall the read), checked with fstat on the open
    descriptor (a symlink to /dev/zero is caught), and read with a bounded read (a growing file stops at limit+1).
    """
    where = Location(Path(display) if display else path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # opening a Unix socket
            raise _not_regular(where, "a socket") from None
        raise SourceError(where, f"cannot read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(where, _kind(info.st_mode))
        if info.st_size > limit:
            raise _too_large(where, f"{info.st_size:,}", limit, setting)
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise SourceError(where, f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if total > limit:
        raise _too_large(where, f"more than {limit:,} (it grew while being read)", limit, setting)
    return b"".join(chunks)
