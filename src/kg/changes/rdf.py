"""A build's change record as RDF, one named graph per build (``<base>/graph/changes/<build id>``), and back.

The graph holds the build as a ``prov:Activity`` (``prov:startedAtTime``, ``prov:endedAtTime``, ``prov:generated``
the store version it wrote, ``prov:used`` the version it replaced; kg:triplesAdded and kg:triplesRemoved in all)
and one record per changed entity: a ``schema:AddAction``, ``schema:DeleteAction`` or ``schema:UpdateAction``
whose ``schema:object`` is the entity, ``dcterms:type`` its class, ``rdfs:label`` its name, ``dcterms:isPartOf``
the build, with its own triple counts. A build lists at most ``MAX_LISTED`` entities (kg:entitiesUnlisted counts
the rest, and every entity of a first build), and ``<old> dcterms:isReplacedBy <new>`` for each entity it replaced
(kg.changes.moves). These graphs stay outside the default graph's merge (kg.store).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pyoxigraph as ox

from ..iris import Minter
from ..namespaces import DCTERMS, KG, PROV, RDF, RDFS, SDO, XSD
from ..store import GraphStore, log_graph_names_of
from . import BuildChanges, EntityChange, order
from .diff import KIND_CLASSES

MAX_LISTED = 1000
KEEP_BUILDS = 20  # change records a store keeps (the newest)
ACTIONS = {"added": SDO.AddAction, "removed": SDO.DeleteAction, "changed": SDO.UpdateAction}
STATUS_OF = {str(v): k for k, v in ACTIONS.items()}
KIND_CLASS = {kind: str(classes[0]) for kind, classes in KIND_CLASSES}
CLASS_KIND = {v: k for k, v in KIND_CLASS.items()}


def _n(term: Any) -> ox.NamedNode:
    return ox.NamedNode(str(term))


def _int(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=_n(XSD.integer))


def change_triples(changes: BuildChanges, base: str) -> set[ox.Triple]:
    """The triples of a build's change graph."""
    minter = Minter(base)
    build = _n(minter.build(changes.build_id))
    version = _n(minter.build_version(changes.build_id))
    when = _n(XSD.dateTime)
    triples = {(build, RDF.type, _n(PROV.Activity)),
               (build, RDFS.label, ox.Literal(f"kg build {changes.build_id}: {changes.summary()}")),
               (build, PROV.startedAtTime, ox.Literal(changes.started_at, datatype=when)),
               (build, PROV.endedAtTime, ox.Literal(changes.ended_at, datatype=when)),
               (build, PROV.generated, version), (version, RDF.type, _n(PROV.Entity)),
               (version, PROV.wasGeneratedBy, build),
               (build, KG.triplesAdded, _int(changes.triples_added)),
               (build, KG.triplesRemoved, _int(changes.triples_removed))}
    listed = order(changes.entities)[:0 if changes.initial else MAX_LISTED]
    unlisted = changes.unlisted + len(changes.entities) - len(listed)
    if unlisted:
        triples.add((build, KG.entitiesUnlisted, _int(unlisted)))
    if changes.previous:
        previous = _n(minter.build_version(changes.previous))
        triples |= {(build, PROV.used, previous), (version, PROV.wasRevisionOf, previous)}
    for change in listed:
        record = _n(minter.entity_change(changes.build_id, change.iri))
        triples |= {(record, RDF.type, _n(ACTIONS[change.status])), (record, SDO.object, ox.NamedNode(change.iri)),
                    (record, DCTERMS.type, ox.NamedNode(KIND_CLASS[change.kind])),
                    (record, RDFS.label, ox.Literal(change.label)), (record, DCTERMS.isPartOf, build),
                    (record, KG.triplesAdded, _int(change.added)), (record, KG.triplesRemoved, _int(change.removed))}
    triples |= {(ox.NamedNode(old), DCTERMS.isReplacedBy, ox.NamedNode(new)) for old, new in changes.moved.items()}
    return {ox.Triple(s, _n(p), o) for s, p, o in triples}  # type: ignore[arg-type]


def _values(triples: list[ox.Triple]) -> dict[Any, dict[str, list[Any]]]:
    found: dict[Any, dict[str, list[Any]]] = {}
    for t in triples:
        found.setdefault(t.subject, {}).setdefault(t.predicate.value, []).append(t.object)
    return found


def _one(values: dict[str, list[Any]], prop: Any, default: str = "") -> str:
    got = values.get(str(prop))
    return str(got[0].value) if got else default


def read_changes(triples: list[ox.Triple]) -> BuildChanges | None:
    """A build's change record from its graph's triples (None when the graph holds no build)."""
    by_subject = _values(triples)
    build = next((s for s, v in by_subject.items() if str(PROV.Activity) in {o.value for o in v.get(str(RDF.type),
                                                                                                   [])}), None)
    if build is None:
        return None
    about = by_subject[build]
    entities = []
    for values in by_subject.values():
        status = next((STATUS_OF[o.value] for o in values.get(str(RDF.type), []) if o.value in STATUS_OF), None)
        kind = CLASS_KIND.get(_one(values, DCTERMS.type))
        if status is None or kind is None or str(SDO.object) not in values:
            continue
        entities.append(EntityChange(_one(values, SDO.object), kind, status, _one(values, RDFS.label),
                                     int(_one(values, KG.triplesAdded, "0")),
                                     int(_one(values, KG.triplesRemoved, "0"))))
    moved = {t.subject.value: t.object.value for t in triples if t.predicate.value == str(DCTERMS.isReplacedBy)
             and isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode)}
    used = _one(about, PROV.used)
    return BuildChanges(build.value.rsplit("/", 1)[1], _one(about, PROV.startedAtTime), _one(about, PROV.endedAtTime),
                        used.rsplit("/", 1)[1].split("#", 1)[0] if used else None, entities,
                        int(_one(about, KG.triplesAdded, "0")), int(_one(about, KG.triplesRemoved, "0")),
                        int(_one(about, KG.entitiesUnlisted, "0")), moved=moved)


def read_log(store: GraphStore) -> list[BuildChanges]:
    """Every build's change record kept in a store (an embedded one: a remote store keeps none), newest first."""
    found = []
    for name in log_graph_names_of(store):
        changes = read_changes([q.triple for q in store.quads(name)])
        if changes is not None:
            found.append(changes)
    return sorted(found, key=lambda c: when(c.ended_at), reverse=True)


def when(stamp: str) -> datetime:
    """An xsd:dateTime as a datetime for ordering (the store drops a fraction's trailing zeros)."""
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)


def ended_at(triples: set[ox.Triple]) -> str:
    """When the build a change graph records ended ("" when the graph says not)."""
    return next((str(getattr(t.object, "value", "")) for t in triples if t.predicate.value == str(PROV.endedAtTime)),
                "")


__all__ = ["KEEP_BUILDS", "MAX_LISTED", "change_triples", "ended_at", "read_changes", "read_log", "when"]
