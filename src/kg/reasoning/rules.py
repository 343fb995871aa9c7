"""A semi-naive forward-chaining engine for the OWL 2 RL rules the ontology uses; exact against owlrl.

Supported axioms: rdfs:subClassOf, owl:equivalentClass, rdfs:subPropertyOf, owl:equivalentProperty,
owl:inverseOf, owl:SymmetricProperty, owl:TransitiveProperty, rdfs:domain, rdfs:range and
owl:propertyChainAxiom (OWL 2 RL rules cax-sco, cax-eqc, prp-spo1, prp-eqp, prp-inv, prp-symp,
prp-trp, prp-dom, prp-rng, prp-spo2, scm-*); owl:sameAs in the data is handled by ``equality``. An ontology
using any other OWL construct that changes the A-box (restrictions, functional properties on object
properties, owl:sameAs axioms, owl:sameAs as the premise of a rule, …) is reported by ``unsupported_axioms``
so the caller can fall back to owlrl, keeping the result exact.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from rdflib import Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.term import Node

from ..namespaces import OWL, RDF, RDFS

Triple = tuple[Node, Node, Node]
SUPPORTED_PREDICATES = {RDFS.subClassOf, OWL.equivalentClass, RDFS.subPropertyOf, OWL.equivalentProperty,
                        OWL.inverseOf, RDFS.domain, RDFS.range, OWL.propertyChainAxiom}
HARMLESS_PREDICATES = {RDF.type, RDFS.label, RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy, OWL.versionInfo,
                       RDF.first, RDF.rest, OWL.imports}
HARMLESS_TYPES = {OWL.Class, RDFS.Class, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty,
                  RDF.Property, OWL.Ontology, OWL.SymmetricProperty, OWL.TransitiveProperty}
DATATYPE_ONLY_TYPES = {OWL.FunctionalProperty}


def _closure(edges: dict[Node, set[Node]]) -> dict[Node, set[Node]]:
    """Reflexive-free transitive closure of a relation given as adjacency sets."""
    closed: dict[Node, set[Node]] = {}
    for start in edges:
        seen: set[Node] = set()
        stack = list(edges[start])
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(edges.get(node, ()))
        seen.discard(start)
        closed[start] = seen
    return closed


@dataclass
class RuleSet:
    """The ontology compiled into lookup tables."""

    super_classes: dict[Node, set[Node]] = field(default_factory=dict)
    super_properties: dict[Node, set[Node]] = field(default_factory=dict)
    inverses: dict[Node, set[Node]] = field(default_factory=lambda: defaultdict(set))
    symmetric: set[Node] = field(default_factory=set)
    transitive: set[Node] = field(default_factory=set)
    domains: dict[Node, set[Node]] = field(default_factory=lambda: defaultdict(set))
    ranges: dict[Node, set[Node]] = field(default_factory=lambda: defaultdict(set))
    chains: list[tuple[Node, tuple[Node, ...]]] = field(default_factory=list)


def compile_rules(ontology: Graph) -> RuleSet:
    """Compile the T-box: class and property hierarchies closed, inverses, characteristics, chains."""
    sub_class: dict[Node, set[Node]] = defaultdict(set)
    sub_prop: dict[Node, set[Node]] = defaultdict(set)
    for c, d in ontology.subject_objects(RDFS.subClassOf):
        sub_class[c].add(d)
    for c, d in ontology.subject_objects(OWL.equivalentClass):
        sub_class[c].add(d)
        sub_class[d].add(c)
    for p, q in ontology.subject_objects(RDFS.subPropertyOf):
        sub_prop[p].add(q)
    for p, q in ontology.subject_objects(OWL.equivalentProperty):
        sub_prop[p].add(q)
        sub_prop[q].add(p)
    rules = RuleSet(_closure(sub_class), _closure(sub_prop))
    for p, q in ontology.subject_objects(OWL.inverseOf):
        rules.inverses[p].add(q)
        rules.inverses[q].add(p)
    rules.symmetric = set(ontology.subjects(RDF.type, OWL.SymmetricProperty))
    rules.transitive = set(ontology.subjects(RDF.type, OWL.TransitiveProperty))
    for p, c in ontology.subject_objects(RDFS.domain):
        rules.domains[p].add(c)
    for p, c in ontology.subject_objects(RDFS.range):
        rules.ranges[p].add(c)
    for q, head in ontology.subject_objects(OWL.propertyChainAxiom):
        rules.chains.append((q, tuple(Collection(ontology, head))))
    return rules


def unsupported_axioms(ontology: Graph) -> list[Triple]:
    """Ontology triples this engine does not implement (each would need owlrl for an exact result)."""
    datatype_properties = set(ontology.subjects(RDF.type, OWL.DatatypeProperty))
    found = []
    for s, p, o in ontology:
        if p == RDF.type:
            allowed = o in HARMLESS_TYPES or (o in DATATYPE_ONLY_TYPES and s in datatype_properties)
            if str(o).startswith(str(OWL)) and not allowed:
                found.append((s, p, o))
        elif str(p).startswith((str(OWL), str(RDFS))) and p not in SUPPORTED_PREDICATES | HARMLESS_PREDICATES:
            found.append((s, p, o))
    if _equality_is_a_premise(compile_rules(ontology)):
        found.extend(t for t in ontology if OWL.sameAs in t and t not in found)
    return found


def _equality_is_a_premise(rules: RuleSet) -> bool:
    """Whether a rule reads owl:sameAs triples (owlrl's eq-ref makes every node sameAs itself, the engine does not)."""
    return (bool(rules.super_properties.get(OWL.sameAs)) or OWL.sameAs in rules.inverses or OWL.sameAs in rules.domains
            or OWL.sameAs in rules.ranges or any(OWL.sameAs in chain for _, chain in rules.chains))


def derives_equality(rules: RuleSet) -> bool:
    """Whether the rules can derive owl:sameAs from other triples (a sub-property of it, a chain ending in it)."""
    return (any(OWL.sameAs in supers for supers in rules.super_properties.values())
            or any(OWL.sameAs in inverse for inverse in rules.inverses.values())
            or any(head == OWL.sameAs for head, _ in rules.chains))


class Materializer:
    """Semi-naive fixpoint over indexed triples."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.known: set[Triple] = set()
        self.by_predicate: dict[Node, dict[Node, set[Node]]] = defaultdict(lambda: defaultdict(set))
        self.by_predicate_object: dict[Node, dict[Node, set[Node]]] = defaultdict(lambda: defaultdict(set))
        self.chain_predicates = {p for _, chain in rules.chains for p in chain}

    def _index(self, triple: Triple) -> None:
        s, p, o = triple
        if p in self.rules.transitive or p in self.chain_predicates:
            self.by_predicate[p][s].add(o)
            self.by_predicate_object[p][o].add(s)

    def _consequences(self, triple: Triple) -> Iterable[Triple]:
        s, p, o = triple
        rules = self.rules
        if p == RDF.type:
            for d in rules.super_classes.get(o, ()):
                yield s, RDF.type, d
            return
        resource = not isinstance(o, Literal)
        for q in rules.super_properties.get(p, ()):
            yield s, q, o
        if resource:
            for q in rules.inverses.get(p, ()):
                yield o, q, s
            if p in rules.symmetric:
                yield o, p, s
            for c in rules.ranges.get(p, ()):
                yield o, RDF.type, c
        for c in rules.domains.get(p, ()):
            yield s, RDF.type, c
        if p in rules.transitive and resource:
            for z in tuple(self.by_predicate[p].get(o, ())):
                yield s, p, z
            for x in tuple(self.by_predicate_object[p].get(s, ())):
                yield x, p, o
        if p in self.chain_predicates:
            yield from self._chains(triple)

    def _chains(self, triple: Triple) -> Iterable[Triple]:
        s, p, o = triple
        for head, chain in self.rules.chains:
            for position, link in enumerate(chain):
                if link != p:
                    continue
                starts = self._walk_back(s, chain[:position])
                ends = self._walk_forward(o, chain[position + 1:])
                for x in starts:
                    for z in ends:
                        yield x, head, z

    def _walk_forward(self, node: Node, links: tuple[Node, ...]) -> set[Node]:
        frontier = {node}
        for link in links:
            frontier = {z for y in frontier for z in self.by_predicate[link].get(y, ())}
        return frontier

    def _walk_back(self, node: Node, links: tuple[Node, ...]) -> set[Node]:
        frontier = {node}
        for link in reversed(links):
            frontier = {x for y in frontier for x in self.by_predicate_object[link].get(y, ())}
        return frontier

    def run(self, triples: Iterable[Triple]) -> set[Triple]:
        """All triples entailed by the input under the rules (input included)."""
        delta = set()
        for triple in triples:
            if triple not in self.known:
                self.known.add(triple)
                self._index(triple)
                delta.add(triple)
        while delta:
            new: set[Triple] = set()
            for triple in delta:
                for consequence in self._consequences(triple):
                    if consequence not in self.known and not isinstance(consequence[0], Literal):
                        self.known.add(consequence)
                        self._index(consequence)
                        new.add(consequence)
            delta = new
        return self.known


def has_joins(rules: RuleSet) -> bool:
    """Whether any rule joins two triples (transitive properties, property chains, derived owl:sameAs)."""
    return bool(rules.transitive or rules.chains) or derives_equality(rules)


_X = URIRef("urn:kg:rules:placeholder:subject")
_Y = URIRef("urn:kg:rules:placeholder:object")
_LITERAL = Literal("urn:kg:rules:placeholder:literal")


class LocalRules:
    """Consequences of one triple on its own, for rule sets without joins: the closure of a set is their union.

    Each predicate's consequences are computed once by the Materializer on placeholder terms (the rules look
    terms up only by predicate, and by class for rdf:type), then instantiated, so the result is the
    Materializer's own.
    """

    def __init__(self, rules: RuleSet) -> None:
        if has_joins(rules):
            raise ValueError("rules with joins (transitive properties, chains) have no per-triple closure")
        self.rules = rules
        self.templates: dict[tuple[Node, bool], frozenset[Triple]] = {}

    def _template(self, predicate: Node, obj: Node) -> frozenset[Triple]:
        key = (obj, True) if predicate == RDF.type else (predicate, isinstance(obj, Literal))
        found = self.templates.get(key)
        if found is None:
            seed = (_X, RDF.type, obj) if predicate == RDF.type else (_X, predicate, _LITERAL if key[1] else _Y)
            found = frozenset(Materializer(self.rules).run([seed]))
            self.templates[key] = found
        return found

    def closure(self, triple: Triple) -> set[Triple]:
        """The triple and everything the rules derive from it alone."""
        s, p, o = triple
        if isinstance(s, Literal) or s in (_X, _Y) or o in (_X, _Y, _LITERAL):
            return Materializer(self.rules).run([triple])
        swap: dict[Node, Node] = {_X: s, _Y: o, _LITERAL: o}
        return {(swap.get(a, a), b, swap.get(c, c)) for a, b, c in self._template(p, o)}

    def closure_of(self, triples: Iterable[Triple]) -> set[Triple]:
        """The union of the closures of the triples (the closure of the set, as the rules have no joins)."""
        result: set[Triple] = set()
        for triple in triples:
            result |= self.closure(triple)
        return result

    def source_patterns(self, triple: Triple) -> set[tuple[Node | None, Node, Node | None]]:
        """Patterns (None matches anything) that every triple deriving this one on its own matches."""
        s, p, o = triple
        patterns: set[tuple[Node | None, Node, Node | None]] = {triple}
        rules = self.rules
        if p == RDF.type:
            for c, supers in rules.super_classes.items():
                if o in supers:
                    patterns.add((s, RDF.type, c))
            for q in self._predicates():
                for a, b, c in self._template(q, _Y) | self._template(q, _LITERAL):
                    if b == RDF.type and c == o:
                        patterns.add((s, q, None) if a == _X else (None, q, s))
            return patterns
        for q in self._predicates():
            for a, b, _ in self._template(q, _Y) | self._template(q, _LITERAL):
                if b == p and a in (_X, _Y):
                    patterns.add((s, q, o) if a == _X else (o, q, s))
        return patterns

    def deriving_predicates(self) -> set[Node]:
        """The predicates of the triples that derive a triple other than themselves (rdf:type among them)."""
        return self._predicates() | {RDF.type}

    def _predicates(self) -> set[Node]:
        """Predicates with consequences beyond themselves."""
        rules = self.rules
        return (set(rules.super_properties) | set(rules.inverses) | rules.symmetric | set(rules.domains)
                | set(rules.ranges))


__all__ = ["LocalRules", "Materializer", "RuleSet", "compile_rules", "derives_equality", "has_joins",
           "unsupported_axioms"]
