"""What validating a focus node can read, as an automaton of steps, for incremental validation.

A shape reads the data by steps from its focus node: along a predicate forward (from the subject of a triple to
its object) or backward. ``Reach`` is a nondeterministic automaton over such steps: state 0 stands on the focus
node, every transition reads one triple and moves to its other end, epsilon transitions read nothing. It is built
from the core shapes (paths, targets, nested shapes at the value nodes, property pairs, sh:closed, sh:class with
``rdf:type/rdfs:subClassOf*``) and from the SHACL-SPARQL targets and constraints (one state per query variable,
a transition per triple pattern or property-path step, both ways, as a join can be evaluated from either end).

A changed triple can change the results of a focus node only if some run from that node reads it. ``affected``
finds those nodes by running the automaton backwards from every (node, state) that can read the triple. A query
that reads nodes not connected to $this, or shapes nested without bound, have no reach (None).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from pyparsing import ParserElement
from rdflib import BNode, Graph, URIRef, Variable
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
from rdflib.plugins.sparql import prepareQuery
from rdflib.term import Node

from .compiler import LOGICAL, members
from .core import implicit_classes, top_shapes
from .sparql import sparql_constraints

ANY = URIRef("urn:kg:any-predicate")  # a step along any predicate (a variable predicate, sh:closed)
EPSILON = URIRef("urn:kg:no-step")
MAX_NESTING = 24
START = 0

Edge = tuple[int, Node, bool, int]  # (from state, predicate or ANY or EPSILON, forward?, to state)
Neighbours = Callable[[Any, Node | None], Iterable[Any]]


class Unbounded(Exception):
    """The shapes read the data in a way no automaton of steps from the focus node describes."""


class Reach:
    """An automaton of the steps shapes take from their focus nodes (state 0)."""

    def __init__(self, edges: Iterable[Edge] = (), states: int = 1) -> None:
        self.edges: list[Edge] = list(edges)
        self.states = states

    def new(self) -> int:
        """A fresh state."""
        self.states += 1
        return self.states - 1

    def step(self, source: int, predicate: Node, forward: bool, target: int | None = None) -> int:
        """Add a transition reading one triple; its target state (fresh unless given)."""
        target = self.new() if target is None else target
        self.edges.append((source, predicate, forward, target))
        return target

    def epsilon(self, source: int, target: int) -> None:
        """Add a transition that reads nothing."""
        self.edges.append((source, EPSILON, True, target))

    def as_json(self) -> dict[str, Any]:
        """The automaton as JSON-ready data."""
        return {"states": self.states, "edges": [[a, str(p), f, b] for a, p, f, b in self.edges]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reach:
        """An automaton from as_json's data."""
        return cls(((int(a), URIRef(p), bool(f), int(b)) for a, p, f, b in data["edges"]), int(data["states"]))

    def affected(self, changed: Iterable[tuple[Any, Node, Any]], incoming: Neighbours, outgoing: Neighbours,
                 limit: int) -> set[Any] | None:
        """The focus nodes from which a run of the automaton reads a changed triple (None past `limit` visits).

        changed holds (subject, predicate, object) triples; incoming(n, p) gives the subjects of triples (s, p, n),
        outgoing(n, p) the objects of (n, p, o), p None for any predicate.
        """
        reading: dict[Node, list[tuple[int, bool]]] = defaultdict(list)
        into: dict[int, list[tuple[int, Node, bool]]] = defaultdict(list)
        for source, predicate, forward, target in self.edges:
            into[target].append((source, predicate, forward))
            if predicate != EPSILON:
                reading[predicate].append((source, forward))
        seen: set[tuple[Any, int]] = set()
        for subject, predicate, obj in changed:
            for state, forward in reading.get(predicate, []) + reading.get(ANY, []):
                seen.add((subject if forward else obj, state))
        frontier = list(seen)
        while frontier:
            following = []
            for node, state in frontier:
                for source, predicate, forward in into.get(state, ()):
                    if predicate == EPSILON:
                        before: Iterable[Any] = (node,)
                    else:
                        step = None if predicate == ANY else predicate
                        before = incoming(node, step) if forward else outgoing(node, step)
                    for previous in before:
                        if (previous, source) not in seen:
                            seen.add((previous, source))
                            following.append((previous, source))
                if len(seen) > limit:
                    return None
            frontier = following
        return {node for node, state in seen if state == START}


class _ShapeWalker:
    """Adds the steps of core shapes to an automaton."""

    def __init__(self, shapes: Graph, reach: Reach) -> None:
        self.shapes, self.reach = shapes, reach
        self.implicit = implicit_classes(shapes)

    def path(self, path: Node, state: int, backward: bool = False) -> int:
        """Add a SHACL path's steps from a state; the state at its end."""
        sg, reach = self.shapes, self.reach
        if isinstance(path, URIRef):
            return reach.step(state, path, not backward)
        if (path, RDF.first, None) in sg:
            parts = list(Collection(sg, path))
            for part in reversed(parts) if backward else parts:
                state = self.path(part, state, backward)
            return state
        inverse = sg.value(path, SH.inversePath)
        if inverse is not None:
            return self.path(inverse, state, not backward)
        for repeated, at_least_once in ((SH.zeroOrMorePath, False), (SH.oneOrMorePath, True)):
            inner = sg.value(path, repeated)
            if inner is not None:
                loop = reach.new()
                reach.epsilon(state, loop)
                after = self.path(inner, loop, backward)
                reach.epsilon(after, loop)
                return after if at_least_once else loop
        optional = sg.value(path, SH.zeroOrOnePath)
        if optional is not None:
            after = self.path(optional, state, backward)
            reach.epsilon(state, after)
            return after
        alternatives = sg.value(path, SH.alternativePath)
        if alternatives is None:
            raise Unbounded(f"unknown path {path!r}")
        end = reach.new()
        for part in Collection(sg, alternatives):
            reach.epsilon(self.path(part, state, backward), end)
        return end

    def shape(self, shape: Node, focus: int, nesting: int = 0) -> None:
        """Add the steps of a shape evaluated at a state (its focus node's)."""
        if nesting > MAX_NESTING:
            raise Unbounded(f"shapes nested deeper than {MAX_NESTING} at {shape}")
        sg, reach = self.shapes, self.reach
        path = sg.value(shape, SH.path)
        values = focus if path is None else self.path(path, focus)
        pairs = (SH.equals, SH.disjoint, SH.lessThan, SH.lessThanOrEquals)
        for other in [o for p in pairs for o in sg.objects(shape, p)]:
            reach.step(focus, other, True)
        if (shape, SH["class"], None) in sg:
            self.classes(values)
        if (shape, SH.closed, None) in sg:
            reach.step(values, ANY, True)
        nested = [m for p in LOGICAL for a in sg.objects(shape, p) for m in members(sg, p, a)]
        nested += list(sg.objects(shape, SH.qualifiedValueShape))
        if (shape, SH.qualifiedValueShape, None) in sg:
            nested += [q for parent in sg.subjects(SH.property, shape) for s in sg.objects(parent, SH.property)
                       for q in sg.objects(s, SH.qualifiedValueShape)]
        for member in nested + list(sg.objects(shape, SH.property)):
            self.shape(member, values, nesting + 1)

    def classes(self, state: int) -> None:
        """Add the steps of a class test at a state: rdf:type, then rdfs:subClassOf any number of times."""
        typed = self.reach.step(state, RDF.type, True)
        self.reach.step(typed, RDFS.subClassOf, True, typed)

    def targets(self, shape: Node) -> None:
        """Add the steps that decide whether the node at the start state is a shape's focus node."""
        sg = self.shapes
        if (shape, SH.targetClass, None) in sg or shape in self.implicit:
            self.classes(START)
        for predicate in sg.objects(shape, SH.targetSubjectsOf):
            self.reach.step(START, predicate, True)
        for predicate in sg.objects(shape, SH.targetObjectsOf):
            self.reach.step(START, predicate, False)


Pattern = tuple[Node, object, Node, bool]  # subject, predicate or path, object, required in every solution?


def _branches(node: object, required: bool = True) -> list[list[Pattern]]:
    """The triple patterns of a query's algebra, one list per alternative (UNION branches apart), each marked
    required (in every solution) or not (in an OPTIONAL or an EXISTS / NOT EXISTS group)."""
    if isinstance(node, dict):
        name = getattr(node, "name", "")
        if name == "Union":
            return _branches(node["p1"], required) + _branches(node["p2"], required)
        result: list[list[Pattern]] = [[]]
        for key, value in node.items():
            if key == "triples" and isinstance(value, list):
                result = [b + [(t[0], t[1], t[2], required) for t in value] for b in result]
            elif not key.startswith("_"):
                optional = (name == "LeftJoin" and key == "p2") or (name == "Filter" and key == "expr")
                inner = required and not optional
                result = [b + extra for b in result for extra in _branches(value, inner)]
        return result
    if isinstance(node, (list, tuple)):
        combined: list[list[Pattern]] = [[]]
        for item in node:
            combined = [b + extra for b in combined for extra in _branches(item, required)]
        return combined
    return [[]]


def _query_steps(text: str, reach: Reach) -> None:
    """Add the steps of a SPARQL query, each alternative apart (see ``_branch_steps``)."""
    try:
        branches = _branches(prepareQuery(text).algebra)
    finally:
        ParserElement.reset_cache()  # rdflib's packrat cache keeps parse exceptions, and so every calling frame
    for patterns in branches:
        _branch_steps(patterns, reach, text)


def _branch_steps(patterns: list[Pattern], reach: Reach, text: str) -> None:
    """Add one alternative's steps: a state per variable ($this at the start), each pattern read from its end nearer
    to $this. Nearness is measured over the required patterns first (whose triples are in every solution), then
    over the others, so that a run from the focus node reaches the nearer end of every triple a solution reads."""
    this = Variable("this")
    rank: dict[Node, tuple[int, int]] = {this: (0, 0)}
    for phase in (0, 1):
        frontier: list[Node] = [t for t in rank]
        while frontier:
            following: list[Node] = []
            for s, _, o, required in patterns:
                if phase == 0 and not required:
                    continue
                for near, far in ((s, o), (o, s)):
                    if near in frontier and isinstance(far, (Variable, BNode)) and far not in rank:
                        rank[far] = (phase, rank[near][1] + 1)
                        following.append(far)
            frontier = following
    if any(isinstance(t, (Variable, BNode)) and t not in rank for s, _, o, _ in patterns for t in (s, o)):
        raise Unbounded(f"the query reads nodes not connected to $this: {text[:200]}")
    states = {term: START if term == this else reach.new() for term in rank}
    for s, p, o, _ in patterns:
        if s in rank and (o not in rank or rank[s] <= rank[o]):
            _sparql_path(p, states[s], states.get(o) or reach.new(), True, reach)
        elif o in rank:
            _sparql_path(p, states[o], states.get(s) or reach.new(), False, reach)


def _sparql_path(path: object, start: int, end: int, forward: bool, reach: Reach) -> None:
    """Add a SPARQL path's steps (rdflib's path objects) from start to end, read forward or backward."""
    if isinstance(path, (URIRef, Variable)):
        reach.step(start, path if isinstance(path, URIRef) else ANY, forward, end)
    elif isinstance(path, InvPath):
        _sparql_path(path.arg, start, end, not forward, reach)
    elif isinstance(path, SequencePath):
        parts = list(path.args) if forward else list(reversed(path.args))
        state = start
        for number, part in enumerate(parts):
            following = end if number == len(parts) - 1 else reach.new()
            _sparql_path(part, state, following, forward, reach)
            state = following
    elif isinstance(path, AlternativePath):
        for part in path.args:
            _sparql_path(part, start, end, forward, reach)
    elif isinstance(path, MulPath):
        if path.mod == "?":
            _sparql_path(path.path, start, end, forward, reach)
            reach.epsilon(start, end)
            return
        loop = reach.new()
        if path.mod == "+":
            _sparql_path(path.path, start, loop, forward, reach)
        else:
            reach.epsilon(start, loop)
        _sparql_path(path.path, loop, loop, forward, reach)
        reach.epsilon(loop, end)
    elif isinstance(path, NegatedPath):
        reach.step(start, ANY, forward, end)
    else:
        raise Unbounded(f"unknown SPARQL path {path!r}")


def shapes_reach(shapes: Graph, core: Graph) -> Reach | None:
    """The automaton of every shape's steps from its focus nodes (targets included), or None when unbounded.

    shapes is the whole shapes graph (for the SHACL-SPARQL shapes), core the core shapes (``engine.core_shapes``).
    """
    reach = Reach()
    walker = _ShapeWalker(core, reach)
    try:
        for shape in top_shapes(core):
            walker.targets(shape)
            walker.shape(shape, START)
        for check in sparql_constraints(shapes):
            path = "" if check.path is None else f"<{check.path}>"
            for text in (check.target, check.select.replace("$PATH", path)):
                _query_steps(text, reach)
    except Unbounded:
        return None
    return reach


__all__ = ["ANY", "Reach", "shapes_reach"]
