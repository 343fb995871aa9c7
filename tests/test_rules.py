"""The rule engine gives exactly owlrl's inferred A-box (differential tests), and refuses what it cannot do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rdflib import Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS

from kg.iris import Minter
from kg.mapping import map_corpus
from kg.model import parse_corpus
from kg.reasoning import infer
from kg.rules import unsupported_axioms
from kg.sources import read_data_dir

from .conftest import PROJECT_ROOT, assert_isomorphic

EX = Namespace("http://example.org/")


def test_same_inferences_as_owlrl_on_the_seed_graph(asserted: Graph, ontology: Graph) -> None:
    assert_isomorphic(infer(asserted, ontology, "rules"), infer(asserted, ontology, "owlrl"))


@pytest.mark.parametrize("triples", [1000, 10000])
def test_same_inferences_as_owlrl_on_synthetic_corpora(tmp_path: Path, ontology: Graph, triples: int) -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(triples, tmp_path)
    mapped = map_corpus(parse_corpus(read_data_dir(tmp_path)), Minter())
    asserted = Graph()
    for graph in mapped.graphs.values():
        asserted += graph
    assert_isomorphic(infer(asserted, ontology, "rules"), infer(asserted, ontology, "owlrl"))


def _toy_ontology() -> Graph:
    ontology = Graph()
    ontology.add((EX.ancestorOf, RDF.type, OWL.TransitiveProperty))
    ontology.add((EX.parentOf, RDFS.subPropertyOf, EX.ancestorOf))
    ontology.add((EX.marriedTo, RDF.type, OWL.SymmetricProperty))
    ontology.add((EX.childOf, OWL.inverseOf, EX.parentOf))
    ontology.add((EX.parentOf, RDFS.domain, EX.Parent))
    ontology.add((EX.parentOf, RDFS.range, EX.Child))
    ontology.add((EX.Parent, RDFS.subClassOf, EX.Person))
    chain = Graph()
    head = URIRef("http://example.org/chain")
    Collection(chain, head, [EX.parentOf, EX.parentOf])
    ontology += chain
    ontology.add((EX.grandparentOf, OWL.propertyChainAxiom, head))
    return ontology


def test_transitive_symmetric_inverse_domain_range_and_chains_match_owlrl() -> None:
    data = Graph()
    for a, b in (("a", "b"), ("b", "c"), ("c", "d")):
        data.add((EX[a], EX.parentOf, EX[b]))
    data.add((EX.a, EX.marriedTo, EX.z))
    ontology = _toy_ontology()
    rules, reference = infer(data, ontology, "rules"), infer(data, ontology, "owlrl")
    assert_isomorphic(rules, reference)
    assert (EX.a, EX.grandparentOf, EX.c) in rules and (EX.a, EX.ancestorOf, EX.d) in rules
    assert (EX.z, EX.marriedTo, EX.a) in rules and (EX.d, EX.childOf, EX.c) in rules


def test_unsupported_axioms_fall_back_to_owlrl() -> None:
    ontology = Graph()
    ontology.add((EX.knows, RDF.type, OWL.FunctionalProperty))
    ontology.add((EX.knows, RDF.type, OWL.ObjectProperty))
    assert unsupported_axioms(ontology) == [(EX.knows, RDF.type, OWL.FunctionalProperty)]
    data = Graph()
    data.add((EX.a, EX.knows, EX.b))
    data.add((EX.a, EX.knows, EX.c))
    assert (EX.b, OWL.sameAs, EX.c) in infer(data, ontology, "rules")


def test_project_ontology_is_fully_supported(ontology: Graph) -> None:
    assert unsupported_axioms(ontology) == []


def test_unknown_reasoner_is_refused(asserted: Graph, ontology: Graph) -> None:
    with pytest.raises(ValueError, match="unknown reasoner"):
        infer(asserted, ontology, "magic")
