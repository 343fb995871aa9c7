"""Repeat GET requests answered before Flask runs: whole 200 responses kept by data version (issue 18).

A cached SPARQL answer or page still cost a Flask request (the request and response objects, routing,
parsing the query string, negotiation, the after-request hooks): about three times what the engine needs for
a cheap query. This WSGI middleware keeps the status, headers and body of each 200 answer to a GET of
``/sparql``, ``/page/`` or ``/data/`` under a key of everything the answer can depend on (data version, path,
query string, Accept, whether gzip is accepted, Origin, Host, scheme, script name), and answers a repeat of it
without entering Flask (a gzip answer is kept compressed, so it is compressed once).

Only plain GETs take part: a conditional request (If-None-Match, If-Modified-Since), a range, or a response
that is not a 200, streams, sets a cookie or says no-store goes through Flask as before. A build or an HTTP
write makes a new data version, so every old key stops matching. The cache is per process, bounded in bytes
(``KG_RESPONSE_CACHE_BYTES``), and follows the result and page caches' switches: with ``KG_CACHE_BYTES=0``
SPARQL answers are not kept here either, with ``KG_PAGE_CACHE_BYTES=0`` pages and documents are not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...errors import KgError
from ...query.cache import ResultCache
from ..floor.handle import StoreHandle
from .compression import accepts_gzip

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
SPARQL_PATHS = ("/sparql", "/sparql/")
PAGE_PREFIXES = ("/page/", "/data/")
KEY_VARIABLES = ("PATH_INFO", "QUERY_STRING", "HTTP_ACCEPT", "HTTP_ORIGIN", "HTTP_HOST", "SERVER_NAME",
                 "SERVER_PORT", "wsgi.url_scheme", "SCRIPT_NAME")
BYPASS_VARIABLES = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_RANGE", "HTTP_IF_MATCH")


Kept = tuple[str, list[tuple[str, str]], bytes]  # status, headers, body


def kept_size(kept: Kept) -> int:
    """The bytes a kept response holds: its body and header text (the body is often the very object the result
    or page cache holds as well, so it is not copied)."""
    status, headers, body = kept
    return len(body) + len(status) + sum(len(name) + len(value) + 4 for name, value in headers)


def keepable(status: str, headers: list[tuple[str, str]]) -> bool:
    """Whether a response may be kept: a 200 with a known length, no cookie and no no-store."""
    if not status.startswith("200"):
        return False
    names = {name.lower(): value for name, value in headers}
    return ("content-length" in names and "set-cookie" not in names
            and "no-store" not in names.get("cache-control", ""))


class ResponseCache:
    """WSGI middleware in front of the Flask app that answers repeat GETs from kept responses."""

    def __init__(self, app: WsgiApp, store_handle: StoreHandle) -> None:
        config = store_handle.config
        self.app, self.handle = app, store_handle
        self.sparql = config.response_cache_bytes > 0 and config.cache_bytes > 0
        self.pages = config.response_cache_bytes > 0 and config.page_cache_bytes > 0
        self.gzip = config.gzip_min_bytes > 0  # a gzip answer and an identity answer are kept apart
        self.kept: ResultCache[Kept] = ResultCache(config.response_cache_bytes,
                                                   max(1, config.response_cache_bytes // 8))

    def takes_part(self, environ: dict[str, Any]) -> bool:
        """Whether a request may be answered from, or kept in, the cache."""
        if environ.get("REQUEST_METHOD") != "GET" or any(name in environ for name in BYPASS_VARIABLES):
            return False
        path = environ.get("PATH_INFO", "")
        if path in SPARQL_PATHS:
            return self.sparql and bool(environ.get("QUERY_STRING"))
        return self.pages and path.startswith(PAGE_PREFIXES)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Answer from the cache, or let Flask answer and keep a keepable response."""
        if not self.takes_part(environ):
            return self.app(environ, start_response)
        try:
            key = (self.handle.version(), self.gzip and accepts_gzip(environ.get("HTTP_ACCEPT_ENCODING", "")),
                   *(str(environ.get(name, "")) for name in KEY_VARIABLES))
        except KgError:  # no store yet, a remote store down: Flask answers with the error page
            return self.app(environ, start_response)
        kept = self.kept.get(key)
        if kept is not None:
            status, headers, body = kept
            start_response(status, headers)
            return [body]
        answered: list[tuple[str, list[tuple[str, str]]]] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answered.append((status, list(headers)))
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        body_parts = self.app(environ, capture)
        if not answered or not keepable(*answered[0]):
            return body_parts
        try:
            body = b"".join(body_parts)  # one part: that very object, shared with the cache that made it
        finally:
            close = getattr(body_parts, "close", None)
            if close is not None:
                close()
        response = (*answered[0], body)
        self.kept.put(key, response, kept_size(response))
        return [body]
