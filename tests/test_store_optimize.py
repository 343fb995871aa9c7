"""Every new store version is compacted (Store.optimize) before it is swapped in, and holds the same data.

Observable: the version's metadata records the optimize time, and compacting the version again is a no-op
(RocksDB keeps the same SST files), which it is not for an uncompacted checkpoint plus changes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.config import Config
from kg.pipeline import build
from kg.store import METADATA_FILE, OPTIMIZE_KEY, Store
from kg.writes import Writer

from .conftest import PROJECT_ROOT
from .test_incremental import _edit, _profiles, _retitle, assert_same_as_clean_build


def sst_files(version: Path) -> set[str]:
    return {p.name for p in version.glob("*.sst")}


def compacted(version: Path, scratch: Path) -> bool:
    """Whether optimizing a copy of version leaves its SST files as they are (nothing left to compact)."""
    copy = scratch / f"recompact-{version.name}"
    shutil.copytree(version, copy)
    store = ox.Store(str(copy))
    store.optimize()
    del store
    return sst_files(copy) == sst_files(version)


def metadata(store: Path) -> dict[str, object]:
    result: dict[str, object] = json.loads((store.resolve() / METADATA_FILE).read_text(encoding="utf-8"))
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A synthetic corpus of about 5,000 triples, built once into root/work/store."""
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(5000, tmp_path / "data")
    return tmp_path


@pytest.mark.slow
def test_full_builds_swap_in_compacted_versions_derived_ones_keep_sharing_files(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kg.pipeline.incremental.LARGE_CHANGE", 1.0)
    store = root / "work" / "store"
    lines: list[str] = []
    build(Config(data=root / "data", store=store), progress=lines.append)
    assert isinstance(metadata(store)[OPTIMIZE_KEY], float)
    assert any("full write, optimized in" in line for line in lines)
    assert compacted(store.resolve(), root)

    _edit(_profiles(root)[0], _retitle)
    lines.clear()
    build(Config(data=root / "data", store=store), progress=lines.append)
    assert any("checkpoint +" in line and "optimized" not in line for line in lines)  # incremental: not rewritten
    assert OPTIMIZE_KEY not in metadata(store)
    assert_same_as_clean_build(root)

    before = {str(q) for q in Store.open(store).quads()}
    written = Writer(Config(data=root / "data", store=store, query_workers=0)).update(
        'INSERT DATA { <http://e/s> <http://e/p> "o" }')
    assert written.version == store.resolve().name
    assert OPTIMIZE_KEY not in metadata(store) and metadata(store)["writes"] == 1
    after = Store.open(store)
    assert before <= {str(q) for q in after.quads()}
    assert after.query('ASK { <http://e/s> <http://e/p> "o" }')


def test_an_uncompacted_checkpoint_is_observable(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a checkpoint plus changes, not optimized, is not compacted."""
    store = root / "work" / "store"
    build(Config(data=root / "data", store=store))
    copy = root / "plain"
    ox.Store.read_only(str(store.resolve())).backup(str(copy))
    oxstore = ox.Store(str(copy))
    oxstore.add(ox.Quad(ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p"), ox.Literal("o")))
    oxstore.flush()
    del oxstore
    assert not compacted(copy, root)
