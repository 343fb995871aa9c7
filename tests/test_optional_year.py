"""Publications without a year: parsed, mapped without date or edition, merged by title, validated, shown."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from rdflib import Graph, URIRef

from kg.config import PROJECT_ROOT, Config
from kg.errors import SourceError
from kg.fields import MAX_YEAR
from kg.iris import Minter
from kg.mapping import MappedGraphs, map_corpus
from kg.mapping.works import year_literal
from kg.namespaces import BIBO, SDO
from kg.parsing import parse_corpus, parse_profile
from kg.sources import parse_yaml, read_data_dir
from kg.validation import validate_graphs
from kg.validation.engine import run, run_pyshacl, union

from .shacl_suite import assert_same_results

BROWSER = "text/html,application/xhtml+xml"
JOURNAL = "- id: jacm\n  name: Journal of the ACM\n  acronym: JACM\n  type: journal\n"
GRACE = """\
name: Grace Hopper
publications:
  - title: Compiling Engines
    authors: [Grace Hopper]
    venue: nsdi
    year: 2021
  - title: Notes on the Analytical Engine
    authors: [Grace Hopper, Alan Turing]
    venue: osdi
  - title: A Journal Paper Without a Year
    authors: [Grace Hopper]
    venue: jacm
  - title: Preprint Without a Year
    authors: [Grace Hopper]
    status: preprint
  - title: Shared Paper Dated Elsewhere
    authors: [Grace Hopper, Alan Turing]
    venue: nsdi
"""
ALAN = """\
name: Alan Turing
publications:
  - title: Notes on the Analytical Engine
    authors: [Grace Hopper, Alan Turing]
    venue: OSDI
  - title: Shared Paper Dated Elsewhere
    authors: [Grace Hopper, Alan Turing]
    venue: nsdi
    year: 2020
"""
YEARLESS = ("Notes on the Analytical Engine", "A Journal Paper Without a Year", "Preprint Without a Year")
NOTES = "notes-on-the-analytical-engine"
SHARED = "shared-paper-dated-elsewhere"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with two profiles listing publications with and without years."""
    root = tmp_path_factory.mktemp("optional-year") / "data"
    (root / "profiles").mkdir(parents=True)
    shutil.copy(PROJECT_ROOT / "data" / "organizations.yaml", root / "organizations.yaml")
    venues = (PROJECT_ROOT / "data" / "venues.yaml").read_text(encoding="utf-8")
    (root / "venues.yaml").write_text(venues.rstrip("\n") + "\n" + JOURNAL, encoding="utf-8")
    (root / "profiles" / "grace-hopper.yaml").write_text(GRACE, encoding="utf-8")
    (root / "profiles" / "alan-turing.yaml").write_text(ALAN, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def mapped(data: Path) -> MappedGraphs:
    """The mapped graphs of the two profiles."""
    return map_corpus(parse_corpus(read_data_dir(data)), Minter())


@pytest.fixture(scope="module")
def merged(mapped: MappedGraphs) -> Graph:
    """All asserted graphs in one."""
    return union(mapped.graphs.values())


@pytest.fixture(scope="module")
def built(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Config:
    """A store built from the data directory."""
    from kg.pipeline import build

    config = Config(data=data, store=tmp_path_factory.mktemp("optional-year-store") / "store", query_workers=0)
    build(config)
    return config


@pytest.fixture(scope="module")
def client(built: Config) -> FlaskClient:
    """A test client over the built store."""
    from kg.server import create_app

    app = create_app(built)
    app.config["TESTING"] = True
    return app.test_client()


def work(slug: str) -> URIRef:
    """The IRI of a work by slug."""
    return Minter().work(slug)


def page(client: FlaskClient, path: str) -> str:
    """The HTML page of a resource path."""
    response = client.get(f"/page/{path}", headers={"Accept": BROWSER})
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def test_year_is_optional_and_parsed_as_none(data: Path) -> None:
    (grace,) = [p for p in parse_corpus(read_data_dir(data)).profiles if p.id == "grace-hopper"]
    assert [p.year for p in grace.publications] == [2021, None, None, None, None]


@pytest.mark.parametrize(("year", "message"), [
    ("soon", "expected a year such as 2024, got 'soon'"), ("1066", f"impossible year 1066; expected 1900–{MAX_YEAR}"),
    ("true", "expected a year such as 2024, got true"), ("''", "expected a year such as 2024, got ''")])
def test_a_bad_year_still_fails_with_the_same_message(year: str, message: str) -> None:
    text = f"name: Ada\npublications:\n  - title: T\n    authors: [A B]\n    year: {year}\n"
    with pytest.raises(SourceError) as info:
        parse_profile(parse_yaml(text, Path("ada.yaml"), "profiles/ada.yaml"))
    assert (info.value.location.line, info.value.location.field, info.value.message) == (
        5, "publications[0].year", message)
    assert str(info.value).startswith("profiles/ada.yaml:5")


def test_null_year_is_no_year() -> None:
    text = "name: Ada\npublications:\n  - title: T\n    authors: [A B]\n    year: null\n"
    assert parse_profile(parse_yaml(text, Path("ada.yaml"))).publications[0].year is None


def test_a_work_without_year_has_no_date_and_no_edition(merged: Graph) -> None:
    for slug in (NOTES, "a-journal-paper-without-a-year", "preprint-without-a-year"):
        assert merged.value(work(slug), SDO.datePublished) is None, slug
        assert merged.value(work(slug), BIBO.presentedAt) is None, slug
    minter = Minter()
    assert set(merged.objects(work(NOTES), SDO.isPartOf)) == {minter.venue("osdi")}
    assert set(merged.objects(work("a-journal-paper-without-a-year"), SDO.isPartOf)) == {minter.venue("jacm")}
    assert set(merged.objects(work("preprint-without-a-year"), SDO.isPartOf)) == set()
    editions = {str(s) for s in merged.subjects(SDO.superEvent, None)}
    assert editions == {str(minter.edition("nsdi", 2021)), str(minter.edition("nsdi", 2020))}


def test_a_year_less_work_merges_by_title(mapped: MappedGraphs, merged: Graph) -> None:
    minter = Minter()
    for profile in ("grace-hopper", "alan-turing"):
        graph = mapped.graphs[minter.graph(f"profile/{profile}")]
        assert (work(NOTES), SDO.name, None) in graph and (work(SHARED), SDO.name, None) in graph, profile
    works = set(merged.subjects(SDO.author, minter.person("alan-turing")))
    assert works == {work(NOTES), work(SHARED)}
    assert [str(y) for y in merged.objects(work(SHARED), SDO.datePublished)] == ["2020"]
    assert set(merged.objects(work(SHARED), BIBO.presentedAt)) == {minter.edition("nsdi", 2020)}
    assert set(merged.objects(work(SHARED), SDO.isPartOf)) == {minter.venue("nsdi")}


def test_titles_match_ignoring_case_and_punctuation(data: Path, tmp_path: Path) -> None:
    root = tmp_path / "data"
    shutil.copytree(data, root)
    alan = root / "profiles" / "alan-turing.yaml"
    variant = ALAN.replace("Notes on the Analytical Engine", '"Notes on the analytical engine."')
    alan.write_text(variant, encoding="utf-8")
    merged = union(map_corpus(parse_corpus(read_data_dir(root)), Minter()).graphs.values())
    assert len(set(merged.objects(work(NOTES), SDO.name))) == 2  # one work, spelt two ways: the title shape says so
    assert merged.value(work(NOTES), SDO.datePublished) is None


def test_both_validators_agree_and_accept_year_less_works(mapped: MappedGraphs, shapes: Graph, ontology: Graph) -> None:
    data = union(mapped.graphs.values())
    outcome = run([data], shapes, ontology)
    assert outcome.engine == "oxigraph"
    assert_same_results(outcome.graph, run_pyshacl(data, shapes, ontology))
    report = validate_graphs(mapped, shapes, ontology)
    assert report.passes and report.errors == (), report.text()


def test_two_profiles_giving_different_years_still_fail(mapped: MappedGraphs, shapes: Graph, ontology: Graph) -> None:
    iri = Minter().graph("profile/alan-turing")
    graph = Graph()
    graph += mapped.graphs[iri]
    graph.add((work(SHARED), SDO.datePublished, year_literal(2019)))
    report = validate_graphs(MappedGraphs({iri: graph}, {}, {}), shapes, ontology)
    assert any(v.path == "schema:datePublished" for v in report.violations), report.text()


def test_the_build_succeeds_and_pages_show_no_year(client: FlaskClient) -> None:
    text = page(client, "person/grace-hopper")
    assert "None" not in text
    titles = re.findall(r'<li class="publication">\s*<cite><a href="[^"]+">([^<]+)</a>', text)
    assert titles[:2] == ["Compiling Engines", "Shared Paper Dated Elsewhere"]
    assert sorted(titles[2:]) == sorted(YEARLESS)
    assert re.findall(r'<h3 id="pubs-(\w+)">', text) == ["2021", "2020", "undated"]
    assert "Year not given" in text
    notes = page(client, f"work/{NOTES}")
    assert "None" not in notes and 'class="year"' not in notes and 'href="/page/venue/osdi"' in notes


def test_the_picture_leaves_year_less_papers_out(client: FlaskClient) -> None:
    text = page(client, "person/grace-hopper")
    timeline = text[text.index('<svg class="picture timeline"'):]
    timeline = timeline[:timeline.index("</svg>")]
    assert re.findall(r"<title>([^<(]+) \(", timeline) == ["Shared Paper Dated Elsewhere", "Compiling Engines"]
    assert not any(title in timeline for title in YEARLESS) and "None" not in timeline


def test_venue_pages_list_year_less_papers_once_under_year_unknown(client: FlaskClient) -> None:
    osdi = page(client, "venue/osdi")
    assert "Year unknown" in osdi and 'id="year-unknown"' in osdi and "None" not in osdi
    nsdi = page(client, "venue/nsdi")
    assert nsdi.count(f'href="/page/work/{SHARED}"') == 1 and "Year unknown" not in nsdi
