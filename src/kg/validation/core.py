"""SHACL core shapes compiled to SPARQL and run on Oxigraph, results written exactly as pyshacl writes them.

Each shape with targets gets its focus nodes materialised once (an INSERT into a private named graph of the
store); each constraint then becomes one set-oriented query over all focus nodes: cardinalities as a GROUP BY,
class / node kind / length / compilable sh:or-sh:not as filters, sh:hasValue as a NOT EXISTS. Constraints whose
pyshacl semantics depend on rdflib (sh:datatype, sh:pattern with Python `re`, ranges, sh:in, logical shapes
holding those) are checked in Python on the distinct value nodes, with pyshacl's own rules, and only failing
values are paired with their focus nodes. Anything else raises `Unsupported` so the caller can use pyshacl.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import cast

import pyoxigraph as ox
from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node

from ..store import from_ox, to_ox
from .sparql import ALLOWED
from .values import (
    RANGES,
    Unsupported,
    datatype_ok,
    length_ok,
    node_kind_ok,
    pair_ok,
    range_ok,
    value_string,
)

FOCUS_GRAPH = "urn:kg:shacl-core:focus"
TARGETS = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)
SPARQL_TESTS = {SH["class"], SH.nodeKind, SH.minLength, SH.maxLength}
PYTHON_TESTS = {SH.datatype, SH.pattern, SH["in"], SH.minInclusive, SH.maxInclusive, SH.minExclusive,
                SH.maxExclusive}
LOGICAL = {SH["or"], SH["and"], SH["not"], SH.xone, SH.node}
SUPPORTED = SPARQL_TESTS | PYTHON_TESTS | LOGICAL | {SH.minCount, SH.maxCount, SH.hasValue, SH.lessThanOrEquals,
                                                     SH.lessThan, SH.property, SH.flags}
SINGLE = {SH.minCount, SH.maxCount, SH.nodeKind, SH.datatype, SH.minLength, SH.maxLength, SH.pattern, SH.flags}
NODE_KINDS = {SH.IRI: "isIRI({0})", SH.BlankNode: "isBlank({0})", SH.Literal: "isLiteral({0})",
              SH.BlankNodeOrIRI: "(isBlank({0}) || isIRI({0}))", SH.IRIOrLiteral: "(isIRI({0}) || isLiteral({0}))",
              SH.BlankNodeOrLiteral: "(isBlank({0}) || isLiteral({0}))"}


def component(parameter: URIRef) -> URIRef:
    """The constraint component of a parameter: sh:minCount -> sh:MinCountConstraintComponent."""
    local = str(parameter).rsplit("#", 1)[-1]
    return SH[local[0].upper() + local[1:] + "ConstraintComponent"]


def _term(node: Node) -> str:
    if isinstance(node, URIRef):
        return f"<{node}>"
    if isinstance(node, Literal) and node.language is None and node.datatype is None:
        return node.n3()
    raise Unsupported(f"cannot write {node!r} in a query exactly")


def _integer(node: Node) -> int:
    """int() of an integer shape parameter (a literal; rdflib types Graph.value as any Node)."""
    return int(cast(Literal, node))


def _always(_value: Node) -> bool:
    """The test of a constraint every value meets (sh:minLength 0)."""
    return True


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


@dataclass
class Test:
    """One value-level check: a SPARQL 'fails' expression over ?v, or a Python 'conforms' predicate."""

    parameter: URIRef
    sparql: str | None = None
    python: Callable[[Node], bool] | None = None


class Compiler:
    """Turns shape nodes into tests, per pyshacl's reading of each constraint parameter."""

    def __init__(self, shapes: Graph, store: ox.Store) -> None:
        self.shapes = shapes
        self.store = store
        self.asked: dict[tuple[Node, Node], bool] = {}

    def check_parameters(self, shape: Node) -> None:
        """Refuse shapes using constraint parameters outside the supported set."""
        for parameter in set(self.shapes.predicates(shape, None)):
            if parameter in (SH.sparql, SH.target) or (parameter in ALL_CONSTRAINT_PARAMETERS
                                                      and parameter not in SUPPORTED):
                raise Unsupported(f"{parameter} on {shape}")
            if parameter in SINGLE and len(set(self.shapes.objects(shape, parameter))) > 1:
                raise Unsupported(f"several {parameter} on {shape}")

    def is_instance(self, node: Node, cls: Node) -> bool:
        """pyshacl's sh:class test: rdf:type/rdfs:subClassOf* reaches the class; literals never do."""
        if isinstance(node, Literal):
            return False
        key = (node, cls)
        if key not in self.asked:
            self.asked[key] = bool(self.store.query(f"ASK {{ ?x a/<{RDFS.subClassOf}>* ?c }}", substitutions={
                ox.Variable("x"): to_ox(node), ox.Variable("c"): to_ox(cls)}))
        return self.asked[key]

    def tests(self, shape: Node) -> list[Test]:
        """The value-level tests of a shape (everything but counts, sh:hasValue, pairs and sh:property)."""
        sg, found = self.shapes, []
        for cls in sg.objects(shape, SH["class"]):
            found.append(Test(SH["class"], f"NOT EXISTS {{ ?v a/<{RDFS.subClassOf}>* {_term(cls)} }}",
                              partial(self.is_instance, cls=cls)))
        kind = sg.value(shape, SH.nodeKind)
        if kind is not None:
            if not isinstance(kind, URIRef) or kind not in NODE_KINDS:
                raise Unsupported(f"node kind {kind}")
            found.append(Test(SH.nodeKind, "!" + NODE_KINDS[kind].format("?v"), partial(node_kind_ok, kind=kind)))
        for parameter, op in ((SH.minLength, "<"), (SH.maxLength, ">")):
            bound = sg.value(shape, parameter)
            if bound is not None:
                number = _integer(bound)
                always = parameter == SH.minLength and number == 0
                found.append(Test(parameter, "false" if always else f"(isBlank(?v) || STRLEN(STR(?v)) {op} {number})",
                                  _always if always else partial(length_ok, bound=number, op=op)))
        datatype = sg.value(shape, SH.datatype)
        if datatype is not None:
            found.append(Test(SH.datatype, python=partial(datatype_ok, datatype=datatype)))
        pattern = sg.value(shape, SH.pattern)
        if pattern is not None:
            found.append(Test(SH.pattern, python=self._pattern(shape, pattern)))
        members = next(iter(sg.objects(shape, SH["in"])), None)
        if members is not None:
            allowed = set(sg.items(members))
            found.append(Test(SH["in"], python=lambda v, a=allowed: v in a))  # type: ignore[misc]
        for parameter, test in RANGES.items():
            for bound in sg.objects(shape, parameter):
                if not isinstance(bound, Literal):
                    raise Unsupported(f"{parameter} {bound!r}")
                found.append(Test(parameter, python=partial(range_ok, bound=bound, test=test)))
        for parameter in (SH["or"], SH["and"], SH.xone, SH["not"], SH.node):
            for argument in sg.objects(shape, parameter):
                found.append(self._logical(parameter, argument))
        return found

    def _pattern(self, shape: Node, pattern: Node) -> Callable[[Node], bool]:
        if not isinstance(pattern, Literal):
            raise Unsupported("sh:pattern must be a literal")
        flags_node = self.shapes.value(shape, SH.flags)
        flags = str(flags_node.value if isinstance(flags_node, Literal) else "").lower() if flags_node else ""
        text = str(pattern.value) if pattern.value is not None and len(pattern.value) > 1 else str(pattern)
        regex = re.compile(text, (re.I if "i" in flags else 0) | (re.M if "m" in flags else 0))
        return lambda v: not isinstance(v, BNode) and regex.search(value_string(v)) is not None

    def _logical(self, parameter: URIRef, argument: Node) -> Test:
        members = [argument] if parameter in (SH["not"], SH.node) else list(self.shapes.items(argument))
        expressions = [self.conforms_sparql(m) for m in members]
        if all(e is not None for e in expressions):
            joined = {SH["or"]: " || ", SH["and"]: " && "}.get(parameter)
            if joined is not None or parameter in (SH["not"], SH.node):
                inner = "(" + (joined or "").join(expressions) + ")"  # type: ignore[arg-type]
                return Test(parameter, f"({inner})" if parameter == SH["not"] else f"!{inner}")
        predicates = [self.conforms_python(m) for m in members]
        combine: dict[URIRef, Callable[[list[bool]], bool]] = {
            SH["or"]: any, SH["and"]: all, SH.xone: lambda r: sum(r) == 1, SH["not"]: lambda r: not r[0],
            SH.node: lambda r: r[0]}
        return Test(parameter, python=lambda v: combine[parameter]([p(v) for p in predicates]))

    def _nested(self, shape: Node) -> tuple[bool, list[Test]]:
        """(always conforms, tests) of a shape used inside a logical constraint (its focus is the value node)."""
        self.check_parameters(shape)
        if any((shape, p, None) in self.shapes for p in (SH.path, SH.property, SH.minCount, SH.maxCount,
                                                          SH.lessThanOrEquals, SH.lessThan) + TARGETS):
            raise Unsupported(f"nested shape {shape} needs more than value tests")
        deactivated = self.shapes.value(shape, SH.deactivated)
        severity = self.shapes.value(shape, SH.severity) or SH.Violation
        switched_off = deactivated is not None and cast(Literal, deactivated).toPython()
        return bool(switched_off) or severity in ALLOWED, self.tests(shape)

    def conforms_sparql(self, shape: Node) -> str | None:
        """A SPARQL expression over ?v true when ?v conforms to a nested shape, or None if one test is Python."""
        free, tests = self._nested(shape)
        hits = [t.sparql for t in tests]
        for value in self.shapes.objects(shape, SH.hasValue):
            hits.append(f"!sameTerm(?v, {_term(value)})")
        if free:
            return "true"
        if any(h is None for h in hits):
            return None
        return "!(" + " || ".join(hits) + ")" if hits else "true"  # type: ignore[arg-type]

    def conforms_python(self, shape: Node) -> Callable[[Node], bool]:
        """A Python predicate true when a node conforms to a nested shape."""
        free, tests = self._nested(shape)
        values = list(self.shapes.objects(shape, SH.hasValue))
        checks = [t.python for t in tests]
        return lambda v: free or (all(c(v) for c in checks) and all(v == h for h in values))  # type: ignore[misc]


@dataclass(frozen=True)
class Hit:
    """One validation result before it is written: focus, value (or None), the shape and the parameter."""

    focus: Node
    value: Node | None
    shape: Node
    parameter: URIRef


class CoreEngine:
    """Evaluates the core shapes with targets over an Oxigraph store holding the data and the ontology."""

    def __init__(self, store: ox.Store, shapes: Graph) -> None:
        self.store, self.shapes = store, shapes
        self.compiler = Compiler(shapes, store)

    def top_shapes(self) -> list[Node]:
        """Shapes with targets (explicit or an implicit class target), in a stable order."""
        classes = set(self.shapes.subjects(RDFS.subClassOf, RDFS.Class)) | {RDFS.Class}
        found = {s for p in TARGETS for s in self.shapes.subjects(p, None)}
        found |= {s for s, t in self.shapes.subject_objects(RDF.type) if t in classes}
        return sorted(found, key=str)

    def _active(self, shape: Node) -> bool:
        flag = self.shapes.value(shape, SH.deactivated)
        return not (flag is not None and cast(Literal, flag).toPython() is True)

    def paths_predicates(self) -> set[Node]:
        """Every IRI the shapes read from the data through paths, property pairs and subject/object targets."""
        sg = self.shapes
        roots = list(sg.objects(None, SH.path)) + [o for p in (SH.targetSubjectsOf, SH.targetObjectsOf,
                                                                SH.lessThanOrEquals, SH.lessThan)
                                                   for o in sg.objects(None, p)]
        found: set[Node] = set()
        stack = roots
        while stack:
            node = stack.pop()
            if isinstance(node, URIRef):
                found.add(node)
            elif isinstance(node, BNode):
                stack.extend(o for p, o in sg.predicate_objects(node) if p != RDF.type)
        return found

    def _focus(self, key: str, shape: Node) -> None:
        classes = set(self.shapes.objects(shape, SH.targetClass))
        if (shape, RDF.type, RDFS.Class) in self.shapes or any(
                (shape, RDF.type, c) in self.shapes for c in self.shapes.subjects(RDFS.subClassOf, RDFS.Class)):
            classes.add(shape)
        parts = [f"{{ ?this a/<{RDFS.subClassOf}>* {_term(c)} }}" for c in sorted(classes, key=str)]
        parts += [f"{{ VALUES ?this {{ {_term(n)} }} }}" for n in self.shapes.objects(shape, SH.targetNode)]
        parts += [f"{{ ?this {_term(p)} [] }}" for p in self.shapes.objects(shape, SH.targetSubjectsOf)]
        parts += [f"{{ [] {_term(p)} ?this }}" for p in self.shapes.objects(shape, SH.targetObjectsOf)]
        if parts:
            self.store.update(f"INSERT {{ GRAPH <{FOCUS_GRAPH}> {{ <{key}> <{FOCUS_GRAPH}> ?this }} }} "
                              f"WHERE {{ {' UNION '.join(parts)} }}")

    def run(self) -> list[Hit]:
        """Every result of the shapes with targets."""
        hits: list[Hit] = []
        for number, shape in enumerate(self.top_shapes()):
            if not self._active(shape):
                continue
            key = f"urn:kg:shacl-core:shape:{number}"
            self._focus(key, shape)
            hits.extend(self._evaluate(shape, key, top=True))
        return hits

    def _evaluate(self, shape: Node, key: str, top: bool) -> list[Hit]:
        self.compiler.check_parameters(shape)
        path_node = self.shapes.value(shape, SH.path)
        path = sparql_path(self.shapes, path_node) if path_node is not None else None
        if not list(self.shapes.objects(shape, SH.message)) and any(
                (shape, p, None) in self.shapes for p in SUPPORTED - {SH.property, SH.flags}):
            raise Unsupported(f"{shape} has no sh:message (pyshacl would write a generic one)")
        focus = f"GRAPH <{FOCUS_GRAPH}> {{ <{key}> <{FOCUS_GRAPH}> ?this }}"
        values = f"?this {path} ?v ." if path else "BIND (?this AS ?v)"
        hits = self._counts(shape, focus, path) + self._has_values(shape, focus, path)
        hits += self._tests(shape, focus, values) + self._pairs(shape, focus, values, path)
        for child in self.shapes.objects(shape, SH.property):
            if path is not None:
                raise Unsupported(f"sh:property under the property shape {shape}")
            if self._active(child):
                if self.shapes.value(child, SH.path) is None:
                    raise Unsupported(f"property shape {child} without a path")
                hits.extend(self._evaluate(child, key, top=False))
        return hits

    def _rows(self, query: str) -> Iterable[ox.QuerySolution]:
        return self.store.query(query)  # type: ignore[return-value]

    def _counts(self, shape: Node, focus: str, path: str | None) -> list[Hit]:
        low, high = self.shapes.value(shape, SH.minCount), self.shapes.value(shape, SH.maxCount)
        if low is None and high is None:
            return []
        if path is None:
            raise Unsupported(f"cardinality on the node shape {shape}")
        tests = ([f"COUNT(DISTINCT ?v) < {_integer(low)}"] if low is not None else []) + (
            [f"COUNT(DISTINCT ?v) > {_integer(high)}"] if high is not None else [])
        pattern = f"OPTIONAL {{ ?this {path} ?v }}" if low is not None else f"?this {path} ?v ."
        hits = []
        for row in self._rows(f"SELECT ?this (COUNT(DISTINCT ?v) AS ?n) WHERE {{ {focus} {pattern} }} "
                              f"GROUP BY ?this HAVING ({' || '.join(tests)})"):
            count, node = int(row["n"].value), from_ox(row["this"])
            if low is not None and count < _integer(low):
                hits.append(Hit(node, None, shape, SH.minCount))
            if high is not None and count > _integer(high):
                hits.append(Hit(node, None, shape, SH.maxCount))
        return hits

    def _has_values(self, shape: Node, focus: str, path: str | None) -> list[Hit]:
        hits = []
        for value in self.shapes.objects(shape, SH.hasValue):
            test = f"FILTER NOT EXISTS {{ ?this {path} {_term(value)} }}" if path else \
                f"FILTER (!sameTerm(?this, {_term(value)}))"
            hits += [Hit(from_ox(r["this"]), None, shape, SH.hasValue)
                     for r in self._rows(f"SELECT ?this WHERE {{ {focus} {test} }}")]
        return hits

    def _tests(self, shape: Node, focus: str, values: str) -> list[Hit]:
        tests = self.compiler.tests(shape)
        in_sparql = [t for t in tests if t.sparql is not None]
        in_python = [t for t in tests if t.sparql is None]
        hits = []
        if in_sparql:
            binds = " ".join(f"BIND ({t.sparql} AS ?f{i})" for i, t in enumerate(in_sparql))
            flags = " || ".join(f"?f{i}" for i in range(len(in_sparql)))
            for row in self._rows(f"SELECT DISTINCT ?this ?v {' '.join(f'?f{i}' for i in range(len(in_sparql)))} "
                                  f"WHERE {{ {focus} {values} {binds} FILTER ({flags}) }}"):
                node, value = from_ox(row["this"]), from_ox(row["v"])
                hits += [Hit(node, value, shape, t.parameter) for i, t in enumerate(in_sparql)
                         if row[f"f{i}"] is not None and row[f"f{i}"].value == "true"]
        if in_python:
            failing: dict[object, list[URIRef]] = {}
            for row in self._rows(f"SELECT DISTINCT ?v WHERE {{ {focus} {values} }}"):
                value = from_ox(row["v"])
                bad = [t.parameter for t in in_python if not t.python(value)]  # type: ignore[misc]
                if bad:
                    failing[row["v"]] = bad
            if failing:
                for row in self._rows(f"SELECT DISTINCT ?this ?v WHERE {{ {focus} {values} }}"):
                    for parameter in failing.get(row["v"], ()):
                        hits.append(Hit(from_ox(row["this"]), from_ox(row["v"]), shape, parameter))
        return hits

    def _pairs(self, shape: Node, focus: str, values: str, path: str | None) -> list[Hit]:
        hits = []
        for parameter in (SH.lessThanOrEquals, SH.lessThan):
            for other in self.shapes.objects(shape, parameter):
                if path is None or not isinstance(other, URIRef):
                    raise Unsupported(f"{parameter} on {shape}")
                for row in self._rows(f"SELECT DISTINCT ?this ?v ?o WHERE {{ {focus} {values} ?this <{other}> ?o }}"):
                    value = from_ox(row["v"])
                    if not pair_ok(value, from_ox(row["o"]), parameter == SH.lessThan):
                        hits.append(Hit(from_ox(row["this"]), value, shape, parameter))
        return hits


def write_results(hits: Iterable[Hit], shapes: Graph, graph: Graph) -> None:
    """Add one sh:ValidationResult per hit to graph, with the triples pyshacl writes."""
    for hit in hits:
        result = BNode()
        graph.add((result, RDF.type, SH.ValidationResult))
        graph.add((result, SH.sourceConstraintComponent, component(hit.parameter)))
        graph.add((result, SH.sourceShape, hit.shape))
        graph.add((result, SH.resultSeverity, shapes.value(hit.shape, SH.severity) or SH.Violation))
        graph.add((result, SH.focusNode, hit.focus))
        if hit.value is not None:
            graph.add((result, SH.value, hit.value))
        path = shapes.value(hit.shape, SH.path)
        if path is not None:
            graph.add((result, SH.resultPath, path))
        for message in set(shapes.objects(hit.shape, SH.message)):
            graph.add((result, SH.resultMessage, message))


def core_results(store: ox.Store, shapes: Graph, rewritten: set[Node]) -> Graph:
    """The results (unattached sh:ValidationResult nodes) of the core shapes with targets."""
    engine = CoreEngine(store, shapes)
    if rewritten & engine.paths_predicates():
        raise Unsupported("Oxigraph would rewrite literals the shapes read (non-canonical or upper-case language)")
    results = Graph()
    write_results(engine.run(), shapes, results)
    return results


__all__ = ["CoreEngine", "Unsupported", "core_results", "write_results"]
