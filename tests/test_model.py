"""The profile model: typed loading, and errors that name file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import SourceError, SourceErrors
from kg.model import Corpus, Profile
from kg.parsing import parse_author, parse_corpus, parse_profile
from kg.sources import parse_yaml, read_data_dir

DATA = Path(__file__).parent / "data"


def _profile(text: str, name: str = "ada.yaml") -> Profile:
    return parse_profile(parse_yaml(text, Path(name), f"profiles/{name}"))


def _error(text: str) -> SourceError:
    with pytest.raises(SourceError) as info:
        _profile(text)
    return info.value


def test_fixture_corpus_loads() -> None:
    corpus = parse_corpus(read_data_dir(DATA))
    (ada,) = corpus.profiles
    assert ada.id == "ada-lovelace"
    assert ada.experience[0].current and ada.experience[0].end is None
    assert [a.name for a in ada.publications[0].authors] == ["Ada Lovelace", "C Babbage", "..."]
    assert ada.publications[0].authors[0].equal_contribution


def test_repository_profiles_load(corpus: Corpus) -> None:
    assert {p.id for p in corpus.profiles} == {"ziheng-jiang", "wencong-xiao"}
    assert all(len(p.publications) == 10 for p in corpus.profiles)


@pytest.mark.parametrize(
    ("written", "name", "equal", "elision"),
    [("Ziheng Jiang*", "Ziheng Jiang", True, False), ("B Wan", "B Wan", False, False),
     ("...", "...", False, True), ("Jane Roe†", "Jane Roe", True, False),
     ("Jane Roe (co-first author)", "Jane Roe", True, False)],
    ids=["star", "initials", "elision", "dagger", "co-first"])
def test_parse_author(written: str, name: str, equal: bool, elision: bool) -> None:
    author = parse_author(written)
    assert (author.name, author.equal_contribution, author.is_elision) == (name, equal, elision)


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ("name: Ada\nnmae: x\n", 2, "nmae", "did you mean 'name'"),
        ("name: Ada\npublications:\n  - title: T\n    authors: [A B]\n    year: soon\n", 5,
         "publications[0].year", "expected a year"),
        ("name: Ada\npublications:\n  - title: T\n    authors: [A B]\n    year: 1066\n", 5,
         "publications[0].year", "impossible year"),
        ("name: Ada\nexperience:\n  - role: R\n    organizations: [o]\n    start: 2020\n    end: 2019\n", 6,
         "experience[0].end", "before it starts"),
        ("name: Ada\nemail: [a, b]\n", 2, "email", "expected text"),
        ("title: Analyst\n", 1, "", "missing required field 'name'"),
        ("name: Ada\nname: Bob\n", 2, "name", "duplicate key"),
        ("name: Ada\nprojects: Apache TVM\n", 2, "projects", "expected a list"),
        ("name: Ada\npublications:\n  - title: T\n    authors: ['...']\n    year: 2020\n", 4,
         "publications[0].authors", "at least one named author"),
    ],
    ids=["unknown-key", "bad-year", "impossible-year", "end-before-start", "wrong-type", "missing-name",
         "duplicate-key", "list-expected", "no-named-author"])
def test_errors_name_line_and_field(text: str, line: int, field: str, words: str) -> None:
    error = _error(text)
    assert error.location.line == line
    assert error.location.field == field
    assert words in error.message
    assert str(error).startswith(f"profiles/ada.yaml:{line}")


def test_yaml_syntax_error_names_line() -> None:
    with pytest.raises(SourceError) as info:
        parse_yaml("name: Ada\n  bad: [\n", Path("x.yaml"))
    assert info.value.location.line is not None and "YAML syntax error" in info.value.message


def test_not_utf8_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "bad.yaml").write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(SourceError) as info:
        read_data_dir(tmp_path)
    assert "not valid UTF-8" in info.value.message


def test_file_name_must_be_a_slug() -> None:
    with pytest.raises(SourceError, match="must be a slug"):
        _profile("name: Ada\n", name="Ada Lovelace.yaml")


def test_all_errors_are_collected(tmp_path: Path) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "a.yaml").write_text("name: A\nbogus: 1\n")
    (tmp_path / "profiles" / "b.yaml").write_text("name: B\nemail: {}\n")
    with pytest.raises(SourceErrors) as info:
        parse_corpus(read_data_dir(tmp_path))
    assert len(info.value.errors) == 2


def test_relative_link_is_an_error_naming_the_field() -> None:
    error = _error("name: Ada\nlinks:\n  - {label: CV, url: cv.pdf}\n")
    assert error.location.field == "links[0].url" and "absolute" in error.message


def test_same_as_must_be_absolute() -> None:
    error = _error("name: Ada\nsame_as:\n  - https://orcid.org/0000-0002-1825-0097\n  - orcid.org/x\n")
    assert error.location.field == "same_as[1]" and error.location.line == 4
