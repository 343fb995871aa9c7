"""Error responses: a short text or JSON message for programs, and one styled 404 (or 410) page for browsers.

Every 404 of the app (an unknown IRI under /id/, /page/ or /data/, an unknown graph, any unknown URL such as
``/foo/bar``) goes through ``not_found_response``: the HTML page when the client lists text/html and prefers it,
JSON when it prefers application/json, plain text otherwise. A 404 echoes what the client sent (a path, an IRI,
a term) as a bounded excerpt (``excerpt``), so a long request cannot make a longer answer.
"""

from __future__ import annotations

from flask import Response, jsonify, render_template, request, url_for

from ...formats import Format

HTML_TYPES = ("text/html", "application/xhtml+xml")
EXCERPT = 200  # characters of a client's term or path an error page echoes


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """A client's text as an error page echoes it: whole up to limit characters, else its start and end around
    an ellipsis that says how much was left out.

    >>> excerpt("short"), excerpt("a" * 30 + "b" * 30, 20)
    ('short', 'aaaaaaaaaa…[40 characters]…bbbbbbbbbb')
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}…[{len(text) - 2 * half} characters]…{text[-half:]}"


def wants_json() -> bool:
    """Whether the client prefers application/json over text/plain for an error message."""
    accept = request.accept_mimetypes
    return accept.quality("application/json") > accept.quality("text/plain") and "application/json" in accept.values()


def wants_html() -> bool:
    """Whether the client (a browser) names HTML in its Accept header and prefers it to JSON and plain text."""
    accept = request.accept_mimetypes
    if not any(value in HTML_TYPES for value in accept.values()):
        return False
    return accept.best_match(["text/html", "application/xhtml+xml", "application/json", "text/plain"]) in HTML_TYPES


def error_response(status: int, title: str, message: str) -> Response:
    """A short text/plain (or JSON, if asked) error message; never a stack trace."""
    if wants_json():
        response = jsonify(status=status, error=title, message=message)
    else:
        response = Response(f"{status} {title}: {message}\n", content_type="text/plain; charset=utf-8")
    response.status_code = status
    return response


def gone_response(iri: str, removed_at: str) -> Response:
    """The 410 for a minted IRI a build removed (kg.changes.moves): when, and a search for what is left."""
    message = f"<{iri}> was removed from the graph by the build of {removed_at}"
    if not wants_html():
        return error_response(410, "Gone", f"{message}; search {url_for('pages.search')}?q=… for what is left")
    return _styled_page(410, "Gone", message, iri, removed_at)


def not_found_response(message: str | None = None, iri: str | None = None, title: str = "Not Found") -> Response:
    """The 404 for anything unknown: the styled page for browsers (naming the IRI, else the path), else text/JSON."""
    if not wants_html():
        return error_response(404, title, excerpt(message or f"nothing is served at {request.path}", 5 * EXCERPT))
    return _styled_page(404, "Not found", message, iri)


def _styled_page(status: int, title: str, message: str | None, iri: str | None,
                 removed_at: str | None = None) -> Response:
    """The one styled page for what is not here (404) or no longer here (410), with a search for its words."""
    words = excerpt((iri or request.path).rstrip("/").rsplit("/", 1)[-1].replace("-", " "))
    body = render_template("not_found.html", iri=iri and excerpt(iri), path=excerpt(request.path), words=words,
                           message=message and excerpt(message, 5 * EXCERPT), title=title, removed_at=removed_at)
    return Response(body, status=status, content_type=Format.HTML.content_type)
