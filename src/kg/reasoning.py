"""OWL 2 RL materialisation: returns only the new, meaningful A-box triples."""

from __future__ import annotations

import owlrl
from rdflib import BNode, Graph, Literal, URIRef

from .namespaces import OWL, RDF, RDFS, bind_prefixes

SCHEMA_NAMESPACES = (str(RDF), str(RDFS), str(OWL), "http://www.w3.org/2001/XMLSchema#")
UNINFORMATIVE_TYPES = {OWL.Thing, RDFS.Resource, OWL.NamedIndividual, RDFS.Class, OWL.Class}


def _copy(*graphs: Graph) -> Graph:
    merged = Graph()
    for graph in graphs:
        for triple in graph:
            merged.add(triple)
    return merged


def is_meaningful(triple: tuple, abox_nodes: set) -> bool:  # type: ignore[type-arg]
    """Whether an inferred triple is worth storing: about A-box nodes, not axiomatic, not reflexive."""
    s, p, o = triple
    if isinstance(s, Literal) or s not in abox_nodes:
        return False
    if p == OWL.sameAs and s == o:
        return False
    if p == RDF.type:
        return isinstance(o, URIRef) and o not in UNINFORMATIVE_TYPES and not str(o).startswith(SCHEMA_NAMESPACES)
    return not str(p).startswith(SCHEMA_NAMESPACES)


def infer(asserted: Graph, ontology: Graph) -> Graph:
    """OWL 2 RL closure (owlrl) of asserted data plus ontology, minus what was already there.

    The input graphs are never modified.
    """
    closure = _copy(asserted, ontology)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(closure)
    abox_nodes = {term for triple in asserted for term in (triple[0], triple[2])
                  if isinstance(term, (URIRef, BNode))}
    inferred = bind_prefixes(Graph())
    for triple in closure:
        if triple not in asserted and triple not in ontology and is_meaningful(triple, abox_nodes):
            inferred.add(triple)
    return inferred
