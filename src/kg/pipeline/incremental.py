"""Incremental builds: which graphs changed since the last build, the inferred graph's change, the store diff.

After each embedded-store build, ``<store parent>/cache/build/state.json`` records the version it wrote (directory
name and a random build id also kept in the version's metadata), a content id per named graph, the ontology's
digest and the triple counts. The next build is incremental only when the store's current version is exactly
that one (an HTTP write in between makes a new version, so the next build is full), with the same base IRI,
ontology and reasoner, and when no rule joins triples: no transitive property or chain in the ontology, and no
owl:sameAs in the last build's store or the changed graphs (equality rewrites every triple of the nodes it
joins; ``uses_equality``). Then:

* the changed graphs' old triples are read from the current version, their new ones from the mapping;
* the inferred graph's change is computed from the changed triples alone. Without joins the closure of a set
  is the union of each triple's own closure (``rules.LocalRules``), so only the closures of added and removed
  triples can change membership; each such triple is re-decided against the store (is it still asserted
  somewhere, still derived from some unchanged triple, its subject still an A-box node), which is exact;
* the new version is a checkpoint of the current one plus the quad difference (``store.derive_version``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Graph, URIRef

from ..atomic_files import write_atomically
from ..namespaces import OWL
from ..reasoning import is_meaningful
from ..reasoning.rules import LocalRules, Triple
from ..store import METADATA_FILE, derive_version, is_log_graph
from ..store.embedded import Finish
from ..terms import from_ox, to_ox, triple_to_ox

STATE_FILE = "state.json"
LARGE_CHANGE = 0.25  # above this share of asserted triples changed, a full build is faster


@dataclass
class BuildState:
    """What the last build wrote into the embedded store."""

    version: str
    build_id: str
    base: str
    ontology: str
    reasoner: str
    graphs: dict[str, str]
    counts: dict[str, int]


def load_state(folder: Path) -> BuildState | None:
    """The recorded state, or None when missing or unreadable."""
    try:
        return BuildState(**json.loads((folder / STATE_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def save_state(folder: Path, state: BuildState) -> None:
    """Record the state atomically (temporary file, then one rename)."""
    write_atomically(folder / STATE_FILE, json.dumps(asdict(state), indent=1, sort_keys=True))


def clear_state(folder: Path) -> None:
    """Forget the state (before a build that may change the store without recording it)."""
    (folder / STATE_FILE).unlink(missing_ok=True)


def current_version(store_dir: Path, state: BuildState | None) -> Path | None:
    """The store's current version directory when it is the one the state describes, else None."""
    if state is None or not store_dir.is_symlink():
        return None
    target = store_dir.resolve()
    try:
        metadata = json.loads((target / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if target.name != state.version or metadata.get("build_id") != state.build_id:
        return None
    return target


def _triples(store: ox.Store, iri: str) -> set[ox.Triple]:
    return {q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(iri))}


def _ox(triple: Triple) -> ox.Triple:
    return triple_to_ox(*triple)


@dataclass
class GraphChange:
    """One named graph's old and new triples."""

    old: set[ox.Triple]
    new: set[ox.Triple]


class TripleSets:
    """The changed graphs' triples as pyoxigraph sets, read and converted once per build (validation, reasoning
    and the change record all compare them): old ones by store version and graph, new ones by mapped graph."""

    def __init__(self) -> None:
        self.old: dict[tuple[str, str], set[ox.Triple]] = {}
        self.new: dict[int, tuple[Graph, set[ox.Triple]]] = {}  # by id(graph), the graph kept so the id stays its

    def old_of(self, store: ox.Store, version: str, iri: str) -> set[ox.Triple]:
        """A named graph's triples in a store version (version: what names it, its directory)."""
        key = (version, iri)
        if key not in self.old:
            self.old[key] = _triples(store, iri)
        return self.old[key]

    def new_of(self, graph: Graph | None) -> set[ox.Triple]:
        """A mapped graph's triples (none for a graph the build no longer has)."""
        if graph is None:
            return set()
        found = self.new.get(id(graph))
        if found is None or found[0] is not graph:
            found = (graph, {_ox(t) for t in graph})
            self.new[id(graph)] = found
        return found[1]


def graph_changes(store: ox.Store, changed: Iterable[str], graphs: dict[URIRef, Graph],
                  sets: TripleSets | None = None, version: str = "") -> dict[str, GraphChange]:
    """Old triples (from the store) and new ones (from the build) of each changed graph (from sets when given, the
    store being the version named version)."""
    result = {}
    for iri in sorted(changed):
        graph = graphs.get(URIRef(iri))
        if sets is not None:
            result[iri] = GraphChange(set(sets.old_of(store, version, iri)), set(sets.new_of(graph)))
            continue
        new = {_ox(t) for t in graph} if graph is not None else set()
        result[iri] = GraphChange(_triples(store, iri), new)
    return result


class _Lookup:
    """Questions about the new asserted data, answered from the store's unchanged graphs and the changed ones."""

    def __init__(self, store: ox.Store, excluded: set[str], changes: dict[str, GraphChange],
                 deriving: set[ox.NamedNode]) -> None:
        self.store, self.excluded = store, excluded
        self.new = {from_triple for change in changes.values() for from_triple in change.new}
        self.new_terms = {term for t in self.new for term in (t.subject, t.object)}
        self.by_subject: dict[tuple[Any, Any], list[ox.Triple]] = defaultdict(list)
        self.by_object: dict[tuple[Any, Any], list[ox.Triple]] = defaultdict(list)
        for t in self.new:  # only triples whose predicate derives more than themselves can derive another triple
            if t.predicate in deriving:
                self.by_subject[(t.subject, t.predicate)].append(t)
                self.by_object[(t.predicate, t.object)].append(t)

    def new_matching(self, s: Any, p: Any, o: Any) -> list[ox.Triple]:
        """The changed graphs' new triples matching a pattern with a predicate (None matches anything)."""
        if s is not None and o is not None:
            found = ox.Triple(s, p, o)
            return [found] if found in self.new else []
        if s is not None:
            return self.by_subject.get((s, p), [])
        if o is not None:
            return self.by_object.get((p, o), [])
        return [t for found in self.by_subject.values() for t in found if t.predicate == p]

    def unchanged_quads(self, s: Any, p: Any, o: Any) -> Iterable[ox.Quad]:
        """Quads in unchanged asserted graphs matching a pattern (None matches anything)."""
        for quad in self.store.quads_for_pattern(s, p, o, None):
            name = quad.graph_name
            if isinstance(name, ox.NamedNode) and name.value not in self.excluded:
                yield quad

    def asserted(self, triple: ox.Triple) -> bool:
        """Whether a triple is asserted in some graph of the new build."""
        if triple in self.new:
            return True
        return next(iter(self.unchanged_quads(triple.subject, triple.predicate, triple.object)), None) is not None

    def __contains__(self, node: Any) -> bool:
        """Whether an rdflib node is an A-box node (subject or object of an asserted triple) in the new build."""
        if not isinstance(node, (URIRef, BNode)):
            return False
        term = to_ox(node)
        if term in self.new_terms:
            return True
        return any(True for _ in self.unchanged_quads(term, None, None)) or \
            any(True for _ in self.unchanged_quads(None, None, term))


def inferred_change(store: ox.Store, changes: dict[str, GraphChange], ontology: Graph, local: LocalRules,
                    excluded: set[str], inferred_iri: str) -> tuple[set[ox.Triple], set[ox.Triple]]:
    """(added, removed): how the inferred graph changes, equal to re-reasoning the whole new build."""
    deriving = {ox.NamedNode(str(p)) for p in local.deriving_predicates()}
    lookup = _Lookup(store, excluded | set(changes), changes, deriving)
    ontology_triples = set(ontology)
    from_ontology = local.closure_of(ontology_triples)
    moved = {from_ox_triple(t) for change in changes.values() for t in change.old ^ change.new}
    candidates = local.closure_of(moved) | (from_ontology - ontology_triples)
    inferred = ox.NamedNode(inferred_iri)
    added, removed = set(), set()
    for triple in candidates:
        term = _ox(triple)
        was = next(iter(store.quads_for_pattern(term.subject, term.predicate, term.object, inferred)), None) is not None
        derived = triple in from_ontology or _derived_new(triple, local, lookup) or _derived(triple, local, lookup)
        now = (derived and triple not in ontology_triples and not lookup.asserted(term)
               and is_meaningful(triple, lookup))
        if now and not was:
            added.add(term)
        elif was and not now:
            removed.add(term)
    return added, removed


def _derived_new(triple: Triple, local: LocalRules, lookup: _Lookup) -> bool:
    """Whether some new triple of a changed graph derives this one (the closure of those, asked per triple)."""
    for pattern in local.source_patterns(triple):
        s, p, o = (to_ox(term) if term is not None else None for term in pattern)
        for found in lookup.new_matching(s, p, o):
            if triple in local.closure(from_ox_triple(found)):
                return True
    return False


def _derived(triple: Triple, local: LocalRules, lookup: _Lookup) -> bool:
    """Whether some triple of an unchanged asserted graph derives this one."""
    for pattern in local.source_patterns(triple):
        s, p, o = (to_ox(term) if term is not None else None for term in pattern)
        for quad in lookup.unchanged_quads(s, p, o):
            if triple in local.closure(from_ox_triple(quad.triple)):
                return True
    return False


def from_ox_triple(triple: ox.Triple) -> Triple:
    """A pyoxigraph triple as an rdflib one."""
    return from_ox(triple.subject), from_ox(triple.predicate), from_ox(triple.object)


def uses_equality(store: ox.Store, changes: dict[str, GraphChange]) -> bool:
    """Whether the last build's store or a changed graph's new triples hold owl:sameAs (which joins triples)."""
    same = ox.NamedNode(str(OWL.sameAs))
    if next(iter(store.quads_for_pattern(None, same, None, None)), None) is not None:
        return True
    return any(triple.predicate == same for change in changes.values() for triple in change.new)


def is_large(changes: dict[str, GraphChange], total: int) -> bool:
    """Whether the change is big enough that a full build is the better choice."""
    moved = sum(len(c.old ^ c.new) for c in changes.values())
    return moved > LARGE_CHANGE * max(total, 1)


def most_graphs(changed: set[str], total: int) -> bool:
    """Whether over twice LARGE_CHANGE of the named graphs changed (then a full build is faster; a kg upgrade)."""
    return len(changed) > 2 * LARGE_CHANGE * max(total, 1)


def write_diff(store_dir: Path, source: Path, changes: dict[str, GraphChange], metadata: dict[str, Any],
               finish: Finish | None = None) -> Path:
    """A new store version: a checkpoint of ``source`` plus each graph's change; the default graph stays the merge
    (finish: kg.store's step completing the version, the search index)."""
    def apply(store: ox.Store) -> None:
        default = ox.DefaultGraph()
        gone: set[ox.Triple] = set()
        for iri, change in changes.items():
            name = ox.NamedNode(iri)
            for triple in change.old - change.new:
                store.remove(ox.Quad(triple.subject, triple.predicate, triple.object, name))
                gone.add(triple)
            merged = not is_log_graph(iri)  # a build's change record stays out of the merge (kg.store)
            for triple in change.new - change.old:
                store.add(ox.Quad(triple.subject, triple.predicate, triple.object, name))
                if merged:
                    store.add(ox.Quad(triple.subject, triple.predicate, triple.object, default))
            if next(iter(store.quads_for_pattern(None, None, None, name)), None) is None:
                store.remove_graph(name)  # a full build has no empty named graphs
        for triple in gone:
            holders = store.quads_for_pattern(triple.subject, triple.predicate, triple.object, None)
            if not any(isinstance(q.graph_name, ox.NamedNode) for q in holders):
                store.remove(ox.Quad(triple.subject, triple.predicate, triple.object, default))

    return derive_version(store_dir, source, apply, metadata, finish=finish)
