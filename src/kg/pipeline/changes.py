"""The build's change record (kg.changes): what changed since the store's current version, computed before the new
version is written and kept in it as one more named graph, beside the records of the recent builds before it.

Only the graphs whose content ids differ from those in the current version's metadata are read (kg.changes.diff);
the record is written with the version, so a failed build leaves none. Remote stores keep no change records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox
from rdflib import URIRef

from ..changes import BuildChanges, precise_now
from ..changes.diff import KIND_CLASSES, Side, changed_graphs, entity_changes, graph_triples, is_data_graph
from ..changes.moves import carry, successors
from ..changes.rdf import KEEP_BUILDS, change_triples, ended_at, when
from ..config import Config
from ..errors import StoreMissing
from ..iris import Minter
from ..mapping import MappedGraphs
from ..namespaces import RDF
from ..store import Store
from .incremental import GraphChange, TripleSets


@dataclass
class PendingLog:
    """A build's change record before the new version is written, and the older records it carries over."""

    changes: BuildChanges
    base: str
    kept: dict[str, set[ox.Triple]] = field(default_factory=dict)
    dropped: dict[str, set[ox.Triple]] = field(default_factory=dict)
    moved: tuple[set[ox.Triple], set[ox.Triple]] = (set(), set())  # the moved graph before and after (moves)

    @property
    def iri(self) -> str:
        """This build's change graph."""
        return str(Minter(self.base).changes_graph(self.changes.build_id))

    @property
    def moved_iri(self) -> str:
        """The graph of replaced and removed IRIs (kg.changes.moves)."""
        return str(Minter(self.base).moved_graph())

    def finish(self) -> dict[str, set[ox.Triple]]:
        """Stamp the end time; the change graphs a full build writes (this build's, the kept ones, the moved one)."""
        self.changes.ended_at = precise_now()
        moved = {self.moved_iri: self.moved[1]} if self.moved[1] else {}
        return {**self.kept, **moved, self.iri: change_triples(self.changes, self.base)}

    def diff(self) -> dict[str, GraphChange]:
        """Stamp the end time; for an incremental build, this build's change graph added, the oldest dropped and
        the moved graph updated."""
        self.changes.ended_at = precise_now()
        found = {iri: GraphChange(triples, set()) for iri, triples in self.dropped.items()}
        found[self.iri] = GraphChange(set(), change_triples(self.changes, self.base))
        if self.moved[0] != self.moved[1]:
            found[self.moved_iri] = GraphChange(*self.moved)
        return found


def _initial(mapped: MappedGraphs, build_id: str, started: str) -> BuildChanges:
    """A first build: every entity is new (counted per kind, not listed)."""
    kinds: dict[Any, str] = {}
    classes: dict[Any, str] = {c: kind for kind, cs in reversed(KIND_CLASSES) for c in cs}
    rdf_type = str(RDF.type)
    for graph in mapped.graphs.values():
        for subject, predicate, cls in graph:  # a full scan: reads a cached graph without loading it (LazyGraph)
            if not isinstance(predicate, URIRef) or not str.__eq__(predicate, rdf_type):  # str's ==: rdflib's is slow
                continue
            kind = classes.get(cls)
            if kind is not None and (subject not in kinds or _rank(kind) < _rank(kinds[subject])):
                kinds[subject] = kind
    total = sum(len(graph) for graph in mapped.graphs.values())  # a LazyGraph knows its size
    counts: dict[str, dict[str, int]] = {}
    for kind in kinds.values():
        counts.setdefault(kind, {"added": 0})["added"] += 1
    return BuildChanges(build_id, started, "", None, [], total, 0, len(kinds), counts)


def _rank(kind: str) -> int:
    return [k for k, _ in KIND_CLASSES].index(kind)


def pending_log(config: Config, mapped: MappedGraphs, ids: dict[str, str], build_id: str,
                started: str, sets: TripleSets | None = None) -> PendingLog | None:
    """What this build changes since the store's current version (None for a remote store)."""
    if config.remote:
        return None
    try:
        previous = Store.open(config.store)
    except StoreMissing:
        return PendingLog(_initial(mapped, build_id, started), config.base)
    try:
        return _since(config, previous, mapped, ids, build_id, started, sets or TripleSets())
    finally:
        del previous


def _since(config: Config, previous: Store, mapped: MappedGraphs, ids: dict[str, str], build_id: str,
           started: str, sets: TripleSets) -> PendingLog:
    old = previous.ox
    changed = changed_graphs(previous.metadata.get("graph_ids"), ids,
                             [g for g in previous.graph_names() if is_data_graph(g)], [str(g) for g in mapped.graphs])
    before, after, differing = [], [], []
    for iri in changed:
        new = set(sets.new_of(mapped.graphs.get(URIRef(iri))))
        was = set(sets.old_of(old, str(previous.path), iri)) if previous.path else graph_triples(old, iri)
        if was != new:
            before.append(was)
            after.append(new)
            differing.append(iri)
    old_side, new_side = Side(old), Side(old, differing, set().union(*after))
    entities, added, removed = entity_changes(old_side, new_side, before, after, config.base)
    replaced = successors(old_side, new_side, entities)
    moved_iri = str(Minter(config.base).moved_graph())
    moved_before = graph_triples(old, moved_iri)
    moved_after = carry(moved_before, replaced, (e.iri for e in entities if e.status == "removed"),
                        (e.iri for e in entities if e.status == "added"), started, config.base)
    version = previous.path.name if previous.path else ""
    changes = BuildChanges(build_id, started, "", str(previous.metadata.get("build_id") or version), entities,
                           added, removed, versions=(version, ""), moved=replaced)
    records = {name: graph_triples(old, name) for name in previous.log_graph_names() if name != moved_iri}
    newest = sorted(records, key=lambda name: when(ended_at(records[name])), reverse=True)
    keep = set(newest[:KEEP_BUILDS - 1])
    return PendingLog(changes, config.base, {n: t for n, t in records.items() if n in keep},
                      {n: t for n, t in records.items() if n not in keep}, (moved_before, moved_after))


__all__ = ["PendingLog", "pending_log"]
