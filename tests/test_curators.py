"""Curators protected (issue 32, item 3): no silent overwrite, no stale or mis-based store served, no empty build
made current, no lock left behind, quiet builds, and seed data that builds without warnings."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kg.config import PROJECT_ROOT

from .server_process import free_port, kg_serve_process

PROFILE = """\
name: Ada Example
publications:
  - title: Graph Sampling at Scale
    authors: [Ada Example, Bo Sample]
    venue_as_written: "Preprint, 2020."
    year: 2020
    status: preprint
"""


def _kg(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "kg", *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, check=False)


def _data(tmp_path: Path, profile: str = PROFILE) -> Path:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    (data / "profiles" / "ada-example.yaml").write_text(profile, encoding="utf-8")
    return data


def test_kg_import_refuses_to_overwrite_a_profile_and_names_whose_it_is(tmp_path: Path) -> None:
    data = _data(tmp_path)
    target = data / "profiles" / "ada-example.yaml"
    page = tmp_path / "page.txt"
    page.write_text("Bo Sample\nProfessor of Graphs\n\nPublications\n1. A Title of Some Length. Bo Sample. "
                    "VLDB 2021.\n", encoding="utf-8")
    refused = _kg("import", str(page), "-o", str(target))
    assert refused.returncode == 1
    assert refused.stderr == (f"error: {target} already exists (the profile of Ada Example); nothing was written. "
                              "Choose another file with -o, or pass --force to replace it\n")
    assert target.read_text(encoding="utf-8") == PROFILE
    forced = _kg("import", str(page), "-o", str(target), "--force")
    assert forced.returncode == 0, forced.stderr
    assert target.read_text(encoding="utf-8") != PROFILE


def test_an_empty_data_folder_is_refused_unless_allowed(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    store = tmp_path / "store"
    refused = _kg("build", "--data", str(tmp_path / "empty"), "--store", str(store))
    assert refused.returncode == 2
    assert "no profiles (profiles/*.yaml) and no records (records/) here" in refused.stderr
    assert "--allow-empty" in refused.stderr
    assert not store.parent.joinpath("store.lock").exists() and not store.exists()
    allowed = _kg("build", "--data", str(tmp_path / "empty"), "--store", str(store), "--allow-empty")
    assert allowed.returncode == 0, allowed.stderr


def test_a_build_without_a_data_folder_leaves_nothing_behind(tmp_path: Path) -> None:
    result = _kg("build", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "error: data: data directory not found; pass --data DIR\n"
    assert list(tmp_path.iterdir()) == []


def test_builds_are_quiet_unless_timings_are_asked_for(tmp_path: Path) -> None:
    data = _data(tmp_path)
    quiet = _kg("build", "--data", str(data), "--store", str(tmp_path / "store"))
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    assert not any(line.lstrip().startswith(("map ", "validate ")) for line in quiet.stdout.splitlines())
    timed = _kg("build", "--data", str(data), "--store", str(tmp_path / "store"), "--timings")
    assert [line.split()[0] for line in timed.stdout.splitlines()[:2]] == ["map", "validate"]


def test_a_preprint_without_a_venue_is_no_warning_but_a_paper_without_one_is(tmp_path: Path) -> None:
    data = _data(tmp_path)
    assert _kg("validate", "--data", str(data)).stdout == "Validation passed: no problems found.\n"
    (data / "profiles" / "ada-example.yaml").write_text(PROFILE.replace("    status: preprint\n", ""),
                                                        encoding="utf-8")
    lines = _kg("validate", "--data", str(data)).stdout.splitlines()
    assert any(line.startswith(f"{data}/profiles/ada-example.yaml:3: warning: publications[0].venue ")
               and "This work has no venue" in line for line in lines), lines


def test_the_seed_data_builds_without_a_warning(tmp_path: Path) -> None:
    shutil.copytree(PROJECT_ROOT / "data", tmp_path / "data")
    result = _kg("build", "--data", str(tmp_path / "data"), "--store", str(tmp_path / "store"))
    assert result.returncode == 0, result.stderr
    assert "violations: 0, warnings: 0" in result.stdout


def _page(url: str) -> str:
    with urllib.request.urlopen(f"{url}/page/work/graph-sampling-at-scale", timeout=10) as response:
        return str(response.read().decode("utf-8"))


@pytest.mark.real
def test_kg_serve_rebuilds_when_data_changed_after_the_build(tmp_path: Path) -> None:
    data, store = _data(tmp_path), tmp_path / "store"
    assert _kg("build", "--data", str(data), "--store", str(store)).returncode == 0
    time.sleep(0.05)
    profile = data / "profiles" / "ada-example.yaml"
    profile.write_text(PROFILE.replace("year: 2020", "year: 2021"), encoding="utf-8")
    with kg_serve_process(data, store) as (url, _):
        log = (tmp_path / f"serve-{url.rsplit(':', 1)[1]}.log").read_text(encoding="utf-8")
        assert f"{profile} changed after the store was built" in log and "rebuilding" in log, log
        assert "2021" in _page(url)
        assert f"serving {url}/ (SPARQL endpoint {url}/sparql; Ctrl-C to stop)" in log
        assert "seems quite high" not in log  # granian's thread-count note is not printed


@pytest.mark.real
def test_kg_serve_refuses_a_store_built_under_another_base(tmp_path: Path) -> None:
    data, store = _data(tmp_path), tmp_path / "store"
    assert _kg("build", "--data", str(data), "--store", str(store), "--base", "https://people.example.edu"
               ).returncode == 0
    result = _kg("serve", "--data", str(data), "--store", str(store), "--port", str(free_port()), timeout=60)
    assert result.returncode == 4
    assert result.stderr == ("error: the store was built with base https://people.example.edu, but kg serve uses "
                             "https://kg.example.org, so every page would be 404; serve it with --base "
                             "https://people.example.edu (or KG_BASE), or rebuild it with kg build --base "
                             "https://kg.example.org\n")


SHAPES = """\
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/> .
ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
    sh:property [ sh:path ex:name ; sh:minCount 1 ] ;
    sh:property [ sh:path ex:email ; sh:minCount 1 ; sh:severity sh:Warning ] .
"""


def test_kg_shacl_takes_several_files_and_folders_and_separates_warnings_in_json(tmp_path: Path) -> None:
    import json

    (tmp_path / "shapes").mkdir()
    (tmp_path / "shapes" / "people.ttl").write_text(SHAPES, encoding="utf-8")
    (tmp_path / "a.ttl").write_text("@prefix ex: <http://example.org/> .\nex:a a ex:Person .\n", encoding="utf-8")
    (tmp_path / "b.nt").write_text('<http://example.org/b> <http://example.org/name> "B" .\n', encoding="utf-8")
    both = [str(tmp_path / "a.ttl"), str(tmp_path / "b.nt")]
    positional = _kg("shacl", *both, str(tmp_path / "shapes"), "--format", "json")
    named = _kg("shacl", *both, "--shapes", str(tmp_path / "shapes"), "--format", "json")
    assert positional.returncode == named.returncode == 3
    report = json.loads(named.stdout)
    def facts(answer: dict[str, list[dict[str, str]]]) -> list[tuple[str, ...]]:
        return sorted((kind, r["focus"], r["path"], r["message"]) for kind in ("violations", "warnings", "infos")
                      for r in answer[kind])  # the shapes are blank nodes, named anew in each run

    assert facts(json.loads(positional.stdout)) == facts(report)
    assert report["counts"] == {"violations": 1, "warnings": 1, "infos": 0}
    assert [v["severity"] for v in report["violations"]] == ["Violation"]
    assert [v["severity"] for v in report["warnings"]] == ["Warning"]
    assert report["violations"][0]["message"] == "Fewer than 1 value"  # not Fewer than "1"^^xsd:integer values
    lonely = _kg("shacl", str(tmp_path / "shapes"))
    assert lonely.returncode == 2 and "give the data and the shapes" in lonely.stderr
