"""Differential fuzzing: generated shapes over generated data, the Oxigraph engine's results against pyshacl's.

Every core constraint component, nested sh:node and sh:and/or/not/xone, and paths of every kind are drawn by
hypothesis on a fixed seed (``derandomize``); KG_FUZZ_EXAMPLES sets how many examples run (200 by default;
``KG_FUZZ_EXAMPLES=5000 pytest tests/test_shacl_fuzz.py`` for a longer search). Results are compared on focus
node, path, value, source shape, constraint component and severity; messages are not compared (the shapes
have none, so each engine writes its own).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import BNode, Graph, Literal, Namespace
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.term import Node

from kg.validation.engine import run, run_pyshacl

from .shacl_suite import describe_keys, result_keys

EX = Namespace("http://example.org/fuzz#")
NODES = [EX[f"n{i}"] for i in range(5)]
PREDICATES = [EX[f"p{i}"] for i in range(3)]
ORDERED = PREDICATES[2]  # only literals: pyshacl orders IRIs as strings, SPARQL (so SHACL) cannot compare them
CLASSES = [EX[f"C{i}"] for i in range(3)]
LITERALS = [Literal(0), Literal(3), Literal(7), Literal("a"), Literal("bb"), Literal("ccc"),
            Literal("x", lang="en"), Literal("y", lang="en"), Literal("x", lang="fr"),
            Literal("2.5", datatype=XSD.decimal)]
# Not drawn: dates, booleans and ill-typed literals, which pyshacl compares with numeric range bounds through
# rdflib's Python values (true < 3; "abc"^^xsd:integer passes sh:minInclusive 2.5); SPARQL's comparison fails on
# them, which SHACL counts as a violation. tests/test_shacl_values.py pins kg's behaviour there.
# Severities are drawn only where they cannot decide a nested conformance: pyshacl (allowing warnings, as the
# build runs it) counts a nested shape with only sh:Warning results as conforming, SHACL counts any result.
PER_PAIR = {SH.LessThanConstraintComponent, SH.LessThanOrEqualsConstraintComponent}
EXAMPLES = int(os.environ.get("KG_FUZZ_EXAMPLES", "200"))

Draw = st.DrawFn


def _data(draw: Draw) -> Graph:
    graph = Graph()
    graph.add((CLASSES[1], RDFS.subClassOf, CLASSES[0]))
    for node in NODES:
        for cls in draw(st.lists(st.sampled_from(CLASSES), max_size=2)):
            graph.add((node, RDF.type, cls))
    objects = NODES + LITERALS
    for _ in range(draw(st.integers(0, 14))):
        predicate = draw(st.sampled_from(PREDICATES))
        graph.add((draw(st.sampled_from(NODES)), predicate,
                   draw(st.sampled_from([x for x in LITERALS if not x.language] if predicate == ORDERED else objects))))
    return graph


def _path(draw: Draw, shapes: Graph, depth: int = 0) -> Node:
    kind = draw(st.sampled_from(["iri", "iri", "inverse", "sequence", "alternative", "zeroOrMore", "oneOrMore",
                                 "zeroOrOne"] if depth < 2 else ["iri"]))
    if kind == "iri":
        return draw(st.sampled_from(PREDICATES))
    node = BNode()
    if kind in ("sequence", "alternative"):
        items = [_path(draw, shapes, depth + 1) for _ in range(2)]
        head = BNode()
        Collection(shapes, head, items)
        if kind == "sequence":
            return head
        shapes.add((node, SH.alternativePath, head))
        return node
    if kind == "inverse":  # of a predicate only: pyshacl reads ^(a/b) as ^a/^b, SPARQL (and SHACL) as ^b/^a
        shapes.add((node, SH.inversePath, draw(st.sampled_from(PREDICATES))))
        return node
    shapes.add((node, SH[f"{kind}Path"], _path(draw, shapes, depth + 1)))
    return node


def _list(shapes: Graph, items: list[Node]) -> Node:
    head = BNode()
    Collection(shapes, head, items)
    return head


def _constraints(draw: Draw, shapes: Graph, shape: Node, is_property: bool, depth: int, most: int) -> None:
    """Add up to `most` different constraint parameters (with their arguments) to a shape."""
    value_only = ["class", "datatype", "nodeKind", "minInclusive", "maxExclusive", "minLength", "maxLength",
                  "pattern", "in", "languageIn", "hasValue"]
    options = value_only + (["not", "and", "or", "xone", "node"] if depth < 2 else [])
    options += ["closed", "equals", "disjoint"] + (["minCount", "maxCount", "lessThan", "lessThanOrEquals",
                                                     "uniqueLang", "qualified"] if is_property else [])
    for kind in draw(st.lists(st.sampled_from(options), min_size=1, max_size=most, unique=True)):
        _constraint(draw, shapes, shape, kind, depth)


def _constraint(draw: Draw, shapes: Graph, shape: Node, kind: str, depth: int) -> None:
    """Add one constraint parameter of a kind (with its arguments) to a shape."""
    add = shapes.add
    if kind == "class":
        add((shape, SH["class"], draw(st.sampled_from(CLASSES))))
    elif kind == "datatype":
        add((shape, SH.datatype, draw(st.sampled_from([XSD.integer, XSD.string, RDF.langString, XSD.date,
                                                       XSD.boolean, XSD.decimal]))))
    elif kind == "nodeKind":
        add((shape, SH.nodeKind, draw(st.sampled_from([SH.IRI, SH.Literal, SH.BlankNode, SH.BlankNodeOrIRI,
                                                       SH.IRIOrLiteral, SH.BlankNodeOrLiteral]))))
    elif kind in ("minInclusive", "maxExclusive"):
        add((shape, SH[kind], draw(st.sampled_from([Literal(3), Literal(0), Literal("2.5", datatype=XSD.decimal)]))))
    elif kind in ("minLength", "maxLength"):
        add((shape, SH[kind], Literal(draw(st.integers(0, 3)))))
    elif kind == "pattern":
        add((shape, SH.pattern, Literal(draw(st.sampled_from(["^a", "b+", "^[0-9]+$", "n[13]"])))))
    elif kind == "in":
        add((shape, SH["in"], _list(shapes, draw(st.lists(st.sampled_from(NODES + LITERALS), min_size=1,
                                                               max_size=3, unique=True)))))
    elif kind == "languageIn":
        add((shape, SH.languageIn, _list(shapes, [Literal(t) for t in draw(st.sampled_from([["en"], ["fr", "de"]]))])))
    elif kind == "hasValue":
        add((shape, SH.hasValue, draw(st.sampled_from(NODES + LITERALS[:4]))))
    elif kind in ("minCount", "maxCount"):
        add((shape, SH[kind], Literal(draw(st.integers(0, 2)))))
    elif kind in ("equals", "disjoint"):
        add((shape, SH[kind], draw(st.sampled_from(PREDICATES))))
    elif kind in ("lessThan", "lessThanOrEquals"):
        add((shape, SH[kind], ORDERED))
    elif kind == "uniqueLang":
        add((shape, SH.uniqueLang, Literal(True)))
    elif kind == "closed":
        add((shape, SH.closed, Literal(True)))
        add((shape, SH.ignoredProperties, _list(shapes, [RDF.type])))
    elif kind == "qualified":
        add((shape, SH.qualifiedValueShape, _shape(draw, shapes, False, depth + 1)))
        add((shape, SH[draw(st.sampled_from(["qualifiedMinCount", "qualifiedMaxCount"]))], Literal(1)))
    elif kind == "node":
        add((shape, SH.node, _shape(draw, shapes, False, depth + 1)))
    elif kind == "not":
        add((shape, SH["not"], _shape(draw, shapes, draw(st.booleans()), depth + 1)))
    else:
        count = draw(st.integers(1, 3))
        add((shape, SH[kind], _list(shapes, [_shape(draw, shapes, draw(st.booleans()), depth + 1)
                                             for _ in range(count)])))


def _shape(draw: Draw, shapes: Graph, is_property: bool, depth: int) -> Node:
    shape = BNode()
    shapes.add((shape, RDF.type, SH.PropertyShape if is_property else SH.NodeShape))
    if is_property:
        shapes.add((shape, SH.path, _path(draw, shapes)))
    _constraints(draw, shapes, shape, is_property, depth, 2)
    if not is_property and depth < 2 and draw(st.booleans()):
        shapes.add((shape, SH.property, _shape(draw, shapes, True, depth + 1)))
    return shape


def _shapes(draw: Draw) -> Graph:
    shapes = Graph()
    for number in range(draw(st.integers(1, 2))):
        shape = EX[f"Shape{number}"]
        is_property = draw(st.booleans())
        shapes.add((shape, RDF.type, SH.PropertyShape if is_property else SH.NodeShape))
        target = draw(st.sampled_from(["class", "node", "subjectsOf", "objectsOf"]))
        if target == "class":
            shapes.add((shape, SH.targetClass, draw(st.sampled_from(CLASSES))))
        elif target == "node":
            shapes.add((shape, SH.targetNode, draw(st.sampled_from(NODES))))
            shapes.add((shape, SH.targetNode, draw(st.sampled_from(NODES))))
        else:
            shapes.add((shape, SH[f"target{target[0].upper()}{target[1:]}"], draw(st.sampled_from(PREDICATES))))
        if is_property:
            shapes.add((shape, SH.path, _path(draw, shapes)))
        _constraints(draw, shapes, shape, is_property, 0, 3)
        if not is_property and draw(st.booleans()):
            child = _shape(draw, shapes, True, 1)
            shapes.add((shape, SH.property, child))
            if draw(st.integers(0, 3)) == 0:
                shapes.add((child, SH.severity, SH.Warning))
        if draw(st.integers(0, 3)) == 0:
            shapes.add((shape, SH.severity, SH.Info))
    return shapes


@st.composite
def cases(draw: Draw) -> tuple[Graph, Graph]:
    """A generated (data, shapes) pair."""
    return _data(draw), _shapes(draw)


@pytest.mark.slow
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases())
def test_engine_agrees_with_pyshacl_on_generated_shapes(case: tuple[Graph, Graph]) -> None:
    data, shapes = case
    outcome = run([data], shapes, Graph())
    assert outcome.engine == "oxigraph"
    expected = run_pyshacl(data, shapes, Graph())
    context = Graph()
    context += shapes
    context += data
    actual, wanted = result_keys(outcome.graph, context), result_keys(expected, context)
    for keys in (actual, wanted):  # SHACL: one result per (value, other value) pair; pyshacl: one per value
        for key in [k for k in keys if k[4] in PER_PAIR]:
            keys[key] = 1
            if not isinstance(key[2], Literal) or key[2].language:  # pyshacl orders IRIs and language-tagged
                del keys[key]  # strings as strings; SPARQL's < cannot compare them, so SHACL reports them
    assert actual == wanted, "\n".join(["shapes:", shapes.serialize(format="turtle"), "data:",
                                        data.serialize(format="turtle"), "only kg:", *describe_keys(actual - wanted),
                                        "only pyshacl:", *describe_keys(wanted - actual)])
