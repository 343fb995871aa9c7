"""The store seam: GraphStore, what kg reads of a built store (kg.store.Store and kg.store.remote.RemoteStore
both satisfy it), the types of its query results, and typed readers of its build metadata."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Protocol, TypeAlias

import pyoxigraph as ox
from rdflib import Graph

from ..terms import OxGraphName, OxObject, OxSubject


class GraphResult(Protocol):
    """A CONSTRUCT or DESCRIBE answer: pyoxigraph's QueryTriples (embedded store, query workers) or
    kg.store.remote.RemoteTriples (remote store)."""

    def __iter__(self) -> Iterator[ox.Triple]:
        """The triples."""

    def serialize(self, output: IO[bytes] | None = None, format: ox.RdfFormat = ...) -> bytes | None:
        """Write the triples in an RDF format (to output, or return the bytes)."""


QueryResult: TypeAlias = ox.QuerySolutions | ox.QueryBoolean | GraphResult
"""What a query answers: solutions (SELECT), a boolean (ASK) or triples (CONSTRUCT, DESCRIBE)."""
DefaultGraphs: TypeAlias = list[ox.NamedNode | ox.BlankNode | ox.DefaultGraph]
"""The graphs a query's default graph merges, as pyoxigraph takes them."""
NamedGraphs: TypeAlias = list[ox.NamedNode | ox.BlankNode]
"""The named graphs a query may name, as pyoxigraph takes them."""


class Queryable(Protocol):
    """What answers SPARQL queries: a GraphStore, or a bare pyoxigraph store (as the query workers hold)."""

    def query(self, sparql: str, /, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None,
              default_graph: DefaultGraphs | None = None, named_graphs: NamedGraphs | None = None) -> QueryResult:
        """Run a SPARQL query (the default graph is the merge of all graphs unless a dataset is given)."""


class GraphStore(Queryable, Protocol):
    """A built store as its readers see it: queries, pattern look-ups, graph listing, version and build metadata."""

    @property
    def path(self) -> Path | None:
        """The version directory of an embedded store on disk (None in memory or remote)."""

    @property
    def metadata(self) -> Mapping[str, object]:
        """The build metadata (kg-build.json, or the remote manifest's copy)."""

    @property
    def version(self) -> str:
        """What identifies this version of the data (for cache keys)."""

    def quads_for_pattern(self, subject: OxSubject | None, predicate: ox.NamedNode | None, obj: OxObject | None,
                          graph_name: OxGraphName | None = None) -> Iterable[ox.Quad]:
        """Quads matching a pattern (None matches anything; the default graph is the merge)."""

    def graph_names(self) -> list[str]:
        """IRIs of the data's named graphs, sorted."""

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """Quads of one named graph, or of all named graphs."""

    def triple_count(self, graph: str) -> int:
        """How many triples one named graph holds."""

    def default_triples(self) -> Iterator[ox.Triple]:
        """Triples of the default graph (the merge of all named graphs)."""

    def rdflib_graph(self, graph: str | None = None) -> Graph:
        """One named graph, or the merge of all, as an rdflib Graph."""


def solutions(result: QueryResult) -> ox.QuerySolutions:
    """The solutions of a SELECT query's result (TypeError for an ASK, CONSTRUCT or DESCRIBE result)."""
    if not isinstance(result, ox.QuerySolutions):
        raise TypeError(f"expected the solutions of a SELECT query, not {type(result).__name__}")
    return result


def metadata_text(store: GraphStore, key: str) -> str | None:
    """One entry of a store's build metadata as text ('base', 'built_at', ...), None when absent."""
    value = store.metadata.get(key)
    return None if value is None else str(value)


def triple_counts(store: GraphStore) -> dict[str, int]:
    """The triples of each named graph, as the build metadata records them."""
    counts = store.metadata.get("triples")
    return {str(graph): int(n) for graph, n in counts.items()} if isinstance(counts, Mapping) else {}


__all__ = ["DefaultGraphs", "GraphResult", "GraphStore", "NamedGraphs", "QueryResult", "Queryable", "metadata_text",
           "solutions", "triple_counts"]
