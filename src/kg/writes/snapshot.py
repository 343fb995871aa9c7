"""The data side of a write: a store version in memory, the difference between versions, the reconciliation of
a changed working copy with the merged default graph, and which SHACL results a write introduces."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal
from rdflib.namespace import RDF, SH

from ..errors import WriteForbidden
from ..iris import GraphNames
from ..namespaces import bind_prefixes
from ..store import Store, rdflib_graph_of
from ..validation import ValidationReport, Violation, _message, _path_text, _value_text

if TYPE_CHECKING:
    from ..store.remote import RemoteStore

Triple = ox.Triple
Graphs = dict[str, set[Triple]]


@dataclass
class Snapshot:
    """One store version read into memory: its named graphs and its default graph, as pyoxigraph triples."""

    path: Path
    metadata: dict[str, Any]
    named: Graphs
    default: set[Triple]

    @classmethod
    def read(cls, store_dir: Path) -> Snapshot:
        """Read the current version behind the store link."""
        store = Store.open(store_dir)
        named, default = split(store.ox.quads_for_pattern(None, None, None, None))
        return cls(store.path or store_dir, store.metadata, named, default)

    @classmethod
    def read_remote(cls, store: RemoteStore) -> Snapshot:
        """Read the current build of a remote store (kg.store.remote.RemoteStore); its version stands in for a path."""
        named = {g: {q.triple for q in store.quads(g)} for g in store.graph_names()}
        return cls(Path(store.version), dict(store.metadata), named, set(store.default_triples()))

    def working_copy(self) -> ox.Store:
        """An in-memory store with the same quads (blank-node labels kept)."""
        work = ox.Store()
        work.extend(quads(self.named, self.default))
        return work


def split(quads: Iterable[ox.Quad]) -> tuple[Graphs, set[Triple]]:
    """Quads as named graphs (by IRI) and the default graph."""
    named: Graphs = {}
    default: set[Triple] = set()
    for quad in quads:
        graph = quad.graph_name
        if isinstance(graph, ox.DefaultGraph):
            default.add(quad.triple)
        elif isinstance(graph, ox.NamedNode):
            named.setdefault(graph.value, set()).add(quad.triple)
    return named, default


def quads(named: Graphs, default: set[Triple]) -> set[ox.Quad]:
    """Named graphs and a default graph as quads."""
    found = {ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(g)) for g, ts in named.items() for t in ts}
    found.update(ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in default)
    return found


def difference(old_named: Graphs, old_default: set[Triple], new_named: Graphs,
                new_default: set[Triple]) -> tuple[list[ox.Quad], list[ox.Quad]]:
    """(quads to remove, quads to add) to turn one version into the next, graph by graph."""
    removals: list[ox.Quad] = []
    additions: list[ox.Quad] = []
    pairs: list[tuple[Any, set[Triple], set[Triple]]] = [(ox.DefaultGraph(), old_default, new_default)]
    for graph in set(old_named) | set(new_named):
        old, new = old_named.get(graph, set()), new_named.get(graph, set())
        if old is not new:
            pairs.append((ox.NamedNode(graph), old, new))
    for name, old, new in pairs:
        removals.extend(ox.Quad(t.subject, t.predicate, t.object, name) for t in old - new)
        additions.extend(ox.Quad(t.subject, t.predicate, t.object, name) for t in new - old)
    return removals, additions


def union(graphs: Graphs) -> set[Triple]:
    """The set union of graphs (what the default graph holds)."""
    return set().union(*graphs.values()) if graphs else set()


def rdflib_graph(triples: Iterable[Triple]) -> Graph:
    """pyoxigraph triples as an rdflib graph with the project's prefixes (for validation and the reasoner)."""
    return bind_prefixes(rdflib_graph_of(triples))


def reconcile(before_named: Graphs, before_default: set[Triple], after_named: Graphs, after_default: set[Triple],
              names: GraphNames) -> Graphs:
    """The asserted graphs after a change applied to a working copy (before_*: the state it was applied to).

    Triples added to the default graph go to ``<base>/graph/edits`` unless a named graph holds them; triples
    deleted from the default graph leave every named graph that held them; derived graphs are dropped here
    (the caller restores the ontology and recomputes the inferred graph).

    Raises:
        WriteForbidden: the change added triples to a derived graph.
    """
    for graph, triples in after_named.items():
        if names.managed(graph) and triples - before_named.get(graph, set()):
            raise WriteForbidden(f"graph <{graph}> is derived and cannot be written: it is rebuilt after every "
                                 "write; change the asserted data instead")
    removed_default = before_default - after_default
    final: Graphs = {}
    for graph, triples in after_named.items():
        if names.managed(graph):
            continue
        kept = triples - (removed_default & before_named.get(graph, set()))
        if kept:
            final[graph] = kept
    merged = union(final)
    extra = (after_default - before_default) - merged
    if extra:
        final[names.edits] = final.get(names.edits, set()) | extra
    return final


def _key(focus: str, path: str | None, severity: str, message: str, value: str | None) -> str:
    return json.dumps([focus, path, severity, message, value])


def violation_key(violation: Violation) -> str:
    """What identifies a SHACL result across versions (shape IRIs of blank-node shapes vary per parse)."""
    return _key(violation.focus, violation.path, violation.severity, violation.message, violation.value)


def introduced_report(after: ValidationReport, before: frozenset[str]) -> ValidationReport:
    """The results of a report that were not in the keys of the previous version's report."""
    new = tuple(v for v in after.violations if violation_key(v) not in before)
    graph = bind_prefixes(Graph())
    root = BNode("report")
    graph.add((root, RDF.type, SH.ValidationReport))
    source = after.graph
    for result in source.objects(None, SH.result):
        focus = source.value(result, SH.focusNode)
        severity = source.value(result, SH.resultSeverity)
        key = _key(str(focus), _path_text(source, source.value(result, SH.resultPath)),
                   str(severity).rsplit("#", 1)[-1], _message(source, result),
                   _value_text(source.value(result, SH.value)))
        if key in before:
            continue
        graph.add((root, SH.result, result))
        for p, o in source.predicate_objects(result):
            graph.add((result, p, o))
        stack = [o for o in source.objects(result, SH.resultPath) if isinstance(o, BNode)]
        while stack:
            node = stack.pop()
            for p, o in source.predicate_objects(node):
                graph.add((node, p, o))
                if isinstance(o, BNode):
                    stack.append(o)
    conforms = not new  # SHACL: no result of any severity; the write is refused only for violations (passes)
    graph.add((root, SH.conforms, Literal(conforms)))
    return ValidationReport(conforms, new, graph, after.engine)


__all__ = ["Graphs", "Snapshot", "WriteForbidden", "difference", "introduced_report", "quads", "rdflib_graph",
           "reconcile", "split", "union", "violation_key"]
