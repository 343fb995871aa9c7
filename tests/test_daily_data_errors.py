"""Data errors a curator meets daily (issue 17, items 1-7): each one located, worded in the data's terms, fixable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.config import PROJECT_ROOT

from .conftest import REPO_DATA

ORGS = "- id: acme\n  name: Acme Corporation\n- id: acme-labs\n  name: Acme Labs\n  parent: acme\n"
VENUES = "- id: osdi\n  name: Operating Systems Design and Implementation\n  acronym: OSDI\n"
ADA = """\
name: Ada Example
title: Researcher
affiliation: acme
experience:
  - role: Engineer
    organizations: [acme]
    start: 2019
    end: present
metrics:
  - kind: citations
    value: 12
publications:
  - title: Graph Sampling at Scale
    authors: [Ada Example, Bo Sample]
    venue: OSDI
    year: 2020
"""


def _data(tmp_path: Path, profiles: dict[str, str], orgs: str = ORGS) -> Path:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True, exist_ok=True)
    (data / "organizations.yaml").write_text(orgs, encoding="utf-8")
    (data / "venues.yaml").write_text(VENUES, encoding="utf-8")
    for stem, text in profiles.items():
        (data / "profiles" / f"{stem}.yaml").write_text(text, encoding="utf-8")
    return data


def _kg(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line, from this copy of kg."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "kg", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, check=False)


def _validate(data: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["validate", "--data", str(data)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def _line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if fragment in line)


# --- 1. YAML's implicit typing never reaches the user as a traceback or a Python repr -----------------------------

@pytest.mark.parametrize(("old", "new", "field", "message"), [
    ("    start: 2019", "    start: 2026-13-45", "experience[0].start",
     "expected a year such as 2024, got '2026-13-45'; kg records years only: write 2026"),
    ("    year: 2020", "    year: 2026-01-15", "publications[0].year",
     "expected a year such as 2024, got '2026-01-15'; kg records years only: write 2026"),
    ("    start: 2019", "    start: 2019-01-15 10:00:00", "experience[0].start",
     "expected a year such as 2024, got '2019-01-15 10:00:00'; kg records years only: write 2019"),
    ("    start: 2019", "    start: 12:30", "experience[0].start",
     "expected a year such as 2024, got '12:30'; a value written with ':' is a time, not a year"),
    ("    year: 2020", "    year: 1e3", "publications[0].year",
     "expected a year such as 2024, got '1e3'; write it as plain decimal digits"),
    ("    year: 2020", "    year: 2.02e+3", "publications[0].year",
     "expected a year such as 2024, got '2.02e+3'; write it as plain decimal digits"),
    ("    value: 12", "    value: 0o17", "metrics[0].value",
     "expected a whole number such as 12, got '0o17'; write it as plain decimal digits"),
    ("    value: 12", "    value: 0x1F", "metrics[0].value",  # YAML 1.1 would read 31
     "expected a whole number such as 12, got '0x1F'; write it as plain decimal digits"),
    ("    value: 12", "    value: 3.5", "metrics[0].value", "expected a whole number such as 12, got '3.5'"),
    ("    end: present", "    end: no", "experience[0].end", "expected a year such as 2024 or 'present', got no"),
    ("title: Researcher", "title: no", "title",
     'expected text, got no, which YAML reads as false when unquoted; quote it ("no") if it is text'),
    ("title: Researcher", "title: On", "title",
     'expected text, got On, which YAML reads as true when unquoted; quote it ("On") if it is text'),
    ("title: Researcher", "yes: Researcher", "yes", 'keys must be text, got yes; quote it ("yes")'),
])
def test_implicit_yaml_types_get_a_located_message_with_the_fix(tmp_path: Path, old: str, new: str, field: str,
                                                                 message: str) -> None:
    text = ADA.replace(old, new, 1)
    data = _data(tmp_path, {"ada-example": text})
    code, output = _validate(data)
    where = f"{data}/profiles/ada-example.yaml:{_line_of(text, new.strip())}: {field}: "
    assert code == 2 and f"error: {where}{message}" in output, output
    assert "datetime" not in output and "Traceback" not in output and "True" not in output


@pytest.mark.parametrize(("value", "kept"), [("12:30", "12:30"), ("2026-01-15", "2026-01-15"), ("1.10", "1.10"),
                                             ("007", "007"), ("1_000", "1_000"), ("0x1F", "0x1F")])
def test_text_fields_keep_what_was_written(tmp_path: Path, value: str, kept: str) -> None:
    from kg.parsing import parse_profile
    from kg.sources import parse_yaml

    profile = parse_profile(parse_yaml(ADA.replace("title: Researcher", f"title: {value}"), Path("ada-example.yaml")))
    assert profile.title == kept  # not 750, a date, 1.1, 7, 1000 or 31


def test_an_impossible_unquoted_date_through_the_real_cli(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example": ADA.replace("    year: 2020", "    year: 2026-13-45")})
    for command in (["validate", "--data", str(data)], ["build", "--data", str(data), "--store", str(tmp_path / "s")]):
        result = _kg(*command)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr and "ValueError" not in result.stderr
        assert result.stderr.startswith(f"error: {data}/profiles/ada-example.yaml:16: publications[0].year: expected "
                                        "a year such as 2024, got '2026-13-45'"), result.stderr


# --- 2. a reference error points at the value's own line ----------------------------------------------------------

def test_unknown_references_are_reported_on_their_own_lines(tmp_path: Path) -> None:
    text = ADA.replace("affiliation: acme", "affiliation: acmee").replace("organizations: [acme]",
                                                                         "organizations:\n      - acme-lab")
    text = text.replace("    venue: OSDI", "    venue: OSDJ")
    orgs = ORGS.replace("parent: acme", "parent: acme-corp")
    code, output = _validate(_data(tmp_path, {"ada-example": text}, orgs))
    assert code == 2
    profile = f"{tmp_path}/data/profiles/ada-example.yaml"
    assert f"{tmp_path}/data/organizations.yaml:5: [1].parent: unknown organisation 'acme-corp'" in output, output
    assert f"{profile}:3: affiliation: unknown organisation id 'acmee'" in output
    assert f"{profile}:7: experience[0].organizations[0]: unknown organisation id 'acme-lab'" in output
    assert f"{profile}:{_line_of(text, 'venue: OSDJ')}: publications[0].venue: unknown venue 'OSDJ'" in output


# --- 3. paths as the user gave them -------------------------------------------------------------------------------

def test_paths_are_shown_as_given_not_relative_to_the_data_folder_name(tmp_path: Path) -> None:
    broken = (REPO_DATA / "profiles" / "wencong-xiao.yaml").read_text(encoding="utf-8").replace(
        "start: 2019", "start: soon", 1)
    data = _data(tmp_path / "some" / "where", {"wencong-xiao": broken})  # the repository has a file of that name
    from_repository = _kg("validate", "--data", str(data), cwd=PROJECT_ROOT)
    assert from_repository.returncode == 2
    assert from_repository.stderr.startswith(f"error: {data}/profiles/wencong-xiao.yaml:"), from_repository.stderr
    relative = _kg("validate", "--data", "where/data", cwd=tmp_path / "some")
    assert relative.stderr.startswith("error: where/data/profiles/wencong-xiao.yaml:"), relative.stderr
    assert Path(tmp_path / "some" / "where/data/profiles/wencong-xiao.yaml").read_text(encoding="utf-8") == broken


# --- 4. an unclosed quote: where the quoted value began, and where YAML gave up ----------------------------------

def test_an_unclosed_quote_is_reported_where_it_opens(tmp_path: Path) -> None:
    text = ADA.replace("title: Researcher", 'title: "Researcher').replace("  - role: Engineer",
                                                                          '  - role: "Engineer"')
    code, output = _validate(_data(tmp_path, {"ada-example": text}))
    assert code == 2
    assert output.startswith(
        f"error: {tmp_path}/data/profiles/ada-example.yaml:2: YAML syntax error: the quoted value that begins here "
        "(line 2, column 8) is not closed on its line, so YAML read on to line 5, where it gave up"), output
    assert "close the quote on line 2" in output


def test_a_quote_left_open_at_the_end_of_the_file(tmp_path: Path) -> None:
    code, output = _validate(_data(tmp_path, {"ada-example": ADA + "summary: 'never closed\n"}))
    assert code == 2 and "ada-example.yaml:17: YAML syntax error: the quoted value that begins here (line 17, " \
                          "column 10)" in output, output


# --- 5. the same author twice in one publication -------------------------------------------------------------------

def test_an_author_listed_twice_is_a_warning_naming_the_publication_and_both_positions(tmp_path: Path) -> None:
    authors = ", ".join(["Ada Example", "Bo Sample", "Cy Third", "Bo Sample"])
    text = ADA.replace("authors: [Ada Example, Bo Sample]", f"authors: [{authors}]")
    data = _data(tmp_path, {"ada-example": text})
    warning = (f"{data}/profiles/ada-example.yaml:14: warning: publications[0].authors[3]: the publication "
               "'Graph Sampling at Scale' lists the same author twice: 'Bo Sample' at authors[1] (line 14, author 2) "
               "and 'Bo Sample' here (author 4); remove the repeated entry")
    code, output = _validate(data)
    assert code == 0 and output.startswith(warning), output
    built = CliRunner().invoke(main, ["build", "--data", str(data), "--store", str(tmp_path / "store")])
    assert built.exit_code == 0 and warning in built.stdout, built.output


def test_two_names_pinned_to_one_person_are_the_same_author(tmp_path: Path) -> None:
    pinned = "\n      - {name: A. Example, same_as: ada-example}"
    text = ADA.replace("authors: [Ada Example, Bo Sample]", f"authors:\n      - Ada Example\n      - Bo Sample{pinned}")
    code, output = _validate(_data(tmp_path, {"ada-example": text}))
    assert code == 0 and "publications[0].authors[2]: the publication 'Graph Sampling at Scale' lists the same " \
                         "author twice: 'Ada Example' at authors[0] (line 15, author 1)" in output, output


# --- 7. two files describing one person, or one publication two ways ----------------------------------------------

HOMEPAGE = """\
name: Ada Example
affiliation: acme
publications:
  - title: Graph Sampling at Scale
    authors: [Ada Example, Bo Sample]
    venue: OSDI
    year: 2020
"""
BIBTEX = """\
name: Ada Example
publications:
  - title: Graph sampling at scale
    authors: [Ada Example, Bo Sample, Cy Third]
    venue: OSDI
    year: 2021
"""


def test_two_drafts_of_one_person_are_named_before_validation(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example": HOMEPAGE, "ada-example-bib": BIBTEX})
    result = _kg("validate", "--data", str(data))
    assert result.returncode == 2, result.stdout + result.stderr
    home, bib = f"{data}/profiles/ada-example.yaml", f"{data}/profiles/ada-example-bib.yaml"
    assert "rdf:first" not in result.stderr and "Validation" not in result.stdout
    errors = result.stderr.removeprefix("error: ").splitlines()
    assert errors[0].startswith(f"{home}:1: name: these two files describe the same person (both are named "
                                f"'Ada Example'): {bib}:1 and this file; merge them into one profile"), errors
    assert errors[1] == (
        f"{home}:4: publications[0]: these two files describe the same publication ('Graph sampling at scale') "
        "differently: title 'Graph sampling at scale' there, 'Graph Sampling at Scale' here; year 2021 there, 2020 "
        "here; authors [Ada Example, Bo Sample, Cy Third] there, [Ada Example, Bo Sample] here "
        f"(there: {bib}:3 publications[0]); merge them: keep one entry, or write it the same way in both (title, "
        "year, venue, status and every author as written)")
    assert len(errors) == 2


def test_one_orcid_in_two_profiles_is_one_person(tmp_path: Path) -> None:
    orcid = "same_as: [https://orcid.org/0000-0002-1825-0097]\n"
    data = _data(tmp_path, {"ada-example": "name: Ada Example\n" + orcid, "a-example": "name: A. Example\n" + orcid})
    code, output = _validate(data)
    assert code == 2
    assert (f"{data}/profiles/ada-example.yaml:2: same_as[0]: these two files describe the same person (both give "
            f"same_as https://orcid.org/0000-0002-1825-0097): {data}/profiles/a-example.yaml:2 and this file") in output


def test_co_authors_listing_one_publication_alike_are_fine(tmp_path: Path) -> None:
    bo = HOMEPAGE.replace("name: Ada Example\naffiliation: acme", "name: Bo Sample")
    code, output = _validate(_data(tmp_path, {"ada-example": HOMEPAGE, "bo-sample": bo}))
    assert code == 0, output


def test_a_copied_data_folder_reuses_the_cache_and_names_its_own_files(tmp_path: Path) -> None:
    import shutil

    from kg.config import Config
    from kg.pipeline import build

    first = _data(tmp_path / "a", {"ada-example": ADA.replace("    venue: OSDI\n", "")})
    build(Config(data=first, store=tmp_path / "a" / "work" / "store"))
    shutil.copytree(tmp_path / "a", tmp_path / "b", symlinks=True)
    lines: list[str] = []
    again = build(Config(data=tmp_path / "b" / "data", store=tmp_path / "b" / "work" / "store"), progress=lines.append)
    assert "(1 of 1 profiles cached)" in lines[0]
    assert [v.file for v in again.report.warnings] == [f"{tmp_path}/b/data/profiles/ada-example.yaml"]
