"""Computing what changed per entity, from the named graphs that changed only.

A triple counts as added when the new version's data graphs hold it and the old one's did not (the merge, so a
triple moving between profiles is no change), removed the other way round. Each such triple belongs to the entity
it is about: its subject when the subject is typed as a person, work, venue, organisation or project; else the
entity whose IRI it extends (``…/id/work/tvm/authorship/1``); else the nearest entity linking to it in the changed
graphs (a role, a metric, an author list's cells). An entity is added when it has a type only in the new version,
removed when only in the old one, changed otherwise.

Which graphs changed comes from the content ids each build records per graph (``graph_ids`` in the version's
metadata, the build state's ids): only those graphs are read, so a one-profile edit at a million triples reads
one profile's triples. Without ids (a version made by an HTTP write) every data graph is compared.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..iris import Minter, graph_kind
from ..namespaces import BIBO, RDF, SDO
from ..store import METADATA_FILE, is_log_graph
from . import BuildChanges, EntityChange

KIND_CLASSES = (  # the classes that make a node an entity, by priority (a node of several kinds takes the first)
    ("person", (SDO.Person,)),
    ("work", (SDO.ScholarlyArticle, BIBO.AcademicArticle, SDO.Article, SDO.CreativeWork, SDO.Dataset,
              SDO.SoftwareSourceCode, BIBO.Document, BIBO.Manuscript)),
    ("venue", (SDO.EventSeries, SDO.Event, SDO.Periodical, SDO.Collection, BIBO.Conference, BIBO.Series)),
    ("organization", (SDO.Organization, SDO.CollegeOrUniversity, SDO.ResearchOrganization, SDO.Corporation)),
    ("project", (SDO.Project,)),
)
CLASS_KIND = {str(c): kind for kind, classes in KIND_CLASSES for c in classes}
KIND_ORDER = [kind for kind, _ in KIND_CLASSES]
NOT_DATA = ("inferred", "ontology")
TYPE, NAME = ox.NamedNode(str(RDF.type)), ox.NamedNode(str(SDO.name))
MAX_DEPTH = 64  # links followed from a node up to its entity (an author list of 60 cells)


def is_data_graph(iri: str) -> bool:
    """Whether a named graph holds asserted data (not the inferred graph, the ontology or a change record)."""
    return graph_kind(iri) not in NOT_DATA and not is_log_graph(iri)


class Side:
    """One version's data, for look-ups: a store's data graphs except some, plus triples given here."""

    def __init__(self, store: ox.Store | None, excluded: Iterable[str] = (), extra: Iterable[ox.Triple] = ()) -> None:
        self.store, self.excluded = store, set(excluded)
        self.extra = set(extra)
        self.by_subject: dict[Any, list[ox.Triple]] = {}
        for triple in self.extra:
            self.by_subject.setdefault(triple.subject, []).append(triple)
        self.by_object: dict[tuple[Any, Any], list[Any]] | None = None  # (predicate, object) -> subjects, made on use

    def _quads(self, s: Any, p: Any, o: Any) -> Iterable[ox.Quad]:
        if self.store is None:
            return
        for quad in self.store.quads_for_pattern(s, p, o, None):
            name = quad.graph_name
            if isinstance(name, ox.NamedNode) and name.value not in self.excluded and is_data_graph(name.value):
                yield quad

    def has(self, triple: ox.Triple) -> bool:
        """Whether this version's data holds the triple."""
        return triple in self.extra or next(iter(self._quads(triple.subject, triple.predicate, triple.object)),
                                            None) is not None

    def objects(self, node: Any, predicate: ox.NamedNode) -> list[Any]:
        """The values of one property of a node."""
        found = [t.object for t in self.by_subject.get(node, ()) if t.predicate == predicate]
        return found + [q.object for q in self._quads(node, predicate, None)]

    def subjects(self, predicate: ox.NamedNode, node: Any) -> list[Any]:
        """The nodes that point at a node by one property."""
        if self.by_object is None:
            self.by_object = {}
            for t in self.extra:
                self.by_object.setdefault((t.predicate, t.object), []).append(t.subject)
        return self.by_object.get((predicate, node), []) + [q.subject for q in self._quads(None, predicate, node)]

    def kind(self, node: Any) -> str | None:
        """The entity kind of a node (person, work, …), None when it is none of them."""
        kinds = {CLASS_KIND.get(getattr(t, "value", "")) for t in self.objects(node, TYPE)} - {None}
        return next((k for k in KIND_ORDER if k in kinds), None)

    def label(self, node: Any) -> str:
        """The node's schema:name, or "" without one."""
        return min((n.value for n in self.objects(node, NAME) if isinstance(n, ox.Literal)), default="")


class Owners:
    """Which entity a subject's triples are about (the module docstring)."""

    def __init__(self, old: Side, new: Side, triples: Iterable[ox.Triple], id_space: str) -> None:
        self.old, self.new, self.id_space = old, new, id_space
        self.incoming: dict[Any, set[Any]] = {}
        for t in triples:
            if not isinstance(t.object, ox.Literal) and t.object != t.subject and t.predicate != TYPE:
                self.incoming.setdefault(t.object, set()).add(t.subject)
        self.kinds: dict[Any, str | None] = {}
        self.found: dict[Any, Any] = {}

    def kind(self, node: Any) -> str | None:
        """The node's kind in the new version, else in the old one."""
        if node not in self.kinds:
            self.kinds[node] = self.new.kind(node) or self.old.kind(node)
        return self.kinds[node]

    def owner(self, node: Any) -> Any:
        """The entity a node's triples are about, or None (a graph's provenance, a source file)."""
        if node not in self.found:
            self.found[node] = self._search(node)
        return self.found[node]

    def _search(self, node: Any) -> Any:
        if self.kind(node):
            return node
        if isinstance(node, ox.NamedNode) and node.value.startswith(self.id_space):
            head = node.value[len(self.id_space):].split("/")
            if len(head) > 2 and self.kind(ox.NamedNode(self.id_space + "/".join(head[:2]))):
                return ox.NamedNode(self.id_space + "/".join(head[:2]))
        seen, layer = {node}, [node]
        for _ in range(MAX_DEPTH):
            parents = sorted({p for n in layer for p in self.incoming.get(n, ())} - seen, key=str)
            if not parents:
                return None
            owners = sorted((p for p in parents if self.kind(p)), key=lambda p: (KIND_ORDER.index(self.kind(p) or
                                                                                                  "project"), str(p)))
            if owners:
                return owners[0]
            seen.update(parents)
            layer = parents
        return None


def entity_changes(old: Side, new: Side, before: Iterable[set[ox.Triple]], after: Iterable[set[ox.Triple]],
                   base: str) -> tuple[list[EntityChange], int, int]:
    """(entity changes, triples added, triples removed) from the changed graphs' triples before and after."""
    old_changed: set[ox.Triple] = set().union(*before)
    new_changed: set[ox.Triple] = set().union(*after)
    removed = [t for t in old_changed - new_changed if not new.has(t)]
    added = [t for t in new_changed - old_changed if not old.has(t)]
    owners = Owners(old, new, old_changed | new_changed, Minter(base).id_space)
    tally: dict[Any, list[int]] = {}
    for index, triples in ((0, added), (1, removed)):
        for triple in triples:
            owner = owners.owner(triple.subject)
            if owner is not None:
                tally.setdefault(owner, [0, 0])[index] += 1
    result = []
    for node, (plus, minus) in tally.items():
        was, now = old.kind(node), new.kind(node)
        status = "added" if was is None else "removed" if now is None else "changed"
        label = new.label(node) or old.label(node) or node.value
        result.append(EntityChange(node.value, now or was or "project", status, label, plus, minus))
    return result, len(added), len(removed)


def changed_graphs(old_ids: dict[str, str] | None, new_ids: dict[str, str] | None, old_graphs: Iterable[str],
                   new_graphs: Iterable[str]) -> list[str]:
    """The data graphs to compare: those whose content ids differ, or every one when either side has none."""
    if old_ids is None or new_ids is None:
        return sorted({g for g in set(old_graphs) | set(new_graphs) if is_data_graph(g)})
    return sorted(g for g in set(old_ids) | set(new_ids) if old_ids.get(g) != new_ids.get(g))


def graph_triples(store: ox.Store, iri: str) -> set[ox.Triple]:
    """The triples of one named graph of a store."""
    return {q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(iri))}


def read_metadata(version: Path) -> dict[str, Any]:
    """A store version's build metadata."""
    loaded: dict[str, Any] = json.loads((version / METADATA_FILE).read_text(encoding="utf-8"))
    return loaded


def version_changes(old_dir: Path, new_dir: Path, base: str) -> BuildChanges:
    """What changed from one kept store version to another (kg diff)."""
    old_meta, new_meta = read_metadata(old_dir), read_metadata(new_dir)
    old_store, new_store = ox.Store.read_only(str(old_dir)), ox.Store.read_only(str(new_dir))
    names = [[g.value for g in s.named_graphs() if isinstance(g, ox.NamedNode)] for s in (old_store, new_store)]
    changed = changed_graphs(old_meta.get("graph_ids"), new_meta.get("graph_ids"), names[0], names[1])
    before = [graph_triples(old_store, g) for g in changed]
    after = [graph_triples(new_store, g) for g in changed]
    pairs = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    entities, added, removed = entity_changes(Side(old_store), Side(new_store), [b for b, _ in pairs],
                                              [a for _, a in pairs], base)
    stamp = str(new_meta.get("written_at") or new_meta.get("built_at") or "")
    return BuildChanges(str(new_meta.get("build_id") or new_dir.name), stamp, stamp,
                        str(old_meta.get("build_id") or old_dir.name), entities, added, removed,
                        versions=(old_dir.name, new_dir.name))


__all__ = ["KIND_CLASSES", "Side", "changed_graphs", "entity_changes", "graph_triples", "is_data_graph",
           "version_changes"]
