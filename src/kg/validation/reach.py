"""How far validating a focus node can read: the steps the shapes take from it, for incremental validation.

A shape reads the data by steps from its focus node: along a predicate forward (``?x p ?y`` from ?x) or
backward (from ?y), a bounded number of times, and along some predicates any number of times (``rdf:rest*``,
``rdfs:subClassOf*`` of sh:class and class targets). ``shapes_reach`` collects them from the core shapes (paths,
nested shapes, property pairs, sh:closed, targets) and from SHACL-SPARQL targets and constraints (the triple
patterns and property paths of their queries, walked from $this). A changed triple can then only change the
results of focus nodes from which it is within that reach: ``Reach.affected`` walks the steps backwards from
the changed triples' nodes. A query that reads nodes not connected to $this has no bounded reach (None).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pyparsing import ParserElement
from rdflib import BNode, Graph, URIRef, Variable
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
from rdflib.plugins.sparql import prepareQuery
from rdflib.term import Node

from .compiler import LOGICAL, members
from .sparql import sparql_constraints

ANY = URIRef("urn:kg:any-predicate")  # a step along any predicate (a variable predicate, sh:closed)
FORWARD, BACKWARD = True, False
MAX_NESTING = 24

Step = tuple[Node, bool]  # (predicate or ANY, forward?)


@dataclass
class Reach:
    """The steps shapes take from a focus node: bounded ones (at most `hops` in a row) and repeatable ones."""

    hops: int = 0
    steps: set[Step] = field(default_factory=set)
    repeatable: set[Step] = field(default_factory=set)

    def as_json(self) -> dict[str, Any]:
        """The reach as JSON-ready data."""
        return {"hops": self.hops, "steps": sorted([str(p), f] for p, f in self.steps),
                "repeatable": sorted([str(p), f] for p, f in self.repeatable)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reach:
        """A reach from as_json's data."""
        return cls(int(data["hops"]), {(URIRef(p), bool(f)) for p, f in data["steps"]},
                   {(URIRef(p), bool(f)) for p, f in data["repeatable"]})

    def take(self, depth: int, step: Step, repeat: bool = False) -> None:
        """Record a step taken at a depth (number of bounded steps before it)."""
        (self.repeatable if repeat else self.steps).add(step)
        if not repeat:
            self.hops = max(self.hops, depth + 1)

    def affected(self, seeds: Iterable[Any], incoming: Callable[[Any, Node | None], Iterable[Any]],
                 outgoing: Callable[[Any, Node | None], Iterable[Any]], limit: int) -> set[Any] | None:
        """The nodes whose validation may read a triple of the seeds, or None past `limit` nodes.

        incoming(n, p) gives the subjects of triples (s, p, n) (p None: any predicate), outgoing(n, p) the objects
        of (n, p, o). A reader stepped forward onto n along p from a subject of (s, p, n), backward from an object.
        """
        found: dict[Any, int] = {seed: 0 for seed in seeds}
        frontier = list(found)
        steps = [(s, False) for s in self.steps] + [(s, True) for s in self.repeatable]
        while frontier:
            following: list[Any] = []
            for node in frontier:
                depth = found[node]
                for (predicate, forward), repeat in steps:
                    if not repeat and depth >= self.hops:
                        continue
                    step = None if predicate == ANY else predicate
                    for reader in (incoming(node, step) if forward else outgoing(node, step)):
                        if reader not in found or found[reader] > depth + (0 if repeat else 1):
                            found[reader] = depth + (0 if repeat else 1)
                            following.append(reader)
                            if len(found) > limit:
                                return None
            frontier = following
        return set(found)


class _Walker:
    """Collects the steps of core shapes."""

    def __init__(self, shapes: Graph, reach: Reach) -> None:
        self.shapes, self.reach = shapes, reach

    def path(self, path: Node, depth: int, backward: bool = False, repeat: bool = False) -> int | None:
        """Record a path's steps from a depth; the depth after it (None when it repeats unboundedly)."""
        sg = self.shapes
        if isinstance(path, URIRef):
            self.reach.take(depth, (path, not backward), repeat)
            return depth if repeat else depth + 1
        if (path, RDF.first, None) in sg:
            for part in Collection(sg, path):
                depth = self.path(part, depth, backward, repeat) or depth
            return depth
        inverse = sg.value(path, SH.inversePath)
        if inverse is not None:
            return self.path(inverse, depth, not backward, repeat)
        for unbounded in (SH.zeroOrMorePath, SH.oneOrMorePath):
            inner = sg.value(path, unbounded)
            if inner is not None:
                self.path(inner, depth, backward, True)
                return depth
        optional = sg.value(path, SH.zeroOrOnePath)
        if optional is not None:
            return self.path(optional, depth, backward, repeat)
        alternatives = sg.value(path, SH.alternativePath)
        ends = [self.path(p, depth, backward, repeat) or depth for p in Collection(sg, alternatives or RDF.nil)]
        return max(ends, default=depth)

    def shape(self, shape: Node, depth: int, nesting: int = 0) -> bool:
        """Record the steps of a shape evaluated at a depth; False when nesting has no bound (recursive shapes)."""
        if nesting > MAX_NESTING:
            return False
        sg = self.shapes
        path = sg.value(shape, SH.path)
        values = depth if path is None else self.path(path, depth)
        values = depth if values is None else values
        for other in [o for p in (SH.equals, SH.disjoint, SH.lessThan, SH.lessThanOrEquals)
                      for o in sg.objects(shape, p)]:
            self.reach.take(depth, (other, FORWARD))
        if (shape, SH["class"], None) in sg:
            self.reach.take(values, (RDF.type, FORWARD))
            self.reach.take(values + 1, (RDFS.subClassOf, FORWARD), repeat=True)
        if (shape, SH.closed, None) in sg:
            self.reach.take(values, (ANY, FORWARD))
        nested = [m for p in LOGICAL for a in sg.objects(shape, p) for m in members(sg, p, a)]
        nested += list(sg.objects(shape, SH.qualifiedValueShape))
        siblings = [q for parent in sg.subjects(SH.property, shape) for s in sg.objects(parent, SH.property)
                    for q in sg.objects(s, SH.qualifiedValueShape)]
        children = [(c, values) for c in list(sg.objects(shape, SH.property))]
        return all(self.shape(m, values, nesting + 1) for m in nested + siblings) and all(
            self.shape(c, d, nesting + 1) for c, d in children)

    def targets(self, shape: Node) -> None:
        """Record the steps that decide whether a node is a shape's focus node."""
        sg = self.shapes
        if (shape, SH.targetClass, None) in sg or (shape, RDF.type, RDFS.Class) in sg:
            self.reach.take(0, (RDF.type, FORWARD))
            self.reach.take(1, (RDFS.subClassOf, FORWARD), repeat=True)
        for predicate in sg.objects(shape, SH.targetSubjectsOf):
            self.reach.take(0, (predicate, FORWARD))
        for predicate in sg.objects(shape, SH.targetObjectsOf):
            self.reach.take(0, (predicate, BACKWARD))


def _query_steps(text: str, reach: Reach) -> bool:
    """Record the steps of a SPARQL query walked from $this; False when it reads nodes not connected to $this."""
    patterns: list[tuple[Node, object, Node]] = []

    def collect(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "triples" and isinstance(value, list):
                    patterns.extend(tuple(t) for t in value)
                else:
                    collect(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                collect(item)

    try:
        collect(prepareQuery(text).algebra)
    finally:
        ParserElement.reset_cache()  # rdflib's packrat cache keeps parse exceptions, and so every calling frame
    this = Variable("this")
    depth: dict[Node, int] = {this: 0}
    changed = True
    while changed:
        changed = False
        for s, p, o in patterns:
            for start, end, forward in ((s, o, True), (o, s, False)):
                if start in depth and isinstance(end, (Variable, BNode)) and (
                        end not in depth or depth[end] > depth[start] + 1):
                    reached = _path_steps(p, depth[start], forward, reach)
                    if end not in depth or depth[end] > reached:
                        depth[end] = reached
                        changed = True
    return all(v in depth for s, _, o in patterns for v in (s, o) if isinstance(v, (Variable, BNode)))


def _path_steps(path: object, depth: int, forward: bool, reach: Reach, repeat: bool = False) -> int:
    """Record a SPARQL path's steps (rdflib's path objects); the depth after it."""
    if isinstance(path, (URIRef, Variable)):
        reach.take(depth, (path if isinstance(path, URIRef) else ANY, forward), repeat)
        return depth if repeat else depth + 1
    if isinstance(path, InvPath):
        return _path_steps(path.arg, depth, not forward, reach, repeat)
    if isinstance(path, SequencePath):
        for part in path.args if forward else reversed(path.args):
            depth = _path_steps(part, depth, forward, reach, repeat)
        return depth
    if isinstance(path, AlternativePath):
        return max(_path_steps(part, depth, forward, reach, repeat) for part in path.args)
    if isinstance(path, MulPath):
        unbounded = path.mod in ("*", "+")
        after = _path_steps(path.path, depth, forward, reach, repeat or unbounded)
        return depth if unbounded else after
    if isinstance(path, NegatedPath):
        reach.take(depth, (ANY, forward), repeat)
        return depth + 1
    raise ValueError(f"unknown SPARQL path {path!r}")


def shapes_reach(shapes: Graph, top_shapes: Iterable[Node]) -> Reach | None:
    """The steps every shape may take from its focus nodes (targets included), or None when unbounded."""
    reach = Reach()
    walker = _Walker(shapes, reach)
    for shape in top_shapes:
        walker.targets(shape)
        if not walker.shape(shape, 0):
            return None
    for check in sparql_constraints(shapes):
        path = "" if check.path is None else f"<{check.path}>"
        for text in (check.target, check.select.replace("$PATH", path)):
            if not _query_steps(text, reach):
                return None
    return reach


__all__ = ["ANY", "Reach", "shapes_reach"]
