"""The owner is the owner: variants of the profile's name in its own author lists are pinned to its person."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.config import PROJECT_ROOT, Config
from kg.importers import import_file
from kg.importers.command import import_command
from kg.importers.owner import FULL, INITIALS, owner_form
from kg.parsing import parse_profile
from kg.pipeline import build
from kg.sources import parse_yaml
from kg.store import Store

from .repo_data import copy_repo_data

DATA = PROJECT_ROOT / "data"
PAGES = Path(__file__).parent / "data" / "owner"
SDO = "http://schema.org/"


@pytest.mark.parametrize(("author", "name", "family", "others", "form"), [
    ("M. Okonkwo-Lindqvist", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], INITIALS),
    ("Okonkwo-Lindqvist, M.", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], INITIALS),
    ("M Okonkwo Lindqvist", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], INITIALS),
    ("Okonkwo-Lindqvist MK", "Mira K. Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], INITIALS),
    ("Mira Okonkwo Lindqvist", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], FULL),
    ("Mira Okonkwo-Lindqvist", "Mira K. Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], FULL),
    ("Jose Garcia", "José García", None, [], FULL),
    ("Juergen Mueller", "Jürgen Müller", None, [], FULL),
    ("Zhang Wei", "Wei Zhang", None, [], FULL),
    ("Jia-Xin Hu", "Jiaxin Hu", None, [], FULL),
    ("张伟", "Wei Zhang", None, ["张伟"], FULL),
    ("李娜", "Wei Zhang", None, ["张伟"], None),
    ("Wen Zhang", "Wei Zhang", None, [], None),
    ("Mira Okonkwo", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], None),
    ("Okonkwo-Lindqvist", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], None),
    ("T. Berg", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [], None),
])
def test_owner_forms(author: str, name: str, family: str | None, others: list[str], form: str | None) -> None:
    assert owner_form(author, name, family, others) == form


def _authors(result_yaml: str) -> list[list[tuple[str, str | None]]]:
    profile = parse_profile(parse_yaml(result_yaml, Path("p.yaml")))
    return [[(a.name, a.same_as) for a in pub.authors] for pub in profile.publications]


def test_variants_of_the_owner_are_pinned_with_review_marks_when_unsure() -> None:
    result = import_file(PAGES / "mira-okonkwo-lindqvist.txt", data=DATA)
    me = result.profile_id
    assert me == "mira-okonkwo-lindqvist"
    assert _authors(result.yaml_text) == [
        [("M. Okonkwo-Lindqvist", me), ("T. Berg", None), ("L. Zhou", None)],
        [("T. Berg", None), ("M. Okonkwo-Lindqvist", me), ("L. Zhou", None)],  # APA 'Okonkwo-Lindqvist, M.'
        [("Ana Ruiz", None), ("M Okonkwo Lindqvist", me)],
        [("Mira Okonkwo Lindqvist", me), ("Ana Ruiz", None)]]
    assert "- {name: M. Okonkwo-Lindqvist, same_as: mira-okonkwo-lindqvist}" in result.yaml_text
    reviews = [i.reviews for i in result.draft.items("publications")]
    assert [any("initials and family name only" in r for r in rs) for rs in reviews] == [True, True, True, False]


def test_other_script_family_first_and_two_owner_like_authors() -> None:
    result = import_file(PAGES / "wei-zhang.txt", data=DATA)
    me = result.profile_id
    assert _authors(result.yaml_text) == [
        [("Zhang Wei", me), ("Li Na", None)],
        [("张伟", me), ("李娜", None)],
        [("W. Zhang", None), ("Zhang Wei", me), ("Bo Li", None)],  # the full form wins; at most one pin
        [("Wei Zhang", None), ("W. Zhang", None), ("Bo Li", None)],  # written as the profile's name: no pin
        [("Wen Zhang", None), ("Bo Li", None)]]
    reviews = [" ".join(i.reviews) for i in result.draft.items("publications")]
    assert "'W. Zhang' looks like them too" in reviews[2]
    assert "'W. Zhang' also looks like the profile's person" in reviews[3]
    assert not any("profile's person" in r for r in reviews[:2] + reviews[4:])


def test_imported_owner_variants_build_onto_the_profiles_person(tmp_path: Path) -> None:
    data = copy_repo_data(tmp_path / "data", edits=True)
    page = PAGES / "mira-okonkwo-lindqvist.txt"
    draft = import_file(page, data=data)
    out = data / "profiles" / f"{draft.profile_id}.yaml"
    result = CliRunner().invoke(import_command, [str(page), "-o", str(out), "--data", str(data)])
    assert result.exit_code == 0, result.stderr
    built = build(Config(data=data, store=tmp_path / "store"))
    assert built.report.passes
    assert not any("is an author of none" in str(w) for w in built.warnings)
    store = Store.open(tmp_path / "store")
    person = f"https://kg.example.org/id/person/{draft.profile_id}"
    rows = list(store.query(f"""
        PREFIX schema: <{SDO}>
        SELECT ?work (COUNT(?me) AS ?mine) WHERE {{
            GRAPH <https://kg.example.org/graph/profile/{draft.profile_id}> {{ ?work a schema:ScholarlyArticle }}
            OPTIONAL {{ ?work schema:author ?me FILTER (?me = <{person}>) }}
        }} GROUP BY ?work"""))
    assert len(rows) == 4 and all(int(row["mine"].value) == 1 for row in rows)
    assert not store.query(f"""ASK {{ ?p a <{SDO}Person> .
        FILTER (STRSTARTS(STR(?p), "https://kg.example.org/id/person/m-okonkwo")) }}""")
    assert not store.query(f"""ASK {{ ?p a <{SDO}Person> ; <{SDO}name> ?n .
        FILTER (?p != <{person}> && CONTAINS(LCASE(STR(?n)), "lindqvist")) }}""")
