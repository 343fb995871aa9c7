"""Sharded, cached validation gives the same report as one full pyshacl run (differential tests)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest
from rdflib import Graph

from kg.iris import Minter
from kg.mapping import MappedGraphs, map_corpus
from kg.parsing import parse_corpus
from kg.sources import read_data_dir
from kg.validation import validate_graphs
from kg.validation.shards import validate_sharded

from .conftest import PROJECT_ROOT
from .repo_data import copy_repo_data

REFERENCE = Minter().graph("reference")


def _map(data: Path) -> MappedGraphs:
    return map_corpus(parse_corpus(read_data_dir(data)), Minter())


def _same(mapped: MappedGraphs, shapes: Graph, ontology: Graph, **options: Any) -> None:
    """Shards and the default union run both give the report of one full pyshacl run."""
    full = validate_graphs(mapped, shapes, ontology, engine="pyshacl")
    for mode in ("shards", "union"):
        sharded = validate_sharded(mapped, shapes, ontology, reference=REFERENCE, mode=mode, **options)
        assert sharded.violations == full.violations, mode
        assert sharded.conforms == full.conforms, mode


def test_seed_graph(mapped: MappedGraphs, shapes: Graph, ontology: Graph) -> None:
    _same(mapped, shapes, ontology, shard_triples=500)


@pytest.mark.slow
def test_synthetic_corpus_in_several_shards(tmp_path: Path, shapes: Graph, ontology: Graph) -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(10000, tmp_path)
    _same(_map(tmp_path), shapes, ontology, shard_triples=3000, processes=2)


def test_cross_profile_conflicts_are_validated_on_the_union(tmp_path: Path, shapes: Graph, ontology: Graph) -> None:
    data = tmp_path / "data"
    copy_repo_data(data)
    (data / "profiles" / "copycat.yaml").write_text(
        "name: Copy Cat\npublications:\n  - title: \"TuX²: Distributed Graph Computation for Machine Learning\"\n"
        "    authors: [Copy Cat, Wencong Xiao]\n    venue: nsdi\n    year: 2016\n", encoding="utf-8")
    mapped = _map(data)
    full = validate_graphs(mapped, shapes, ontology)
    assert not full.passes
    _same(mapped, shapes, ontology, shard_triples=500)


def test_cache_reuses_unchanged_shards(tmp_path: Path, mapped: MappedGraphs, shapes: Graph, ontology: Graph,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    first = validate_sharded(mapped, shapes, ontology, reference=REFERENCE, cache_dir=cache, shard_triples=500,
                             mode="shards")
    assert len(list(cache.glob("*.nt"))) >= 2

    def fail(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a cached shard was validated again")

    monkeypatch.setattr("kg.validation.shards._run_shards", lambda shards, s, o, indexes, p: fail() if indexes else [])
    again = validate_sharded(mapped, shapes, ontology, reference=REFERENCE, cache_dir=cache, shard_triples=500,
                             mode="shards")
    assert again.violations == first.violations


def test_unknown_mode_is_refused(mapped: MappedGraphs, shapes: Graph, ontology: Graph) -> None:
    with pytest.raises(ValueError, match="unknown validation mode"):
        validate_sharded(mapped, shapes, ontology, reference=REFERENCE, mode="threads")
