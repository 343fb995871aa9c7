"""Store: named graphs, the merged default graph, atomic swap, and failed builds that change nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef

from kg.config import Config
from kg.errors import SourceErrors, StoreMissing, ValidationFailed
from kg.pipeline import build
from kg.store import Store, write_store

from .repo_data import copy_repo_data


def test_named_graphs(store: Store) -> None:
    names = store.graph_names()
    base = "https://kg.example.org/graph/"
    assert {base + n for n in ("inferred", "ontology", "reference", "profile/ziheng-jiang",
                               "profile/wencong-xiao")} == set(names)


def test_default_graph_is_the_set_union_of_named_graphs(store: Store) -> None:
    union = {q.triple for q in store.quads()}
    assert set(store.default_triples()) == union


def test_metadata_counts_match_the_store(store: Store) -> None:
    for graph, count in store.metadata["triples"].items():
        assert sum(1 for _ in store.quads(graph)) == count


def test_open_without_build_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(StoreMissing, match="kg build"):
        Store.open(tmp_path / "nothing")


def test_swap_replaces_the_link_and_keeps_two_versions(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    g = Graph()
    for n in range(4):
        g.add((URIRef("http://e/s"), URIRef("http://e/p"), Literal(n)))
        write_store(store_dir, {URIRef("http://e/g"): g}, {"triples": {"http://e/g": len(g)}})
    assert store_dir.is_symlink() and os.readlink(store_dir) == "store.v4"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store", "store.v3", "store.v4"]
    assert sum(1 for _ in Store.open(store_dir).quads("http://e/g")) == 4


def _copy_data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    copy_repo_data(data)
    return data


def test_failed_build_leaves_previous_store_untouched(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    config = Config(data=data, store=tmp_path / "store")
    build(config)
    before = os.readlink(config.store)
    profile = data / "profiles" / "ziheng-jiang.yaml"
    profile.write_text(profile.read_text(encoding="utf-8").replace("year: 2018", "year: 2O18", 1), encoding="utf-8")
    with pytest.raises(SourceErrors) as info:
        build(config)
    assert "profiles/ziheng-jiang.yaml:" in str(info.value) and ".year" in str(info.value)
    assert os.readlink(config.store) == before
    assert Store.open(config.store).metadata["profiles"] == 2


def test_shacl_violation_stops_the_build(tmp_path: Path) -> None:
    data = _copy_data(tmp_path)
    config = Config(data=data, store=tmp_path / "store")
    profile = data / "profiles" / "wencong-xiao.yaml"
    text = profile.read_text(encoding="utf-8").replace("affiliation: bytedance-seed",
                                                       "affiliation: bytedance-seed\nemail: not-an-email")
    profile.write_text(text, encoding="utf-8")
    with pytest.raises(ValidationFailed) as info:
        build(config)
    assert "profiles/wencong-xiao.yaml" in info.value.report.text()
    assert not config.store.exists()
