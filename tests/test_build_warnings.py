"""Build warnings: organisations known only by name get a node and a warning; an owner who authors none of the
profile's publications is warned about; an unknown id stays an error."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.config import Config
from kg.errors import SourceErrors
from kg.parsing import parse_corpus
from kg.pipeline import build
from kg.resolution import resolve
from kg.sources import read_data_dir
from kg.store import Store

BASE = "https://kg.example.org"
SDO = "http://schema.org/"
ORGS = "- id: acme\n  name: Acme Corporation\n- id: example-lab\n  name: Example Laboratory\n"


def _data(tmp_path: Path, profiles: dict[str, str], orgs: str = ORGS) -> Path:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True, exist_ok=True)
    (data / "organizations.yaml").write_text(orgs, encoding="utf-8")
    for stem, text in profiles.items():
        (data / "profiles" / f"{stem}.yaml").write_text(text, encoding="utf-8")
    return data


ADA = """\
name: Ada Example
affiliation: Example Robotics Lab
experience:
  - role: Research Scientist
    organizations: [Example Robotics Lab, acme]
    start: 2020
  - role: Intern
    organizations: [Example Lab]
    start: 2018
"""
BO = """\
name: Bo Example
experience:
  - role: Engineer
    organizations: [EXAMPLE ROBOTICS LAB]
    start: 2019
"""


def test_unknown_organisation_by_name_gets_one_node_and_a_warning(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example": ADA, "bo-example": BO})
    built = build(Config(data=data, store=tmp_path / "store"))
    assert built.report.passes
    org_warnings = [str(w) for w in built.warnings if "organisation" in str(w)]
    assert org_warnings == [
        f"{data}/profiles/ada-example.yaml:2: warning: affiliation: organisation 'Example Robotics Lab' is not in "
        f"{data}/organizations.yaml; the build made an organisation node from its name "
        f"(id/organization/example-robotics-lab) (also used at line 5). Add it to {data}/organizations.yaml with this "
        "name or an alias to give it an id, aliases and a parent, e.g. "
        "'- {id: example-robotics-lab, name: Example Robotics Lab}'",
        f"{data}/profiles/ada-example.yaml:8: warning: experience[1].organizations[0]: organisation 'Example Lab' "
        f"is not in {data}/organizations.yaml; the build made an organisation node from its name "
        f"(id/organization/example-lab-2). Add it to {data}/organizations.yaml with this name or an alias to give it "
        "an id, aliases and a parent, e.g. '- {id: example-lab-2, name: Example Lab}'",  # the id is taken
        f"{data}/profiles/bo-example.yaml:4: warning: experience[0].organizations[0]: organisation "
        f"'EXAMPLE ROBOTICS LAB' is not in {data}/organizations.yaml; the build made an organisation node from its "
        f"name (id/organization/example-robotics-lab). Add it to {data}/organizations.yaml with this name or an alias "
        "to give it an id, aliases and a parent, e.g. '- {id: example-robotics-lab, name: Example Robotics Lab}'"]
    store = Store.open(tmp_path / "store")
    org = f"{BASE}/id/organization/example-robotics-lab"
    names = [(row["g"].value, row["n"].value) for row in store.query(
        f"SELECT ?g ?n WHERE {{ GRAPH ?g {{ <{org}> a <{SDO}Organization> ; <{SDO}name> ?n }} }} ORDER BY ?g")]
    assert names == [(f"{BASE}/graph/profile/ada-example", "Example Robotics Lab"),
                     (f"{BASE}/graph/profile/bo-example", "Example Robotics Lab")]  # one node, one name
    workers = {row["p"].value for row in store.query(
        f"SELECT ?p WHERE {{ ?p <{SDO}worksFor>/<{SDO}worksFor> <{org}> }}")}
    assert workers == {f"{BASE}/id/person/ada-example", f"{BASE}/id/person/bo-example"}
    assert store.query(f"ASK {{ <{BASE}/id/organization/example-lab> <{SDO}name> \"Example Laboratory\" }}")
    assert not store.query(f"ASK {{ <{BASE}/id/organization/example-lab> <{SDO}name> \"Example Lab\" }}")


def test_a_cached_profile_follows_the_name_chosen_across_profiles(tmp_path: Path) -> None:
    data = _data(tmp_path, {"bo-example": BO})
    config = Config(data=data, store=tmp_path / "store")
    build(config)
    (data / "profiles" / "ada-example.yaml").write_text(ADA, encoding="utf-8")  # sorts first: its spelling wins
    built = build(config)
    assert built.report.passes  # not two schema:name values for the one node
    store = Store.open(tmp_path / "store")
    org = f"{BASE}/id/organization/example-robotics-lab"
    assert {row["n"].value for row in store.query(f"SELECT ?n WHERE {{ <{org}> <{SDO}name> ?n }}")} == {
        "Example Robotics Lab"}


@pytest.mark.parametrize(("value", "hint"), [("acmee", " (did you mean 'acme'?)"), ("nowhere", "")])
def test_an_unknown_id_stays_an_error(tmp_path: Path, value: str, hint: str) -> None:
    data = _data(tmp_path, {"x": f"name: X Y\nexperience:\n  - role: R\n    organizations: [{value}]\n"})
    with pytest.raises(SourceErrors) as info:
        resolve(parse_corpus(read_data_dir(data)))
    (error,) = info.value.errors
    assert (error.location.line, error.location.field) == (4, "experience[0].organizations[0]")
    assert error.message.startswith(f"unknown organisation id {value!r}{hint}; use an id, name or alias")


MIRA = """\
name: Mira Okonkwo-Lindqvist
publications:
  - title: Elastic Shards
    authors: [M. Okonkwo-Lindqvist, T. Berg]
    year: 2024
  - title: Tidal
    authors: [T. Berg, M Okonkwo Lindqvist]
    year: 2023
"""


def test_owner_in_none_of_the_author_lists_is_a_warning(tmp_path: Path) -> None:
    data = _data(tmp_path, {"mira-okonkwo-lindqvist": MIRA, "nobody": "name: No Papers\n"})
    (warning,) = resolve(parse_corpus(read_data_dir(data))).warnings
    assert str(warning) == (
        f"{data}/profiles/mira-okonkwo-lindqvist.yaml:1: warning: name: 'Mira Okonkwo-Lindqvist' is an author of "
        "none of the profile's 2 publications (no author is written 'Mira Okonkwo-Lindqvist' or pinned with "
        "same_as: mira-okonkwo-lindqvist), so the person's page lists none of them; likely the owner: "
        "'M. Okonkwo-Lindqvist' (publications[0].authors[0]), 'M Okonkwo Lindqvist' (publications[1].authors[1]). "
        "Write the owner's entry in each author list as {name: <as written>, same_as: mira-okonkwo-lindqvist}")
    pinned = MIRA.replace("[M. Okonkwo-Lindqvist,", "[{name: M. Okonkwo-Lindqvist, same_as: mira-okonkwo-lindqvist},")
    (data / "profiles" / "mira-okonkwo-lindqvist.yaml").write_text(pinned, encoding="utf-8")
    assert resolve(parse_corpus(read_data_dir(data))).warnings == ()  # one publication is enough


def test_kg_build_prints_the_warnings_beside_their_count(tmp_path: Path) -> None:
    profile = MIRA.replace("name: Mira", "affiliation: Nordic Lab\nname: Mira")
    data = _data(tmp_path, {"mira-okonkwo-lindqvist": profile})
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--store", str(tmp_path / "store")])
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if ": warning: " in line]
    assert lines[0].startswith(f"{data}/profiles/mira-okonkwo-lindqvist.yaml:1: warning: affiliation: organisation "
                               f"'Nordic Lab' is not in {data}/organizations.yaml")
    assert lines[1].startswith(f"{data}/profiles/mira-okonkwo-lindqvist.yaml:2: warning: name: 'Mira "
                               "Okonkwo-Lindqvist' is an author of none")
    assert any("This work has no venue" in line for line in lines)  # SHACL warnings are printed the same way
    assert f"warnings: {len(lines)}" in result.stdout

