"""SPARQL queries sent by plain GET answered before Flask runs (issue 18).

An uncached cheap query spent about half its time in Flask's request handling (the request context, routing,
the response object and the after-request hooks) around the query worker's round trip. This WSGI middleware
answers a GET of ``/sparql?query=...`` whose format is a results or graph format itself: it reads the
operation with the same functions as the Flask view (``operation_from``, ``checked_query``, ``negotiate``,
``query_job``), runs it through the store handle (result cache, query workers, admission, time and memory
limits unchanged) and writes the same status and headers the view and its CORS hook would.

Everything else goes to Flask untouched: posts, updates, the service description, the HTML query page,
JSON-LD (compacted in the view), and any request the checks refuse (Flask answers with the error, HTML for a
browser). An error met while the query runs (a timeout, too many results, the endpoint busy) is handed to
Flask in the environ (``RAISED``) and raised by the view's before-request hook, so it is rendered by the one
error handler as before.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from flask import Flask, url_for

from ...formats import Format
from ...negotiation import negotiate
from ...search.matches import uses_matches
from ..floor.caches import CACHE_CONTROL
from ..floor.cors import cors_headers
from ..floor.handle import StoreHandle
from ..floor.searching import matching_iris
from ..sparql.answers import NOT_KEPT, RAISED, answer_formats, answer_tag, checked_query, query_job
from ..sparql.operation import operation_from, query_params
from .fastpath import SPARQL_PATHS, StartResponse, WsgiApp

VIEW_ONLY_FORMATS = (Format.HTML, Format.JSON_LD)  # the view renders a page or compacts the triples
URL_VARIABLES = ("wsgi.url_scheme", "HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "SCRIPT_NAME")
MAX_KNOWN_URLS = 256


class QueryFastPath:
    """WSGI middleware in front of the Flask app that answers plain query GETs of /sparql itself."""

    def __init__(self, app: WsgiApp, flask_app: Flask, store_handle: StoreHandle) -> None:
        self.app, self.flask_app, self.handle = app, flask_app, store_handle
        self.config = store_handle.config
        self._urls: dict[tuple[str, ...], str] = {}
        self._lock = threading.Lock()

    def endpoint_url(self, environ: dict[str, Any]) -> str:
        """The endpoint's absolute URL as the view computes it (url_for), worked out once per host and scheme."""
        key = tuple(str(environ.get(name, "")) for name in URL_VARIABLES)
        known = self._urls.get(key)
        if known is not None:
            return known
        with self.flask_app.request_context(environ):
            url = url_for("sparql.endpoint", _external=True)
        with self._lock:
            if len(self._urls) >= MAX_KNOWN_URLS:
                self._urls.clear()
            self._urls[key] = url
        return url

    def prepare(self, environ: dict[str, Any]) -> tuple[Any, Format] | None:
        """The query job and the negotiated format of a request this path answers, or None to leave it to Flask."""
        if (environ.get("REQUEST_METHOD") != "GET" or environ.get("PATH_INFO") not in SPARQL_PATHS
                or "HTTP_IF_NONE_MATCH" in environ):  # a revalidation: the view answers 304 or the query
            return None
        raw = environ.get("QUERY_STRING", "")
        if not raw:
            return None
        try:
            operation = operation_from(query_params(raw.encode("latin-1"), self.config.max_request_bytes), None, "GET")
            if operation.kind != "query":
                return None
            checked = checked_query(operation.text)
            fmt = negotiate(environ.get("HTTP_ACCEPT"), answer_formats(checked.form), operation.format)
            if fmt in VIEW_ONLY_FORMATS:
                return None
            hits = matching_iris(self.handle) if uses_matches(operation.text) else None
            return query_job(self.config, operation, self.endpoint_url(environ), fmt, checked.volatile, hits), fmt
        except Exception:  # noqa: BLE001 - refused or odd (a bad Host...): the view answers, with its error or page
            return None

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Answer a plain query GET, or pass the request to Flask."""
        prepared = self.prepare(environ)
        if prepared is None:
            return self.app(environ, start_response)
        job, fmt = prepared
        try:
            body = self.handle.execute(job)
        except Exception as error:  # noqa: BLE001 - rendered by the app's error handlers, as in the view
            environ[RAISED] = error
            return self.app(environ, start_response)
        varies, cors = cors_headers(self.config.cors_origins, environ.get("HTTP_ORIGIN"), "GET", None)
        caching = (("Cache-Control", NOT_KEPT),) if job.volatile else (
            ("ETag", f'"{answer_tag(job, self.handle.version())}"'), ("Cache-Control", CACHE_CONTROL))
        start_response("200 OK", [("Content-Type", fmt.content_type), ("Content-Length", str(len(body))),
                                  ("Vary", "Accept, Origin" if varies else "Accept"), *cors, *caching])
        return [body]
