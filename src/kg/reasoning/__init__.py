"""OWL 2 RL materialisation: returns only the new, meaningful A-box triples."""

from __future__ import annotations

import logging
from collections.abc import Container, Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from ..namespaces import OWL, RDF, RDFS, bind_prefixes
from .equality import NeedsOwlrl, materialize
from .rules import Triple, unsupported_axioms

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
    if isinstance(s, Literal) or isinstance(p, BNode) or s not in abox_nodes:
        return False  # owlrl drops triples with blank-node predicates after its fixpoint
    if p == OWL.sameAs and s == o:
        return False
    if p == RDF.type:
        return isinstance(o, URIRef) and o not in UNINFORMATIVE_TYPES and not str(o).startswith(SCHEMA_NAMESPACES)
    return p == OWL.sameAs or not str(p).startswith(SCHEMA_NAMESPACES)


def owlrl_closure(asserted: Graph, ontology: Graph) -> Graph:
    """owlrl's OWL 2 RL closure of asserted data plus ontology (the reference implementation; imported here, on
    its first use, so that servers and the rule engine never load it)."""
    import owlrl

    closure = _copy(asserted, ontology)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(closure)
    return closure


def infer(asserted: Graph, ontology: Graph, reasoner: str = "rules") -> Graph:
    """New, meaningful triples of the OWL 2 RL closure of asserted data plus ontology.

    reasoner "rules" uses the project's semi-naive engine (exact, falling back to owlrl when it could not be:
    see ``closure``); "owlrl" uses owlrl. The input graphs are never modified.
    """
    inferred = bind_prefixes(Graph())
    for triple in inferred_triples([asserted], ontology, reasoner):
        inferred.add(triple)
    return inferred


def inferred_triples(graphs: Iterable[Graph], ontology: Graph, reasoner: str = "rules") -> set[Triple]:
    """infer() over the union of several graphs, as a set of triples, without merging them into one graph."""
    if reasoner not in REASONERS:
        raise ValueError(f"unknown reasoner {reasoner!r}; choose one of {', '.join(REASONERS)}")
    known: set[Triple] = set()  # the asserted triples, then the ontology's: one set, not a copy of the data per use
    abox_nodes: set[Node] = set()
    for graph in graphs:
        batch = list(graph)  # one graph at a time: the triples themselves are shared, not copied
        known.update(batch)
        abox_nodes.update(s for s, _, _ in batch if isinstance(s, (URIRef, BNode)))
        abox_nodes.update(o for _, _, o in batch if isinstance(o, (URIRef, BNode)))
    known.update(ontology)
    return {triple for triple in closure(known, ontology, reasoner)
            if triple not in known and is_meaningful(triple, abox_nodes)}


def closure(known: set[Triple], ontology: Graph, reasoner: str = "rules") -> Iterable[Triple]:
    """The closure of known (asserted and ontology) triples; the one place choosing the rule engine or owlrl.

    The rule engine is used for reasoner "rules" unless (1) the ontology has axioms it does not implement
    (``rules.unsupported_axioms``), or (2) the data makes a case of owl:sameAs it does not reproduce
    (``equality.NeedsOwlrl``: a literal or an RDF/RDFS/OWL/XSD term made sameAs another node, a functional
    property with two values for one subject). Then owlrl computes the closure and the reason is logged.
    """
    reason = None
    if reasoner == "rules":
        unsupported = unsupported_axioms(ontology)
        if not unsupported:
            try:
                return materialize(known, ontology)
            except NeedsOwlrl as refusal:
                reason = f"the data needs equality reasoning the rule engine does not implement: {refusal}"
        else:
            reason = f"the ontology uses axioms the rule engine does not implement ({unsupported[0]})"
        logger.warning("%s; using owlrl", reason)
    merged = Graph()
    for triple in known:
        merged.add(triple)
    return owlrl_closure(merged, ontology)
