"""SHACL Core shapes evaluated set by set on Oxigraph: every focus node of a shape in one query per constraint.

The focus nodes of each shape with targets are inserted once into a private named graph of the store (a "node
set" under a key); each constraint is then one set-oriented query over the whole set: cardinalities as a
GROUP BY, value tests as filters (``compiler``), property pairs and sh:closed as joins, sh:uniqueLang as a
GROUP BY on the language. A shape used inside another (sh:node, sh:and/or/xone/not, sh:qualifiedValueShape,
sh:property under a property shape) is validated on the node set of the outer shape's value nodes, the same
way, and a value node conforms to it when that gives no result (of any severity, as SHACL says). Shapes the
engine cannot evaluate as SHACL defines them (SHACL-SPARQL constraints, a shape recursive through sh:node, a
cardinality on a node shape) raise ``Unsupported`` so the caller can use pyshacl.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import count

import pyoxigraph as ox
from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS
from rdflib import BNode, Graph, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node

from .compiler import COMBINE, LOGICAL, VALUE_PARAMETERS, Compiler, is_true, members
from .results import Hit, write_results
from .terms import OxTerm, TermMap, sparql_term
from .values import Unsupported

FOCUS_GRAPH = "urn:kg:shacl-core:focus"
TARGETS = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)
PAIRS = (SH.equals, SH.disjoint, SH.lessThan, SH.lessThanOrEquals)
QUALIFIED = (SH.qualifiedValueShape, SH.qualifiedMinCount, SH.qualifiedMaxCount, SH.qualifiedValueShapesDisjoint)
CORE_PARAMETERS = VALUE_PARAMETERS | set(PAIRS) | set(QUALIFIED) | {
    SH.minCount, SH.maxCount, SH.uniqueLang, SH.property, SH.closed, SH.ignoredProperties}
MAX_DEPTH = 24


def sparql_path(shapes: Graph, path: Node) -> str:
    """A SHACL property path as a SPARQL property path."""
    if isinstance(path, URIRef):
        return f"<{path}>"
    if (path, RDF.first, None) in shapes:
        return "(" + "/".join(sparql_path(shapes, p) for p in Collection(shapes, path)) + ")"
    unary = {SH.inversePath: "^({})", SH.zeroOrMorePath: "({})*", SH.oneOrMorePath: "({})+",
             SH.zeroOrOnePath: "({})?"}
    for predicate, template in unary.items():
        inner = shapes.value(path, predicate)
        if inner is not None:
            return template.format(sparql_path(shapes, inner))
    alternatives = shapes.value(path, SH.alternativePath)
    if alternatives is not None:
        return "(" + "|".join(sparql_path(shapes, p) for p in Collection(shapes, alternatives)) + ")"
    raise Unsupported(f"unknown path {path!r}")


def nullable(shapes: Graph, path: Node) -> bool:
    """Whether a SHACL path can have length zero (so every focus node is one of its own values)."""
    if isinstance(path, URIRef):
        return False
    if (path, RDF.first, None) in shapes:
        return all(nullable(shapes, p) for p in Collection(shapes, path))
    if (path, SH.zeroOrMorePath, None) in shapes or (path, SH.zeroOrOnePath, None) in shapes:
        return True
    for unary in (SH.inversePath, SH.oneOrMorePath):
        inner = shapes.value(path, unary)
        if inner is not None:
            return nullable(shapes, inner)
    alternatives = shapes.value(path, SH.alternativePath)
    return alternatives is not None and any(nullable(shapes, p) for p in Collection(shapes, alternatives))


def implicit_classes(shapes: Graph) -> set[Node]:
    """Shapes that are also classes (an implicit class target: their instances are their focus nodes)."""
    classes = set(shapes.subjects(RDFS.subClassOf, RDFS.Class)) | {RDFS.Class}
    typed = {s for s, t in shapes.subject_objects(RDF.type) if t in classes}
    return {s for s in typed if (s, RDF.type, SH.NodeShape) in shapes or (s, RDF.type, SH.PropertyShape) in shapes}


def top_shapes(shapes: Graph) -> list[Node]:
    """Shapes with targets (explicit or an implicit class target), in a stable order."""
    found = {s for p in TARGETS for s in shapes.subjects(p, None)}
    found |= {s for s in implicit_classes(shapes) if not isinstance(s, BNode)}
    return sorted(found, key=str)


@dataclass(frozen=True)
class Scope:
    """Where a shape is evaluated: the node set's key, its focus pattern and the pattern binding value nodes ?v.

    A path that can have length zero gets its zero-length match stated (Oxigraph gives none for a node that is
    not in the data graph, such as a target node the data does not mention, or a literal).
    """

    key: str
    path: str | None
    zero_length: bool = False

    @property
    def focus(self) -> str:
        """The pattern binding ?this to each node of the set."""
        return f"GRAPH <{FOCUS_GRAPH}> {{ <{self.key}> <{FOCUS_GRAPH}> ?this }}"

    @property
    def values(self) -> str:
        """The pattern binding ?v to each value node of ?this."""
        if self.path is None:
            return "BIND (?this AS ?v)"
        if self.zero_length:
            return f"{{ ?this {self.path} ?v }} UNION {{ {self.focus} BIND (?this AS ?v) }}"
        return f"?this {self.path} ?v ."

    def is_value(self, variable: str) -> str:
        """An expression true when an already bound variable is a value node of ?this."""
        if self.path is None:
            return f"sameTerm(?this, {variable})"
        same = f" || sameTerm(?this, {variable})" if self.zero_length else ""
        return f"(EXISTS {{ ?this {self.path} {variable} }}{same})"


class CoreEngine:
    """Evaluates the core shapes with targets over an Oxigraph store holding the data (and the ontology)."""

    def __init__(self, store: ox.Store, shapes: Graph, terms: TermMap, only: Iterable[OxTerm] | None = None) -> None:
        self.store, self.shapes, self.terms = store, shapes, terms
        self.compiler = Compiler(shapes, store, terms)
        self.keys = count()
        self.depth = 0
        self.value_sets: dict[tuple[str, str | None], str] = {}
        self.implicit = implicit_classes(shapes)
        self.only: str | None = None
        if only is not None:
            self.only, link = self.new_key(), ox.NamedNode(FOCUS_GRAPH)
            self.store.extend(ox.Quad(ox.NamedNode(self.only), link, node, link) for node in only)

    def _active(self, shape: Node) -> bool:
        return not is_true(self.shapes.value(shape, SH.deactivated))

    def new_key(self) -> str:
        """A fresh node-set key."""
        return f"urn:kg:shacl-core:set:{next(self.keys)}"

    def _focus(self, key: str, shape: Node) -> None:
        classes = set(self.shapes.objects(shape, SH.targetClass))
        if shape in self.implicit:
            classes.add(shape)
        within = "" if self.only is None else f"GRAPH <{FOCUS_GRAPH}> {{ <{self.only}> <{FOCUS_GRAPH}> ?this }} "
        parts = [f"{{ {within}?this a/<{RDFS.subClassOf}>* {sparql_term(c)} }}" for c in sorted(classes, key=str)]
        parts += [f"{{ {within}VALUES ?this {{ {sparql_term(n)} }} }}"
                  for n in self.shapes.objects(shape, SH.targetNode)]
        parts += [f"{{ {within}?this {sparql_term(p)} [] }}" for p in self.shapes.objects(shape, SH.targetSubjectsOf)]
        parts += [f"{{ {within}[] {sparql_term(p)} ?this }}" for p in self.shapes.objects(shape, SH.targetObjectsOf)]
        if parts:
            self.store.update(f"INSERT {{ GRAPH <{FOCUS_GRAPH}> {{ <{key}> <{FOCUS_GRAPH}> ?this }} }} "
                              f"WHERE {{ {' UNION '.join(parts)} }}")

    def run(self) -> list[Hit]:
        """Every result of the shapes with targets."""
        hits: list[Hit] = []
        for shape in top_shapes(self.shapes):
            if self._active(shape):
                key = self.new_key()
                self._focus(key, shape)
                hits.extend(self.evaluate(shape, key))
        return hits

    def check_parameters(self, shape: Node) -> None:
        """Refuse shapes using constraint parameters this engine does not evaluate."""
        for parameter in set(self.shapes.predicates(shape, None)):
            if parameter in (SH.sparql, SH.target) or (parameter in ALL_CONSTRAINT_PARAMETERS
                                                      and parameter not in CORE_PARAMETERS):
                raise Unsupported(f"{parameter} on {shape}")

    def evaluate(self, shape: Node, key: str) -> list[Hit]:
        """The results of one shape for every node of a node set."""
        if not self._active(shape):
            return []
        self.check_parameters(shape)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Unsupported(f"shapes nested deeper than {MAX_DEPTH} (recursive through {shape}?)")
            path_node = self.shapes.value(shape, SH.path)
            scope = Scope(key, None) if path_node is None else Scope(
                key, sparql_path(self.shapes, path_node), nullable(self.shapes, path_node))
            hits = self._counts(shape, scope) + self._has_values(shape, scope) + self._tests(shape, scope)
            hits += self._pairs(shape, scope) + self._unique_lang(shape, scope) + self._closed(shape, scope)
            hits += self._qualified(shape, scope) + self._logical(shape, scope)
            for child in self.shapes.objects(shape, SH.property):
                hits += self.evaluate(child, key) if scope.path is None else self._per_focus(
                    scope, self.evaluate(child, self.value_set(scope)))
            return hits
        finally:
            self.depth -= 1

    def value_set(self, scope: Scope) -> str:
        """The key of a node set holding the value nodes of a scope (inserted once per scope)."""
        cache = (scope.key, scope.path)
        if cache not in self.value_sets:
            key = self.new_key()
            self.store.update(f"INSERT {{ GRAPH <{FOCUS_GRAPH}> {{ <{key}> <{FOCUS_GRAPH}> ?v }} }} "
                              f"WHERE {{ {scope.focus} {scope.values} }}")
            self.value_sets[cache] = key
        return self.value_sets[cache]

    def _per_focus(self, scope: Scope, hits: list[Hit]) -> list[Hit]:
        """Results on value nodes repeated once per focus node they are a value of (each validates them)."""
        holders: dict[OxTerm, int] = defaultdict(int)
        for _this, value in self._pairs_of(scope, {hit.focus for hit in hits}):
            holders[value] += 1
        return [hit for hit in hits for _ in range(holders[hit.focus])]

    def failing(self, shape: Node, key: str) -> set[OxTerm]:
        """The nodes of a set that do not conform to a shape."""
        return {hit.focus for hit in self.evaluate(shape, key)}

    def _rows(self, query: str) -> Iterable[ox.QuerySolution]:
        return self.store.query(query)  # type: ignore[return-value]

    def _counts(self, shape: Node, scope: Scope) -> list[Hit]:
        bounds = [(SH.minCount, "<", b) for b in self.shapes.objects(shape, SH.minCount)]
        bounds += [(SH.maxCount, ">", b) for b in self.shapes.objects(shape, SH.maxCount)]
        if not bounds:
            return []
        if scope.path is None:
            raise Unsupported(f"cardinality on the node shape {shape}")
        limits = [(p, op, int(str(b))) for p, op, b in bounds]
        having = " || ".join(f"COUNT(DISTINCT ?v) {op} {n}" for _, op, n in limits)
        pattern = f"OPTIONAL {{ {scope.values} }}" if any(p == SH.minCount for p, _, _ in limits) else scope.values
        hits = []
        for row in self._rows(f"SELECT ?this (COUNT(DISTINCT ?v) AS ?n) WHERE {{ {scope.focus} {pattern} }} "
                              f"GROUP BY ?this HAVING ({having})"):
            found = int(row["n"].value)
            hits += [Hit(row["this"], None, shape, p) for p, op, n in limits
                     if (found < n if op == "<" else found > n)]
        return hits

    def _has_values(self, shape: Node, scope: Scope) -> list[Hit]:
        hits = []
        for value in self.shapes.objects(shape, SH.hasValue):
            test = f"FILTER (!{scope.is_value(sparql_term(value))})"
            hits += [Hit(r["this"], None, shape, SH.hasValue)
                     for r in self._rows(f"SELECT ?this WHERE {{ {scope.focus} {test} }}")]
        return hits

    def _tests(self, shape: Node, scope: Scope) -> list[Hit]:
        tests = self.compiler.tests(shape)
        in_sparql = [t for t in tests if t.sparql is not None]
        in_python = [t for t in tests if t.sparql is None]
        hits = []
        if in_sparql:
            binds = " ".join(f"BIND ({t.sparql} AS ?f{i})" for i, t in enumerate(in_sparql))
            flags = " || ".join(f"COALESCE(?f{i}, false)" for i in range(len(in_sparql)))
            names = " ".join(f"?f{i}" for i in range(len(in_sparql)))
            for row in self._rows(f"SELECT DISTINCT ?this ?v {names} WHERE {{ {scope.focus} {scope.values} {binds} "
                                  f"FILTER ({flags}) }}"):
                hits += [Hit(row["this"], row["v"], shape, t.parameter) for i, t in enumerate(in_sparql)
                         if row[f"f{i}"] is not None and row[f"f{i}"].value == "true"]
        if in_python:
            failing: dict[OxTerm, list[URIRef]] = {}
            for row in self._rows(f"SELECT DISTINCT ?v WHERE {{ {scope.focus} {scope.values} }}"):
                value = self.terms.rdf(row["v"])
                bad = [t.parameter for t in in_python if not t.python(value)]  # type: ignore[misc]
                if bad:
                    failing[row["v"]] = bad
            for this, value in self._pairs_of(scope, set(failing)):
                hits += [Hit(this, value, shape, parameter) for parameter in failing[value]]
        return hits

    def _pairs_of(self, scope: Scope, values: set[OxTerm]) -> list[tuple[OxTerm, OxTerm]]:
        """The (focus, value) pairs of a scope whose value is one of the given nodes."""
        if not values:
            return []
        key = self.new_key()
        graph, link = ox.NamedNode(FOCUS_GRAPH), ox.NamedNode(FOCUS_GRAPH)
        self.store.extend(ox.Quad(ox.NamedNode(key), link, value, graph) for value in values)
        rows = self._rows(f"SELECT DISTINCT ?this ?v WHERE {{ {scope.focus} {scope.values} "
                          f"GRAPH <{FOCUS_GRAPH}> {{ <{key}> <{FOCUS_GRAPH}> ?v }} }}")
        return [(row["this"], row["v"]) for row in rows]

    def _pairs(self, shape: Node, scope: Scope) -> list[Hit]:
        hits = []
        for parameter in PAIRS:
            for other in self.shapes.objects(shape, parameter):
                if not isinstance(other, URIRef):
                    raise Unsupported(f"{parameter} {other!r} on {shape}")
                hits += [Hit(r["this"], r["v"], shape, parameter) for r in self._rows(self._pair_query(
                    parameter, f"<{other}>", scope))]
        return hits

    def _pair_query(self, parameter: URIRef, other: str, scope: Scope) -> str:
        base = f"{scope.focus} {scope.values}"
        if parameter == SH.equals:
            return (f"SELECT DISTINCT ?this ?v WHERE {{ {{ {base} FILTER NOT EXISTS {{ ?this {other} ?v }} }} UNION "
                    f"{{ {scope.focus} ?this {other} ?v FILTER (!{scope.is_value('?v')}) }} }}")
        if parameter == SH.disjoint:
            return f"SELECT DISTINCT ?this ?v WHERE {{ {base} ?this {other} ?v }}"
        if scope.path is None:
            raise Unsupported(f"{parameter} on a node shape")
        op = "<" if parameter == SH.lessThan else "<="
        return f"SELECT DISTINCT ?this ?v ?o WHERE {{ {base} ?this {other} ?o FILTER (!COALESCE(?v {op} ?o, false)) }}"

    def _unique_lang(self, shape: Node, scope: Scope) -> list[Hit]:
        if not any(is_true(flag) for flag in self.shapes.objects(shape, SH.uniqueLang)):
            return []
        if scope.path is None:
            raise Unsupported(f"sh:uniqueLang on the node shape {shape}")
        rows = self._rows(f"SELECT ?this ?lang WHERE {{ {scope.focus} {scope.values} FILTER (lang(?v) != \"\") "
                          f"BIND (LCASE(lang(?v)) AS ?lang) }} GROUP BY ?this ?lang HAVING (COUNT(DISTINCT ?v) > 1)")
        return [Hit(row["this"], None, shape, SH.uniqueLang) for row in rows]

    def _closed(self, shape: Node, scope: Scope) -> list[Hit]:
        if not any(is_true(flag) for flag in self.shapes.objects(shape, SH.closed)):
            return []
        allowed = {self.shapes.value(p, SH.path) for p in self.shapes.objects(shape, SH.property)}
        for listed in self.shapes.objects(shape, SH.ignoredProperties):
            allowed |= set(self.shapes.items(listed))
        named = sorted(sparql_term(p) for p in allowed if isinstance(p, URIRef))
        keep = f"FILTER (?p NOT IN ({', '.join(named)}))" if named else ""
        rows = self._rows(f"SELECT DISTINCT ?this ?p ?o WHERE {{ {scope.focus} {scope.values} ?v ?p ?o {keep} }}")
        return [Hit(row["this"], row["o"], shape, SH.closed, self.terms.rdf(row["p"])) for row in rows]

    def _qualified(self, shape: Node, scope: Scope) -> list[Hit]:
        bounds = [(p, int(str(b))) for p in (SH.qualifiedMinCount, SH.qualifiedMaxCount)
                  for b in self.shapes.objects(shape, p)]
        qualifying = list(self.shapes.objects(shape, SH.qualifiedValueShape))
        if not bounds or not qualifying:
            return []
        if scope.path is None or len(qualifying) > 1:
            raise Unsupported(f"qualified value shape on {shape}")
        key = self.value_set(scope)
        unqualified = self.failing(qualifying[0], key)
        siblings: set[Node] = set()
        if any(is_true(flag) for flag in self.shapes.objects(shape, SH.qualifiedValueShapesDisjoint)):
            siblings = {q for parent in self.shapes.subjects(SH.property, shape)
                        for sibling in self.shapes.objects(parent, SH.property)
                        for q in self.shapes.objects(sibling, SH.qualifiedValueShape)} - {qualifying[0]}
        outside = [self.failing(sibling, key) for sibling in sorted(siblings, key=str)]
        counted: dict[OxTerm, int] = defaultdict(int)
        for row in self._rows(f"SELECT DISTINCT ?this ?v WHERE {{ {scope.focus} OPTIONAL {{ {scope.values} }} }}"):
            value = row["v"]
            counted[row["this"]] += int(value is not None and value not in unqualified
                                        and all(value in f for f in outside))
        return [Hit(this, None, shape, parameter) for this, n in counted.items() for parameter, bound in bounds
                if (n < bound if parameter == SH.qualifiedMinCount else n > bound)]

    def _logical(self, shape: Node, scope: Scope) -> list[Hit]:
        hits = []
        for parameter in LOGICAL:
            for argument in self.shapes.objects(shape, parameter):
                shapes = members(self.shapes, parameter, argument)
                if all(self.compiler.is_value_shape(m) for m in shapes):
                    continue  # compiled into a value test
                key = self.value_set(scope)
                failing = [self.failing(m, key) for m in shapes]
                combine = COMBINE[parameter]

                def fails(value: OxTerm, sets: list[set[OxTerm]] = failing,
                          rule: Callable[[list[bool]], bool] = combine) -> bool:
                    return not rule([value not in s for s in sets])

                if combine([True] * len(failing)):
                    pairs = self._pairs_of(scope, {v for s in failing for v in s if fails(v)})
                else:
                    rows = self._rows(f"SELECT DISTINCT ?this ?v WHERE {{ {scope.focus} {scope.values} }}")
                    pairs = [(r["this"], r["v"]) for r in rows if fails(r["v"])]
                hits += [Hit(this, value, shape, parameter) for this, value in pairs]
        return hits


def core_results(store: ox.Store, shapes: Graph, terms: TermMap, only: Iterable[OxTerm] | None = None) -> Graph:
    """The results (unattached sh:ValidationResult nodes) of the core shapes with targets (on focus nodes in only,
    when given); the store's private node sets are removed afterwards."""
    results = Graph()
    try:
        write_results(CoreEngine(store, shapes, terms, only).run(), shapes, results, terms)
    finally:
        store.remove_graph(ox.NamedNode(FOCUS_GRAPH))
    return results


__all__ = ["CoreEngine", "Hit", "Unsupported", "core_results", "implicit_classes", "top_shapes"]
