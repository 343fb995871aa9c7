"""The rule engine gives exactly owlrl's inferred A-box (differential tests), and refuses what it cannot do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS

from kg.iris import Minter
from kg.mapping import map_corpus
from kg.parsing import parse_corpus
from kg.reasoning import infer
from kg.reasoning.rules import LocalRules, Materializer, compile_rules, has_joins, unsupported_axioms
from kg.sources import read_data_dir

from .conftest import PROJECT_ROOT, assert_isomorphic

EX = Namespace("http://example.org/")


def test_same_inferences_as_owlrl_on_the_seed_graph(asserted: Graph, ontology: Graph) -> None:
    assert_isomorphic(infer(asserted, ontology, "rules"), infer(asserted, ontology, "owlrl"))


@pytest.mark.parametrize("triples", [1000, 10000])
@pytest.mark.slow
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


def _local_ontology() -> Graph:
    """The toy ontology without its joins (transitivity, the chain): every rule reads one triple."""
    ontology = Graph()
    ontology.add((EX.parentOf, RDFS.subPropertyOf, EX.relativeOf))
    ontology.add((EX.marriedTo, RDF.type, OWL.SymmetricProperty))
    ontology.add((EX.childOf, OWL.inverseOf, EX.parentOf))
    ontology.add((EX.parentOf, RDFS.domain, EX.Parent))
    ontology.add((EX.parentOf, RDFS.range, EX.Child))
    ontology.add((EX.age, RDFS.domain, EX.Person))
    ontology.add((EX.Parent, RDFS.subClassOf, EX.Person))
    ontology.add((EX.relativeOf, OWL.equivalentProperty, EX.kinOf))
    return ontology


def _toy_data() -> Graph:
    data = Graph()
    data.add((EX.a, EX.parentOf, EX.b))
    data.add((EX.b, EX.childOf, EX.c))
    data.add((EX.a, EX.marriedTo, EX.a))
    data.add((EX.c, EX.age, Literal(40)))
    data.add((EX.d, RDF.type, EX.Parent))
    data.add((EX.e, EX.kinOf, EX.f))
    return data


@pytest.mark.parametrize("which", ["toy", "project"])
def test_local_rules_closure_is_the_materializer_closure(which: str, asserted: Graph, ontology: Graph) -> None:
    data, onto = (_toy_data(), _local_ontology()) if which == "toy" else (asserted, ontology)
    rules = compile_rules(onto)
    seeds = set(data) | set(onto)
    local = LocalRules(rules)
    assert local.closure_of(seeds) == Materializer(rules).run(seeds)
    assert (EX.c, RDF.type, EX.Person) in local.closure_of(_toy_data()) or which == "project"


@pytest.mark.parametrize("which", ["toy", "project"])
def test_every_source_of_a_derived_triple_matches_one_of_its_patterns(which: str, asserted: Graph,
                                                                      ontology: Graph) -> None:
    data, onto = (_toy_data(), _local_ontology()) if which == "toy" else (asserted, ontology)
    local = LocalRules(compile_rules(onto))
    checked = 0
    for source in set(data) | set(onto):
        for derived in local.closure(source):
            patterns = local.source_patterns(derived)
            assert any(all(term is None or term == value for term, value in zip(pattern, source, strict=True))
                       for pattern in patterns), (source, derived)
            checked += 1
    assert checked > len(data)


def test_local_rules_refuse_rule_sets_with_joins() -> None:
    rules = compile_rules(_toy_ontology())
    assert has_joins(rules) and not has_joins(compile_rules(_local_ontology()))
    with pytest.raises(ValueError, match="joins"):
        LocalRules(rules)
