"""GET /health: whether a store is open, how many triples it holds, and when it was built."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from ..errors import StoreMissing
from ..store import triple_counts
from ..store.status import read_status
from .floor.handle import get_config, get_store

bp = Blueprint("health", __name__)


@bp.route("/health", methods=["GET"])
def health() -> tuple[Response, int]:
    """{status, triples, built_at}: 200 with a store, 503 without one; with a resident builder (kg serve --watch),
    also its last rebuild (state ok or failed, when, the version served, the errors as file:line lines)."""
    config = get_config()
    rebuild = read_status(config.store) if not config.remote else None
    extra = {"rebuild": rebuild} if rebuild is not None else {}
    try:
        store = get_store()
    except StoreMissing as error:
        return jsonify(status="unavailable", triples=0, built_at=None, message=str(error), **extra), 503
    total = sum(triple_counts(store).values())
    return jsonify(status="ok", triples=total, built_at=store.metadata.get("built_at"), **extra), 200
