"""The one exception tree: every error knows its HTTP status and its CLI exit code.

The errors come in families, so a handler can catch a family (except BadInput) instead of a list of siblings.
A family is a marker: it adds no state, takes a message like KgError, and its status and exit code are defaults;
each class below keeps its own status and exit code (status / exit code, as `kg --help` lists the exit codes).

KgError                          500 / 1  unexpected
 ├── BadInput                             the request or the source data is wrong: fix it and retry
 │    ├── SourceError(s)         400 / 2  bad input data (file, line, field path)
 │    ├── NotAcceptable          406 / 2  no offered format is acceptable
 │    ├── BadQuery               400 / 6  a malformed or refused SPARQL request
 │    │    ├── TooManyResults    400 / 6  the query produces more than max_results
 │    │    ├── BadTerm           400 / 6  a term given to kg explain or /explain that cannot be read
 │    │    └── NetworkRefused    400 / 6  the engine tried to reach the network (SERVICE, LOAD) and was stopped
 │    ├── PayloadTooLarge        413 / 6  the request is larger than max_request_bytes
 │    │    └── UpdateTooLarge    413 / 6  a write past max_update_operations or max_update_triples
 │    ├── UnsupportedMediaType   415 / 6  a request body of a Content-Type the endpoint does not take
 │    └── BadIdentifier          400 / 2  kg fetch was given an identifier it cannot read or fetch
 ├── Missing                              what the request names does not exist
 │    ├── NotFound               404 / 1  a graph or an entity that does not exist
 │    ├── GraphNotFound          404 / 1  a write names a graph the store does not hold
 │    └── RecordNotFound         404 / 1  the source kg fetch asked has no record for the identifier
 ├── Invalid                              the data would violate the SHACL shapes (each carries the report)
 │    ├── ValidationFailed       422 / 3  the built data has violations; the build stopped
 │    └── WriteRejected          422 / 3  a write would introduce violations; nothing was changed
 ├── NotAllowed                           the server does not take this write, or a command would overwrite a file
 │    ├── ReadOnly               403 / 1  writes are not enabled
 │    ├── WriteForbidden         403 / 1  the graph cannot be written (inferred, ontology, retractions)
 │    └── OutputExists           409 / 1  kg import -o names an existing file and --force was not given
 ├── OverLimit                            a query or a write met a time, memory or capacity limit: retry, or ask less
 │    ├── QueryTimeout           503 / 6  a query ran past query_timeout
 │    ├── QueryMemoryLimit       503 / 6  a query needed more than query_memory_mb
 │    ├── WriteLimit             503 / 4  a write ran past write_timeout or write_memory_mb and was stopped
 │    ├── WriteBusy              503 / 4  another write held the lock too long (Retry-After 2)
 │    ├── Saturated              503 / 1  too many queries running or waiting (Retry-After 1)
 │    │    └── BusyTimeout       503 / 1  every worker busy past what the reserve worker allows
 │    └── FetchLimited           503 / 9  a source asks kg fetch to wait too long, or answers more than it reads
 ├── StoreError                           the store, or the engine that serves it, cannot do its part
 │    ├── StoreMissing           503 / 5  no store has been built yet
 │    ├── BuildError             500 / 4  the build could not complete (the previous store is untouched)
 │    ├── RemoteStoreError       502 / 7  the remote store refused a request or could not be reached
 │    ├── DiskFull               507 / 8  the disk or quota filled up during a write (nothing was changed)
 │    ├── WorkersDown            503 / 1  no query worker process is running (Retry-After 5)
 │    ├── EngineCrashed          500 / 1  a query worker died on the query
 │    └── SourceUnreachable      502 / 9  kg fetch could not get an answer from a source (after its retries)
 ├── SetupError                           kg cannot run as configured: fix a setting or the environment
 │    ├── RemoteConfigError      500 / 4  remote store settings incomplete or contradictory
 │    ├── SettingError           500 / 4  a KG_* setting's value cannot be used
 │    └── PortInUse              500 / 4  kg serve cannot listen: the port is taken (or privileged)
 └── QueryFailed             status / 6  a query worker's error carried back with its status and class name (in no
                                          family: it stands for whichever error the worker raised)
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class KgError(Exception):
    """Base class for errors the user can act on."""

    status = 500
    exit_code = 1


class BadInput(KgError):
    """Family: the request or the source data is wrong (malformed, refused, too large, of the wrong type); the
    client fixes it and retries."""

    status = 400
    exit_code = 2


class Missing(KgError):
    """Family: what the request names (a graph, an entity) does not exist."""

    status = 404
    exit_code = 1


class Invalid(KgError):
    """Family: the data would violate the SHACL shapes; each member carries the report as .report."""

    status = 422
    exit_code = 3


class NotAllowed(KgError):
    """Family: the server does not take this write (writes are off, or the graph cannot be written)."""

    status = 403
    exit_code = 1


class OverLimit(KgError):
    """Family: a query or a write met a time, memory or capacity limit; retry later, or ask for less."""

    status = 503
    exit_code = 1


class StoreError(KgError):
    """Family: the store, or the engine that serves it, cannot do its part (missing, unreachable, full, crashed)."""

    status = 500
    exit_code = 1


class SetupError(KgError):
    """Family: kg cannot run as configured (a setting, the remote store's settings, the port); fix it and rerun."""

    status = 500
    exit_code = 4


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


class SourceError(BadInput):
    """Malformed source data; the message names the file, line and field and says how to fix it."""

    status = 400
    exit_code = 2

    def __init__(self, location: Location, message: str) -> None:
        self.location = location
        self.message = message
        super().__init__(f"{location}: {message}")


class SourceErrors(BadInput):
    """Several source errors collected from one build, reported together."""

    status = 400
    exit_code = 2

    def __init__(self, errors: list[SourceError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


class ValidationFailed(Invalid):
    """The data violates the SHACL shapes; .report holds the details."""

    status = 422
    exit_code = 3

    def __init__(self, report: Any) -> None:
        self.report = report
        super().__init__(report.text())


class BuildError(StoreError):
    """The build could not complete (the previous store is untouched)."""

    status = 500
    exit_code = 4


class StoreMissing(StoreError):
    """No store exists where one was expected."""

    status = 503
    exit_code = 5


class BadQuery(BadInput):
    """A SPARQL request that is malformed or refused."""

    status = 400
    exit_code = 6


class RemoteStoreError(StoreError):
    """The remote SPARQL store refused a request or could not be reached."""

    status = 502
    exit_code = 7


class QueryTimeout(OverLimit):
    """A query ran longer than query_timeout."""

    status = 503
    exit_code = 6


class QueryMemoryLimit(OverLimit):
    """A query needed more memory than query_memory_mb allows."""

    status = 503
    exit_code = 6


class DiskFull(StoreError):
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


class ReadOnly(NotAllowed):
    """A write was attempted on the read-only server."""

    status = 403
    exit_code = 1

    def __init__(self, message: str = "read-only: writes are not enabled") -> None:
        super().__init__(message)


class NotFound(Missing):
    """The requested resource (a graph, an entity) does not exist."""

    status = 404
    exit_code = 1


class PayloadTooLarge(BadInput):
    """The request body or query string is larger than max_request_bytes."""

    status = 413
    exit_code = 6


class UpdateTooLarge(PayloadTooLarge):
    """A write has more operations than max_update_operations, or changes more triples than max_update_triples."""


class WriteLimit(OverLimit):
    """A write ran past write_timeout or write_memory_mb; its worker was stopped and nothing was changed."""

    status = 503
    exit_code = 4


class UnsupportedMediaType(BadInput):
    """The request body has a Content-Type the endpoint does not accept."""

    status = 415
    exit_code = 6


class TooManyResults(BadQuery):
    """The query produces more rows or triples than max_results allows."""


class BadTerm(BadQuery):
    """A term given to kg explain or GET /explain that is not an RDF term of the kind its position needs."""


class NetworkRefused(BadQuery):
    """A query or update made the engine try to open a network connection (SERVICE, LOAD), which is never allowed."""

    MESSAGE = ("federated queries (SERVICE) and LOAD are not allowed on this endpoint: the engine tried to open a "
               "network connection and was refused; query the remote endpoint yourself, or load its data with kg build")

    def __init__(self, message: str = MESSAGE) -> None:
        super().__init__(message)


class WriteBusy(OverLimit):
    """Another write held the write lock for too long."""

    status = 503
    exit_code = 4
    retry_after = 2


class QueryFailed(KgError):
    """An error raised inside a worker, carried back with its status."""

    exit_code = 6

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


class Saturated(OverLimit):
    """Too many queries are running or waiting."""

    status = 503
    exit_code = 1
    retry_after = 1


class WorkersDown(StoreError):
    """No query worker process is running."""

    status = 503
    exit_code = 1
    retry_after = 5


class BusyTimeout(Saturated):
    """Every worker was busy and the query needed longer than the reserve worker allows."""


class EngineCrashed(StoreError):
    """The worker evaluating the query died (the engine failed, not the client); the worker is replaced."""

    status = 500
    exit_code = 1


class RemoteConfigError(SetupError):
    """The remote store settings are incomplete or contradictory."""

    status = 500
    exit_code = 4


class SettingError(SetupError):
    """A KG_* setting's value cannot be used (it names what is wrong and what is expected)."""

    status = 500
    exit_code = 4


class NotAcceptable(BadInput):
    """None of the formats a resource offers is acceptable to the client."""

    status = 406
    exit_code = 2

    def __init__(self, message: str, supported: Sequence[Any]) -> None:
        self.supported = tuple(supported)
        super().__init__(f"{message}; supported: {', '.join(f.media_type for f in self.supported)}")


class GraphNotFound(Missing):
    """The write names a graph the store does not hold."""

    status = 404
    exit_code = 1


class WriteRejected(Invalid):
    """The write would introduce SHACL violations; .report holds them. Nothing was changed."""

    status = 422
    exit_code = 3

    def __init__(self, report: Any) -> None:
        self.report = report
        super().__init__(report.text())


class WriteForbidden(NotAllowed):
    """The write targets a graph that cannot be written (inferred, ontology, retractions)."""

    status = 403
    exit_code = 1


class PortInUse(SetupError):
    """kg serve cannot listen on the port: another process holds it, or it needs privileges."""

    status = 500
    exit_code = 4


class OutputExists(NotAllowed):
    """A command would overwrite a file that already exists (kg import -o without --force)."""

    status = 409
    exit_code = 1


class BadIdentifier(BadInput):
    """An identifier given to kg fetch that is not valid, or of a scheme kg fetch cannot fetch."""

    status = 400
    exit_code = 2


class RecordNotFound(Missing):
    """The source kg fetch asked has no record for the identifier (404)."""

    status = 404
    exit_code = 1


class FetchLimited(OverLimit):
    """A source asked kg fetch to wait longer than KG_FETCH_MAX_WAIT, or sent more than KG_FETCH_MAX_BYTES."""

    status = 503
    exit_code = 9


class SourceUnreachable(StoreError):
    """kg fetch could not get a usable answer from a source: refused, timed out, cut off or 5xx after its retries."""

    status = 502
    exit_code = 9
