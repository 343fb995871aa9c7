"""Records resolve as imports do: venues by acronym and alias, one person per name string in a record file, the
profiles' people (pins, then names) before new nodes, kg:possibleSameAs for weaker matches, and the build's count."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from kg.cli import main
from kg.config import Config
from kg.namespaces import KG, SDO
from kg.pipeline import map_data, read_linked

BASE = "https://kg.example.org"
SEED = Path(__file__).resolve().parents[1] / "data"
REPORTED = """\
@inproceedings{a1,
  title = {First Paper by Hanyu},
  author = {Hanyu Zhao and Someone Else},
  booktitle = {Proceedings of the 30th ACM Symposium on Operating Systems Principles},
  year = {2024}
}
@inproceedings{a2,
  title = {Second Paper by Hanyu},
  author = {Zhao, Hanyu and Another Person},
  booktitle = {Journal of Things},
  year = {2024}
}
@article{a3,
  title = {Third Paper by Hanyu},
  author = {Hanyu Zhao},
  journal = {Journal of Things},
  year = {2023}
}
@inproceedings{w1,
  title = {A Networked Systems Paper},
  author = {Wencong Xiao and Hanyu Zhao},
  booktitle = {Proceedings of the 20th USENIX Symposium on NSDI (NSDI 23)},
  year = {2023}
}
"""


def _seed(tmp_path: Path, records: dict[str, str]) -> Path:
    data = tmp_path / "data"
    shutil.copytree(SEED, data, ignore=shutil.ignore_patterns("records", "edits"))
    for name, text in records.items():
        target = data / "records" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return data


def _record_graph(data: Path, name: str) -> Graph:
    _, mapped = map_data(Config(data=data))
    slug = name.replace(".", "-").replace("/", "-")
    return mapped.graphs[URIRef(f"{BASE}/graph/record/{slug}")]


def _person(slug: str) -> URIRef:
    return URIRef(f"{BASE}/id/person/{slug}")


def _people(graph: Graph) -> set[URIRef]:
    return {s for s in graph.subjects(RDF.type, SDO.Person) if isinstance(s, URIRef)}


def test_the_reported_bibtex_file_gives_one_person_per_author_the_profiles_people_and_known_venues(
        tmp_path: Path) -> None:
    graph = _record_graph(_seed(tmp_path, {"x.bib": REPORTED}), "x.bib")
    assert _people(graph) == {_person("hanyu-zhao"), _person("wencong-xiao"), _person("someone-else"),
                              _person("another-person")}
    venues = {(w, v) for w, v in graph.subject_objects(SDO.isPartOf)}
    assert venues == {(URIRef(f"{BASE}/id/work/a-networked-systems-paper"), URIRef(f"{BASE}/id/venue/nsdi")),
                      (URIRef(f"{BASE}/id/work/first-paper-by-hanyu"), URIRef(f"{BASE}/id/venue/sosp")),
                      (URIRef(f"{BASE}/id/work/second-paper-by-hanyu"), URIRef(f"{BASE}/id/venue/journal-of-things")),
                      (URIRef(f"{BASE}/id/work/third-paper-by-hanyu"), URIRef(f"{BASE}/id/venue/journal-of-things"))}
    assert not set(graph.triples((None, KG.possibleSameAs, None)))
    assert read_linked(Config(data=tmp_path / "data")).linking.kept_apart == []


WEAKER = """\
@article{b1,
  title = {Initials Only},
  author = {H. Zhao and Wencong Q. Xiao},
  journal = {Journal of Things},
  year = {2022}
}
"""


def test_a_weaker_name_match_is_a_possible_same_as_not_a_merge(tmp_path: Path) -> None:
    graph = _record_graph(_seed(tmp_path, {"y.bib": WEAKER}), "y.bib")
    assert _people(graph) == {_person("h-zhao"), _person("wencong-q-xiao")}
    assert set(graph.triples((None, KG.possibleSameAs, None))) == {
        (_person("h-zhao"), KG.possibleSameAs, _person("hanyu-zhao")),
        (_person("wencong-q-xiao"), KG.possibleSameAs, _person("wencong-xiao"))}
    kept = read_linked(Config(data=tmp_path / "data")).linking.kept_apart
    assert [(k.slug, k.candidates, k.reason) for k in kept] == [
        ("h-zhao", ("hanyu-zhao",), "a weaker name match"),
        ("wencong-q-xiao", ("wencong-xiao",), "a weaker name match")]


def _work(key: str, title: str, author: str) -> str:
    return (f"@article{{{key},\n  title = {{{title}}},\n  author = {{{author}}},\n  journal = {{J}},\n"
            "  year = {2021}\n}\n")


def test_one_name_in_two_record_files_without_identifiers_is_one_person(tmp_path: Path) -> None:
    data = _seed(tmp_path, {"a.bib": _work("k1", "Paper One", "Dana Newcomer"),
                            "b.bib": _work("k2", "Paper Two", "Newcomer, Dana")})
    first, second = _record_graph(data, "a.bib"), _record_graph(data, "b.bib")
    assert _people(first) == _people(second) == {_person("dana-newcomer")}


ORCID_WORK = """{{"message-type": "work", "message": {{"DOI": "10.1234/{doi}", "title": ["{title}"],
 "author": [{{"given": "Dana", "family": "Newcomer", "ORCID": "https://orcid.org/{orcid}"}}],
 "issued": {{"date-parts": [[2020]]}}}}}}"""


def test_one_name_with_two_orcids_is_two_people_linked_and_counted(tmp_path: Path) -> None:
    data = _seed(tmp_path, {
        "one.json": ORCID_WORK.format(doi="one", title="Work One", orcid="0000-0002-1825-0097"),
        "two.json": ORCID_WORK.format(doi="two", title="Work Two", orcid="0000-0001-5109-3700")})
    linking = read_linked(Config(data=data)).linking
    assert sorted((k.slug, k.candidates, k.reason) for k in linking.kept_apart) == [
        ("dana-newcomer", ("dana-newcomer-2",), "conflicting identifiers"),
        ("dana-newcomer-2", ("dana-newcomer",), "conflicting identifiers")]
    assert (_person("dana-newcomer-2"), KG.possibleSameAs, _person("dana-newcomer")) in _record_graph(data, "two.json")


def test_kg_build_says_how_many_record_people_stayed_apart_and_kg_conflicts_lists_them(tmp_path: Path) -> None:
    data = _seed(tmp_path, {"x.bib": REPORTED, "y.bib": WEAKER})
    built = CliRunner().invoke(main, ["build", "--data", str(data), "--store", str(tmp_path / "store")])
    assert built.exit_code == 0, built.output
    lines = [line for line in built.output.splitlines() if "kept apart" in line]
    assert lines == ["record people kept apart: 2 (2 a weaker name match); each is linked to whom they may be by "
                     "kg:possibleSameAs; kg conflicts lists them"]
    listed = CliRunner().invoke(main, ["conflicts", "--data", str(data)])
    assert listed.exit_code == 0, listed.output
    assert [line for line in listed.output.splitlines() if line.startswith("kept apart")] == [
        f"kept apart: person h-zhao ('H. Zhao', {data}/records/y.bib) may be hanyu-zhao: a weaker name match",
        f"kept apart: person wencong-q-xiao ('Wencong Q. Xiao', {data}/records/y.bib) may be wencong-xiao: "
        "a weaker name match"]


PINNED = """\
name: Ada Example
publications:
  - title: Graph Sampling at Scale
    authors: [{name: A. Example, same_as: ada-example}, Bo Sample]
    year: 2020
"""


def test_a_name_the_profiles_pin_is_the_pinned_person_and_two_authors_of_one_work_stay_two(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    (data / "profiles" / "ada-example.yaml").write_text(PINNED, encoding="utf-8")
    (data / "records").mkdir()
    (data / "records" / "z.bib").write_text(
        _work("p1", "Pinned Paper", "A. Example and Wei Wang and Wei Wang")
        + _work("p2", "Other Paper", "Wang, Wei"), encoding="utf-8")
    graph = _record_graph(data, "z.bib")
    assert _people(graph) == {_person("ada-example"), _person("wei-wang"), _person("wei-wang-2")}
    kept = read_linked(Config(data=data)).linking.kept_apart
    assert [(k.slug, k.candidates, k.reason) for k in kept] == [
        ("wei-wang", ("wei-wang-2",), "two authors of one work"),
        ("wei-wang-2", ("wei-wang",), "two authors of one work")]
    other = URIRef(f"{BASE}/id/work/other-paper")
    assert set(graph.objects(other, SDO.author)) == {_person("wei-wang")}, "one name in one file is one person"


def test_a_name_two_identified_people_share_leaves_a_record_without_identifiers_apart(tmp_path: Path) -> None:
    data = _seed(tmp_path, {
        "one.json": ORCID_WORK.format(doi="one", title="Work One", orcid="0000-0002-1825-0097"),
        "two.json": ORCID_WORK.format(doi="two", title="Work Two", orcid="0000-0001-5109-3700"),
        "three.bib": _work("k3", "Work Three", "Dana Newcomer") + _work("k4", "Work Four", "Dana Newcomer")})
    kept = {k.slug: k for k in read_linked(Config(data=data)).linking.kept_apart}
    bare = _people(_record_graph(data, "three.bib"))
    assert len(bare) == 1, "one name in one file is one person"
    slug = str(bare.pop()).rsplit("/", 1)[1]
    assert kept[slug].reason == "a name several people with different identifiers share"
    assert set(kept[slug].candidates) == set(kept) - {slug} and len(kept) == 3


def test_kg_conflicts_json_lists_the_people_kept_apart(tmp_path: Path) -> None:
    data = _seed(tmp_path, {"y.bib": WEAKER})
    listed = CliRunner().invoke(main, ["conflicts", "--data", str(data), "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert [item for item in json.loads(listed.output) if item["kind"] == "kept-apart"] == [
        {"kind": "kept-apart", "id": "h-zhao", "label": "H. Zhao", "files": [f"{data}/records/y.bib"],
         "candidates": ["hanyu-zhao"], "reason": "a weaker name match"},
        {"kind": "kept-apart", "id": "wencong-q-xiao", "label": "Wencong Q. Xiao", "files": [f"{data}/records/y.bib"],
         "candidates": ["wencong-xiao"], "reason": "a weaker name match"}]
