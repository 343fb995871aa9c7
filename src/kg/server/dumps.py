"""The dataset as files: /dump.{nq,ttl,jsonld}, its VoID description, the JSON-LD context and the ontology.

Dumps come from ``kg.exports.export`` (byte-identical for the same data) and are computed once per store
version; so are the statistics behind the VoID description and the home page. ``/ontology`` serves the
ontology graph at its namespace IRI's path, as an HTML list of terms or as RDF, by content negotiation.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request, url_for
from rdflib import RDF, BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, RDFS, VOID, XSD
from werkzeug.wrappers import Response as BaseResponse

from ..exports import Selection, export, load_context
from ..formats import Format
from ..identifiers import IRI_PREFIXES, SCHEME_LABELS
from ..iris import Minter, graph_kind
from ..namespaces import PREFIXES
from ..negotiation import negotiate
from ..prefixes import ONTOLOGY_IRI
from ..query.results import serialize_rdf
from ..store import GraphStore, metadata_text, solutions
from .cors import add_cors_headers
from .handle import get_config, get_store
from .pagecache import etag_for, mark, not_modified, per_host
from .resources import FORMAT_LABELS, PAGE_FORMATS, TWIN_FORMATS, Reader, compact
from .service import ox_triples

bp = Blueprint("dumps", __name__)
DUMPS = {"nq": Format.N_QUADS, "ttl": Format.TURTLE, "jsonld": Format.JSON_LD}
EXPORT_NAMES = {"nq": "nq", "ttl": "turtle", "jsonld": "jsonld"}
VOCABULARIES = (PREFIXES["schema"], PREFIXES["foaf"], PREFIXES["bibo"], ONTOLOGY_IRI + "#")
VOID_PREFIXES = {"void": str(VOID), "dcterms": str(DCTERMS), "xsd": str(XSD), "schema": PREFIXES["schema"],
                 "foaf": PREFIXES["foaf"], "bibo": PREFIXES["bibo"], "kg": ONTOLOGY_IRI + "#", "rdfs": str(RDFS)}
MAX_NAMES = 32  # values one version keeps (seven names are used)

T = TypeVar("T")


class VersionCache:
    """Values computed once per store version (the newest version only), thread-safe. Names are fixed in the code
    (statistics, the dumps, the sitemap's paths, the change and move records), never made from a request: the
    cache holds what the data makes, whatever clients send; past MAX_NAMES a value is computed and not kept."""

    def __init__(self) -> None:
        self.version: tuple[str, str] | None = None
        self.values: dict[str, object] = {}
        self.lock = threading.Lock()

    def get(self, store: GraphStore, name: str, compute: Callable[[], T]) -> T:
        """The cached value for this store version, computing it on first use (a name always holds one type)."""
        version = (store.version, str(store.metadata.get("built_at")))
        with self.lock:
            if version != self.version:
                self.version, self.values = version, {}
            if name in self.values:
                return cast(T, self.values[name])
        value = compute()
        with self.lock:
            if version == self.version and len(self.values) < MAX_NAMES:
                self.values[name] = value
        return value


CACHE = VersionCache()


@bp.after_request
def cors(response: Response) -> Response:
    """The query endpoints' CORS policy on the dumps, VoID, the context and the ontology (read-only RDF)."""
    return add_cors_headers(response, request, get_config().cors_origins)


@dataclass(frozen=True)
class Statistics:
    """What the graph holds: triples, entities, classes with their counts, properties, named graphs."""

    triples: int
    entities: int
    properties: int
    distinct_subjects: int
    distinct_objects: int
    classes: list[tuple[str, int]] = field(default_factory=list)
    graphs: list[tuple[str, int]] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    uri_space: str = ""
    linksets: list[tuple[str, str, int]] = field(default_factory=list)


def _count(store: GraphStore, sparql: str) -> int:
    row = next(iter(solutions(store.query(sparql))))
    return int(row[0].value)


def compute_statistics(store: GraphStore, base: str) -> Statistics:
    """Count triples, minted entities, classes (instances of each), properties and subjects of the merged graph."""
    space = Minter(base).id_space
    literal = str(ox.Literal(space))
    classes = [(row[0].value, int(row[1].value)) for row in solutions(store.query(
        "SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c ORDER BY DESC(?n) ?c"))]
    graphs = [(name, store.triple_count(name)) for name in store.graph_names()]
    profiles = [name.rsplit("/", 1)[1] for name, _ in graphs if graph_kind(name) == "profile"]
    return Statistics(
        triples=_count(store, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"),
        entities=_count(store, "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o "
                               f"FILTER(isIRI(?s) && STRSTARTS(STR(?s), {literal})) }}"),
        properties=_count(store, "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?s ?p ?o }"),
        distinct_subjects=_count(store, "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }"),
        distinct_objects=_count(store, "SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s ?p ?o }"),
        classes=classes, graphs=graphs, examples=[f"{space}person/{slug}" for slug in profiles], uri_space=space,
        linksets=_linksets(store, literal))


def _linksets(store: GraphStore, space: str) -> list[tuple[str, str, int]]:
    """(scheme, IRI prefix, links) for each outside system kg's nodes link to with schema:sameAs."""
    found = []
    for scheme, prefix in IRI_PREFIXES.items():
        target = str(ox.Literal(prefix))
        count = _count(store, "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://schema.org/sameAs> ?o "
                              f"FILTER(STRSTARTS(STR(?s), {space}) && STRSTARTS(STR(?o), {target})) }}")
        if count:
            found.append((scheme, prefix, count))
    return found


def statistics(store: GraphStore, base: str) -> Statistics:
    """The statistics of the current store version (computed once)."""
    return CACHE.get(store, "statistics", lambda: compute_statistics(store, base))


def dump_urls() -> dict[str, str]:
    """Absolute URLs of the dumps by extension."""
    return {ext: url_for("dumps.dump", extension=ext, _external=True) for ext in DUMPS}


def void_graph(stats: Statistics, built_at: str | None) -> Graph:
    """The VoID description of the dataset, with the endpoint and dump URLs of this server."""
    graph = Graph()
    dataset = URIRef(url_for("dumps.void", _external=True) + "#dataset")
    graph.add((dataset, RDF.type, VOID.Dataset))
    graph.add((dataset, DCTERMS.title, Literal("kg: researcher profiles knowledge graph", lang="en")))
    graph.add((dataset, DCTERMS.description, Literal(
        "People, publications, organisations and venues from curated researcher profiles, mapped to schema.org, "
        "FOAF and BIBO, with OWL 2 RL inferences in their own named graph.", lang="en")))
    if built_at:
        graph.add((dataset, DCTERMS.modified, Literal(built_at, datatype=XSD.dateTime)))
    for prop, value in ((VOID.triples, stats.triples), (VOID.entities, stats.entities),
                        (VOID.classes, len(stats.classes)), (VOID.properties, stats.properties),
                        (VOID.distinctSubjects, stats.distinct_subjects),
                        (VOID.distinctObjects, stats.distinct_objects)):
        graph.add((dataset, prop, Literal(value, datatype=XSD.integer)))
    graph.add((dataset, VOID.sparqlEndpoint, URIRef(url_for("sparql.endpoint", _external=True))))
    for url in dump_urls().values():
        graph.add((dataset, VOID.dataDump, URIRef(url)))
    graph.add((dataset, VOID.uriSpace, Literal(stats.uri_space)))
    for vocabulary in VOCABULARIES:
        graph.add((dataset, VOID.vocabulary, URIRef(vocabulary)))
    for fmt in (Format.TURTLE, Format.N_QUADS, Format.JSON_LD):
        graph.add((dataset, VOID.feature, URIRef(str(fmt.iri))))
    for example in stats.examples:
        graph.add((dataset, VOID.exampleResource, URIRef(example)))
    for class_iri, count in stats.classes:
        partition = BNode()
        graph.add((dataset, VOID.classPartition, partition))
        graph.add((partition, VOID["class"], URIRef(class_iri)))
        graph.add((partition, VOID.entities, Literal(count, datatype=XSD.integer)))
    for scheme, prefix, count in stats.linksets:
        linkset, target = URIRef(f"{dataset}-links-{scheme}"), URIRef(f"{dataset}-{scheme}")
        graph.add((dataset, VOID.subset, linkset))
        graph.add((linkset, RDF.type, VOID.Linkset))
        graph.add((linkset, VOID.linkPredicate, URIRef("http://schema.org/sameAs")))
        graph.add((linkset, VOID.subjectsTarget, dataset))
        graph.add((linkset, VOID.objectsTarget, target))
        graph.add((linkset, VOID.triples, Literal(count, datatype=XSD.integer)))
        graph.add((target, RDF.type, VOID.Dataset))
        graph.add((target, VOID.uriSpace, Literal(prefix)))
        graph.add((target, DCTERMS.title, Literal(SCHEME_LABELS[scheme].removesuffix(" id") + " identifiers")))
    for name, count in stats.graphs:
        graph.add((dataset, VOID.subset, URIRef(name)))
        graph.add((URIRef(name), RDF.type, VOID.Dataset))
        graph.add((URIRef(name), VOID.triples, Literal(count, datatype=XSD.integer)))
    return graph


def dataset_jsonld(stats: Statistics) -> dict[str, Any]:
    """The dataset as schema.org JSON-LD for the home page: name, size, downloads and the endpoint."""
    return {"@context": "https://schema.org/", "@type": "Dataset", "@id": url_for("dumps.void", _external=True)
            + "#dataset", "name": "kg: researcher profiles knowledge graph",
            "description": f"{stats.triples} triples about {stats.entities} entities.",
            "distribution": [{"@type": "DataDownload", "contentUrl": url, "encodingFormat": DUMPS[ext].media_type}
                             for ext, url in dump_urls().items()]}


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
def context() -> Response:
    """The JSON-LD context used by the dumps and the JSON-LD documents."""
    body = json.dumps({"@context": load_context(get_config())}, indent=2, ensure_ascii=False) + "\n"
    return Response(body, content_type=Format.JSON_LD.content_type)


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
