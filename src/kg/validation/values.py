"""pyshacl's value tests re-stated for values read from Oxigraph: datatype, node kind, length, range, pair order.

Each function answers the question the matching pyshacl constraint asks of one value node, with pyshacl's own
quirks (rdflib's Python value types for sh:datatype, compare_literal for ranges), so the Oxigraph engine and
the reference give the same report.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal

from pyshacl.rdfutil.compare import compare_literal
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.term import Node


class Unsupported(Exception):
    """The shapes use a feature this engine does not evaluate exactly as pyshacl does."""


RANGES = {SH.minInclusive: lambda c: c >= 0, SH.minExclusive: lambda c: c > 0, SH.maxInclusive: lambda c: c <= 0,
          SH.maxExclusive: lambda c: c < 0}
ACTUAL = {XSD.string: (str, bytes), RDF.langString: (str, bytes), XSD.integer: int, XSD.float: float,
          XSD.decimal: Decimal, XSD.boolean: bool, XSD.date: date, XSD.time: time, XSD.dateTime: datetime}


def _actual_datatype(value: Literal, datatype: Node) -> bool:
    kinds = ACTUAL.get(datatype)  # type: ignore[call-overload]
    return True if kinds is None else isinstance(value.value, kinds)


def datatype_ok(value: Node, datatype: Node) -> bool:
    """pyshacl's sh:datatype test (ill-typed literals fail; rdflib's Python value must have the right type)."""
    if not isinstance(value, Literal):
        return False
    if value.datatype == datatype:
        return getattr(value, "ill_typed", None) is not True and _actual_datatype(value, datatype)
    if datatype == RDFS.Literal or (datatype == RDFS.Datatype and value.datatype):
        return True
    if value.datatype is None and value.language is None and datatype == XSD.string:
        return _actual_datatype(value, datatype)
    return bool(datatype == RDF.langString and value.language and _actual_datatype(value, datatype))


def value_string(value: Node) -> str:
    """The text pyshacl matches patterns and lengths against."""
    if isinstance(value, Literal) and value.value is not None and value.datatype in (None, RDF.langString, XSD.string):
        return str(value.value)
    return str(value)


def node_kind_ok(value: Node, kind: Node) -> bool:
    """pyshacl's sh:nodeKind test."""
    if isinstance(value, BNode):
        return kind in (SH.BlankNode, SH.BlankNodeOrLiteral, SH.BlankNodeOrIRI)
    if isinstance(value, Literal):
        return kind in (SH.Literal, SH.BlankNodeOrLiteral, SH.IRIOrLiteral)
    return kind in (SH.IRI, SH.IRIOrLiteral, SH.BlankNodeOrIRI)


def length_ok(value: Node, bound: int, op: str) -> bool:
    """pyshacl's sh:minLength (op "<") / sh:maxLength (op ">") test; blank nodes always fail."""
    if isinstance(value, BNode):
        return False
    size = len(value_string(value))
    return size >= bound if op == "<" else size <= bound


def range_ok(value: Node, bound: Literal, test: Callable[[int], bool]) -> bool:
    """pyshacl's sh:min/maxIn/Exclusive test: literals of comparable kinds only, compared with compare_literal."""
    if not isinstance(value, Literal) or isinstance(bound.value, str) != isinstance(value.value, str):
        return False
    try:
        return test(compare_literal(value, bound))
    except (TypeError, NotImplementedError):
        return False


def pair_ok(value: Node, other: Node, strict: bool) -> bool:
    """pyshacl's sh:lessThanOrEquals / sh:lessThan test on one value and one compared value."""
    if isinstance(value, BNode) or isinstance(other, BNode):
        raise Unsupported("pyshacl refuses to compare blank nodes")
    left: object = str(value) if isinstance(value, URIRef) else value
    right: object = str(other) if isinstance(other, URIRef) else other
    left = value.value if isinstance(value, Literal) and isinstance(value.value, str) else left
    right = other.value if isinstance(other, Literal) and isinstance(other.value, str) else right
    if isinstance(left, str) != isinstance(right, str):
        return False
    try:
        return bool(left < right if strict else left <= right)  # type: ignore[operator]
    except TypeError as error:
        raise Unsupported(f"pyshacl fails comparing {value!r} and {other!r}") from error
