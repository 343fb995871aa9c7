"""GET /changes: the recent builds and what each changed per entity (HTML, or JSON by content negotiation);
GET /changes/{build id}: one build's record, as a page or as the RDF of its change graph (kg.changes.rdf).

The records come from the store's change graphs (one per build, kept outside the default graph), read once per
store version. Each entity still in the graph links to its page.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request, url_for

from ...changes import NOUNS, BuildChanges, order
from ...changes.rdf import read_log
from ...formats import Format
from ...iris import Minter
from ...negotiation import negotiate
from ...query.results import serialize_rdf
from ..floor.caches import CACHE
from ..floor.errorpages import not_found_response
from ..floor.handle import get_config, get_store
from ..floor.links import FORMAT_LABELS, path_for
from ..floor.offers import wants_json
from .resources import PAGE_FORMATS, TWIN_FORMATS, Reader

bp = Blueprint("changes", __name__)


def builds() -> list[BuildChanges]:
    """The change records of the current store version, newest first."""
    store = get_store()
    found: list[BuildChanges] = CACHE.get(store, "changes", lambda: read_log(store))
    return found


def _base() -> str:
    return str(get_store().metadata.get("base") or get_config().base)


def build_view(reader: Reader, changes: BuildChanges) -> dict[str, Any]:
    """What the page shows of one build: its times and summary, and each entity with its page when it has one."""
    rows = []
    for change in order(changes.entities):
        path = path_for(reader.base, change.iri)
        rows.append({"iri": change.iri, "label": change.label, "kind": NOUNS[change.kind][0], "status": change.status,
                     "added": change.added, "removed": change.removed,
                     "href": url_for("pages.page", path=path) if path and change.status != "removed"
                     and reader.exists(change.iri) else None})
    return {"build_id": changes.build_id, "started_at": changes.started_at, "ended_at": changes.ended_at,
            "started": _shown(changes.started_at), "ended": _shown(changes.ended_at),
            "summary": changes.summary(), "entities": rows, "unlisted": changes.unlisted if changes.entities else 0,
            "first": changes.initial, "href": url_for("changes.build", build_id=changes.build_id),
            "replaced": [{"old": old, "new": new, "href": _page_of(reader, new)}
                         for old, new in sorted(changes.moved.items())]}


def _page_of(reader: Reader, iri: str) -> str | None:
    """The page of a minted IRI the store holds, else None."""
    path = path_for(reader.base, iri)
    return url_for("pages.page", path=path) if path and reader.exists(iri) else None


def _shown(stamp: str) -> str:
    """A time as the page shows it: to the second, in UTC."""
    return f"{stamp[:19].replace('T', ' ')} UTC" if stamp else ""


def as_json(changes: BuildChanges) -> dict[str, Any]:
    """One build's record as JSON, with the IRI of its activity and change graph."""
    minter = Minter(_base())
    return dict(changes.as_json(), iri=str(minter.build(changes.build_id)),
                graph=str(minter.changes_graph(changes.build_id)))


@bp.route("/changes", methods=["GET"])
def recent() -> Response:
    """The recent builds, newest first, each with its time and its entities added, removed and changed."""
    found = builds()
    if wants_json("/changes"):
        response = jsonify(builds=[as_json(c) for c in found])
    else:
        reader = Reader(get_store(), _base())
        alternates = [{"href": url_for("changes.recent", format="json"), "type": "application/json",
                       "name": "JSON"}]
        response = Response(render_template("changes.html", title="Recent changes", alternates=alternates,
                                            builds=[build_view(reader, c) for c in found], single=False),
                            content_type=Format.HTML.content_type)
    response.vary.add("Accept")
    return response


@bp.route("/changes/<build_id>", methods=["GET"])
def build(build_id: str) -> Response:
    """One build's record: its page, or its change graph as RDF (Turtle, JSON-LD, N-Triples, RDF/XML)."""
    found = next((c for c in builds() if c.build_id == build_id), None)
    if found is None:
        return not_found_response(f"no build {build_id} among the store's recent changes", title="Not Found")
    fmt = negotiate(request.headers.get("Accept"), PAGE_FORMATS, request.args.get("format"))
    if fmt is Format.HTML:
        alternates = [{"href": url_for("changes.build", build_id=build_id, format=f.extension), "type": f.media_type,
                       "name": FORMAT_LABELS[f]} for f in TWIN_FORMATS]
        body = render_template("changes.html", title=f"Build {build_id}", alternates=alternates, single=True,
                               builds=[build_view(Reader(get_store(), _base()), found)])
        response = Response(body, content_type=fmt.content_type)
    else:
        graph = str(Minter(_base()).changes_graph(build_id))
        triples = sorted((q.triple for q in get_store().quads(graph)), key=str)
        response = Response(serialize_rdf(triples, fmt), content_type=fmt.content_type)
    response.vary.add("Accept")
    return response


__all__ = ["bp"]
