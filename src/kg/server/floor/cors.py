"""CORS headers for the query endpoints, from config.cors_origins ('*', a comma-separated list, or '')."""

from __future__ import annotations

from flask import Request, Response

ALLOWED_METHODS = "GET, HEAD, POST, OPTIONS"
ALLOWED_HEADERS = "Accept, Authorization, Content-Type"
# ETag: a script can revalidate with If-None-Match; WWW-Authenticate and Retry-After: why a write or a query was
# refused and when to come back; Location: where a Graph Store POST put its graph
EXPOSED_HEADERS = "Content-Length, Content-Type, ETag, Link, Location, Retry-After, Vary, WWW-Authenticate"
MAX_AGE = "86400"


def allowed_origin(setting: str, origin: str | None) -> str | None:
    """The Access-Control-Allow-Origin value for a request Origin, or None to send no CORS headers.

    >>> allowed_origin("*", "https://a.example"), allowed_origin("", "https://a.example")
    ('*', None)
    >>> allowed_origin("https://a.example, https://b.example", "https://b.example")
    'https://b.example'
    >>> allowed_origin("https://a.example", "https://evil.example") is None
    True
    """
    setting = setting.strip()
    if not setting:
        return None
    if setting == "*":
        return "*"
    allowed = {item.strip().rstrip("/") for item in setting.split(",") if item.strip()}
    return origin if origin is not None and origin.rstrip("/") in allowed else None


def cors_headers(setting: str, origin: str | None, method: str, requested: str | None,
                 allow: str | None = None) -> tuple[bool, list[tuple[str, str]]]:
    """Whether the response varies by Origin, and the CORS headers for a request's Origin and method (a preflight
    allows the methods of allow, the route's Allow header, when given).

    >>> cors_headers("https://a.example", "https://a.example", "GET", None)
    (True, [('Access-Control-Allow-Origin', 'https://a.example'), ('Access-Control-Expose-Headers', \
'Content-Length, Content-Type, ETag, Link, Location, Retry-After, Vary, WWW-Authenticate')])
    """
    varies = bool(setting.strip()) and setting.strip() != "*"
    allowed = allowed_origin(setting, origin)
    if allowed is None:
        return varies, []
    headers = [("Access-Control-Allow-Origin", allowed), ("Access-Control-Expose-Headers", EXPOSED_HEADERS)]
    if method == "OPTIONS":
        headers += [("Access-Control-Allow-Methods", allow or ALLOWED_METHODS),
                    ("Access-Control-Allow-Headers", requested or ALLOWED_HEADERS),
                    ("Access-Control-Max-Age", MAX_AGE)]
    return varies, headers


def add_cors_headers(response: Response, request: Request, setting: str) -> Response:
    """Add CORS headers (and answer a preflight) according to the setting."""
    varies, headers = cors_headers(setting, request.headers.get("Origin"), request.method,
                                   request.headers.get("Access-Control-Request-Headers"), response.headers.get("Allow"))
    if varies:
        response.vary.add("Origin")
    for name, value in headers:
        response.headers[name] = value
    return response
