"""The real records in ../shared/linked-samples/: every one maps, a build with all of them conforms, and an ORCID
record joins the profile that lists its iD."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kg.config import Config
from kg.pipeline import build
from kg.records import read_record
from kg.store import Store

from .shared import shared_path

SHARED = shared_path("linked-samples")
REPO_DATA = Path(__file__).resolve().parents[1] / "data"
BASE = "https://kg.example.org"
SAMPLES = sorted(p.name for p in SHARED.glob("*") if p.suffix in (".json", ".xml")) if SHARED.is_dir() else []
PROFILE = """\
name: Three Release Candidate
same_as: [https://orcid.org/0000-0002-7319-2192]
experience:
  - role: Researcher
    organizations: [Example Institute]
    start: 2020
    end: present
publications:
  - title: A Curated Paper
    authors: [Three Release Candidate]
    year: 2021
"""

pytestmark = pytest.mark.skipif(not SAMPLES, reason="../shared/linked-samples is not beside the repository")


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_maps_to_people_or_works(name: str) -> None:
    record = read_record(SHARED / name)
    assert record.people or record.works
    assert len(record.sha256) == 64


def test_a_build_with_every_sample_conforms(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(REPO_DATA, data, ignore=shutil.ignore_patterns("edits"))
    (data / "records").mkdir(exist_ok=True)
    for name in SAMPLES:
        shutil.copyfile(SHARED / name, data / "records" / name)
    result = build(Config(data=data, store=tmp_path / "store"))
    assert result.report.passes
    store = Store.open(tmp_path / "store")
    assert len([g for g in store.graph_names() if "/graph/record/" in g]) == len(SAMPLES)


def test_a_profile_and_the_orcid_record_of_its_id_are_one_person(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    (data / "records" / "orcid").mkdir(parents=True)
    (data / "profiles" / "three-release-candidate.yaml").write_text(PROFILE, encoding="utf-8")
    shutil.copyfile(SHARED / "orcid_record-full-3.0.json", data / "records" / "orcid" / "record.json")
    config = Config(data=data, store=tmp_path / "store")
    assert build(config).report.passes
    store = Store.open(config.store)
    person = f"{BASE}/id/person/three-release-candidate"
    query = f"""PREFIX schema: <http://schema.org/>
        SELECT DISTINCT ?g ?kind WHERE {{ GRAPH ?g {{
          {{ <{person}> schema:worksFor ?r . ?r a schema:EmployeeRole BIND("employment" AS ?kind) }} UNION
          {{ <{person}> schema:alumniOf ?r . ?r a schema:OrganizationRole BIND("education" AS ?kind) }} UNION
          {{ ?w schema:author <{person}> BIND("work" AS ?kind) }} }} }} ORDER BY ?g ?kind"""
    rows = [(str(r[0].value).rsplit("/", 2)[-2], r[1].value) for r in store.query(query)]
    assert rows == [("profile", "employment"), ("profile", "work"),
                    ("record", "education"), ("record", "employment"), ("record", "work")]
    same = [r[0].value for r in store.query(
        "SELECT ?p WHERE { ?p <http://schema.org/sameAs> <https://orcid.org/0000-0002-7319-2192> }")]
    assert same == [person]
