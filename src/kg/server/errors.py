"""HTTP-facing errors of the server, each a KgError carrying its status."""

from __future__ import annotations

from ..errors import BadQuery, KgError, QueryMemoryLimit, QueryTimeout

__all__ = ["NotFound", "PayloadTooLarge", "QueryMemoryLimit", "QueryTimeout", "ReadOnly", "TooManyResults",
           "UnsupportedMediaType"]


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

