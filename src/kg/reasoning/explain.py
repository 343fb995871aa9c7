"""Why a triple holds: the OWL 2 RL rule and premises of each step, recomputed on demand from a built store.

The build's engine (``rules``, ``equality``) is tuned for speed: closed class and property hierarchies,
owl:sameAs by union-find. It records nothing, so builds pay nothing. ``explain`` re-derives one triple with the
same rules one OWL 2 RL step at a time (cax-sco, cax-eqc1/2, prp-spo1, prp-eqp1/2, prp-inv1/2, prp-symp,
prp-trp, prp-dom, prp-rng, prp-spo2, eq-sym, eq-trans, eq-rep-s/p/o), each step naming its T-box axiom:

1. backwards from the triple, collect every triple of the store that a rule could use towards it (the ground
   premises of one-premise rules, and the matches of joins looked up in the store's closure): at most ``limit``;
2. forwards, semi-naive, from the asserted ones among them, derive only what was collected, recording for each
   new triple the first rule instance that gave it. A premise is always older than its conclusion, so each
   derivation is well-founded (no cycles) and one premise set per triple is kept.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyoxigraph as ox

from ..errors import TooManyResults
from ..iris import GraphNames
from ..namespaces import OWL, RDF, RDFS
from .explanation import Explanation, Fact, Step

EXPLAIN_LIMIT = 10_000
_DEFAULT = ox.DefaultGraph()
TYPE, SAME_AS = ox.NamedNode(str(RDF.type)), ox.NamedNode(str(OWL.sameAs))
SUB_CLASS, EQUIVALENT_CLASS = ox.NamedNode(str(RDFS.subClassOf)), ox.NamedNode(str(OWL.equivalentClass))
SUB_PROPERTY, EQUIVALENT_PROPERTY = ox.NamedNode(str(RDFS.subPropertyOf)), ox.NamedNode(str(OWL.equivalentProperty))
INVERSE, DOMAIN, RANGE = ox.NamedNode(str(OWL.inverseOf)), ox.NamedNode(str(RDFS.domain)), ox.NamedNode(str(RDFS.range))
SYMMETRIC, TRANSITIVE = ox.NamedNode(str(OWL.SymmetricProperty)), ox.NamedNode(str(OWL.TransitiveProperty))
CHAIN, FIRST, REST = (ox.NamedNode(str(OWL.propertyChainAxiom)), ox.NamedNode(str(RDF.first)),
                      ox.NamedNode(str(RDF.rest)))
NIL = ox.NamedNode(str(RDF.nil))


class Lookup(Protocol):
    """What explain reads: a store's quads by pattern (kg.store.Store and RemoteStore both qualify)."""

    def quads_for_pattern(self, subject: Any, predicate: Any, obj: Any, graph_name: Any = None) -> Iterable[ox.Quad]:
        """Quads matching a pattern (None matches anything; the default graph is the merge of all graphs)."""


Link = tuple[Any, Fact, str]  # (the term the rule leads to, the axiom, the rule's name)


@dataclass
class TBox:
    """The ontology's axioms as one-step rule tables, forwards and backwards."""

    classes: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    classes_back: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    properties: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    properties_back: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    inverses: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    domains: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    domains_back: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    ranges: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    ranges_back: dict[Any, list[Link]] = field(default_factory=lambda: defaultdict(list))
    symmetric: dict[Any, Fact] = field(default_factory=dict)
    transitive: dict[Any, Fact] = field(default_factory=dict)
    chains: dict[Any, list[tuple[tuple[Any, ...], tuple[Fact, ...]]]] = field(default_factory=lambda: defaultdict(list))
    chain_links: dict[Any, list[tuple[Any, tuple[Any, ...], int, tuple[Fact, ...]]]] = field(
        default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, ontology: Iterable[Fact]) -> TBox:
        """Compile ontology triples (pyoxigraph terms)."""
        tbox, facts = cls(), set(ontology)
        rest = {s: o for s, p, o in facts if p == REST}
        first = {s: o for s, p, o in facts if p == FIRST}
        for axiom in facts:
            a, p, b = axiom
            if p == SUB_CLASS:
                tbox._pair(tbox.classes, tbox.classes_back, a, b, axiom, "cax-sco")
            elif p == EQUIVALENT_CLASS:
                tbox._pair(tbox.classes, tbox.classes_back, a, b, axiom, "cax-eqc1")
                tbox._pair(tbox.classes, tbox.classes_back, b, a, axiom, "cax-eqc2")
            elif p == SUB_PROPERTY:
                tbox._pair(tbox.properties, tbox.properties_back, a, b, axiom, "prp-spo1")
            elif p == EQUIVALENT_PROPERTY:
                tbox._pair(tbox.properties, tbox.properties_back, a, b, axiom, "prp-eqp1")
                tbox._pair(tbox.properties, tbox.properties_back, b, a, axiom, "prp-eqp2")
            elif p == INVERSE:
                tbox.inverses[a].append((b, axiom, "prp-inv1"))
                tbox.inverses[b].append((a, axiom, "prp-inv2"))
            elif p == DOMAIN:
                tbox._pair(tbox.domains, tbox.domains_back, a, b, axiom, "prp-dom")
            elif p == RANGE:
                tbox._pair(tbox.ranges, tbox.ranges_back, a, b, axiom, "prp-rng")
            elif p == TYPE and b in (SYMMETRIC, TRANSITIVE):
                (tbox.symmetric if b == SYMMETRIC else tbox.transitive)[a] = axiom
            elif p == CHAIN:
                links: list[Any] = []
                cells, node = [axiom], b
                while node != NIL and node in first and len(links) <= len(facts):
                    links.append(first[node])
                    cells += [(node, FIRST, first[node]), (node, REST, rest.get(node, NIL))]
                    node = rest.get(node, NIL)
                if node == NIL and links:
                    tbox.chains[a].append((tuple(links), tuple(cells)))
                    for position, link in enumerate(links):
                        tbox.chain_links[link].append((a, tuple(links), position, tuple(cells)))
        return tbox

    @staticmethod
    def _pair(forward: dict[Any, list[Link]], back: dict[Any, list[Link]], a: Any, b: Any, axiom: Fact,
              rule: str) -> None:
        forward[a].append((b, axiom, rule))
        back[b].append((a, axiom, rule))


def _resource(term: Any) -> bool:
    return not isinstance(term, ox.Literal)


class Explainer:
    """Explains triples against one store version (build one per request; it caches lookups)."""

    def __init__(self, store: Lookup, base: str, limit: int = EXPLAIN_LIMIT) -> None:
        names = GraphNames(base)
        self.store, self.limit, self.inferred = store, limit, names.inferred
        ontology = ox.NamedNode(names.ontology)
        self.tbox = TBox.of(tuple(q.triple) for q in store.quads_for_pattern(None, None, None, ontology))
        self.equality = next(iter(store.quads_for_pattern(None, SAME_AS, None, _DEFAULT)), None) is not None
        self._graphs: dict[Fact, tuple[str, ...]] = {}
        self._closure: dict[Fact, bool] = {}
        self.work = 0

    def graphs_of(self, fact: Fact) -> tuple[str, ...]:
        """The named graphs (the inferred one excepted) that assert a triple."""
        if fact not in self._graphs:
            self._count()
            self._graphs[fact] = tuple(sorted(
                q.graph_name.value for q in self.store.quads_for_pattern(*fact, None)
                if isinstance(q.graph_name, ox.NamedNode) and q.graph_name.value != self.inferred))
        return self._graphs[fact]

    def explain(self, fact: Fact) -> Explanation:
        """The explanation of one triple (pyoxigraph terms)."""
        if self.graphs_of(fact):
            return Explanation(fact, "asserted", {}, {fact: self.graphs_of(fact)})
        relevant = self._relevant(fact)
        steps = self._derive(fact, relevant)
        mentioned = {fact} | {p for step in steps.values() for p in step.premises}
        graphs = {p: self.graphs_of(p) for p in mentioned}
        if fact in steps:
            return Explanation(fact, "inferred", steps, graphs)
        stored = next(iter(self.store.quads_for_pattern(*fact, ox.NamedNode(self.inferred))), None) is not None
        return Explanation(fact, "unexplained" if stored else "not entailed", steps, graphs)

    def _count(self, n: int = 1) -> None:
        self.work += n
        if self.work > self.limit:
            raise TooManyResults(f"explaining this triple needs more than {self.limit} triples or look-ups; "
                                 "the derivation is too large to compute here")

    def _match(self, s: Any, p: Any, o: Any) -> list[Fact]:
        self._count()
        if s is not None and not _resource(s):
            return []
        return [tuple(q.triple) for q in self.store.quads_for_pattern(s, p, o, _DEFAULT)]

    def _holds(self, fact: Fact) -> bool:
        if fact not in self._closure:
            self._closure[fact] = bool(_resource(fact[0]) and self._match(*fact))
        return self._closure[fact]

    def _relevant(self, goal: Fact) -> set[Fact]:
        """Every triple that could take part in a derivation of goal (goal included)."""
        seen, todo = {goal}, [goal]
        while todo:
            for premise in self._candidates(todo.pop()):
                if premise not in seen and _resource(premise[0]):
                    self._count()
                    seen.add(premise)
                    todo.append(premise)
        return seen

    def _candidates(self, fact: Fact) -> Iterator[Fact]:
        s, p, o = fact
        tbox = self.tbox
        if p == TYPE:
            yield from ((s, TYPE, c) for c, _, _ in tbox.classes_back.get(o, ()))
            for q, _, _ in tbox.domains_back.get(o, ()):
                yield from self._match(s, q, None)
            for q, _, _ in tbox.ranges_back.get(o, ()):
                yield from self._match(None, q, s)
        yield from ((s, q, o) for q, _, _ in tbox.properties_back.get(p, ()))
        if _resource(o):
            yield from ((o, q, s) for q, _, _ in tbox.inverses.get(p, ()))
            if p in tbox.symmetric:
                yield o, p, s
        if p in tbox.transitive:
            for _, _, m in self._match(s, p, None):
                if self._holds((m, p, o)):
                    yield from ((s, p, m), (m, p, o))
        for links, _ in tbox.chains.get(p, ()):
            yield from self._chain_edges(s, links, o)
        if self.equality:
            yield from self._equal_candidates(fact)

    def _chain_edges(self, start: Any, links: tuple[Any, ...], end: Any) -> set[Fact]:
        levels = [{start}]
        for link in links:
            levels.append({o for y in levels[-1] for _, _, o in self._match(y, link, None)})
        alive, edges = {end} & levels[-1], set()
        for i in range(len(links), 0, -1):
            reached = set()
            for y in levels[i - 1]:
                for z in alive:
                    if self._holds((y, links[i - 1], z)):
                        edges.add((y, links[i - 1], z))
                        reached.add(y)
            alive = reached
        return edges

    def _equal_candidates(self, fact: Fact) -> Iterator[Fact]:
        s, p, o = fact
        if p == SAME_AS:
            yield o, SAME_AS, s
            for _, _, m in self._match(s, SAME_AS, None):
                if m != o and self._holds((m, SAME_AS, o)):
                    yield from ((s, SAME_AS, m), (m, SAME_AS, o))
        for position, term in enumerate(fact):
            if not _resource(term):
                continue
            for _, _, m in self._match(term, SAME_AS, None):
                if m != term:
                    yield m, SAME_AS, term
                    yield tuple(m if i == position else t for i, t in enumerate(fact))

    def _derive(self, goal: Fact, relevant: set[Fact]) -> dict[Fact, Step]:
        """Semi-naive forward chaining from the asserted relevant triples, deriving only relevant ones."""
        known: set[Fact] = set()
        by_sp: dict[tuple[Any, Any], set[Any]] = defaultdict(set)
        by_po: dict[tuple[Any, Any], set[Any]] = defaultdict(set)
        by_term: dict[tuple[int, Any], set[Fact]] = defaultdict(set)
        steps: dict[Fact, Step] = {}

        def add(fact: Fact) -> None:
            known.add(fact)
            by_sp[fact[0], fact[1]].add(fact[2])
            by_po[fact[1], fact[2]].add(fact[0])
            if self.equality:
                for position, term in enumerate(fact):
                    by_term[position, term].add(fact)

        delta = [fact for fact in relevant if self.graphs_of(fact)]
        for fact in delta:
            add(fact)
        while delta and goal not in known:
            new: list[Fact] = []
            for fact in delta:
                for conclusion, step in self._fire(fact, by_sp, by_po, by_term):
                    if conclusion in relevant and conclusion not in known:
                        steps[conclusion] = step
                        add(conclusion)
                        new.append(conclusion)
            delta = new
        return steps

    def _fire(self, fact: Fact, by_sp: Mapping[tuple[Any, Any], set[Any]], by_po: Mapping[tuple[Any, Any], set[Any]],
              by_term: Mapping[tuple[int, Any], set[Fact]]) -> Iterator[tuple[Fact, Step]]:
        """Every rule instance with fact as a premise and its other premises known."""
        s, p, o = fact
        tbox = self.tbox
        if p == TYPE:
            for d, axiom, rule in tbox.classes.get(o, ()):
                yield (s, TYPE, d), Step(rule, (axiom, fact))
        for q, axiom, rule in tbox.properties.get(p, ()):
            yield (s, q, o), Step(rule, (axiom, fact))
        for c, axiom, rule in tbox.domains.get(p, ()):
            yield (s, TYPE, c), Step(rule, (axiom, fact))
        if _resource(o):
            for q, axiom, rule in tbox.inverses.get(p, ()):
                yield (o, q, s), Step(rule, (axiom, fact))
            if p in tbox.symmetric:
                yield (o, p, s), Step("prp-symp", (tbox.symmetric[p], fact))
            for c, axiom, rule in tbox.ranges.get(p, ()):
                yield (o, TYPE, c), Step(rule, (axiom, fact))
            if p in tbox.transitive:
                axiom = tbox.transitive[p]
                for z in tuple(by_sp.get((o, p), ())):
                    yield (s, p, z), Step("prp-trp", (axiom, fact, (o, p, z)))
                for w in tuple(by_po.get((p, s), ())):
                    yield (w, p, o), Step("prp-trp", (axiom, (w, p, s), fact))
        for head, links, position, cells in tbox.chain_links.get(p, ()):
            for before in self._paths(s, links[:position], by_po, backwards=True):
                for after in self._paths(o, links[position + 1:], by_sp, backwards=False):
                    x = before[0][0] if before else s
                    z = after[-1][2] if after else o
                    yield (x, head, z), Step("prp-spo2", cells + tuple(before) + (fact,) + tuple(after))
        if self.equality:
            yield from self._fire_equality(fact, by_sp, by_po, by_term)

    def _paths(self, node: Any, links: tuple[Any, ...], index: Mapping[tuple[Any, Any], set[Any]],
               backwards: bool) -> Iterator[list[Fact]]:
        """Paths of known triples along links ending (backwards) or starting (forwards) at node."""
        if not links:
            yield []
            return
        link = links[-1] if backwards else links[0]
        for other in tuple(index.get((link, node) if backwards else (node, link), ())):
            self._count()
            if backwards:
                for path in self._paths(other, links[:-1], index, True):
                    yield [*path, (other, link, node)]
            else:
                for path in self._paths(other, links[1:], index, False):
                    yield [(node, link, other), *path]

    def _fire_equality(self, fact: Fact, by_sp: Mapping[tuple[Any, Any], set[Any]],
                       by_po: Mapping[tuple[Any, Any], set[Any]],
                       by_term: Mapping[tuple[int, Any], set[Fact]]) -> Iterator[tuple[Fact, Step]]:
        s, p, o = fact
        rules = ("eq-rep-s", "eq-rep-p", "eq-rep-o")
        if p == SAME_AS:
            yield (o, SAME_AS, s), Step("eq-sym", (fact,))
            for z in tuple(by_sp.get((o, SAME_AS), ())):
                yield (s, SAME_AS, z), Step("eq-trans", (fact, (o, SAME_AS, z)))
            for w in tuple(by_po.get((SAME_AS, s), ())):
                yield (w, SAME_AS, o), Step("eq-trans", ((w, SAME_AS, s), fact))
            for position in range(3):
                for other in tuple(by_term.get((position, s), ())):
                    replaced = tuple(o if i == position else t for i, t in enumerate(other))
                    yield replaced, Step(rules[position], (fact, other))
        for position, term in enumerate(fact):
            for equal in tuple(by_sp.get((term, SAME_AS), ())):
                replaced = tuple(equal if i == position else t for i, t in enumerate(fact))
                yield replaced, Step(rules[position], ((term, SAME_AS, equal), fact))


def explain(store: Lookup, fact: Fact, base: str, limit: int = EXPLAIN_LIMIT) -> Explanation:
    """Explain one triple of pyoxigraph terms against a built store under base.

    Raises:
        TooManyResults: the derivation would need more than ``limit`` triples or look-ups.
    """
    return Explainer(store, base, limit).explain(fact)


__all__ = ["EXPLAIN_LIMIT", "Explainer", "Lookup", "TBox", "explain"]
