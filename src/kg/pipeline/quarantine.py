"""Quarantine: entities of downloaded records that violate the shapes are left out of the build, not fatal.

A violation whose focus node some record graph states (as a subject) takes that node out of every record graph
holding it, with what only it reaches there (its authorships, author-list cells, roles, blank nodes); triples of
record graphs that point at a node no graph describes any more go too, so nothing dangles. The build then
validates again, since removing a node can leave another one invalid (a work whose only author was removed).
A violation on a node only curated graphs (profiles, reference data, edits) state fails the build as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from ..atomic_files import write_atomically
from ..iris import Minter, graph_kind
from ..mapping import MappedGraphs
from ..namespaces import bind_prefixes
from ..validation import ValidationReport, Violation

MAX_ROUNDS = 5  # removing an entity can invalidate the one that pointed at it; cascades are short
OWNED_KINDS = ("role",)  # minted entities that belong to the node pointing at them (a person's roles)
FIX = ("correct the entry at its source and download the record again, or remove it from the file; the rest of "
       "the record is built")


@dataclass(frozen=True)
class Quarantined:
    """One entity of a downloaded record left out of the served graphs, with the violations that put it there."""

    node: str
    graph: str
    violations: tuple[Violation, ...]
    triples: int

    @property
    def place(self) -> str:
        """file:line: field, as the first violation locates the entity."""
        first = self.violations[0]
        text = (first.file or "(no source file)") + (f":{first.line}" if first.line is not None else "")
        return text + (f": {first.field}" if first.field else "")

    def text(self) -> str:
        """One line per violation, each naming the file, place, entity, property, problem and the fix."""
        return "\n".join(f"quarantined: {v.text()}; {FIX}" for v in self.violations)

    def as_json(self) -> dict[str, object]:
        """A JSON-ready description."""
        return {"node": self.node, "graph": self.graph, "place": self.place, "triples": self.triples,
                "violations": [{"file": v.file, "line": v.line, "field": v.field, "path": v.path,
                                "message": v.message, "value": v.value} for v in self.violations],
                "fix": FIX}


@dataclass
class Screened:
    """The mapped graphs with quarantined entities left out, the report on them, and what was left out."""

    mapped: MappedGraphs
    report: ValidationReport
    quarantined: tuple[Quarantined, ...] = ()
    held: dict[URIRef, Graph] = field(default_factory=dict)  # quarantine graph IRI -> the triples left out


def _is_record(iri: URIRef) -> bool:
    return graph_kind(str(iri)) == "record"


def _owned(node: Node, root: Node, minter: Minter) -> bool:
    """Whether a node belongs to the entity root: a blank node, an IRI minted under root's, or a role."""
    if isinstance(node, BNode):
        return True
    if not isinstance(node, URIRef):
        return False
    path = minter.path_of(str(node)) or ""
    return str(node).startswith(f"{root}/") or path.split("/", 1)[0] in OWNED_KINDS


def unit(graph: Graph, root: Node, minter: Minter) -> set[Node]:
    """The node and what only it reaches in a graph: owned nodes every reference to which comes from the unit."""
    members: set[Node] = {root}
    grown = True
    while grown:
        grown = False
        for node in list(members):
            for value in graph.objects(node, None):
                if value in members or isinstance(value, Literal) or not _owned(value, root, minter):
                    continue
                if set(graph.subjects(None, value)) <= members:
                    members.add(value)
                    grown = True
    return members


def _subjects(mapped: MappedGraphs) -> dict[str, list[URIRef]]:
    """Record graphs by the text of each subject they state."""
    found: dict[str, list[URIRef]] = {}
    for iri, graph in mapped.graphs.items():
        if _is_record(iri):
            for subject in set(graph.subjects()):
                found.setdefault(str(subject), []).append(iri)
    return found


def _remove(mapped: MappedGraphs, targets: dict[str, list[Violation]], minter: Minter,
            held: dict[URIRef, Graph]) -> tuple[MappedGraphs, list[Quarantined]]:
    """Take each target's unit out of every record graph stating it; then the triples pointing at removed nodes."""
    holders = _subjects(mapped)
    graphs = dict(mapped.graphs)
    removed: set[Node] = set()
    entries = []
    for focus, violations in sorted(targets.items()):  # an entity before the nodes minted under it
        for iri in holders.get(focus, []):
            graph = graphs[iri] = _copy(graphs[iri]) if graphs[iri] is mapped.graphs[iri] else graphs[iri]
            root = next((s for s in graph.subjects() if str(s) == focus), None)
            if root is None:
                continue  # already left out with another entity's unit (a work's authorship)
            members = unit(graph, root, minter)
            kept = kept_in(held, iri, minter)
            count = 0
            for member in members:
                for triple in list(graph.triples((member, None, None))):
                    graph.remove(triple)
                    kept.add(triple)
                    count += 1
            removed |= members
            entries.append(Quarantined(focus, str(iri), tuple(violations), count))
    pointed = {o for g in graphs.values() for o in g.objects()}
    for iri, graph in graphs.items():
        if graph is not mapped.graphs.get(iri):
            for orphan in [s for s in set(graph.subjects()) if _orphan(graph, s, kept_in(held, iri, minter), pointed,
                                                                        minter)]:
                for triple in list(graph.triples((orphan, None, None))):
                    graph.remove(triple)
                    kept_in(held, iri, minter).add(triple)
                removed.add(orphan)
    described = {s for g in graphs.values() for s in g.subjects()}
    gone = removed - described
    for iri, graph in graphs.items():
        if _is_record(iri) and gone:
            for triple in [t for t in graph if t[2] in gone]:
                graph.remove(triple)
                kept_in(held, iri, minter).add(triple)
    return replace(mapped, graphs=graphs), entries


def kept_in(held: dict[URIRef, Graph], record_graph: URIRef, minter: Minter) -> Graph:
    """The quarantine graph of a record graph."""
    return held.setdefault(minter.quarantine_graph(str(record_graph).rsplit("/", 1)[-1]), bind_prefixes(Graph()))


def _orphan(graph: Graph, node: Node, kept: Graph, pointed: set[Node], minter: Minter) -> bool:
    """A node only a quarantined entity pointed at (a co-author, a venue named only there) that links nowhere."""
    if node in pointed or (None, None, node) not in kept:
        return False
    return not any(isinstance(o, URIRef) and minter.is_minted(str(o)) for o in graph.objects(node, None))


def _copy(graph: Graph) -> Graph:
    copy = bind_prefixes(Graph())
    for triple in graph:
        copy.add(triple)
    return copy


def screen(mapped: MappedGraphs, report: ValidationReport, minter: Minter,
           revalidate: Callable[[MappedGraphs], ValidationReport]) -> Screened:
    """Quarantine the record entities violations fall on, re-validating until the rest passes or a curated one fails."""
    result = Screened(mapped, report)
    for _ in range(MAX_ROUNDS):
        if result.report.passes:
            return result
        holders = _subjects(result.mapped)
        targets: dict[str, list[Violation]] = {}
        for violation in result.report.errors:
            if violation.focus not in holders:
                return result  # a curated graph is at fault: the build stops, as it always has
            targets.setdefault(violation.focus, []).append(violation)
        mapped, entries = _remove(result.mapped, targets, minter, result.held)
        result = Screened(mapped, revalidate(mapped), result.quarantined + tuple(entries), result.held)
    return result


def write_quarantine(path: Path, held: dict[URIRef, Graph]) -> None:
    """Write what a build quarantined as N-Quads (one graph per record) beside the store; none: no file."""
    if not held:
        path.unlink(missing_ok=True)
        return
    lines = [f"{line.removesuffix(' .')} <{iri}> .\n" for iri, graph in held.items()
             for line in graph.serialize(format="nt").splitlines() if line.strip()]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, "".join(sorted(lines)))


__all__ = ["FIX", "Quarantined", "Screened", "screen", "unit", "write_quarantine"]
