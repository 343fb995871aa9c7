"""Answers for minted IRIs the graph no longer has, from the moved graph the builds keep (kg.changes.moves): 301
Moved Permanently to the IRI that replaced one (the same route, the rest of the path and the query kept), 410 Gone
for one a build removed."""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox
from flask import redirect, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from ...changes.moves import read_moved
from ...iris import Minter
from ...store import GraphStore, Store
from ..floor.caches import CACHE
from ..floor.errorpages import gone_response, not_found_response

LEVELS = 4  # how far above an IRI to look for a moved entity (a work's authorship is two steps below it)


@dataclass(frozen=True)
class Moves:
    """A store version's replaced IRIs (old -> new) and removed ones (IRI -> when)."""

    replaced: dict[str, str]
    removed: dict[str, str]

    def find(self, iri: str) -> tuple[str, str] | None:
        """("moved", the new IRI) or ("gone", when) for an IRI or for the entity it lies under, else None."""
        head, tail = iri, ""
        for _ in range(LEVELS):
            if head in self.replaced:
                return "moved", self.replaced[head] + tail
            if head in self.removed:
                return "gone", self.removed[head]
            head, slash, last = head.rpartition("/")
            if not slash:
                return None
            tail = f"/{last}{tail}"
        return None


def moves_of(store: GraphStore, base: str) -> Moves:
    """The moved graph of an embedded store version, read once per version (a remote store keeps none)."""
    if not isinstance(store, Store):
        return Moves({}, {})
    found: Moves = CACHE.get(store, "moves", lambda: _read(store, base))
    return found


def _read(store: Store, base: str) -> Moves:
    graph = ox.NamedNode(str(Minter(base).moved_graph()))
    replaced, removed = read_moved(q.triple for q in store.ox.quads_for_pattern(None, None, None, graph))
    return Moves(replaced, {iri: when.value for iri, when in removed.items()})


def missing(store: GraphStore, base: str, path: str) -> BaseResponse:
    """The answer for /id/, /page/ or /data/ of a path whose IRI the graph lacks: 301 to the same route for the IRI
    that replaced it (the rest of the route's path, such as ``.ttl``, and the query kept), 410 when a build removed
    it, else the 404 (styled for browsers, text or JSON otherwise)."""
    minter = Minter(base)
    iri = minter.at(path)
    found = moves_of(store, base).find(iri)
    if found is None:
        return not_found_response(f"no resource <{iri}> in the graph", iri)
    status, value = found
    if status == "gone":
        return gone_response(iri, value)
    suffix = request.view_args["path"][len(path):] if request.view_args else ""
    target = url_for(request.endpoint or "pages.page", path=(minter.path_of(value) or path) + suffix)
    query = request.query_string.decode("latin-1")
    return redirect(f"{target}?{query}" if query else target, code=301)


__all__ = ["Moves", "missing", "moves_of"]
