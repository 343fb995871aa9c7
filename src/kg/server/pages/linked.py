"""Linked-data pages: /id/… answers 303 to /page/… (HTML) or /data/….{ttl,jsonld,nt,rdf}; home and search.

Every page advertises its RDF twins in a ``Link`` header and ``<link rel="alternate">`` and embeds the
resource as schema.org JSON-LD. The kind of page (person, publication, organisation, venue, or a plain
description) follows the resource's types; every page also lists its description, inferred statements
marked.
"""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from ...errors import NotAcceptable
from ...exports import load_context
from ...formats import Format
from ...namespaces import BIBO_IRIS as B
from ...namespaces import KG_IRIS as K
from ...namespaces import SCHEMA_IRIS as S
from ...negotiation import negotiate
from ..floor.caches import versioned
from ..floor.cors import add_cors_headers
from ..floor.handle import get_config, get_store, handle
from ..floor.links import FORMAT_LABELS, instances_href, iri_for, linkable, page_url
from .dataset import dataset_jsonld, statistics
from .directory import entities, kind_href, people_directory
from .fulltext import search_response, suggest_response
from .moved import missing
from .organizations import organization_view
from .pictures import publication
from .prefetch import prefetch
from .resources import BIBTEX_TYPE, PAGE_FORMATS, TWIN_FORMATS, Reader, compact, describe, statement_rows, twin
from .structured import schema_jsonld
from .views import base_view, organization_kind, person_view, work_view

bp = Blueprint("pages", __name__)
RDF_DOCUMENTS = frozenset({"pages.dereference", "pages.data"})
CITABLE = frozenset({"person.html", "work.html"})  # pages with a BibTeX twin (kg.server.pages.citations)
_DEFAULT = ox.DefaultGraph()


@bp.app_template_test("linkable")
def linkable_test(url: Any) -> bool:
    """Jinja test ``url is linkable``: only http, https and mailto IRIs (and this app's paths) become links."""
    return linkable(url)


bp.add_app_template_global(page_url, "page_url")  # the fast url_for("pages.page") of every template


@bp.app_template_filter("compact")
def compact_filter(iri: str) -> str:
    """Jinja filter: a prefixed name for an IRI in a known namespace."""
    return compact(iri)


@bp.after_request
def cors(response: Response) -> Response:
    """The query endpoints' CORS policy on /id/ and /data/ (read-only RDF documents and their redirects)."""
    if request.endpoint in RDF_DOCUMENTS:
        return add_cors_headers(response, request, get_config().cors_origins)
    return response


def reader() -> Reader:
    """A Reader over the current store, with the configured base."""
    return Reader(get_store(), get_config().base)


def twin_links(path: str) -> list[dict[str, str]]:
    """The RDF documents of a resource: href, media type and format name."""
    return [{"href": url_for("pages.data", path=f"{path}.{f.extension}"), "type": f.media_type,
             "name": FORMAT_LABELS[f]} for f in TWIN_FORMATS]


def link_header(alternates: list[dict[str, str]]) -> str:
    """A Link header value naming each alternate representation."""
    return ", ".join(f'<{a["href"]}>; rel="alternate"; type="{a["type"]}"' for a in alternates)


def html(body: str, alternates: list[dict[str, str]], status: int = 200) -> Response:
    """An HTML response that advertises its alternates in a Link header."""
    response = Response(body, status=status, content_type=Format.HTML.content_type)
    if alternates:
        response.headers["Link"] = link_header(alternates)
    return response


def not_found(path: str) -> BaseResponse:
    """The answer for an IRI the graph lacks: 301 or 410 from the builds' moved graph, else the 404."""
    return missing(get_store(), get_config().base, path)


@bp.route("/id/<path:path>", methods=["GET"])
def dereference(path: str) -> BaseResponse:
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


def data_representation(path: str) -> tuple[Format, bool] | None:
    """The format /data/{path} answers in and whether Accept chose it; None when nothing offered is acceptable."""
    fmt = split_extension(path)[1]
    if fmt is None or request.args.get("format"):
        try:
            fmt = negotiate(request.headers.get("Accept"), TWIN_FORMATS, request.args.get("format"))
        except NotAcceptable:
            return None
    return fmt, split_extension(path)[1] is None


@bp.route("/data/<path:path>", methods=["GET"])
@versioned(data_representation)
def data(path: str) -> BaseResponse:
    """The RDF description of a resource: by extension, else by format=, else by Accept."""
    stem, fmt = split_extension(path)
    r = reader()
    iri = iri_for(get_config().base, stem)
    prefetch(r, iri, page=False)
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
@versioned(lambda path: (Format.HTML, False))
def page(path: str) -> BaseResponse:
    """The HTML page of a resource, chosen by its kind and types."""
    r = reader()
    iri = iri_for(get_config().base, path)
    prefetch(r, iri)
    if not r.exists(iri):
        return not_found(path)
    description = describe(r, iri)
    template, view = view_for(r, iri, path)
    alternates = twin_links(path) + ([{"href": url_for("citations.citations", path=path), "type": BIBTEX_TYPE,
                                       "name": "BibTeX"}] if template in CITABLE else [])
    body = render_template(template, iri=iri, path=path, view=view, title=view.get("name") or r.label(iri),
                           alternates=alternates, jsonld=schema_jsonld(r, description),
                           statements=statement_rows(r, description))
    return html(body, alternates)


def venue_view(r: Reader, node: Any) -> dict[str, Any]:
    """Series name and acronyms, and its papers by year (an edition shows its own papers)."""
    types = r.types(node)
    series = node if S.Event not in types else r.first(node, S.superEvent) or node
    editions = [node] if series != node else sorted(set(r.values(node, S.subEvent))
                                                    | set(r.incoming(node, S.superEvent)), key=str)
    years: dict[int, dict[str, Any]] = {}
    for edition in editions:
        year = int(r.text(edition, S.startDate) or 0)
        entry = years.setdefault(year, {"year": year, "editions": [], "papers": []})
        entry["editions"].append({"label": r.label(edition), "path": r.href(edition), "iri": edition.value})
        entry["papers"].extend(publication(r, w) for w in r.incoming(edition, B.presentedAt))
    if series == node:
        listed = {p["iri"] for entry in years.values() for p in entry["papers"]}
        for work in r.incoming(node, S.isPartOf):
            if work.value in listed:  # dated on one profile (edition), year-less on another (series)
                continue
            record = publication(r, work)
            years.setdefault(record["year"] or 0, {"year": record["year"] or 0, "editions": [], "papers": []})[
                "papers"].append(record)
    for entry in years.values():
        entry["papers"].sort(key=lambda p: p["label"].casefold())
    view = base_view(r, node)
    view.update({"series": {"label": r.label(series), "path": r.href(series), "iri": series.value},
                 "is_edition": series != node, "acronyms": r.texts(series, S.alternateName),
                 "years": [years[y] for y in sorted(years, reverse=True)],
                 "papers": sum(len(e["papers"]) for e in years.values())})
    return view


def view_for(r: Reader, iri: str, path: str) -> tuple[str, dict[str, Any]]:
    """The template and view of a resource, by its kind and types."""
    node, types, kind = ox.NamedNode(iri), r.types(iri), path.split("/", 1)[0]
    if S.Person in types:
        return "person.html", person_view(r, node)
    if kind == "venue" or {S.EventSeries, S.Event, S.Collection} & types:
        return "venue.html", venue_view(r, node)
    if kind == "work" and "/" not in path[len("work/"):] or S.ScholarlyArticle in types:
        return "work.html", work_view(r, node)
    if S.Organization in types:
        base = dict(base_view(r, node), kind=organization_kind(r, node))
        return "organization.html", organization_view(r, node, base)
    return "resource.html", resource_view(r, node, types)


RESOURCE_KINDS = ((K.Authorship, "Authorship"), (S.EmployeeRole, "Position"),
                  (S.EducationalOccupationalCredential, "Degree"), (S.OrganizationRole, "Role"),
                  (K.Metric, "Metric"), (S.PropertyValue, "Metric"))


def resource_view(r: Reader, node: Any, types: set[str]) -> dict[str, Any]:
    """A resource without a page of its own kind: its kind and what links to it."""
    view = base_view(r, node)
    view["kind"] = next((label for iri, label in RESOURCE_KINDS if iri in types), "Resource")
    incoming: set[tuple[Any, str]] = {(q.subject, q.predicate.value) for q in
                                      r.store.quads_for_pattern(None, None, node, _DEFAULT)
                                      if r.href(q.subject) is not None}
    view["linked_from"] = [{"label": r.label(s), "path": r.href(s), "iri": s.value, "property": compact(p)}
                           for s, p in sorted(incoming, key=lambda item: (str(item[0]), item[1]))]
    return view


def home_alternates() -> list[dict[str, str]]:
    """The dataset's own RDF description (VoID) as the alternates of the home and search pages."""
    return [{"href": url_for("dumps.void", format=f.extension), "type": f.media_type,
             "name": f"VoID {FORMAT_LABELS[f]}"} for f in (Format.TURTLE, Format.JSON_LD)]


@bp.route("/", methods=["GET"])
def home() -> Response:
    """What the graph holds: counts per class, triples per named graph, last build; search, query, dumps."""
    store, r = get_store(), reader()
    stats = statistics(store, get_config().base)
    alternates = home_alternates()
    found = entities(store)
    counts = [(len(stats.examples), "with a profile", url_for("pages.people") + "#profiles"),
              (found.count("person"), "people", url_for("pages.people") + "#everyone"),
              (found.count("work"), "publications", kind_href(store, "work")),
              (found.count("organization"), "organisations", url_for("pages.people") + "#organisations"),
              (found.count("venue"), "venues and editions", kind_href(store, "venue"))]
    body = render_template("home.html", title="Knowledge graph", stats=stats, alternates=alternates,
                           built_at=store.metadata.get("built_at"), jsonld=dataset_jsonld(stats),
                           instances_href=instances_href, counts=counts,
                           profiles=[{"label": r.label(ox.NamedNode(p)), "path": r.href(ox.NamedNode(p))}
                                     for p in stats.examples])
    return html(body, alternates)


@bp.route("/people", methods=["GET"])
def people() -> Response:
    """The people directory: people with profiles, by organisation, and everyone in the graph A to Z."""
    store = get_store()
    stats = statistics(store, get_config().base)
    view = people_directory(store, reader(), stats.examples)
    return html(render_template("people.html", title="People", view=view), [])


@bp.route("/search", methods=["GET"])
def search() -> Response:
    """Search the full-text index: GET /search?q=…&kind=…&year=…&org=…&page=…, HTML or JSON
    (kg.server.pages.fulltext)."""
    return search_response(handle(), reader(), request, home_alternates())


@bp.route("/search/suggest", methods=["GET"])
def suggest() -> Response:
    """Autocomplete: GET /search/suggest?q=… answers the best few matches as JSON (kg.server.pages.fulltext)."""
    return suggest_response(handle(), request)


__all__ = ["bp"]
