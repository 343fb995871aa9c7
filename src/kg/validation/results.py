"""Validation results as the core engine finds them (``Hit``) and as SHACL writes them (sh:ValidationResult)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH, XSD
from rdflib.term import Node

from .terms import OxTerm, TermMap

# What each constraint component's result says when its shape has no sh:message.
DEFAULT_MESSAGES = {
    SH["class"]: "Value is not an instance of {class}",
    SH.datatype: "Value is not a well-formed literal of datatype {datatype}",
    SH.nodeKind: "Value is not of node kind {nodeKind}",
    SH.minCount: "Fewer than {minCount} values",
    SH.maxCount: "More than {maxCount} values",
    SH.minExclusive: "Value is not greater than {minExclusive}",
    SH.minInclusive: "Value is not greater than or equal to {minInclusive}",
    SH.maxExclusive: "Value is not less than {maxExclusive}",
    SH.maxInclusive: "Value is not less than or equal to {maxInclusive}",
    SH.minLength: "Value is shorter than {minLength} characters (or is a blank node)",
    SH.maxLength: "Value is longer than {maxLength} characters (or is a blank node)",
    SH.pattern: "Value does not match the pattern {pattern}",
    SH.languageIn: "Value's language tag is not one of the allowed ones",
    SH.uniqueLang: "Several values share a language tag",
    SH.equals: "Value is not also a value of {equals}, or the other way round",
    SH.disjoint: "Value is also a value of {disjoint}",
    SH.lessThan: "Value is not less than the values of {lessThan}",
    SH.lessThanOrEquals: "Value is not less than or equal to the values of {lessThanOrEquals}",
    SH["not"]: "Value conforms to a shape it must not conform to",
    SH["and"]: "Value does not conform to every shape of sh:and",
    SH["or"]: "Value conforms to none of the shapes of sh:or",
    SH.xone: "Value does not conform to exactly one of the shapes of sh:xone",
    SH.node: "Value does not conform to the shape {node}",
    SH.qualifiedMinCount: "Fewer than {qualifiedMinCount} values conform to the qualified value shape",
    SH.qualifiedMaxCount: "More than {qualifiedMaxCount} values conform to the qualified value shape",
    SH.closed: "Property is not allowed by the closed shape",
    SH.hasValue: "The value {hasValue} is missing",
    SH["in"]: "Value is not one of the allowed values",
}


PLAIN_DATATYPES = {XSD.integer, XSD.decimal, XSD.double, XSD.nonNegativeInteger, XSD.string}


@dataclass(frozen=True)
class Hit:
    """One result before it is written: focus, value (or None), shape, parameter, and the path if not the shape's."""

    focus: OxTerm
    value: OxTerm | None
    shape: Node
    parameter: URIRef
    path: Node | None = None


def component(parameter: URIRef) -> URIRef:
    """The constraint component of a parameter: sh:minCount -> sh:MinCountConstraintComponent."""
    local = str(parameter).rsplit("#", 1)[-1]
    return SH[local[0].upper() + local[1:] + "ConstraintComponent"]


def default_message(shapes: Graph, shape: Node, parameter: URIRef) -> Literal:
    """The message of a result whose shape has no sh:message, naming the parameter's value."""
    template = DEFAULT_MESSAGES.get(parameter, "Value does not conform to the shape")
    name = str(parameter).rsplit("#", 1)[-1]
    argument = shapes.value(shape, parameter)
    if isinstance(argument, Literal) and (argument.datatype in PLAIN_DATATYPES or argument.datatype is None
                                          and argument.language is None):
        shown = str(argument)  # 1, not "1"^^xsd:integer; a pattern as written
    elif isinstance(argument, (URIRef, Literal)):
        shown = argument.n3(shapes.namespace_manager)
    else:
        shown = "its argument"
    message = template.replace("{" + name + "}", shown)
    return Literal(message.replace("1 values", "1 value") if shown == "1" else message)


def write_results(hits: Iterable[Hit], shapes: Graph, graph: Graph, terms: TermMap) -> None:
    """Add one sh:ValidationResult per hit to graph: focus, path, value, severity, shape, component, messages."""
    for hit in hits:
        result = BNode()
        graph.add((result, RDF.type, SH.ValidationResult))
        graph.add((result, SH.sourceConstraintComponent, component(hit.parameter)))
        graph.add((result, SH.sourceShape, hit.shape))
        graph.add((result, SH.resultSeverity, shapes.value(hit.shape, SH.severity) or SH.Violation))
        graph.add((result, SH.focusNode, terms.rdf(hit.focus)))
        if hit.value is not None:
            graph.add((result, SH.value, terms.rdf(hit.value)))
        path = hit.path if hit.path is not None else shapes.value(hit.shape, SH.path)
        if path is not None:
            graph.add((result, SH.resultPath, path))
        messages = set(shapes.objects(hit.shape, SH.message)) or {default_message(shapes, hit.shape, hit.parameter)}
        for message in messages:
            graph.add((result, SH.resultMessage, message))


__all__ = ["Hit", "component", "default_message", "write_results"]
