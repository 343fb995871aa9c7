"""OWL 2 RL materialisation: returns only the new, meaningful A-box triples."""

from __future__ import annotations

import logging
from collections.abc import Container, Iterable

import owlrl
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from ..namespaces import OWL, RDF, RDFS, bind_prefixes
from .rules import Triple, materialize, unsupported_axioms

SCHEMA_NAMESPACES = (str(RDF), str(RDFS), str(OWL), "http://www.w3.org/2001/XMLSchema#")
UNINFORMATIVE_TYPES = {OWL.Thing, RDFS.Resource, OWL.NamedIndividual, RDFS.Class, OWL.Class}
REASONERS = ("rules", "owlrl")
logger = logging.getLogger(__name__)


def _copy(*graphs: Graph) -> Graph:
    merged = Graph()
    for graph in graphs:
        for triple in graph:
            merged.add(triple)
    return merged


def is_meaningful(triple: Triple, abox_nodes: Container[Node]) -> bool:
    """Whether an inferred triple is worth storing: about A-box nodes, not axiomatic, not reflexive."""
    s, p, o = triple
    if isinstance(s, Literal) or s not in abox_nodes:
        return False
    if p == OWL.sameAs and s == o:
        return False
    if p == RDF.type:
        return isinstance(o, URIRef) and o not in UNINFORMATIVE_TYPES and not str(o).startswith(SCHEMA_NAMESPACES)
    return p == OWL.sameAs or not str(p).startswith(SCHEMA_NAMESPACES)


def owlrl_closure(asserted: Graph, ontology: Graph) -> Graph:
    """owlrl's OWL 2 RL closure of asserted data plus ontology (the reference implementation)."""
    closure = _copy(asserted, ontology)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(closure)
    return closure


def infer(asserted: Graph, ontology: Graph, reasoner: str = "rules") -> Graph:
    """New, meaningful triples of the OWL 2 RL closure of asserted data plus ontology.

    reasoner "rules" uses the project's semi-naive engine (exact for the axioms it supports, falling back
    to owlrl when the ontology uses others); "owlrl" uses owlrl. The input graphs are never modified.
    """
    inferred = bind_prefixes(Graph())
    for triple in inferred_triples([asserted], ontology, reasoner):
        inferred.add(triple)
    return inferred


def inferred_triples(graphs: Iterable[Graph], ontology: Graph, reasoner: str = "rules") -> set[Triple]:
    """infer() over the union of several graphs, as a set of triples, without merging them into one graph."""
    if reasoner not in REASONERS:
        raise ValueError(f"unknown reasoner {reasoner!r}; choose one of {', '.join(REASONERS)}")
    unsupported = unsupported_axioms(ontology) if reasoner == "rules" else []
    if unsupported:
        logger.warning("ontology uses axioms the rule engine does not implement (%s); using owlrl", unsupported[0])
    asserted: set[Triple] = set()
    for graph in graphs:
        asserted.update(graph)
    known = asserted | set(ontology)
    if reasoner == "owlrl" or unsupported:
        merged = Graph()
        for triple in asserted:
            merged.add(triple)
        closure: Iterable[Triple] = owlrl_closure(merged, ontology)
    else:
        closure = materialize(known, ontology)
    abox_nodes = {term for triple in asserted for term in (triple[0], triple[2]) if isinstance(term, (URIRef, BNode))}
    return {triple for triple in closure if triple not in known and is_meaningful(triple, abox_nodes)}
