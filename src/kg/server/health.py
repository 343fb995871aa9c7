"""GET /health: whether a store is open, how many triples it holds, and when it was built."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from ..errors import StoreMissing
from ..store import triple_counts
from .floor.handle import get_store

bp = Blueprint("health", __name__)


@bp.route("/health", methods=["GET"])
def health() -> tuple[Response, int]:
    """{status, triples, built_at}: 200 with a store, 503 without one."""
    try:
        store = get_store()
    except StoreMissing as error:
        return jsonify(status="unavailable", triples=0, built_at=None, message=str(error)), 503
    total = sum(triple_counts(store).values())
    return jsonify(status="ok", triples=total, built_at=store.metadata.get("built_at")), 200
