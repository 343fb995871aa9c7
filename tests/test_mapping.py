"""Mapping: golden graphs by isomorphism, IRIs stable, authors ordered three ways."""

from __future__ import annotations

from pathlib import Path

from rdflib import Graph, Literal, URIRef
from rdflib.collection import Collection

from kg.iris import Minter
from kg.mapping import MappedGraphs, map_corpus
from kg.model import Corpus
from kg.namespaces import BIBO, KG, SDO
from kg.parsing import parse_corpus
from kg.sources import read_data_dir

from .conftest import assert_isomorphic

DATA = Path(__file__).parent / "data"


def test_fixture_profile_matches_golden_graph(minter: Minter) -> None:
    mapped = map_corpus(parse_corpus(read_data_dir(DATA)), minter)
    actual = mapped.graphs[minter.graph("profile/ada-lovelace")]
    expected = Graph().parse(DATA / "expected" / "ada-lovelace.ttl")
    assert_isomorphic(actual, expected)


def test_mapping_is_deterministic(corpus: Corpus, minter: Minter) -> None:
    first, second = map_corpus(corpus, minter), map_corpus(corpus, minter)
    assert sorted(first.graphs) == sorted(second.graphs)
    for iri, graph in first.graphs.items():
        assert set(graph) == set(second.graphs[iri])


def test_each_profile_has_its_own_graph_with_provenance(mapped: MappedGraphs, minter: Minter) -> None:
    from rdflib.namespace import PROV

    for slug in ("ziheng-jiang", "wencong-xiao"):
        iri = minter.graph(f"profile/{slug}")
        graph = mapped.graphs[iri]
        assert (iri, PROV.wasDerivedFrom, minter.source(f"profiles/{slug}.yaml")) in graph
        assert (minter.person(slug), SDO.name, None) in graph


def test_authors_in_order_three_ways(asserted: Graph, minter: Minter) -> None:
    work = minter.work("efficient-deep-learning-inference-on-edge-devices")
    expected = [minter.person(s) for s in ("ziheng-jiang", "tianqi-chen", "mu-li")]
    head = asserted.value(work, BIBO.authorList)
    assert list(Collection(asserted, head)) == expected
    assert set(asserted.objects(work, SDO.author)) == set(expected)
    ranks = {}
    for authorship in asserted.objects(work, KG.authorship):
        ranks[int(asserted.value(authorship, KG.rank))] = asserted.value(authorship, KG.agent)
    assert [ranks[r] for r in sorted(ranks)] == expected


def test_equal_contribution_and_elision(asserted: Graph, minter: Minter) -> None:
    megascale = minter.work("megascale-scaling-large-language-model-training-to-more")
    marked = {asserted.value(a, KG.nameAsWritten) for a in asserted.objects(megascale, KG.authorship)
              if asserted.value(a, KG.equalContribution) == Literal(True)}
    assert marked == {Literal("Ziheng Jiang"), Literal("Haibin Lin"), Literal("Yinmin Zhong")}
    robust = minter.work("robust-llm-training-infrastructure-at-bytedance")
    assert asserted.value(robust, KG.authorListComplete) == Literal(False)
    after_gap = [a for a in asserted.objects(robust, KG.authorship) if (a, KG.precededByElision, None) in asserted]
    assert [asserted.value(a, KG.nameAsWritten) for a in after_gap] == [Literal("Wencong Xiao")]


def test_iris_live_under_the_configured_base(corpus: Corpus) -> None:
    minter = Minter("http://data.example.edu/kg/")
    mapped = map_corpus(corpus, minter)
    subjects = {s for g in mapped.graphs.values() for s in g.subjects() if isinstance(s, URIRef)}
    assert subjects and all(str(s).startswith("http://data.example.edu/kg/") for s in subjects)
