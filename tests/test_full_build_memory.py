"""The lean full build (issue 33): mapped graphs held as triple lists, bulk loads in batches, the same store."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef

from kg.config import Config
from kg.iris import Minter
from kg.mapping.cache import LazyGraph
from kg.namespaces import RDF, SDO
from kg.pipeline import build, map_data
from kg.reasoning import inferred_triples
from kg.store import Store, is_log_graph
from kg.terms import bulk_extend_chunked
from kg.turtle_files import load_turtle_dir

from .conftest import PROJECT_ROOT


def _data_quads(store: ox.Store) -> set[ox.Quad]:
    """Every quad but the change records (which name their build and its times)."""
    return {q for q in store.quads_for_pattern(None, None, None, None)
            if not (isinstance(q.graph_name, ox.NamedNode) and is_log_graph(q.graph_name.value))}


def test_a_full_build_stores_what_the_in_memory_pipeline_makes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    monkeypatch.setattr("kg.terms.CHUNK", 997)  # many small batches, each a separate bulk load
    generate(3000, tmp_path / "data")
    config = Config(data=tmp_path / "data", store=tmp_path / "work" / "store")
    build(config)
    _, mapped = map_data(config)  # rdflib graphs with their indexes, no cache, nothing streamed
    assert not any(isinstance(graph, LazyGraph) for graph in mapped.graphs.values())
    ontology = load_turtle_dir(config.ontology)
    minter = Minter(config.base)
    inferred = Graph()
    for triple in inferred_triples(mapped.graphs.values(), ontology):
        inferred.add(triple)
    graphs = {**mapped.graphs, minter.graph("ontology"): ontology, minter.graph("inferred"): inferred}
    expected = Store.in_memory(graphs)
    built = Store.open(config.store)
    mine, theirs = _data_quads(built.ox), _data_quads(expected.ox)
    assert len(theirs) > 4000
    assert mine == theirs, f"{len(mine - theirs)} extra quads, {len(theirs - mine)} missing"
    assert built.log_graph_names(), "the first build's change record is written"


def _triples() -> list[tuple[URIRef, URIRef, URIRef | Literal]]:
    ada, bob = URIRef("https://kg.example.org/person/ada"), URIRef("https://kg.example.org/person/bob")
    return [(ada, RDF.type, SDO.Person), (ada, SDO.name, Literal("Ada")), (bob, RDF.type, SDO.Person),
            (ada, SDO.knows, bob)]


@pytest.mark.parametrize("pickled", [False, True])
def test_a_lazy_graph_scans_without_indexing_and_answers_as_rdflib(pickled: bool) -> None:
    triples = _triples()
    plain = Graph()
    for triple in triples:
        plain.add(triple)
    lazy = LazyGraph(pickle.dumps(triples) if pickled else list(triples), len(triples))
    assert len(lazy) == 4 and set(lazy) == set(plain) and set(lazy.subjects()) == set(plain.subjects())
    assert not lazy.loaded, "full scans and len() build no index"
    ada = triples[0][0]
    assert set(lazy.objects(ada, RDF.type)) == {SDO.Person}  # a search indexes the graph
    assert lazy.loaded and set(lazy) == set(plain) and len(lazy) == 4


def test_bulk_loads_in_batches_keep_every_quad() -> None:
    graph = ox.NamedNode("https://kg.example.org/graph/g")
    quads = [ox.Quad(ox.NamedNode(f"https://kg.example.org/n/{i}"), ox.NamedNode("https://kg.example.org/p"),
                     ox.Literal(str(i)), graph) for i in range(25)]
    store = ox.Store()
    bulk_extend_chunked(store, iter(quads), chunk=4)
    assert set(store) == set(quads)
