"""Terms between rdflib and the validation store: any term written into a query, every literal reported as given.

Oxigraph stores typed literals in canonical form ("1.50"^^xsd:decimal as "1.5", "1"^^xsd:boolean as "true"),
lower-cases language tags and keeps no trace of a literal rdflib parsed as ill-typed. The validation store is
loaded here, and ``TermMap`` remembers, for each stored literal that differs from the literal the data holds,
the literal as given, so value tests judge (and reports name) the data's own terms.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Literal
from rdflib.namespace import XSD
from rdflib.term import Node

from ..terms import bulk_extend_chunked, from_ox, to_ox
from .values import Unsupported

OxTerm = Any  # a pyoxigraph NamedNode, BlankNode or Literal
SCRATCH = ox.NamedNode("urn:kg:shacl-core:scratch")


def sparql_term(node: Node) -> str:
    """A term written in SPARQL syntax (IRIs and literals of any datatype or language; no blank nodes)."""
    if isinstance(node, BNode):
        raise Unsupported(f"blank node {node.n3()} cannot be written in a query")
    return str(to_ox(node))


class TermMap:
    """Stored terms back to the data's own rdflib terms."""

    def __init__(self, originals: dict[OxTerm, Node] | None = None) -> None:
        self.originals = originals or {}

    def learn(self, literals: Iterable[Node]) -> None:
        """Remember the stored forms of more literals (those of triples added to a kept store)."""
        changing = [t for t in dict.fromkeys(literals) if isinstance(t, Literal) and _differs(t)]
        if changing:
            self.originals.update(_stored_forms(changing))

    def rdf(self, term: OxTerm) -> Node:
        """The data's term for a stored one."""
        found = self.originals.get(term)
        return found if found is not None else from_ox(term)


def _differs(literal: Literal) -> bool:
    """Whether Oxigraph may store a literal otherwise than rdflib holds it."""
    if getattr(literal, "ill_typed", None) is True:
        return True
    if literal.language:
        return literal.language != literal.language.lower()
    return literal.datatype is not None and literal.datatype != XSD.string


def _stored_forms(literals: list[Literal]) -> dict[OxTerm, Node]:
    """How Oxigraph stores each literal that may change, when it changes (or is ill-typed in the data)."""
    scratch = ox.Store()
    scratch.bulk_extend(ox.Quad(ox.NamedNode(f"urn:kg:term:{number}"), SCRATCH, to_ox(literal))
                        for number, literal in enumerate(literals))
    originals: dict[OxTerm, Node] = {}
    for quad in scratch.quads_for_pattern(None, SCRATCH, None, None):
        if not isinstance(quad.subject, ox.NamedNode):
            continue
        literal = literals[int(quad.subject.value.rsplit(":", 1)[1])]
        if getattr(literal, "ill_typed", None) is True or from_ox(quad.object) != literal:
            originals[quad.object] = literal
    return originals


def load_store(triples: Iterable[tuple[Node, Node, Node]]) -> tuple[ox.Store, TermMap]:
    """An in-memory store of the triples, and the map back from stored to given literals.

    Raises:
        ValueError: a term Oxigraph refuses (an IRI with a space, a malformed language tag).
    """
    terms: dict[Node, OxTerm] = {}
    changing: list[Literal] = []

    def quads() -> Iterator[ox.Quad]:
        for s, p, o in triples:
            for term in (s, p, o):
                if term not in terms:
                    terms[term] = to_ox(term)
                    if isinstance(term, Literal) and _differs(term):
                        changing.append(term)
            yield ox.Quad(terms[s], terms[p], terms[o])

    store = ox.Store()
    bulk_extend_chunked(store, quads())
    return store, TermMap(_stored_forms(changing) if changing else {})


__all__ = ["OxTerm", "TermMap", "load_store", "sparql_term"]
