"""owl:sameAs for the rule engine (eq-sym, eq-trans, eq-rep-s/p/o): reason over one representative per class.

Nodes made equal by owl:sameAs (asserted, or derived through a sub-property of owl:sameAs or a chain ending
in it) are grouped by union-find. Every triple, ontology included, is rewritten to the classes'
representatives; the ordinary rules run once on the rewritten triples (the rewritten ontology is what owlrl's
eq-rep rules make of the T-box); each result triple is then expanded to every combination of class members,
which gives the symmetric and transitive sameAs closure and all replaced triples. The rules treat terms only
by identity, so this is exactly what owlrl derives, except in the cases ``materialize`` refuses with
``NeedsOwlrl``: a literal or an RDF/RDFS/OWL/XSD term in a class (owlrl then reasons over literal subjects
and rewrites the vocabulary itself), and a functional property with two different values for one subject
(prp-fp makes the values equal, usually literals).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from rdflib import Graph, Literal
from rdflib.term import Node

from ..namespaces import OWL, RDF
from .rules import Materializer, Triple, compile_rules

VOCABULARY = ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/2000/01/rdf-schema#",
              str(OWL), "http://www.w3.org/2001/XMLSchema#")


class NeedsOwlrl(Exception):
    """The data needs an equality rule the engine does not reproduce exactly; the message says which."""


class SameAsClasses:
    """Union-find over the nodes owl:sameAs makes equal."""

    def __init__(self) -> None:
        self.parent: dict[Node, Node] = {}

    def find(self, node: Node) -> Node:
        """The representative of a node's class (the node itself when it is in none)."""
        root = node
        while (up := self.parent.get(root, root)) != root:
            root = up
        while node != root:
            self.parent[node], node = root, self.parent[node]
        return root

    def union(self, a: Node, b: Node) -> bool:
        """Put two nodes in one class; whether that merged two classes."""
        self.parent.setdefault(a, a)
        self.parent.setdefault(b, b)
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[rb] = ra
        return True

    def members(self) -> dict[Node, list[Node]]:
        """Each class with more than one node, by representative."""
        classes: dict[Node, list[Node]] = defaultdict(list)
        for node in self.parent:
            classes[self.find(node)].append(node)
        return {rep: nodes for rep, nodes in classes.items() if len(nodes) > 1}


def _check(members: dict[Node, list[Node]]) -> None:
    for nodes in members.values():
        for node in nodes:
            if isinstance(node, Literal) or str(node).startswith(VOCABULARY):
                raise NeedsOwlrl(f"owl:sameAs puts {node.n3()} in a class with {len(nodes) - 1} other nodes")


def _rewrite(triples: Iterable[Triple], rep: dict[Node, Node]) -> set[Triple]:
    return {(rep.get(s, s), rep.get(p, p), rep.get(o, o)) for s, p, o in triples}


def _check_functional(closure: set[Triple], ontology: Graph) -> None:
    functional = set(ontology.subjects(RDF.type, OWL.FunctionalProperty))
    if not functional:
        return
    seen: dict[tuple[Node, Node], Node] = {}
    for s, p, o in closure:
        if p in functional and seen.setdefault((s, p), o) != o:
            raise NeedsOwlrl(f"functional property {p.n3()} has two values for {s.n3()}: prp-fp equates them")


def _expand(closure: set[Triple], members: dict[Node, list[Node]]) -> set[Triple]:
    expanded: set[Triple] = set()
    for s, p, o in closure:
        for a in members.get(s, (s,)):
            for b in members.get(p, (p,)):
                expanded.update((a, b, c) for c in members.get(o, (o,)))
    return expanded


def materialize(asserted: Iterable[Triple], ontology: Graph) -> set[Triple]:
    """The closure of asserted triples under the compiled ontology and the owl:sameAs rules (input included).

    Raises:
        NeedsOwlrl: an equality case the engine does not reproduce exactly (see the module docstring).
    """
    triples = asserted if isinstance(asserted, (set, frozenset)) else set(asserted)
    classes, same = SameAsClasses(), {OWL.sameAs}  # set membership: hashing, not rdflib's slow __eq__
    for s, p, o in triples:
        if p in same and s != o:
            classes.union(s, o)
    while True:
        members = classes.members()
        _check(members)
        rep = {node: root for root, nodes in members.items() for node in nodes}
        tbox = ontology
        if any(term in rep for triple in ontology for term in triple):
            tbox = Graph()
            for triple in _rewrite(ontology, rep):
                tbox.add(triple)
        closure = Materializer(compile_rules(tbox)).run(_rewrite(triples, rep) if rep else triples)
        derived = [(s, o) for s, p, o in closure if p in same and s != o]
        if not derived:
            break
        for s, o in derived:
            classes.union(s, o)
    _check_functional(closure, tbox)
    return _expand(closure, members) if members else closure


__all__ = ["NeedsOwlrl", "SameAsClasses", "materialize"]
