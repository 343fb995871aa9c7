"""The exception tree: each error knows its HTTP status and CLI exit code.

KgError
 ├── SourceError        bad input data (file, line, field path)
 ├── ValidationFailed   SHACL violations (carries the report)
 ├── BuildError         the build could not complete
 ├── StoreMissing       no store has been built yet
 ├── BadQuery           a malformed or refused SPARQL request
 └── DiskFull           the disk or quota filled up during a write (nothing was changed)
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class KgError(Exception):
    """Base class for errors the user can act on."""

    status = 500
    exit_code = 1


@dataclass(frozen=True)
class Location:
    """A place in a source file: path, 1-based line and a field path such as publications[2].year."""

    path: Path | None
    line: int | None = None
    field: str = ""

    def __str__(self) -> str:
        place = str(self.path) if self.path is not None else "<input>"
        if self.line is not None:
            place += f":{self.line}"
        return f"{place}: {self.field}" if self.field else place


class SourceError(KgError):
    """Malformed source data; the message names the file, line and field and says how to fix it."""

    status = 400
    exit_code = 2

    def __init__(self, location: Location, message: str) -> None:
        self.location = location
        self.message = message
        super().__init__(f"{location}: {message}")


class SourceErrors(KgError):
    """Several source errors collected from one build, reported together."""

    status = 400
    exit_code = 2

    def __init__(self, errors: list[SourceError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


class ValidationFailed(KgError):
    """The data violates the SHACL shapes; .report holds the details."""

    status = 422
    exit_code = 3

    def __init__(self, report: Any) -> None:
        self.report = report
        super().__init__(report.text())


class BuildError(KgError):
    """The build could not complete (the previous store is untouched)."""

    exit_code = 4


class StoreMissing(KgError):
    """No store exists where one was expected."""

    status = 503
    exit_code = 5


class BadQuery(KgError):
    """A SPARQL request that is malformed or refused."""

    status = 400
    exit_code = 6


class RemoteStoreError(KgError):
    """The remote SPARQL store refused a request or could not be reached."""

    status = 502
    exit_code = 7


class QueryTimeout(KgError):
    """A query ran longer than query_timeout."""

    status = 503


class QueryMemoryLimit(KgError):
    """A query needed more memory than query_memory_mb allows."""

    status = 503
    exit_code = 6


class DiskFull(KgError):
    """The disk or the quota filled up during a write; the write was undone, so nothing was changed."""

    status = 507
    exit_code = 8
    ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)

    def __init__(self, message: str = "the disk is full; nothing was changed; free space and retry") -> None:
        super().__init__(message)

    @classmethod
    def caused(cls, error: BaseException) -> bool:
        """Whether an error says the disk or the quota is full: its errno, or the system's message for one
        (the store's engine reports I/O errors as text, such as "IO error: No space left on device")."""
        if not isinstance(error, OSError):
            return False
        if error.errno in cls.ERRNOS:
            return True
        text = str(error)
        return any(os.strerror(number) in text for number in cls.ERRNOS)


class ReadOnly(KgError):
    """A write was attempted on the read-only server."""

    status = 403

    def __init__(self, message: str = "read-only: writes are not enabled") -> None:
        super().__init__(message)


class NotFound(KgError):
    """The requested resource (a graph, an entity) does not exist."""

    status = 404


class PayloadTooLarge(KgError):
    """The request body or query string is larger than max_request_bytes."""

    status = 413


class UnsupportedMediaType(KgError):
    """The request body has a Content-Type the endpoint does not accept."""

    status = 415


class TooManyResults(BadQuery):
    """The query produces more rows or triples than max_results allows."""

