"""Value-level SHACL constraints compiled to SPARQL filters over ?v, or to Python predicates on the data's terms.

A value test says whether one value node meets one constraint parameter, independently of the focus node:
sh:class, sh:nodeKind, sh:minLength/maxLength, the ranges, sh:languageIn and sh:hasValue-free logic are SPARQL
expressions (the ranges with SPARQL's own comparison, as SHACL defines them, an incomparable value failing);
sh:datatype (well-formedness needs the lexical form as given), sh:pattern (Python's `re`, close to XPath's
regular expressions) and sh:in (term equality on the data's terms) are Python predicates. A logical constraint
whose member shapes are value tests only is compiled the same way; any other is left to the engine
(``CoreEngine``), which validates the member shapes on the value nodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import cast

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node

from ..terms import to_ox
from .terms import TermMap, sparql_term
from .values import Unsupported, datatype_ok, value_string

RANGES = {SH.minInclusive: ">=", SH.minExclusive: ">", SH.maxInclusive: "<=", SH.maxExclusive: "<"}
NODE_KINDS = {SH.IRI: "isIRI({0})", SH.BlankNode: "isBlank({0})", SH.Literal: "isLiteral({0})",
              SH.BlankNodeOrIRI: "(isBlank({0}) || isIRI({0}))", SH.IRIOrLiteral: "(isIRI({0}) || isLiteral({0}))",
              SH.BlankNodeOrLiteral: "(isBlank({0}) || isLiteral({0}))"}
LOGICAL = (SH["or"], SH["and"], SH.xone, SH["not"], SH.node)
VALUE_PARAMETERS = {SH["class"], SH.nodeKind, SH.minLength, SH.maxLength, SH.datatype, SH.pattern, SH.flags,
                    SH["in"], SH.languageIn, SH.hasValue, *RANGES, *LOGICAL}
COMBINE: dict[URIRef, Callable[[list[bool]], bool]] = {
    SH["or"]: any, SH["and"]: all, SH.xone: lambda r: sum(r) == 1, SH["not"]: lambda r: not r[0],
    SH.node: lambda r: r[0]}


def is_true(node: Node | None) -> bool:
    """Whether a shape parameter is the literal true (exactly "true"^^xsd:boolean, as SHACL reads it)."""
    return isinstance(node, Literal) and node.datatype == Literal(True).datatype and str(node) == "true"


def _integer(node: Node) -> int:
    """int() of an integer shape parameter."""
    if not isinstance(node, Literal) or not isinstance(node.value, int):
        raise Unsupported(f"{node!r} is not an integer")
    return int(node.value)


def members(shapes: Graph, parameter: URIRef, argument: Node) -> list[Node]:
    """The shapes a logical parameter names: one for sh:not and sh:node, the list's items otherwise."""
    return [argument] if parameter in (SH["not"], SH.node) else list(shapes.items(argument))


@dataclass
class Test:
    """One value-level check: a SPARQL 'fails' expression over ?v, or a Python 'conforms' predicate."""

    parameter: URIRef
    sparql: str | None = None
    python: Callable[[Node], bool] | None = None


class Compiler:
    """Turns a shape's value-level parameters into tests, as SHACL Core defines each one."""

    def __init__(self, shapes: Graph, store: ox.Store, terms: TermMap) -> None:
        self.shapes, self.store, self.terms = shapes, store, terms
        self.asked: dict[tuple[Node, Node], bool] = {}

    def is_instance(self, node: Node, cls: Node) -> bool:
        """The sh:class test: rdf:type/rdfs:subClassOf* reaches the class; literals never do."""
        if isinstance(node, Literal):
            return False
        key = (node, cls)
        if key not in self.asked:
            self.asked[key] = bool(self.store.query(f"ASK {{ ?x a/<{RDFS.subClassOf}>* ?c }}", substitutions={
                ox.Variable("x"): to_ox(node), ox.Variable("c"): to_ox(cls)}))
        return self.asked[key]

    def tests(self, shape: Node) -> list[Test]:
        """The value-level tests of a shape; logical ones only when their members are value tests too."""
        found = self._class_and_kind(shape) + self._lengths(shape) + self._ranges(shape)
        sg = self.shapes
        for datatype in sg.objects(shape, SH.datatype):
            found.append(Test(SH.datatype, python=partial(datatype_ok, datatype=datatype)))
        patterns = list(sg.objects(shape, SH.pattern))
        if len(patterns) > 1 and (shape, SH.flags, None) in sg:
            raise Unsupported(f"several sh:pattern with sh:flags on {shape}")
        found += [Test(SH.pattern, python=self._pattern(shape, pattern)) for pattern in patterns]
        for listed in sg.objects(shape, SH["in"]):
            allowed = set(sg.items(listed))
            found.append(Test(SH["in"], python=lambda v, a=allowed: v in a))  # type: ignore[misc]
        for listed in sg.objects(shape, SH.languageIn):
            ranges = [str(tag) for tag in sg.items(listed)]
            matches = " || ".join(f"langMatches(lang(?v), {Literal(tag).n3()})" for tag in ranges) or "false"
            found.append(Test(SH.languageIn, f"(!isLiteral(?v) || !({matches}))"))
        for parameter in LOGICAL:
            for argument in sg.objects(shape, parameter):
                test = self.logical(parameter, argument)
                if test is not None:
                    found.append(test)
        for test in found:
            if test.python is None and test.sparql is not None:
                test.python = partial(self.sparql_ok, expression=test.sparql)
        return found

    def _class_and_kind(self, shape: Node) -> list[Test]:
        found = [Test(SH["class"], f"NOT EXISTS {{ ?v a/<{RDFS.subClassOf}>* {sparql_term(cls)} }}",
                      partial(self.is_instance, cls=cls)) for cls in self.shapes.objects(shape, SH["class"])]
        for kind in self.shapes.objects(shape, SH.nodeKind):
            if not isinstance(kind, URIRef) or kind not in NODE_KINDS:
                raise Unsupported(f"node kind {kind}")
            found.append(Test(SH.nodeKind, "!" + NODE_KINDS[kind].format("?v"), partial(_node_kind_ok, kind=kind)))
        return found

    def _lengths(self, shape: Node) -> list[Test]:
        found = []
        for parameter, op in ((SH.minLength, "<"), (SH.maxLength, ">")):
            for bound in self.shapes.objects(shape, parameter):
                number = _integer(bound)
                found.append(Test(parameter, f"(isBlank(?v) || STRLEN(STR(?v)) {op} {number})",
                                  partial(_length_ok, bound=number, op=op)))
        return found

    def _ranges(self, shape: Node) -> list[Test]:
        found = []
        for parameter, op in RANGES.items():
            for bound in self.shapes.objects(shape, parameter):
                if not isinstance(bound, Literal):
                    raise Unsupported(f"{parameter} {bound!r}")
                found.append(Test(parameter, f"!COALESCE(?v {op} {sparql_term(bound)}, false)"))
        return found

    def sparql_ok(self, value: Node, expression: str) -> bool:
        """Whether one term passes a SPARQL 'fails' expression over ?v (the Python form of a SPARQL test)."""
        rows = self.store.query(f"SELECT ?v WHERE {{ FILTER ({expression}) }}",
                                substitutions={ox.Variable("v"): to_ox(value)})
        return isinstance(rows, ox.QuerySolutions) and next(iter(rows), None) is None

    def _pattern(self, shape: Node, pattern: Node) -> Callable[[Node], bool]:
        if not isinstance(pattern, Literal):
            raise Unsupported("sh:pattern must be a literal")
        flags_node = self.shapes.value(shape, SH.flags)
        flags = str(flags_node).lower() if flags_node is not None else ""
        if set(flags) - set("imsxq"):
            raise Unsupported(f"regular expression flags {flags!r}")
        text = re.escape(str(pattern)) if "q" in flags else str(pattern)
        options = {"i": re.I, "m": re.M, "s": re.S, "x": re.X}
        compiled = re.compile(text, sum((options[f] for f in flags if f in options), 0))
        return lambda v: not isinstance(v, BNode) and compiled.search(value_string(v)) is not None

    def logical(self, parameter: URIRef, argument: Node) -> Test | None:
        """sh:and/or/xone/not/node as one value test, or None when a member shape needs more than value tests."""
        shapes = members(self.shapes, parameter, argument)
        if not all(self.is_value_shape(m) for m in shapes):
            return None
        expressions = [self.conforms_sparql(m) for m in shapes]
        joined = {SH["or"]: " || ", SH["and"]: " && ", SH["not"]: "", SH.node: ""}.get(parameter)
        if joined is not None and all(e is not None for e in expressions):
            inner = "(" + joined.join(cast("list[str]", expressions)) + ")" if expressions else (
                "false" if parameter == SH["or"] else "true")
            return Test(parameter, inner if parameter == SH["not"] else f"!{inner}")
        predicates = [self.conforms_python(m) for m in shapes]
        combine = COMBINE[parameter]
        return Test(parameter, python=lambda v: combine([p(v) for p in predicates]))

    def is_value_shape(self, shape: Node) -> bool:
        """Whether a shape's conformance is a test of the node alone (no path, no counts, no pairs)."""
        if isinstance(shape, Literal):
            raise Unsupported(f"{shape!r} used as a shape")
        used = set(self.shapes.predicates(shape, None)) - {RDF.type, SH.message, SH.severity, SH.name,
                                                            SH.description, RDFS.label, RDFS.comment, SH.deactivated}
        if not used <= VALUE_PARAMETERS:
            return False
        return all(self.is_value_shape(m) for p in LOGICAL for a in self.shapes.objects(shape, p)
                   for m in members(self.shapes, p, a))

    def _switched_off(self, shape: Node) -> bool:
        return is_true(self.shapes.value(shape, SH.deactivated))

    def conforms_sparql(self, shape: Node) -> str | None:
        """A SPARQL expression over ?v true when ?v conforms to a value shape, or None if one test is Python."""
        if self._switched_off(shape):
            return "true"
        tests = self.tests(shape)
        hits = [t.sparql for t in tests]
        hits += [f"!sameTerm(?v, {sparql_term(value)})" for value in self.shapes.objects(shape, SH.hasValue)]
        if any(h is None for h in hits):
            return None
        return "!(" + " || ".join(cast("list[str]", hits)) + ")" if hits else "true"

    def conforms_python(self, shape: Node) -> Callable[[Node], bool]:
        """A Python predicate true when a node conforms to a value shape."""
        if self._switched_off(shape):
            return lambda v: True
        checks = [t.python for t in self.tests(shape)]
        values = list(self.shapes.objects(shape, SH.hasValue))
        return lambda v: all(c(v) for c in checks) and all(v == h for h in values)  # type: ignore[misc]


def _node_kind_ok(value: Node, kind: Node) -> bool:
    """The sh:nodeKind test."""
    if isinstance(value, BNode):
        return kind in (SH.BlankNode, SH.BlankNodeOrLiteral, SH.BlankNodeOrIRI)
    if isinstance(value, Literal):
        return kind in (SH.Literal, SH.BlankNodeOrLiteral, SH.IRIOrLiteral)
    return kind in (SH.IRI, SH.IRIOrLiteral, SH.BlankNodeOrIRI)


def _length_ok(value: Node, bound: int, op: str) -> bool:
    """The sh:minLength (op "<") / sh:maxLength (op ">") test; blank nodes always fail."""
    if isinstance(value, BNode):
        return False
    size = len(str(value))
    return size >= bound if op == "<" else size <= bound


__all__ = ["COMBINE", "LOGICAL", "Compiler", "Test", "is_true", "members"]
