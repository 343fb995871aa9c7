"""RDF terms between rdflib and pyoxigraph: to_ox and from_ox, and the type names of either side's terms.

>>> to_ox(URIRef("https://example.org/a"))
<NamedNode value=https://example.org/a>
>>> from_ox(ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
rdflib.term.Literal('1', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import TypeAlias, overload

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

OxTerm: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal
"""A pyoxigraph term that to_ox makes and from_ox reads (no quoted triples)."""
OxSubject: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Triple
"""What pyoxigraph allows as a subject (a quoted triple included)."""
OxObject: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
"""What pyoxigraph allows as an object (a quoted triple included)."""
OxGraphName: TypeAlias = ox.NamedNode | ox.BlankNode | ox.DefaultGraph
"""A pyoxigraph graph name: a named graph, or the default graph."""
RdfTerm: TypeAlias = URIRef | BNode | Literal
"""An rdflib term that from_ox makes and to_ox reads."""


@overload
def to_ox(term: URIRef | ox.NamedNode) -> ox.NamedNode: ...
@overload
def to_ox(term: BNode | ox.BlankNode) -> ox.BlankNode: ...
@overload
def to_ox(term: Literal | ox.Literal) -> ox.Literal: ...
@overload
def to_ox(term: Node | OxTerm) -> OxTerm: ...
def to_ox(term: Node | OxTerm) -> OxTerm:
    """Convert an rdflib term to a pyoxigraph term (a pyoxigraph term is returned as it is)."""
    if isinstance(term, (ox.NamedNode, ox.BlankNode, ox.Literal)):
        return term
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(f"cannot convert {term!r}")


def triple_to_ox(subject: Node, predicate: Node, obj: Node) -> ox.Triple:
    """An rdflib triple as a pyoxigraph triple (TypeError for a literal subject or a predicate that is no IRI)."""
    s, p = to_ox(subject), to_ox(predicate)
    if isinstance(s, ox.Literal) or not isinstance(p, ox.NamedNode):
        raise TypeError(f"cannot convert the triple ({subject!r}, {predicate!r}, {obj!r})")
    return ox.Triple(s, p, to_ox(obj))


@overload
def from_ox(term: ox.NamedNode) -> URIRef: ...
@overload
def from_ox(term: ox.BlankNode) -> BNode: ...
@overload
def from_ox(term: ox.Literal) -> Literal: ...
@overload
def from_ox(term: OxObject | ox.DefaultGraph) -> RdfTerm: ...
def from_ox(term: OxObject | ox.DefaultGraph) -> RdfTerm:
    """Convert a pyoxigraph term to an rdflib term (TypeError for a quoted triple or the default graph)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        if term.datatype.value == XSD_STRING:
            return Literal(term.value)
        return Literal(term.value, datatype=URIRef(term.datatype.value))
    raise TypeError(f"cannot convert {term!r}")


CHUNK = 200_000  # quads per bulk load: Oxigraph's bulk loader holds a whole batch (and Python its objects) at once


def bulk_extend_chunked(store: ox.Store, quads: Iterable[ox.Quad], chunk: int | None = None) -> None:
    """Bulk-load quads in batches of at most chunk (CHUNK by default), so memory stays bounded however many."""
    iterator, size = iter(quads), chunk or CHUNK
    while batch := list(islice(iterator, size)):
        store.bulk_extend(batch)


__all__ = ["CHUNK", "OxGraphName", "OxObject", "OxSubject", "OxTerm", "RdfTerm", "bulk_extend_chunked", "from_ox",
           "to_ox", "triple_to_ox"]
