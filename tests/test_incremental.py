"""Incremental builds give the store a clean full build gives (per named graph); stale cache entries go unused."""

from __future__ import annotations

import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import yaml

from kg.config import Config
from kg.errors import KgError
from kg.iris import Minter
from kg.mapping.cache import MapCache, answers_match, map_corpus_cached
from kg.namespaces import OWL, RDF, SDO
from kg.parsing import parse_corpus
from kg.pipeline import BuildResult, build, build_cache
from kg.resolution import resolve
from kg.sources import read_data_dir
from kg.store import Store

from .conftest import PROJECT_ROOT, REPO_DATA, assert_isomorphic
from .repo_data import copy_repo_data

pytestmark = pytest.mark.slow  # each test builds the repository's data several times (10-30 s each)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic corpus of three profiles (about 5,000 triples), built once into base/store."""
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    base = tmp_path_factory.mktemp("incremental")
    generate(5000, base / "data")
    build(Config(data=base / "data", store=base / "work" / "store"))
    return base


@pytest.fixture
def work(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the built corpus: data/ and work/ (store versions, cache); no change counts as large."""
    monkeypatch.setattr("kg.pipeline.incremental.LARGE_CHANGE", 1.0)
    shutil.copytree(built / "data", tmp_path / "data")
    shutil.copytree(built / "work", tmp_path / "work", symlinks=True)
    return tmp_path


def _build(data: Path, store: Path, **options: Any) -> tuple[BuildResult, list[str]]:
    lines: list[str] = []
    result = build(Config(data=data, store=store, **options), progress=lines.append)
    return result, lines


def _line(lines: list[str], stage: str) -> str:
    return next(line for line in lines if line.startswith(stage))


def assert_same_graph(ours: Store, clean: Store, name: str | None) -> None:
    """One graph (None: the default graph) equal in both stores: as quad sets (0.1 s) when it has no blank
    nodes, by rdflib isomorphism (seconds) when it has."""
    graph = ox.DefaultGraph() if name is None else ox.NamedNode(name)
    mine = {q.triple for q in ours.ox.quads_for_pattern(None, None, None, graph)}
    theirs = {q.triple for q in clean.ox.quads_for_pattern(None, None, None, graph)}
    blank = any(isinstance(t.subject, ox.BlankNode) or isinstance(t.object, ox.BlankNode) for t in mine | theirs)
    if blank:
        assert_isomorphic(ours.rdflib_graph(name), clean.rdflib_graph(name))
    else:
        assert mine == theirs, f"graph {name or 'default'}: {len(mine - theirs)} extra, {len(theirs - mine)} missing"


def assert_same_as_clean_build(root: Path) -> None:
    """The store in root/work equals a clean full build of root/data: graphs, default graph, counts."""
    _build(root / "data", root / "clean" / "store")
    ours, clean = Store.open(root / "work" / "store"), Store.open(root / "clean" / "store")
    assert ours.graph_names() == clean.graph_names()
    for name in ours.graph_names():
        assert_same_graph(ours, clean, name)
    assert_same_graph(ours, clean, None)
    assert ours.metadata["triples"] == clean.metadata["triples"]
    assert ours.metadata["sources"] == clean.metadata["sources"]


def _edit(path: Path, change: Callable[[Any], None]) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _profiles(root: Path) -> list[Path]:
    return sorted((root / "data" / "profiles").glob("*.yaml"))


def _names(path: Path) -> list[str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [data["name"]] + [a for p in data["publications"] for a in p["authors"]]


def _retitle(data: Any) -> None:
    data["publications"][0]["title"] += " Revisited"
    data["publications"][1]["year"] -= 1


EDITS: dict[str, Callable[[Path], None]] = {
    "publication edited": lambda root: _edit(_profiles(root)[0], _retitle),
    "co-author from another profile": lambda root: _edit(
        _profiles(root)[0], lambda d: d["publications"][0]["authors"].append(_names(_profiles(root)[2])[0])),
    "brand-new person": lambda root: _edit(
        _profiles(root)[1], lambda d: d["publications"][2]["authors"].insert(1, "Zebulon Quux")),
    "publication removed": lambda root: _edit(_profiles(root)[1], lambda d: d["publications"].pop(3)),
    "profile deleted": lambda root: _profiles(root)[2].unlink(),
    "organization renamed": lambda root: _edit(
        root / "data" / "organizations.yaml", lambda d: d[0].update(name=d[0]["name"] + " Renamed")),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_rebuild_after_an_edit_equals_a_clean_build(work: Path, edit: str) -> None:
    EDITS[edit](work)
    result, lines = _build(work / "data", work / "work" / "store")
    assert "incremental" in _line(lines, "reason") and "checkpoint" in _line(lines, "store")
    assert result.location.endswith("store.v2")
    assert_same_as_clean_build(work)


def test_unchanged_profiles_come_from_the_cache_and_changed_ones_do_not(work: Path) -> None:
    EDITS["publication edited"](work)
    _, lines = _build(work / "data", work / "work" / "store")
    assert "(2 of 3 profiles cached)" in _line(lines, "map")
    _, lines = _build(work / "data", work / "work" / "store")
    assert "(3 of 3 profiles cached)" in _line(lines, "map")
    assert "inferred +0 -0" in _line(lines, "reason")


def test_a_resolution_change_elsewhere_invalidates_an_unchanged_profile(work: Path) -> None:
    first, second, third = _profiles(work)
    _edit(first, lambda d: d["publications"][0]["authors"].append("Quentin Zyxwv"))
    _edit(second, lambda d: d["publications"][0]["authors"].append("Q Zyxwv"))  # candidate: Quentin, unique
    _, lines = _build(work / "data", work / "work" / "store")
    assert "(1 of 3 profiles cached)" in _line(lines, "map")
    _edit(third, lambda d: d["publications"][0]["authors"].append("Quincy Zyxwv"))  # no unique candidate now
    _, lines = _build(work / "data", work / "work" / "store")
    assert "(1 of 3 profiles cached)" in _line(lines, "map")  # the second profile's file did not change
    assert_same_as_clean_build(work)


def test_recorded_answers_are_compared_with_the_new_resolution(built: Path) -> None:
    files = read_data_dir(built / "data")
    corpus = parse_corpus(files)
    resolution = resolve(corpus)
    cache = MapCache(built / "work" / "cache" / "build" / "map")
    entry = cache.load(cache.key(corpus.profiles[0], Minter(), _reference_sha(files)))
    assert entry is not None and answers_match(entry.reads, resolution)
    written = next(key for kind, key in entry.reads if kind == "person")
    resolution.person_slugs[_normal(written)] = "someone-else"
    assert not answers_match(entry.reads, resolution)


def _reference_sha(files: Any) -> str:
    from kg.pipeline import _reference_sha as sha

    return sha(files)


def _normal(text: str) -> str:
    from kg.resolution import normalize_name

    return normalize_name(text)


def test_another_base_iri_uses_no_cache_entry(work: Path) -> None:
    _, lines = _build(work / "data", work / "work" / "store", base="https://other.example.org")
    assert "(0 of 3 profiles cached)" in _line(lines, "map") and "full" in _line(lines, "reason")


def test_cached_mapping_equals_fresh_mapping_with_origins(built: Path, tmp_path: Path) -> None:
    from kg.mapping import map_corpus

    files = read_data_dir(REPO_DATA)
    corpus = parse_corpus(files)
    expected = map_corpus(corpus, Minter(), resolve(corpus), _reference_sha(files))
    cache = MapCache(tmp_path / "map")
    for cached in (0, len(corpus.profiles)):
        mapped, stats = map_corpus_cached(corpus, Minter(), resolve(corpus), _reference_sha(files), cache)
        assert stats.cached == cached
        assert list(mapped.graphs) == list(expected.graphs) and mapped.sources == expected.sources
        for iri, graph in expected.graphs.items():
            assert set(mapped.graphs[iri]) == set(graph)
        assert list(mapped.origins.items()) == list(expected.origins.items())


def test_a_failed_build_leaves_store_and_cache_usable(work: Path) -> None:
    before = (work / "work" / "store").resolve()
    profile = _profiles(work)[0]
    good = profile.read_text(encoding="utf-8")
    profile.write_text(good.replace("publications:", "publications: [unclosed", 1), encoding="utf-8")
    with pytest.raises(KgError):
        _build(work / "data", work / "work" / "store")
    _edit(_profiles(work)[1], lambda d: d["publications"][0].update(venue="no-such-venue"))
    with pytest.raises(KgError):
        _build(work / "data", work / "work" / "store")
    assert (work / "work" / "store").resolve() == before
    profile.write_text(good, encoding="utf-8")
    _edit(_profiles(work)[1], lambda d: d["publications"][0].pop("venue"))
    _, lines = _build(work / "data", work / "work" / "store")
    assert "incremental" in _line(lines, "reason")
    assert_same_as_clean_build(work)


def test_a_large_change_gets_a_full_build(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kg.pipeline.incremental.LARGE_CHANGE", 0.25)
    EDITS["profile deleted"](work)  # a third of the asserted triples
    _, lines = _build(work / "data", work / "work" / "store")
    assert "full" in _line(lines, "reason") and "full" in _line(lines, "store")
    assert_same_as_clean_build(work)


def test_a_store_changed_since_the_last_build_gets_a_full_build(work: Path) -> None:
    state = build_cache(Config(store=work / "work" / "store")) / "state.json"
    state.write_text(state.read_text(encoding="utf-8").replace('"build_id": "', '"build_id": "x'), encoding="utf-8")
    EDITS["publication edited"](work)
    _, lines = _build(work / "data", work / "work" / "store")
    assert "full" in _line(lines, "reason")
    assert_same_as_clean_build(work)


def test_owl_sameas_in_the_data_gets_full_builds_until_the_store_has_none(work: Path) -> None:
    """owl:sameAs joins triples (equality rewrites every triple of the nodes it joins): no local incremental path."""
    store = Store.open(work / "work" / "store")
    rdf_type, person = ox.NamedNode(str(RDF.type)), ox.NamedNode(str(SDO.Person))
    people = sorted({q.subject.value for q in store.ox.quads_for_pattern(None, rdf_type, person, None)})
    del store
    edits = work / "data" / "edits" / "edits.nq"
    edits.parent.mkdir(exist_ok=True)
    edits.write_text(f"<{people[0]}> <{OWL.sameAs}> <{people[1]}> <{Minter().default_graph()}> .\n", encoding="utf-8")
    same = ox.NamedNode(str(OWL.sameAs))
    _, lines = _build(work / "data", work / "work" / "store")
    assert "full" in _line(lines, "reason")
    inferred = ox.NamedNode(str(Minter().graph("inferred")))
    reverse = ox.Quad(ox.NamedNode(people[1]), same, ox.NamedNode(people[0]), inferred)
    assert reverse in Store.open(work / "work" / "store").ox
    edits.unlink()  # the store still holds owl:sameAs: full again
    _, lines = _build(work / "data", work / "work" / "store")
    assert "full" in _line(lines, "reason")
    EDITS["brand-new person"](work)
    _, lines = _build(work / "data", work / "work" / "store")
    assert "incremental" in _line(lines, "reason")
    assert_same_as_clean_build(work)
    assert next(iter(Store.open(work / "work" / "store").ox.quads_for_pattern(None, same, None, None)), None) is None


def _random_edit(root: Path, rng: random.Random) -> None:
    profiles = _profiles(root)
    pool = sorted({n for p in profiles for n in _names(p)})
    orgs = [o["id"] for o in yaml.safe_load((root / "data" / "organizations.yaml").read_text(encoding="utf-8"))]
    target = rng.choice(profiles)

    def change(d: Any) -> None:
        pubs = d["publications"]
        kind = rng.choice(["add-author", "drop-author", "drop-pub", "copy-pub", "org", "new-person"])
        pub = rng.choice(pubs)
        if kind == "add-author":
            pub["authors"].append(rng.choice(pool))
        elif kind == "drop-author" and len(pub["authors"]) > 1:
            pub["authors"].pop(rng.randrange(len(pub["authors"])))
        elif kind == "drop-pub" and len(pubs) > 1:
            pubs.remove(pub)
        elif kind == "copy-pub":
            other = yaml.safe_load(rng.choice(profiles).read_text(encoding="utf-8"))["publications"]
            pubs.append(rng.choice(other))
        elif kind == "org":
            d["affiliation"] = rng.choice(orgs)
        else:
            pub["authors"].insert(0, f"{rng.choice('ABC')} {rng.choice(pool).split()[-1]}")
    _edit(target, change)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_edits_match_clean_builds(work: Path, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2):
        for _ in range(rng.randint(1, 3)):
            _random_edit(work, rng)
        _, lines = _build(work / "data", work / "work" / "store")
        assert "incremental" in _line(lines, "reason")
        assert_same_as_clean_build(work)
        shutil.rmtree(work / "clean")


def test_repo_data_rebuild_after_an_edit(tmp_path: Path) -> None:
    copy_repo_data(tmp_path / "data")
    _build(tmp_path / "data", tmp_path / "work" / "store")
    profile = sorted((tmp_path / "data" / "profiles").glob("*.yaml"))[0]
    text = profile.read_text(encoding="utf-8")
    profile.write_text(text.replace("title: ", "title: Revised ", 1), encoding="utf-8")
    _, lines = _build(tmp_path / "data", tmp_path / "work" / "store")
    assert "incremental" in _line(lines, "reason")
    assert_same_as_clean_build(tmp_path)
