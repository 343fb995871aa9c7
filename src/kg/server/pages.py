"""Linked-data pages: /id/… answers 303 to /page/… (HTML) or /data/….{ttl,jsonld,nt,rdf}; home and search.

Every page advertises its RDF twins in a ``Link`` header and ``<link rel="alternate">`` and embeds the
resource as schema.org JSON-LD. The kind of page (person, publication, organisation, venue, or a plain
description) follows the resource's types; every page also lists its description, inferred statements
marked.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for

from ..exports import load_context
from ..formats import Format, NotAcceptable, negotiate
from .describe import PAGE_FORMATS, TWIN_FORMATS, Reader, describe, iri_for, schema_jsonld, statement_rows, twin
from .dumps import dataset_jsonld, statistics
from .state import get_config, get_store
from .views import KINDS, view_for

bp = Blueprint("pages", __name__)
S = "http://schema.org/"
SEARCH_LIMIT = 100


def reader() -> Reader:
    """A Reader over the current store, with the configured base."""
    return Reader(get_store(), get_config().base)


def twin_links(path: str) -> list[dict[str, str]]:
    """The RDF documents of a resource: href, media type and format name."""
    return [{"href": url_for("pages.data", path=f"{path}.{f.extension}"), "type": f.media_type, "name": f.name}
            for f in TWIN_FORMATS]


def link_header(alternates: list[dict[str, str]]) -> str:
    """A Link header value naming each alternate representation."""
    return ", ".join(f'<{a["href"]}>; rel="alternate"; type="{a["type"]}"' for a in alternates)


def html(body: str, alternates: list[dict[str, str]], status: int = 200) -> Response:
    """An HTML response that advertises its alternates in a Link header."""
    response = Response(body, status=status, content_type=Format.HTML.content_type)
    if alternates:
        response.headers["Link"] = link_header(alternates)
    return response


def not_found(path: str) -> Response:
    """The 404 page for an unknown IRI (plain text for clients that do not want HTML)."""
    iri = iri_for(get_config().base, path)
    accept = request.accept_mimetypes
    if accept.quality("text/html") <= 0 or accept.best_match(["text/html", "text/plain"]) == "text/plain":
        return Response(f"404 Not Found: no resource <{iri}> in the graph\n", status=404,
                        content_type="text/plain; charset=utf-8")
    return html(render_template("not_found.html", iri=iri, title="Not found"), [], status=404)


@bp.route("/id/<path:path>", methods=["GET"])
def dereference(path: str) -> Response:
    """303 See Other to the page or the RDF document of a minted IRI, by Accept (or format=)."""
    if not reader().exists(iri_for(get_config().base, path)):
        return not_found(path)
    fmt = negotiate(request.headers.get("Accept"), PAGE_FORMATS, request.args.get("format"))
    if fmt is Format.HTML:
        target = url_for("pages.page", path=path)
    else:
        target = url_for("pages.data", path=f"{path}.{fmt.extension}")
    response = redirect(target, code=303)
    response.vary.add("Accept")
    return response


def split_extension(path: str) -> tuple[str, Format | None]:
    """Split an RDF file extension off a data path: ('person/ada', TURTLE) for 'person/ada.ttl'.

    >>> split_extension("person/ada.jsonld")
    ('person/ada', <Format.JSON_LD: 'application/ld+json'>)
    >>> split_extension("work/tvm/authorship/1")
    ('work/tvm/authorship/1', None)
    """
    stem, dot, extension = path.rpartition(".")
    fmt = Format.from_extension(extension) if dot and "/" not in extension else None
    if fmt is None or fmt not in TWIN_FORMATS:
        return path, None
    return stem, fmt


@bp.route("/data/<path:path>", methods=["GET"])
def data(path: str) -> Response:
    """The RDF description of a resource: by extension, else by format=, else by Accept."""
    stem, fmt = split_extension(path)
    r = reader()
    iri = iri_for(get_config().base, stem)
    if not r.exists(iri):
        return not_found(stem)
    if fmt is None or request.args.get("format"):
        fmt = negotiate(request.headers.get("Accept"), TWIN_FORMATS, request.args.get("format"))
    body = twin(describe(r, iri), fmt, load_context(get_config()))
    response = Response(body, content_type=fmt.content_type)
    response.headers["Link"] = f'<{url_for("pages.page", path=stem)}>; rel="alternate"; type="text/html"'
    if split_extension(path)[1] is None:
        response.vary.add("Accept")
    return response


@bp.route("/page/<path:path>", methods=["GET"])
def page(path: str) -> Response:
    """The HTML page of a resource, chosen by its kind and types."""
    r = reader()
    iri = iri_for(get_config().base, path)
    if not r.exists(iri):
        return not_found(path)
    description = describe(r, iri)
    kind, view = view_for(r, iri, path)
    alternates = twin_links(path)
    body = render_template(KINDS[kind], iri=iri, path=path, view=view, title=view.get("name") or r.label(iri),
                           alternates=alternates, jsonld=schema_jsonld(r, description),
                           statements=statement_rows(r, description))
    return html(body, alternates)


def home_alternates() -> list[dict[str, str]]:
    """The dataset's own RDF description (VoID) as the alternates of the home and search pages."""
    return [{"href": url_for("dumps.void", format=f.extension), "type": f.media_type, "name": f.name}
            for f in (Format.TURTLE, Format.JSON_LD)]


@bp.route("/", methods=["GET"])
def home() -> Response:
    """What the graph holds: counts per class, triples per named graph, last build; search, query, dumps."""
    store = get_store()
    stats = statistics(store, get_config().base)
    alternates = home_alternates()
    body = render_template("home.html", title="Knowledge graph", stats=stats, alternates=alternates,
                           built_at=store.metadata.get("built_at"), graphs=sorted(store.metadata.get("triples",
                           {}).items()), jsonld=dataset_jsonld(stats))
    return html(body, alternates)


def search_names(r: Reader, text: str, limit: int = SEARCH_LIMIT) -> list[dict[str, Any]]:
    """Resources whose name, alternate name or title contains the text (case-insensitive), people first."""
    needle = text.strip().casefold()
    if not needle:
        return []
    matches: dict[str, dict[str, Any]] = {}
    for prop in (S + "name", S + "alternateName"):
        for quad in r.store.ox.quads_for_pattern(None, _named(prop), None, _default()):
            iri = getattr(quad.subject, "value", "")
            path = r.href(quad.subject)
            if path is None or iri in matches or needle not in str(quad.object.value).casefold():
                continue
            kind = path.split("/", 1)[0]
            matches[iri] = {"label": r.label(quad.subject), "url": url_for("pages.page", path=path), "kind": kind,
                            "matched": str(quad.object.value), "iri": iri}
    order = {"person": 0, "work": 1, "organization": 2, "venue": 3, "project": 4}
    found = sorted(matches.values(), key=lambda m: (order.get(m["kind"], 9), m["label"].casefold(), m["iri"]))
    return found[:limit]


def _named(iri: str) -> Any:
    import pyoxigraph as ox

    return ox.NamedNode(iri)


def _default() -> Any:
    import pyoxigraph as ox

    return ox.DefaultGraph()


@bp.route("/search", methods=["GET"])
def search() -> Response:
    """Search names and titles: GET /search?q=…"""
    query = request.args.get("q", "")
    results = search_names(reader(), query)
    alternates = home_alternates()
    body = render_template("search.html", title=f"Search: {query}" if query else "Search", q=query,
                           results=results, limit=SEARCH_LIMIT, alternates=alternates)
    return html(body, alternates)


__all__ = ["NotAcceptable", "bp"]
