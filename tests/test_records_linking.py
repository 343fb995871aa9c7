"""Downloaded records in data/records/: merged with profiles and each other by identifier, every fact in its
source's graph, one value per single-valued property in the default graph, conflicts listed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.config import Config
from kg.errors import SourceErrors
from kg.pipeline import build, read_linked
from kg.store import Store

from .shared import shared_path

BASE = "https://kg.example.org"
SHARED = shared_path("linked-samples")
FIXTURES = Path(__file__).parent / "data" / "records"
ELIFE = ("crossref_work_10.7554-elife.01567.json", "openalex_work_10.7554-elife.01567.json")
PREFIXES = """PREFIX schema: <http://schema.org/> PREFIX kg: <https://kg.example.org/ontology#>
PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX bibo: <http://purl.org/ontology/bibo/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
"""

ADA = """\
name: Ada Example
same_as: [https://orcid.org/0000-0002-1825-0097]
publications:
  - title: Graph Sampling at Scale
    authors: [Ada Example, Bo Sample]
    year: 2020
    doi: https://doi.org/10.1234/Example.2021.7
"""


def _data(tmp_path: Path, profiles: dict[str, str], records: dict[str, Path]) -> Path:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    (data / "records").mkdir()
    (data / "organizations.yaml").write_text("- id: unil\n  name: University of Lausanne\n"
                                             "  same_as: [https://ror.org/019whta54]\n", encoding="utf-8")
    for stem, text in profiles.items():
        (data / "profiles" / f"{stem}.yaml").write_text(text, encoding="utf-8")
    for name, source in records.items():
        target = data / "records" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return data


def _rows(store: Store, query: str) -> list[tuple[str, ...]]:
    return [tuple(str(term.value) if term is not None else "" for term in row)
            for row in store.query(PREFIXES + query)]


@pytest.fixture()
def elife(tmp_path: Path) -> tuple[Config, Store]:
    if not SHARED.is_dir():
        pytest.skip("../shared/linked-samples is not beside the repository")
    data = _data(tmp_path, {}, {name: SHARED / name for name in ELIFE})
    config = Config(data=data, store=tmp_path / "store")
    assert build(config).report.passes
    return config, Store.open(config.store)


def test_crossref_and_openalex_records_of_one_doi_are_one_work_with_five_ordered_authors(
        elife: tuple[Config, Store]) -> None:
    _, store = elife
    works = _rows(store, "SELECT DISTINCT ?w WHERE { ?w bibo:doi '10.7554/elife.01567' }")
    assert len(works) == 1
    authors = _rows(store, """SELECT ?rank ?name WHERE { ?w bibo:doi '10.7554/elife.01567' ; kg:authorship ?a .
        ?a kg:rank ?rank ; kg:agent ?p . ?p schema:name ?name } ORDER BY ?rank""")
    assert authors == [("1", "Martial Sankar"), ("2", "Kaisa Nieminen"), ("3", "Laura Ragni"),
                       ("4", "Ioannis Xenarios"), ("5", "Christian S Hardtke")]
    orcids = _rows(store, """SELECT DISTINCT ?o WHERE { ?w bibo:doi '10.7554/elife.01567' ; schema:author ?p .
        ?p schema:sameAs ?o FILTER(STRSTARTS(STR(?o), 'https://orcid.org/')) }""")
    assert len(orcids) == 4
    people = _rows(store, "SELECT DISTINCT ?p WHERE { ?w bibo:doi '10.7554/elife.01567' ; schema:author ?p }")
    assert len(people) == 5, "name differences between the sources must not make two people"
    names = _rows(store, "SELECT (COUNT(?n) AS ?c) WHERE { ?p schema:sameAs <https://orcid.org/0000-0002-3413-6841> ;"
                         " schema:name ?n }")
    assert names == [("1",)], "the default graph shows one name"
    alternates = {r[0] for r in _rows(store, "SELECT ?n WHERE { ?p schema:sameAs "
                                             "<https://orcid.org/0000-0002-3413-6841> ; schema:alternateName ?n }")}
    assert alternates == {"Ioannis Xénarios"}


def test_both_record_files_are_in_the_works_provenance(elife: tuple[Config, Store]) -> None:
    _, store = elife
    sources = _rows(store, """SELECT ?file ?sha ?agent WHERE { GRAPH ?g { ?w bibo:doi '10.7554/elife.01567' .
        ?g prov:wasDerivedFrom ?f ; prov:wasAttributedTo ?agent . ?f schema:name ?file ; kg:sha256 ?sha } }
        ORDER BY ?file""")
    assert [(f, a) for f, _, a in sources] == [(f"records/{ELIFE[0]}", "https://www.crossref.org/"),
                                               (f"records/{ELIFE[1]}", "https://openalex.org/")]
    assert all(len(sha) == 64 for _, sha, _ in sources)
    graphs = _rows(store, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?w bibo:doi '10.7554/elife.01567' } } ORDER BY ?g")
    assert [g for (g,) in graphs] == [f"{BASE}/graph/record/crossref-work-10-7554-elife-01567-json",
                                      f"{BASE}/graph/record/openalex-work-10-7554-elife-01567-json"]


def test_name_variants_are_alternate_names_not_conflicts(elife: tuple[Config, Store]) -> None:
    config, _ = elife
    assert read_linked(config).linking.conflicts == []


def test_a_profile_with_an_orcid_and_a_person_record_are_one_person(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example": ADA}, {"openalex/author-ada.json": FIXTURES / "openalex/author-ada.json"})
    config = Config(data=data, store=tmp_path / "store")
    assert build(config).report.passes
    store = Store.open(config.store)
    people = _rows(store, "SELECT DISTINCT ?p WHERE { ?p schema:sameAs <https://orcid.org/0000-0002-1825-0097> }")
    assert people == [(f"{BASE}/id/person/ada-example",)]
    names = _rows(store, f"SELECT ?n WHERE {{ <{BASE}/id/person/ada-example> schema:name ?n }}")
    assert names == [("Ada Example",)], "the curated name is shown"
    member = _rows(store, f"""SELECT ?g ?org WHERE {{ GRAPH ?g {{ <{BASE}/id/person/ada-example> schema:memberOf ?r .
        ?r a schema:OrganizationRole ; schema:memberOf ?org ; schema:startDate ?s }} }}""")
    assert member == [(f"{BASE}/graph/record/openalex-author-ada-json", f"{BASE}/id/organization/unil")]


def test_a_work_record_merges_by_title_and_year_when_the_profile_gives_no_doi(tmp_path: Path) -> None:
    profile = ADA.replace("    doi: https://doi.org/10.1234/Example.2021.7\n", "").replace("2020", "2021")
    data = _data(tmp_path, {"ada-example": profile}, {"works.json": FIXTURES / "openalex/works-list.json"})
    config = Config(data=data, store=tmp_path / "store")
    result = build(config)
    assert result.report.passes and result.conflicts == ()
    store = Store.open(config.store)
    works = _rows(store, "SELECT ?w WHERE { ?w schema:name 'Graph Sampling at Scale' }")
    assert works == [(f"{BASE}/id/work/graph-sampling-at-scale",)]
    assert _rows(store, f"SELECT ?d WHERE {{ <{BASE}/id/work/graph-sampling-at-scale> bibo:doi ?d }}") == [
        ("10.1234/example.2021.7",)]


def test_a_work_record_merges_with_a_profile_publication_by_doi_and_keeps_the_curated_year(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example": ADA}, {"works.json": FIXTURES / "openalex/works-list.json"})
    config = Config(data=data, store=tmp_path / "store")
    result = build(config)
    assert result.report.passes
    store = Store.open(config.store)
    work = f"{BASE}/id/work/graph-sampling-at-scale"
    assert _rows(store, f"SELECT ?y WHERE {{ <{work}> schema:datePublished ?y }}") == [("2020",)]
    assert _rows(store, f"SELECT ?y WHERE {{ <{work}> kg:otherValue [ rdf:value ?y ] }}") == [("2021",)]
    assert _rows(store, f"SELECT ?d WHERE {{ <{work}> bibo:doi ?d }}") == [("10.1234/example.2021.7",)]
    authors = _rows(store, f"SELECT DISTINCT ?p WHERE {{ <{work}> schema:author ?p }} ORDER BY ?p")
    assert authors == [(f"{BASE}/id/person/ada-example",), (f"{BASE}/id/person/bo-sample",)]
    assert [(c.property, [v for v, _ in c.values]) for c in result.conflicts] == [("year", ["2020", "2021"])]
    listed = CliRunner().invoke(main, ["conflicts", "--data", str(data)])
    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines() == [
        "work graph-sampling-at-scale (Graph Sampling at Scale): year differs: "
        f"'2020' ({data}/profiles/ada-example.yaml); '2021' ({data}/records/works.json); the first is shown",
        "conflicts: 1"]
    bad = [str(w) for w in result.warnings if "not a valid ORCID" in str(w)]
    assert bad == [f"{data}/records/works.json: warning: "
                   "'https://orcid.org/0000-0002-1694-2338' is not a valid ORCID iD at "
                   "results[0].authorships[1].author.orcid; it is not used to merge records (correct it at the "
                   "source, or download the record again)"]


def test_names_alone_never_merge_people_across_works(tmp_path: Path) -> None:
    other = "name: Cy Other\npublications:\n  - title: Unrelated Work\n    authors: [Cy Other]\n    year: 2019\n"
    data = _data(tmp_path, {"cy-other": other}, {"works.json": FIXTURES / "openalex/works-list.json"})
    config = Config(data=data, store=tmp_path / "store")
    assert build(config).report.passes
    store = Store.open(config.store)
    people = _rows(store, "SELECT ?p WHERE { ?p a schema:Person ; schema:name 'Cy Other' } ORDER BY ?p")
    assert people == [(f"{BASE}/id/person/cy-other",), (f"{BASE}/id/person/cy-other-2",)]
    assert _rows(store, f"SELECT ?o WHERE {{ <{BASE}/id/person/cy-other-2> kg:possibleSameAs ?o }}") == [
        (f"{BASE}/id/person/cy-other",)]


def test_an_invalid_orcid_in_a_profile_is_an_error(tmp_path: Path) -> None:
    bad = "name: Bo Sample\nsame_as: [https://orcid.org/0000-0002-1694-2338]\n"
    data = _data(tmp_path, {"bo-sample": bad}, {})
    with pytest.raises(SourceErrors) as caught:
        build(Config(data=data, store=tmp_path / "store"))
    assert "data/profiles/bo-sample.yaml:2: same_as[0]: 'https://orcid.org/0000-0002-1694-2338' is not a valid " \
           "ORCID iD (its last character is a MOD 11-2 check digit)" in str(caught.value)


def test_a_bad_doi_in_a_profile_is_an_error(tmp_path: Path) -> None:
    bad = "name: Bo Sample\npublications:\n  - title: T\n    authors: [Bo Sample]\n    doi: 11.2/x\n"
    data = _data(tmp_path, {"bo-sample": bad}, {})
    with pytest.raises(SourceErrors) as caught:
        build(Config(data=data, store=tmp_path / "store"))
    assert "data/profiles/bo-sample.yaml:5: publications[0].doi: '11.2/x' is not a valid DOI" in str(caught.value)


@pytest.mark.parametrize(("content", "expected"), [
    ('{"message-type": "work", "message": {"DOI": "10.1/x", "title": ["T"], "au', "records/bad.json:1: column"),
    ('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<r>&e;</r>',
     "records/bad.json:2: the XML has a DOCTYPE declaration"),
])
def test_bad_records_stop_the_build_before_anything_is_replaced(tmp_path: Path, content: str, expected: str) -> None:
    data = _data(tmp_path, {"ada-example": ADA}, {})
    config = Config(data=data, store=tmp_path / "store")
    first = build(config)
    (data / "records" / "bad.json").write_text(content, encoding="utf-8")
    with pytest.raises(SourceErrors) as caught:
        build(config)
    assert expected in str(caught.value)
    assert config.store.resolve() == Path(first.location).resolve()


def test_an_oversized_record_is_refused_naming_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data(tmp_path, {}, {"works.json": FIXTURES / "openalex/works-list.json"})
    monkeypatch.setenv("KG_MAX_RECORD_BYTES", "1000")
    with pytest.raises(SourceErrors) as caught:
        build(Config(data=data, store=tmp_path / "store"))
    assert "data/records/works.json: is" in str(caught.value) and "KG_MAX_RECORD_BYTES" in str(caught.value)


def test_a_newer_record_replaces_only_its_own_graph(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example": ADA}, {"works.json": FIXTURES / "openalex/works-list.json"})
    config = Config(data=data, store=tmp_path / "store")
    build(config)
    before = Store.open(config.store)
    graph = ox.NamedNode(f"{BASE}/graph/profile/ada-example")
    profile = {str(q) for q in before.quads_for_pattern(None, None, None, graph)}
    del before
    text = (FIXTURES / "openalex/works-list.json").read_text(encoding="utf-8")
    (data / "records" / "works.json").write_text(text.replace("A Second Example Paper", "A Renamed Paper"),
                                                 encoding="utf-8")
    build(config)
    after = Store.open(config.store)
    assert {str(q) for q in after.quads_for_pattern(None, None, None, graph)} == profile
    titles = {r[0] for r in _rows(after, "SELECT ?t WHERE { ?w schema:name ?t }")}
    assert "A Renamed Paper" in titles and "A Second Example Paper" not in titles


def test_the_work_page_marks_where_sources_disagree(tmp_path: Path) -> None:
    from kg.server import create_app

    data = _data(tmp_path, {"ada-example": ADA}, {"works.json": FIXTURES / "openalex/works-list.json"})
    config = Config(data=data, store=tmp_path / "store", query_workers=0)
    build(config)
    client = create_app(config).test_client()
    page = client.get("/page/work/graph-sampling-at-scale").get_data(as_text=True)
    assert "Sources disagree" in page and "schema:datePublished: 2021" in page
    assert "https://doi.org/10.1234/example.2021.7" in page
    void = client.get("/void", headers={"Accept": "application/n-triples"}).get_data(as_text=True)
    assert "<http://rdfs.org/ns/void#Linkset>" in void and '"https://orcid.org/"' in void
