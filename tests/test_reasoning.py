"""Reasoning: only new, meaningful triples; the asserted graph untouched; the alignments hold."""

from __future__ import annotations

from rdflib import BNode, Graph, Literal
from rdflib.namespace import FOAF, OWL, RDF

from kg.iris import Minter
from kg.namespaces import BIBO, KG, SDO
from kg.reasoning import infer


def test_inferred_triples_are_new_and_meaningful(asserted: Graph, ontology: Graph) -> None:
    inferred = infer(asserted, ontology)
    assert len(inferred) > 0
    for s, p, o in inferred:
        assert (s, p, o) not in asserted
        assert not isinstance(s, Literal)
        assert not (p == OWL.sameAs and s == o)
        assert o not in (OWL.Thing,)


def test_asserted_graph_is_not_modified(asserted: Graph, ontology: Graph) -> None:
    before = set(asserted)
    infer(asserted, ontology)
    assert set(asserted) == before


def test_reasoning_is_idempotent(asserted: Graph, ontology: Graph) -> None:
    inferred = infer(asserted, ontology)
    again = infer(asserted + inferred, ontology)
    assert len(again) == 0


def test_alignments(asserted: Graph, ontology: Graph, minter: Minter) -> None:
    inferred = infer(asserted, ontology)
    ziheng = minter.person("ziheng-jiang")
    seed, bytedance = minter.organization("bytedance-seed"), minter.organization("bytedance")
    tvm = minter.work("tvm-an-automated-end-to-end-optimizing-compiler-for-deep")
    assert (ziheng, RDF.type, FOAF.Person) in inferred
    assert (bytedance, SDO.subOrganization, seed) in inferred
    assert (tvm, RDF.type, SDO.CreativeWork) in inferred
    assert (tvm, RDF.type, BIBO.Document) in inferred
    assert (minter.person("tianqi-chen"), KG.advisee, ziheng) in inferred
    assert (ziheng, FOAF.knows, minter.person("luis-ceze")) in inferred


def test_blank_node_subjects_kept_when_asserted(ontology: Graph) -> None:
    data = Graph()
    node = BNode("p1")
    data.add((node, RDF.type, SDO.Person))
    assert (node, RDF.type, FOAF.Person) in infer(data, ontology)
