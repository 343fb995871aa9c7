"""A series of edits, renames, retitles and deletions, each rebuilt incrementally, gives a clean build's store."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import yaml

from kg.config import Config
from kg.pipeline import build, build_cache
from kg.pipeline.parsed import ParseCache, Seen, read_corpus
from kg.pipeline.resident import ResidentBuilder
from kg.store import Store, is_log_graph

from .conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow  # ten builds of a 10,000-triple corpus (12 s on a quiet machine)


def _edit(path: Path, change: Callable[[Any], None]) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _retitle(suffix: str) -> Callable[[Any], None]:
    def change(data: Any) -> None:
        data["publications"][0]["title"] += suffix
    return change


def _rename(data: Any) -> None:
    """A person's new name: the profile's own name, and the name in each of its author lists."""
    old, new = data["name"], "Renamed " + data["name"]
    data["name"] = new
    for publication in data["publications"]:
        publication["authors"] = [new + "*" if a == old + "*" else new if a == old else a
                                  for a in publication["authors"]]


def _identify(person: str, doi: str) -> Callable[[Any], None]:
    """Give (or change) the person's ORCID iD and the first publication's DOI."""
    def change(data: Any) -> None:
        data["same_as"] = [f"https://orcid.org/{person}"]
        data["publications"][0]["doi"] = doi
    return change


def _same_size_rewrite(path: Path) -> None:
    """Change the case of a title's first letter and put the old mtime back: same size and mtime, new content."""
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    at = text.index("title: ") + len("title: ")
    path.write_text(text[:at] + text[at].swapcase() + text[at + 1:], encoding="utf-8")
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _quads(store: Store) -> set[ox.Quad]:
    """Every quad but a build's change record (which names its build, so differs by design)."""
    return {q for q in store.ox.quads_for_pattern(None, None, None, None)
            if not (isinstance(q.graph_name, ox.NamedNode) and is_log_graph(q.graph_name.value))}


class _Builds:
    """Rebuilds of one data directory: each a fresh kg build, or all by one resident builder (kg build --watch)."""

    def __init__(self, root: Path, resident: bool) -> None:
        self.config = Config(data=root / "data", store=root / "work" / "store")
        self.resident = ResidentBuilder(self.config) if resident else None

    def run(self) -> list[str]:
        lines: list[str] = []
        if self.resident is not None:
            self.resident.build(lines.append)
        else:
            build(self.config, progress=lines.append)
        return lines


@pytest.mark.parametrize("resident", [False, True], ids=["one-shot", "resident"])
def test_a_series_of_incremental_builds_equals_a_clean_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             resident: bool) -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    monkeypatch.setattr("kg.pipeline.incremental.LARGE_CHANGE", 1.0)  # every step takes the incremental path
    generate(10000, tmp_path / "data")
    builds = _Builds(tmp_path, resident)
    builds.run()
    profiles = sorted((tmp_path / "data" / "profiles").glob("*.yaml"))
    assert len(profiles) >= 5
    removed = profiles[2].read_text(encoding="utf-8")
    steps: list[list[Callable[[], object]]] = [  # each a list of changes made before one rebuild
        [lambda: _edit(profiles[0], _retitle(" Revisited"))],
        [lambda: _edit(profiles[1], _rename)],
        [profiles[2].unlink],
        [profiles[3].touch, lambda: _edit(profiles[4], _retitle(" Again"))],
        [lambda: _same_size_rewrite(profiles[0])],
        [lambda: _edit(profiles[3], _identify("0000-0002-1825-0097", "10.7554/elife.01567"))],
        [lambda: profiles[2].write_text(removed, encoding="utf-8"), lambda: _edit(profiles[2], _retitle(" Restored"))],
        [lambda: _edit(profiles[3], _identify("0000-0001-5109-3700", "10.1000/182"))],
        [lambda: _edit(profiles[1], _rename), profiles[4].unlink],
        [lambda: _edit(profiles[3], lambda d: d["publications"].pop(0))],
    ]
    for step in steps:
        for change in step:
            change()
        lines = builds.run()
        assert any(line.startswith("reason") and "incremental" in line for line in lines), lines
    if builds.resident is not None:  # the unchanged profiles came from memory: one entry per profile, no more
        kept = builds.resident.caches.mapped.memory
        assert kept is not None and len(kept) == len(list((tmp_path / "data" / "profiles").glob("*.yaml")))
    build(Config(data=tmp_path / "data", store=tmp_path / "clean" / "store"))
    ours, clean = Store.open(tmp_path / "work" / "store"), Store.open(tmp_path / "clean" / "store")
    mine, theirs = _quads(ours), _quads(clean)
    assert mine == theirs, f"{len(mine - theirs)} extra quads, {len(theirs - mine)} missing"
    assert ours.metadata["triples"] == clean.metadata["triples"]
    assert ours.metadata["sources"] == clean.metadata["sources"]


def _later(index: dict[str, Seen]) -> dict[str, Seen]:
    return {display: (key, sha, read_ns + 10 ** 12) for display, (key, sha, read_ns) in index.items()}


def test_the_parse_cache_reads_only_changed_files_and_never_serves_stale_content(tmp_path: Path) -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(5000, tmp_path / "data")
    folder = build_cache(Config(data=tmp_path / "data", store=tmp_path / "work" / "store")) / "parsed"
    fresh, _ = read_corpus(tmp_path / "data", ParseCache(None))
    first = ParseCache(folder)
    assert read_corpus(tmp_path / "data", first)[0] == fresh and first.stats.parsed == len(fresh.profiles)
    trusting = ParseCache(folder)
    trusting.index = _later(trusting.index)  # as if each file had been read long after it was written
    assert read_corpus(tmp_path / "data", trusting)[0] == fresh
    assert trusting.stats.unread == len(fresh.profiles) and trusting.stats.parsed == 0
    target = sorted((tmp_path / "data" / "profiles").glob("*.yaml"))[0]
    _same_size_rewrite(target)  # size, mtime and inode as recorded: only the ctime and the content differ
    again = ParseCache(folder)
    again.index = _later(again.index)
    corpus, _ = read_corpus(tmp_path / "data", again)
    assert corpus == read_corpus(tmp_path / "data", ParseCache(None))[0] != fresh
    assert again.stats.parsed == 1 and again.stats.unread == len(fresh.profiles) - 1
    shutil.rmtree(folder)
    assert read_corpus(tmp_path / "data", ParseCache(folder))[0] == corpus
