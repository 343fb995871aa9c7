"""A remote SPARQL 1.1 store seen through the same interface as the embedded one (kg.store.Store).

What kg keeps in a remote store, under the build's base IRI B:

- each public named graph under its own IRI (``B/graph/...``), exactly as in the embedded store;
- ``B/kg/merged/VERSION``: the set union of the public graphs, which kg sends as the default graph of every
  query that names no dataset; a new build writes a new one and the manifest points at it, so queries on the
  default graph switch atomically on every engine (engines disagree on their own default graph: Virtuoso's is
  the union of every graph, with a triple counted once per graph; Oxigraph's is a graph of its own);
- ``B/kg/manifest``: one JSON literal naming the build version, the graphs with their digests and triple
  counts, and the build metadata. Readers use it to list graphs and to key their caches;
- blank nodes as skolem IRIs ``B/.well-known/genid/LABEL`` (RDF 1.1 §3.5), so that pages can follow RDF
  lists with plain lookups; every term read back is turned into a blank node again, so queries, pages and
  exports see blank nodes as they do with the embedded store.

Queries get the endpoint's prefixes and base as a prologue, and that default dataset unless they name one
(FROM, or the protocol's default-graph-uri / named-graph-uri).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, overload

import pyoxigraph as ox
from rdflib import Graph

from ..config import Config
from ..errors import BadQuery, QueryTimeout, RemoteStoreError, StoreMissing
from ..iris import RemoteNames
from ..sparql_text import GRAPH, keywords, query_form, tokens
from ..terms import OxGraphName, OxObject, OxSubject
from .client import RemoteLocation, Response, SparqlClient
from .embedded import rdflib_graph_of
from .protocol import DefaultGraphs, NamedGraphs, solutions

MANIFEST_PROPERTY = "https://kg.example.org/ontology#buildManifest"
STAGING_PROPERTY = "https://kg.example.org/ontology#stagingGraph"
GRAPH_MEDIA = {"application/n-triples": ox.RdfFormat.N_TRIPLES, "text/plain": ox.RdfFormat.N_TRIPLES,
               "text/turtle": ox.RdfFormat.TURTLE, "application/x-turtle": ox.RdfFormat.TURTLE,
               "application/rdf+xml": ox.RdfFormat.RDF_XML, "application/ld+json": ox.RdfFormat.JSON_LD}
RESULT_MEDIA = {"application/sparql-results+json": ox.QueryResultsFormat.JSON,
                "application/json": ox.QueryResultsFormat.JSON,
                "application/sparql-results+xml": ox.QueryResultsFormat.XML,
                "text/tab-separated-values": ox.QueryResultsFormat.TSV}
GRAPH_ACCEPT = "application/n-triples, text/turtle;q=0.9, text/plain;q=0.5"
RESULTS_ACCEPT = "application/sparql-results+json, application/sparql-results+xml;q=0.9"
XSD_BOOLEAN = ox.NamedNode("http://www.w3.org/2001/XMLSchema#boolean")
BOOLEAN_MARKER = b"XMLSchema#boolean"  # Virtuoso answers SELECTs with true as "1"^^xsd:boolean
LOOKUP_CACHE_ENTRIES = 4096
LOOKUP_CACHE_QUADS = 2000
MANIFEST_RETRIES, MANIFEST_RETRY_SECONDS = 10, 0.1
LOOKUP_SECONDS = 60.0


class Skolem:
    """Blank nodes to skolem IRIs and back, for one base IRI."""

    def __init__(self, names: RemoteNames) -> None:
        self.prefix = names.genid
        self.marker = self.prefix.encode("utf-8")

    @overload
    def to_iri(self, term: OxSubject) -> ox.NamedNode | ox.Triple: ...
    @overload
    def to_iri(self, term: OxObject) -> ox.NamedNode | ox.Literal | ox.Triple: ...
    def to_iri(self, term: OxObject) -> OxObject:
        """A blank node as its skolem IRI; any other term unchanged."""
        return ox.NamedNode(self.prefix + term.value) if isinstance(term, ox.BlankNode) else term

    @overload
    def to_blank(self, term: OxSubject) -> OxSubject: ...
    @overload
    def to_blank(self, term: OxObject) -> OxObject: ...
    def to_blank(self, term: OxObject) -> OxObject:
        """A skolem IRI as its blank node; any other term unchanged."""
        if isinstance(term, ox.NamedNode) and term.value.startswith(self.prefix):
            return ox.BlankNode(term.value[len(self.prefix):])
        return term

    def triple_to_iris(self, triple: ox.Triple) -> ox.Triple:
        """A triple with its blank nodes skolemised."""
        return ox.Triple(self.to_iri(triple.subject), triple.predicate, self.to_iri(triple.object))

    def triple_to_blanks(self, triple: ox.Triple) -> ox.Triple:
        """A triple with its skolem IRIs turned back into blank nodes."""
        return ox.Triple(self.to_blank(triple.subject), triple.predicate, self.to_blank(triple.object))


@dataclass
class Manifest:
    """What the last build pushed: its version, each graph's digest and size, the merged graph's name, digest
    and size, the build metadata, and the graphs the next push drops (the previous merge, which readers that
    have not yet re-read the manifest may still be querying)."""

    version: str
    graphs: dict[str, dict[str, Any]]
    merged: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    retired: list[str] = field(default_factory=list)
    sequence: int = 0

    def to_json(self) -> str:
        """The manifest as sorted JSON."""
        return json.dumps({"version": self.version, "graphs": self.graphs, "merged": self.merged,
                           "metadata": self.metadata, "retired": self.retired, "sequence": self.sequence},
                          sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        """A manifest read back from its JSON literal."""
        data = json.loads(text)
        manifest = cls(str(data["version"]), dict(data["graphs"]), dict(data["merged"]),
                       dict(data.get("metadata", {})), list(data.get("retired", [])), int(data.get("sequence", 0)))
        if "graph" not in manifest.merged:
            raise KeyError("merged.graph")
        return manifest


def read_manifest(client: SparqlClient, names: RemoteNames) -> Manifest | None:
    """The manifest of the last build in the remote store, or None when kg never built there.

    Each build's manifest hangs off its own subject; a switch inserts the new one before deleting the old, so
    a reader between the two sees both and takes the one with the higher sequence number.
    """
    query = f"SELECT ?m WHERE {{ GRAPH <{names.manifest}> {{ ?build <{MANIFEST_PROPERTY}> ?m }} }}"
    rows = list(solutions(_solutions(client.query(query, accept="application/sparql-results+json"))))
    found = []
    for row in rows:
        value = row["m"]
        if value is None:
            continue
        try:
            found.append(Manifest.from_json(str(value.value)))
        except (ValueError, KeyError, TypeError) as error:
            raise RemoteStoreError(f"the kg manifest in <{names.manifest}> is unreadable ({error}); run 'kg build' "
                                   "again to rewrite it") from None
    return max(found, key=lambda manifest: manifest.sequence, default=None)


def _solutions(response: Response) -> ox.QuerySolutions | ox.QueryBoolean:
    """Parse a SELECT/ASK answer in whichever results format the engine chose."""
    fmt = RESULT_MEDIA.get(response.media_type)
    if fmt is None:
        raise RemoteStoreError(f"the remote store answered a query with {response.media_type or 'no media type'}, "
                               "not SPARQL results")
    return ox.parse_query_results(response.body, format=fmt)


class RemoteTriples:
    """A CONSTRUCT or DESCRIBE answer from the remote store, serialisable like pyoxigraph's QueryTriples."""

    def __init__(self, triples: list[ox.Triple]) -> None:
        self.triples = triples

    def __iter__(self) -> Iterator[ox.Triple]:
        return iter(self.triples)

    def serialize(self, output: IO[bytes] | None = None, format: ox.RdfFormat = ox.RdfFormat.N_TRIPLES) -> bytes | None:
        """Write the triples in an RDF format (to output, or return the bytes)."""
        return ox.serialize(self.triples, output, format=format)


class RemoteStore:
    """A kg build in a remote SPARQL store: queries, graph listing and quad lookups, as kg.store.Store offers."""

    path = None

    def __init__(self, client: SparqlClient, names: RemoteNames, manifest: Manifest, timeout: float = 30.0) -> None:
        self.client = client
        self.names = names
        self.manifest = manifest
        self.skolem = Skolem(names)
        self.timeout = timeout
        self._lookups: dict[tuple[str, ...], list[ox.Quad]] = {}

    @classmethod
    def open(cls, config: Config, client: SparqlClient | None = None) -> RemoteStore:
        """The current build in the configured remote store (StoreMissing when kg never built there)."""
        client = client or SparqlClient(RemoteLocation.from_config(config))
        names = RemoteNames(config.base)
        manifest = read_manifest(client, names)
        for _ in range(MANIFEST_RETRIES):  # a reader can miss both manifests while Virtuoso switches builds
            if manifest is not None:
                break
            time.sleep(MANIFEST_RETRY_SECONDS)
            manifest = read_manifest(client, names)
        if manifest is None:
            raise StoreMissing(f"no kg build in the remote store at {config.store_url} for base {config.base}; "
                               "run 'kg build --store-url URL' first")
        return cls(client, names, manifest, config.query_timeout)

    @property
    def merged(self) -> str:
        """The remote graph holding this build's merge of the public graphs."""
        return str(self.manifest.merged["graph"])

    @property
    def metadata(self) -> dict[str, Any]:
        """The build metadata (as kg-build.json holds for the embedded store)."""
        return self.manifest.metadata

    @property
    def version(self) -> str:
        """The build version, for cache keys."""
        return f"remote-{self.manifest.version}"

    def graph_names(self) -> list[str]:
        """IRIs of the public named graphs, sorted."""
        return sorted(self.manifest.graphs)

    def query(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None,
              default_graph: DefaultGraphs | None = None, named_graphs: NamedGraphs | None = None
              ) -> ox.QuerySolutions | ox.QueryBoolean | RemoteTriples:
        """Run a query remotely; the result behaves like pyoxigraph's (solutions, boolean or triples)."""
        text = _prologue(sparql, base_iri, prefixes or {}) + sparql
        if default_graph is not None or named_graphs is not None:
            defaults = [self.merged if isinstance(g, ox.DefaultGraph) else g.value for g in default_graph or ()]
            named = [g.value for g in named_graphs or ()]
        elif "FROM" in keywords(sparql):
            defaults, named = [], []
        else:
            defaults = [self.merged]  # named graphs matter only to GRAPH patterns; 58 IRIs per query cost time
            named = self.graph_names() if "GRAPH" in keywords(sparql) else []
        accept = GRAPH_ACCEPT if is_graph_query(text) else RESULTS_ACCEPT
        try:
            response = self.client.query(text, default_graphs=defaults, named_graphs=named, timeout=self.timeout,
                                         accept=accept)
        except RemoteStoreError as error:
            if " answered 400 " in str(error):
                raise BadQuery(f"the remote store refused the query: {error}") from None
            raise
        if response.partial:
            raise QueryTimeout(f"the remote store stopped the query at its own time limit and sent partial results "
                               f"({response.partial}); narrow the query or add a LIMIT")
        if response.media_type in GRAPH_MEDIA or not response.media_type.startswith("application/sparql"):
            return RemoteTriples([self.normal_triple(t) for t in _triples(response)])
        result = _solutions(response)
        if isinstance(result, ox.QueryBoolean) or not (self.skolem.marker in response.body
                                                       or BOOLEAN_MARKER in response.body):
            return result
        return self._normalised(result)

    @overload
    def normal_term(self, term: OxSubject) -> OxSubject: ...
    @overload
    def normal_term(self, term: OxObject) -> OxObject: ...
    def normal_term(self, term: OxObject) -> OxObject:
        """A term read back from the engine as kg stored it: blank nodes for skolem IRIs, canonical booleans."""
        if isinstance(term, ox.Literal) and term.datatype == XSD_BOOLEAN and term.value in ("1", "0"):
            return ox.Literal("true" if term.value == "1" else "false", datatype=XSD_BOOLEAN)
        return self.skolem.to_blank(term)

    def normal_triple(self, triple: ox.Triple) -> ox.Triple:
        """A triple read back from the engine as kg stored it."""
        return ox.Triple(self.normal_term(triple.subject), triple.predicate, self.normal_term(triple.object))

    def _normalised(self, solutions: ox.QuerySolutions) -> ox.QuerySolutions:
        """The same solutions with every term as kg stored it (re-parsed from TSV)."""
        variables = solutions.variables
        lines = ["\t".join(str(v) for v in variables)]
        for row in solutions:
            terms = (row[v] for v in variables)
            lines.append("\t".join("" if t is None else str(self.normal_term(t)) for t in terms))
        parsed = ox.parse_query_results(("\n".join(lines) + "\n").encode("utf-8"), format=ox.QueryResultsFormat.TSV)
        assert isinstance(parsed, ox.QuerySolutions)  # a TSV document with a header holds solutions, never a boolean
        return parsed

    def quads_for_pattern(self, subject: OxSubject | None, predicate: ox.NamedNode | None, obj: OxObject | None,
                          graph_name: OxGraphName | None = None) -> list[ox.Quad]:
        """Quads matching a pattern; the default graph is the merge, None means every public graph and it."""
        targets: list[tuple[str, ox.NamedNode | ox.DefaultGraph]]
        if isinstance(graph_name, ox.DefaultGraph):
            targets = [(self.merged, graph_name)]
        elif isinstance(graph_name, ox.NamedNode):
            targets = [(graph_name.value, graph_name)] if graph_name.value in self.manifest.graphs else []
        else:
            targets = [(g, ox.NamedNode(g)) for g in self.graph_names()] + [(self.merged, ox.DefaultGraph())]
        found: list[ox.Quad] = []
        for remote_graph, local_graph in targets:
            for triple in self._triples(subject, predicate, obj, remote_graph):
                found.append(ox.Quad(triple.subject, triple.predicate, triple.object, local_graph))
        return found

    def _triples(self, subject: OxSubject | None, predicate: ox.NamedNode | None, obj: OxObject | None,
                 graph: str) -> list[ox.Triple]:
        """Triples of one remote graph matching a pattern; a bound subject is fetched whole once and filtered
        here, since pages ask many questions about the same few subjects (one round trip instead of dozens)."""
        if subject is not None and (predicate is not None or obj is not None):
            about = self._fetch(subject, None, None, graph)
            return [t for t in about if (predicate is None or t.predicate == predicate)
                    and (obj is None or t.object == obj)]
        return self._fetch(subject, predicate, obj, graph)

    def _fetch(self, subject: OxSubject | None, predicate: ox.NamedNode | None, obj: OxObject | None,
               graph: str) -> list[ox.Triple]:
        """Triples of one remote graph matching a pattern (small answers are cached for this version)."""
        terms = [None if t is None else str(self.skolem.to_iri(t)) for t in (subject, predicate, obj)]
        key = (graph, *(t or "" for t in terms))
        if key in self._lookups:
            return [q.triple for q in self._lookups[key]]
        pattern = " ".join(t or v for t, v in zip(terms, ("?s", "?p", "?o"), strict=True))
        query = f"CONSTRUCT {{ {pattern} }} WHERE {{ GRAPH <{graph}> {{ {pattern} }} }}"
        response = self.client.query(query, timeout=LOOKUP_SECONDS, accept=GRAPH_ACCEPT)
        if response.partial:
            raise RemoteStoreError(f"the remote store sent a partial answer to a lookup ({response.partial}); "
                                   "raise its time limit (Virtuoso: MaxQueryExecutionTime)")
        triples = sorted({self.normal_triple(t) for t in _triples(response)}, key=str)
        if len(triples) <= LOOKUP_CACHE_QUADS and len(self._lookups) < LOOKUP_CACHE_ENTRIES:
            self._lookups[key] = [ox.Quad(t.subject, t.predicate, t.object) for t in triples]
        return triples

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """Quads of one public named graph, or of all, checked against the manifest's triple counts."""
        for name in self.graph_names() if graph is None else [graph]:
            quads = self.quads_for_pattern(None, None, None, ox.NamedNode(name))
            _check_complete(name, len(quads), self.manifest.graphs.get(name, {}).get("triples"))
            yield from quads

    def triple_count(self, graph: str) -> int:
        """How many triples one named graph holds (from the manifest)."""
        return int(self.manifest.graphs.get(graph, {}).get("triples", 0))

    def default_triples(self) -> Iterator[ox.Triple]:
        """Triples of the merged default graph."""
        triples = [q.triple for q in self.quads_for_pattern(None, None, None, ox.DefaultGraph())]
        _check_complete(self.merged, len(triples), self.manifest.merged.get("triples"))
        return iter(triples)

    def rdflib_graph(self, graph: str | None = None) -> Graph:
        """One named graph, or the merge of all, as an rdflib Graph."""
        return rdflib_graph_of(self.default_triples() if graph is None else (q.triple for q in self.quads(graph)))

    def __len__(self) -> int:
        return sum(int(g.get("triples", 0)) for g in self.manifest.graphs.values())


def is_graph_query(text: str) -> bool:
    """Whether a query is a CONSTRUCT or DESCRIBE, read from its tokens (nothing is evaluated)."""
    return query_form(text) == GRAPH


def _check_complete(graph: str, got: int, expected: int | None) -> None:
    """Refuse a graph the engine returned in part (a result-row cap such as Virtuoso's ResultSetMaxRows)."""
    if expected is not None and got != int(expected):
        raise RemoteStoreError(f"the remote store returned {got} of the {expected} triples of <{graph}>; raise its "
                               "result limit (Virtuoso: ResultSetMaxRows in virtuoso.ini) above the largest graph")


def _triples(response: Response) -> list[ox.Triple]:
    """Parse an RDF answer (N-Triples, Turtle, ...; unknown types are tried as Turtle)."""
    fmt = GRAPH_MEDIA.get(response.media_type, ox.RdfFormat.TURTLE)
    try:
        return list(ox.parse(response.body, format=fmt))
    except SyntaxError as error:
        raise RemoteStoreError(f"the remote store sent {response.media_type} that does not parse: {error}") from None


def _prologue(sparql: str, base_iri: str | None, prefixes: dict[str, str]) -> str:
    """BASE and PREFIX declarations for the endpoint prefixes the query uses without declaring them."""
    declared: set[str] = set()
    words = [(kind, text) for kind, text in tokens(sparql) if kind in ("name", "iri")]
    for (kind, text), (_, following) in zip(words, words[1:], strict=False):
        if kind == "name" and text.upper() == "PREFIX":
            declared.add(following.rstrip(":"))
    used = {text.split(":", 1)[0] for kind, text in words if kind == "name" and ":" in text}
    has_base = any(kind == "name" and text.upper() == "BASE" for kind, text in words)
    lines = [] if has_base or not base_iri else [f"BASE <{base_iri}>"]
    lines += [f"PREFIX {name}: <{iri}>" for name, iri in sorted(prefixes.items())
              if name in used and name not in declared]
    return "".join(line + "\n" for line in lines)


__all__ = ["Manifest", "RemoteNames", "RemoteStore", "RemoteTriples", "Skolem", "read_manifest"]
