"""The dataset as files: /dump.{nq,ttl,jsonld}, its VoID description, the JSON-LD context and the ontology.

Dumps come from ``kg.exports.export`` (byte-identical for the same data) and are computed once per store
version; so are the statistics behind the VoID description and the home page (kg.server.pages.dataset).
``/ontology`` serves the ontology graph at its namespace IRI's path, as an HTML list of terms or as RDF, by
content negotiation.
"""

from __future__ import annotations

import json
from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from ...exports import Selection, export, load_context
from ...formats import Format
from ...iris import graph_kind
from ...negotiation import negotiate
from ...prefixes import ONTOLOGY_IRI
from ...query.results import serialize_rdf
from ...store import metadata_text
from ..floor.caches import CACHE, etag_for, mark, not_modified, per_host
from ..floor.cors import add_cors_headers
from ..floor.graphs import ox_triples
from ..floor.handle import get_config, get_store
from ..floor.links import FORMAT_LABELS
from .dataset import DUMPS, VOID_PREFIXES, statistics, void_graph
from .resources import PAGE_FORMATS, TWIN_FORMATS, Reader, compact

bp = Blueprint("dumps", __name__)
EXPORT_NAMES = {"nq": "nq", "ttl": "turtle", "jsonld": "jsonld"}


@bp.after_request
def cors(response: Response) -> Response:
    """The query endpoints' CORS policy on the dumps, VoID, the context and the ontology (read-only RDF)."""
    return add_cors_headers(response, request, get_config().cors_origins)


@bp.route("/dump.<any(nq, ttl, jsonld):extension>", methods=["GET"])
def dump(extension: str) -> BaseResponse:
    """The whole dataset, deterministic: N-Quads keeps the named graphs; Turtle and JSON-LD hold their merge."""
    store = get_store()
    config = get_config()
    tag = etag_for(f"dump.{extension}")
    early = not_modified(tag, vary=False)
    if early is not None:
        return early
    body: bytes = CACHE.get(store, f"dump.{extension}", lambda: export(
        store, EXPORT_NAMES[extension], Selection.ALL, context=load_context(config)))
    response = Response(body, content_type=DUMPS[extension].content_type)
    response.headers["Content-Disposition"] = f'inline; filename="kg.{extension}"'
    return mark(response, tag, vary=False)


@bp.route("/void", methods=["GET"])
@bp.route("/.well-known/void", methods=["GET"])
def void() -> BaseResponse:
    """The VoID description of the dataset (Turtle by default; format= or Accept for others)."""
    store = get_store()
    fmt = negotiate(request.headers.get("Accept"), TWIN_FORMATS, request.args.get("format"))
    tag = etag_for(per_host(f"void.{fmt.extension}"))  # the description names this host's endpoint and dumps
    early = not_modified(tag, vary=True)
    if early is not None:
        return early
    graph = void_graph(statistics(store, get_config().base), metadata_text(store, "built_at"))
    response = Response(serialize_rdf(ox_triples(graph), fmt, VOID_PREFIXES), content_type=fmt.content_type)
    return mark(response, tag, vary=True)


@bp.route("/context.jsonld", methods=["GET"])
def context() -> BaseResponse:
    """The JSON-LD context used by the dumps and the JSON-LD documents (with an ETag, so clients revalidate)."""
    tag = etag_for("context")
    early = not_modified(tag, vary=False)
    if early is not None:
        return early
    body = json.dumps({"@context": load_context(get_config())}, indent=2, ensure_ascii=False) + "\n"
    return mark(Response(body, content_type=Format.JSON_LD.content_type), tag, vary=False)


def ontology_terms(reader: Reader, graph: str) -> dict[str, Any]:
    """The ontology's header, classes, properties and alignment axioms, for the HTML listing."""
    triples: list[Any] = [q.triple for q in reader.store.quads(graph)]
    namespace = ONTOLOGY_IRI + "#"
    subjects = sorted({t.subject.value for t in triples if isinstance(t.subject, ox.NamedNode)
                       and t.subject.value.startswith(namespace)})

    def about(iri: str) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for t in triples:
            if isinstance(t.subject, ox.NamedNode) and t.subject.value == iri:
                found.setdefault(compact(t.predicate.value), []).append(
                    t.object.value if isinstance(t.object, ox.Literal) else compact(t.object.value))
        return {k: sorted(v) for k, v in found.items()}

    terms = [dict(about(iri), iri=iri, name=iri[len(namespace):]) for iri in subjects]
    classes = [t for t in terms if "owl:Class" in t.get("rdf:type", [])]
    properties = [t for t in terms if t not in classes]
    axioms = sorted((compact(t.subject.value), compact(t.predicate.value), compact(t.object.value)) for t in triples
                    if isinstance(t.subject, ox.NamedNode) and not t.subject.value.startswith(ONTOLOGY_IRI)
                    and isinstance(t.object, ox.NamedNode))
    header = about(ONTOLOGY_IRI)
    return {"header": header, "classes": classes, "properties": properties, "axioms": axioms,
            "ontology_iri": ONTOLOGY_IRI}


@bp.route("/ontology", methods=["GET"])
def ontology() -> Response:
    """The ontology at its namespace path: an HTML list of terms, or the ontology graph as RDF."""
    store = get_store()
    graph = next((g for g in store.graph_names() if graph_kind(g) == "ontology"), None)
    fmt = negotiate(request.headers.get("Accept"), PAGE_FORMATS, request.args.get("format"))
    alternates = [{"href": url_for("dumps.ontology", format=f.extension), "type": f.media_type,
                   "name": FORMAT_LABELS[f]} for f in TWIN_FORMATS]
    if fmt is Format.HTML:
        terms = ontology_terms(Reader(store, get_config().base), graph) if graph else {}
        body = render_template("ontology.html", title="kg ontology", terms=terms, alternates=alternates)
        response = Response(body, content_type=fmt.content_type)
        response.headers["Link"] = ", ".join(f'<{a["href"]}>; rel="alternate"; type="{a["type"]}"'
                                             for a in alternates)
    else:
        triples = [q.triple for q in store.quads(graph)] if graph else []
        response = Response(serialize_rdf(sorted(triples, key=str), fmt), content_type=fmt.content_type)
    response.vary.add("Accept")
    return response
