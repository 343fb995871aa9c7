"""Entity resolution: one node per full name, initials kept with candidate links, references checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import SourceErrors
from kg.model import Corpus
from kg.parsing import parse_corpus
from kg.resolution import initials_form, normalize_name, resolve
from kg.sources import read_data_dir


def test_advisor_and_coauthor_are_one_node(corpus: Corpus) -> None:
    resolution = resolve(corpus)
    assert resolution.person("Tianqi Chen") == resolution.person("tianqi  chen") == "tianqi-chen"


def test_shared_coauthor_across_profiles(corpus: Corpus) -> None:
    resolution = resolve(corpus)
    assert resolution.person("Xinyi Zhang") == "xinyi-zhang"


def test_profile_owner_keeps_profile_id(corpus: Corpus) -> None:
    assert resolve(corpus).person("Wencong Xiao") == "wencong-xiao"


def test_initials_get_unique_candidates_only(corpus: Corpus) -> None:
    resolution = resolve(corpus)
    assert resolution.possible_same_as["z-song"] == ("zuquan-song",)
    assert resolution.possible_same_as["h-wei"] == ("haoran-wei",)
    assert "b-wan" not in resolution.possible_same_as
    assert resolution.person("B Wan") == "b-wan"


@pytest.mark.parametrize(("name", "form"), [("B Wan", (("b",), "wan")), ("J. K. Rowling", (("j", "k"), "rowling")),
                                           ("Bin Wan", None), ("Wan", None)])
def test_initials_form(name: str, form: object) -> None:
    assert initials_form(name) == form


def test_aliases_resolve(corpus: Corpus) -> None:
    resolution = resolve(corpus)
    assert resolution.organization("Bytedance") == "bytedance"
    assert resolution.venue("NIPS") == "neurips"
    assert resolution.venue("OSDI") == "osdi"


def test_normalize_name_folds_case_and_punctuation() -> None:
    assert normalize_name("  Li-Wen   CHANG ") == "li wen chang"


def test_unknown_reference_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "organizations.yaml").write_text("- id: acme\n  name: Acme\n")
    (tmp_path / "profiles" / "x.yaml").write_text(
        "name: X Y\nexperience:\n  - role: R\n    organizations: [acme, nowhere]\n")
    with pytest.raises(SourceErrors) as info:
        resolve(parse_corpus(read_data_dir(tmp_path)))
    (error,) = info.value.errors
    assert "experience[0].organizations[1]" in str(error) and "'nowhere'" in str(error)
    assert error.location.line == 4  # the line of the field itself


def test_author_pinned_to_an_existing_profile(tmp_path: Path) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "ada-lovelace.yaml").write_text("name: Ada Lovelace\n")
    (tmp_path / "profiles" / "bob.yaml").write_text(
        "name: Bob Builder\npublications:\n  - title: T\n    year: 2020\n"
        "    authors: [Bob Builder, {name: A. Lovelace, same_as: ada-lovelace}]\n")
    resolution = resolve(parse_corpus(read_data_dir(tmp_path)))
    assert resolution.person("A. Lovelace") == "ada-lovelace"
    assert resolution.person_names["ada-lovelace"] == "Ada Lovelace"
