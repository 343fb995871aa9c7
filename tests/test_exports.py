"""Exports: every format round-trips to the store's graph, and reruns are byte-identical."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Dataset, Graph, URIRef

from kg.config import Config
from kg.exports import Selection, export
from kg.pipeline import build
from kg.store import Store

from .conftest import REPO_DATA, assert_isomorphic

TRIPLE_FORMATS = {"turtle": "turtle", "nt": "nt", "jsonld": "json-ld"}


@pytest.mark.parametrize("fmt", sorted(TRIPLE_FORMATS))
@pytest.mark.slow
def test_triple_formats_round_trip(store: Store, fmt: str) -> None:
    data = export(store, fmt)
    parsed = Graph().parse(data=data, format=TRIPLE_FORMATS[fmt])
    assert_isomorphic(parsed, store.rdflib_graph())


@pytest.mark.parametrize("fmt", ["nq", "trig"])
def test_quad_formats_keep_named_graphs(store: Store, fmt: str) -> None:
    dataset = Dataset()
    dataset.parse(data=export(store, fmt), format={"nq": "nquads", "trig": "trig"}[fmt])
    for name in store.graph_names():
        assert_isomorphic(Graph() + dataset.graph(URIRef(name)), store.rdflib_graph(name))


def test_selection(store: Store) -> None:
    inferred = Graph().parse(data=export(store, "nt", Selection.INFERRED), format="nt")
    asserted = Graph().parse(data=export(store, "nt", Selection.ASSERTED), format="nt")
    assert len(inferred) == store.metadata["triples"]["https://kg.example.org/graph/inferred"]
    assert not set(inferred) & set(asserted)


def test_rebuild_gives_byte_identical_exports(tmp_path: Path, store: Store) -> None:
    config = Config(data=REPO_DATA, store=tmp_path / "store")
    build(config)
    rebuilt = Store.open(config.store)
    for fmt in ("turtle", "nt", "nq", "trig", "jsonld"):
        assert export(rebuilt, fmt) == export(store, fmt), fmt


def test_jsonld_uses_the_local_context(store: Store) -> None:
    import json

    document = json.loads(export(store, "jsonld"))
    assert document["@context"]["authorList"]["@container"] == "@list"
    assert any(isinstance(node.get("authorList"), list) for node in document["@graph"])
