"""HTML or JSON for the routes that offer both (``/changes``, ``/explain``): one decision, from format= or Accept."""

from __future__ import annotations

from flask import request
from werkzeug.exceptions import NotAcceptable

OFFERED = ("text/html", "application/json")


def wants_json(route: str) -> bool:
    """JSON for format=json or an Accept preferring application/json; HTML otherwise (406 if neither fits)."""
    chosen = request.args.get("format")
    if chosen is not None:
        if chosen not in ("json", "html"):
            raise NotAcceptable(f"format={chosen} is not offered here: use format=json or format=html")
        return chosen == "json"
    if not request.headers.get("Accept", "").strip():
        return False
    best = request.accept_mimetypes.best_match(OFFERED)
    if best is None:
        raise NotAcceptable(f"{route} offers {' and '.join(OFFERED)}")
    return best == "application/json"


__all__ = ["OFFERED", "wants_json"]
