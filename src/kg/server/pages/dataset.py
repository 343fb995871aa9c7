"""The dataset described: its statistics (computed once per store version), its VoID graph and schema.org JSON-LD."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox
from flask import url_for
from rdflib import RDF, BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, RDFS, VOID, XSD

from ...formats import Format
from ...identifiers import IRI_PREFIXES, SCHEME_LABELS
from ...iris import Minter, graph_kind
from ...namespaces import PREFIXES
from ...prefixes import ONTOLOGY_IRI
from ...store import GraphStore, solutions
from ..floor.caches import CACHE

DUMPS = {"nq": Format.N_QUADS, "ttl": Format.TURTLE, "jsonld": Format.JSON_LD}
VOCABULARIES = (PREFIXES["schema"], PREFIXES["foaf"], PREFIXES["bibo"], ONTOLOGY_IRI + "#")
VOID_PREFIXES = {"void": str(VOID), "dcterms": str(DCTERMS), "xsd": str(XSD), "schema": PREFIXES["schema"],
                 "foaf": PREFIXES["foaf"], "bibo": PREFIXES["bibo"], "kg": ONTOLOGY_IRI + "#", "rdfs": str(RDFS)}


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


__all__ = ["DUMPS", "VOID_PREFIXES", "Statistics", "dataset_jsonld", "dump_urls", "statistics", "void_graph"]
