"""CORS headers for the query endpoints, from config.cors_origins ('*', a comma-separated list, or '')."""

from __future__ import annotations

from flask import Request, Response

ALLOWED_METHODS = "GET, HEAD, POST, OPTIONS"
ALLOWED_HEADERS = "Accept, Content-Type"
EXPOSED_HEADERS = "Content-Length, Content-Type, Vary"
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


def add_cors_headers(response: Response, request: Request, setting: str) -> Response:
    """Add CORS headers (and answer a preflight) according to the setting."""
    if setting.strip() and setting.strip() != "*":
        response.vary.add("Origin")
    origin = allowed_origin(setting, request.headers.get("Origin"))
    if origin is None:
        return response
    response.headers["Access-Control-Allow-Origin"] = origin
    response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
    if request.method == "OPTIONS":
        response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
        requested = request.headers.get("Access-Control-Request-Headers")
        response.headers["Access-Control-Allow-Headers"] = requested or ALLOWED_HEADERS
        response.headers["Access-Control-Max-Age"] = MAX_AGE
    return response
