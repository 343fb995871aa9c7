"""The value tests that need the data's own literal: sh:datatype (well-formedness) and the text sh:pattern reads.

Both read the rdflib term the data holds (``terms.TermMap`` gives it back for a stored one): a literal is
well-formed for its datatype when rdflib could read its lexical form as a value of that type.
"""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal

from rdflib import Literal
from rdflib.namespace import RDF, RDFS, XSD
from rdflib.term import Node


class Unsupported(Exception):
    """The shapes use a feature this engine does not evaluate exactly as pyshacl does."""


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
