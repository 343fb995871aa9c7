"""Incremental validation: after a change, validate only the focus nodes the change can affect.

After a full validation the Oxigraph store it ran on (data plus schema in the default graph), its term map and
the report are kept on disk (``ValidationCache``), tagged with the shapes and ontology digest and the id of the
build they belong to. The next build, when the store is still that build's, applies the changed graphs'
triples to the kept store (a triple leaves the union only when no other graph holds it), finds the affected
focus nodes (``reach.Reach.affected``: the nodes the shapes can step from onto a changed triple, walking the
shapes' steps backwards over the old and new data), validates those alone, and merges their results with the
previous report's results on every other focus node. Whatever cannot be bounded (a recursive shape, a query
reading nodes unconnected to $this, more affected nodes than ``MAX_AFFECTED``) gives None: validate everything.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.graph import ReadOnlyGraphAggregate
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from ..atomic_files import write_atomically
from ..namespaces import bind_prefixes
from ..terms import bulk_extend_chunked, from_ox, to_ox
from .core import core_results
from .engine import Outcome, core_shapes, schema_of
from .files import rdf_term
from .reach import Reach, shapes_reach
from .sparql import describe, report, run_sparql_constraints
from .terms import TermMap

MAX_AFFECTED = 50_000  # (node, state) pairs visited while finding the affected focus nodes
REACH_FORMAT = 4
STATE, REPORT, TERMS, STORE, REACH = "state.json", "report.nt", "terms.json", "store", "reach.json"
Triples = set[ox.Triple]


def files_tag(*folders: Path) -> str:
    """A digest of the Turtle files of the shapes and ontology folders (a kept validation needs the same ones)."""
    digest = hashlib.sha256()
    for folder in folders:
        for file in sorted(folder.glob("*.ttl")):
            digest.update(file.name.encode("utf-8") + b"\x00" + file.read_bytes() + b"\x00")
    return digest.hexdigest()


@dataclass(frozen=True)
class Kept:
    """What a kept validation is for: the shapes and ontology tag and the build id."""

    tag: str
    build_id: str


def _terms_json(terms: TermMap) -> str:
    rows = []
    for stored, original in terms.originals.items():
        literal = original if isinstance(original, Literal) else None
        if literal is not None:
            rows.append([str(stored), str(literal), literal.language, str(literal.datatype or ""),
                         getattr(literal, "ill_typed", None) is True])
    return json.dumps(rows)


def _terms_from_json(text: str) -> TermMap:
    originals: dict[Any, Node] = {}
    for stored, lexical, language, datatype, ill_typed in json.loads(text):
        quad = next(iter(ox.parse(f"<urn:s> <urn:p> {stored} .".encode(), format=ox.RdfFormat.N_TRIPLES)))
        literal = Literal(lexical, lang=language, datatype=URIRef(datatype) if datatype else None, normalize=False)
        if ill_typed:
            literal._ill_typed = True
        originals[quad.object] = literal
    return TermMap(originals)


class ValidationCache:
    """The kept validation of the last build: its store, term map and report, beside the build's other caches."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def kept(self) -> Kept | None:
        """What the kept validation is for, or None when there is none (or it was left half updated)."""
        try:
            state = json.loads((self.folder / STATE).read_text(encoding="utf-8"))
            return Kept(state["tag"], state["build_id"]) if state.get("complete") else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _mark(self, kept: Kept | None) -> None:
        state = {"complete": kept is not None, "tag": kept.tag if kept else "",
                 "build_id": kept.build_id if kept else ""}
        write_atomically(self.folder / STATE, json.dumps(state, sort_keys=True))

    def save(self, outcome: Outcome, kept: Kept) -> None:
        """Keep a full validation's store, term map and report for the build `kept` names."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._mark(None)
        if outcome.store is None or outcome.terms is None or outcome.engine != "oxigraph":
            return
        shutil.rmtree(self.folder / STORE, ignore_errors=True)
        disk = ox.Store(str(self.folder / STORE))
        bulk_extend_chunked(disk, outcome.store.quads_for_pattern(None, None, None, ox.DefaultGraph()))
        disk.flush()
        del disk
        write_atomically(self.folder / TERMS, _terms_json(outcome.terms))
        write_atomically(self.folder / REPORT, outcome.graph.serialize(format="nt"))
        self._mark(kept)

    def _reach(self, shapes: Graph, core: Graph, tag: str) -> Reach | None:
        """The shapes' reach, computed once per shapes tag (parsing their SPARQL queries takes a while)."""
        saved = self.folder / REACH
        try:
            known = json.loads(saved.read_text(encoding="utf-8"))
            if known["tag"] == tag and known.get("format") == REACH_FORMAT:
                return None if known["reach"] is None else Reach.from_json(known["reach"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        reach = shapes_reach(shapes, core)
        write_atomically(saved, json.dumps({"tag": tag, "format": REACH_FORMAT,
                                            "reach": None if reach is None else reach.as_json()}))
        return reach

    def update(self, kept: Kept, changes: Mapping[str, tuple[Triples, Triples]], held_elsewhere: HeldElsewhere,
               shapes: Graph, ontology: Graph, data: Iterable[Graph], new_kept: Kept) -> Outcome | None:
        """Validate only what the changes can affect (None when that cannot be bounded: validate everything).

        changes maps each changed graph to its old and new triples; held_elsewhere says whether an unchanged
        graph of the previous build holds a triple.
        """
        if self.kept() != kept:
            return None
        core = core_shapes(shapes)
        reach = self._reach(shapes, core, kept.tag)
        if reach is None:
            return None
        removed, added = _union_change(changes, held_elsewhere, set(schema_of(ontology)))
        self._mark(None)
        store = ox.Store(str(self.folder / STORE))
        try:
            merged = self._revalidate(store, removed, added, shapes, core, reach, data)
        finally:
            del store  # closes the store (a frame kept alive elsewhere would otherwise keep it locked)
        if merged is None:
            return None
        write_atomically(self.folder / REPORT, merged.serialize(format="nt"))
        self._mark(new_kept)
        return Outcome(merged, "oxigraph")

    def _revalidate(self, store: ox.Store, removed: Triples, added: Triples, shapes: Graph, core: Graph,
                    reach: Reach, data: Iterable[Graph]) -> Graph | None:
        """Apply the union's change to the kept store and validate the affected focus nodes; the merged report."""
        terms = _terms_from_json((self.folder / TERMS).read_text(encoding="utf-8"))
        default = ox.DefaultGraph()
        store.extend(ox.Quad(t.subject, t.predicate, t.object, default) for t in added)
        for triple in removed:
            store.remove(ox.Quad(triple.subject, triple.predicate, triple.object, default))
        store.flush()
        terms.learn(from_ox(t.object) for t in added if isinstance(t.object, ox.Literal))
        write_atomically(self.folder / TERMS, _terms_json(terms))
        affected = _affected(store, reach, removed | added, removed)
        if affected is None:
            return None
        previous = _read_report(self.folder / REPORT)
        fresh = run_sparql_constraints(store, shapes, affected)
        fresh += core_results(store, core, terms, affected)
        describe(fresh, shapes, ReadOnlyGraphAggregate(list(data)))
        return _merge(previous, fresh, {terms.rdf(node) for node in affected})


class HeldElsewhere:
    """Whether a triple is held by a graph of the previous build other than the changed ones (its store)."""

    def __init__(self, store: ox.Store, changed: Iterable[str], ignored: Iterable[str]) -> None:
        self.store, self.skip = store, set(changed) | set(ignored)

    def __call__(self, triple: ox.Triple) -> bool:
        """Whether an unchanged graph holds the triple."""
        for quad in self.store.quads_for_pattern(triple.subject, triple.predicate, triple.object, None):
            if isinstance(quad.graph_name, ox.NamedNode) and quad.graph_name.value not in self.skip:
                return True
        return False


def _union_change(changes: Mapping[str, tuple[Triples, Triples]], held: HeldElsewhere,
                  schema: set[Any]) -> tuple[Triples, Triples]:
    """The triples leaving and entering the union of all graphs (plus schema) when the changed graphs change."""
    new_anywhere = set().union(*(new for _, new in changes.values())) if changes else set()
    schema_triples = {ox.Triple(to_ox(s), to_ox(p), to_ox(o)) for s, p, o in schema}
    leaving = {t for old, new in changes.values() for t in old - new}
    removed = {t for t in leaving if t not in new_anywhere and t not in schema_triples and not held(t)}
    old_anywhere = set().union(*(old for old, _ in changes.values())) if changes else set()
    added = {t for t in new_anywhere - old_anywhere if not held(t) and t not in schema_triples}
    return removed, added


def _affected(store: ox.Store, reach: Reach, changed: Triples, removed: Triples) -> set[Any] | None:
    """The stored nodes whose results may change: walked back from the changed triples' nodes (old and new data)."""
    gone_in: dict[Any, list[ox.Triple]] = defaultdict(list)
    gone_out: dict[Any, list[ox.Triple]] = defaultdict(list)
    for triple in removed:
        gone_in[triple.object].append(triple)
        gone_out[triple.subject].append(triple)
    default = ox.DefaultGraph()
    into: dict[Any, list[tuple[Any, Any]]] = {}
    out_of: dict[Any, list[tuple[Any, Any]]] = {}

    def incoming(node: Any, predicate: Any) -> Iterable[Any]:
        if isinstance(node, ox.Literal):
            return []  # a reader stands on a literal only when it is the changed triple's own node
        if node not in into:
            into[node] = [(q.predicate, q.subject) for q in store.quads_for_pattern(None, None, node, default)]
            into[node] += [(t.predicate, t.subject) for t in gone_in.get(node, ())]
        step = None if predicate is None else to_ox(predicate)
        return [s for p, s in into[node] if step is None or p == step]

    def outgoing(node: Any, predicate: Any) -> Iterable[Any]:
        if isinstance(node, ox.Literal):
            return []
        if node not in out_of:
            out_of[node] = [(q.predicate, q.object) for q in store.quads_for_pattern(node, None, None, default)]
            out_of[node] += [(t.predicate, t.object) for t in gone_out.get(node, ())]
        step = None if predicate is None else to_ox(predicate)
        return [o for p, o in out_of[node] if step is None or p == step]

    changed_triples = [(t.subject, from_ox(t.predicate), t.object) for t in changed]
    return reach.affected(changed_triples, incoming, outgoing, MAX_AFFECTED)


def _read_report(path: Path) -> Graph:
    """A kept report, its blank-node labels as written (rdflib's N-Triples reader would rename them)."""
    graph = Graph()
    for quad in ox.parse(path.read_bytes(), format=ox.RdfFormat.N_TRIPLES):
        graph.add((rdf_term(quad.subject), rdf_term(quad.predicate), rdf_term(quad.object)))
    return graph


def _merge(previous: Graph, fresh: Graph, affected: set[Node]) -> Graph:
    """The previous report's results on unaffected focus nodes plus the fresh results, as one report."""
    results = bind_prefixes(Graph())
    roots = set(previous.subjects(RDF.type, SH.ValidationReport))
    dropped = {r for root in roots for r in previous.objects(root, SH.result)
               if previous.value(r, SH.focusNode) in affected}
    for triple in previous:
        if triple[0] not in roots and triple[0] not in dropped:
            results.add(triple)
    renamed = {r: BNode() for r in fresh.subjects(RDF.type, SH.ValidationResult)}
    for s, p, o in fresh:
        results.add((renamed.get(s, s), p, renamed.get(o, o)))
    return bind_prefixes(report(results))


__all__ = ["HeldElsewhere", "Kept", "MAX_AFFECTED", "ValidationCache", "files_tag"]
