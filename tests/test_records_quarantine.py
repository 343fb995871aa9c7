"""Downloaded records never block a build: invalid entities are quarantined, authorless works are modelled,
unknown files warn, RIS and CSL-JSON are read, profiles may be named *.yml; curated profiles stay strict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.config import Config
from kg.errors import SourceError, SourceErrors, ValidationFailed
from kg.pipeline import build
from kg.store import Store

from .shared import shared_path

BASE = "https://kg.example.org"
SHARED = shared_path("linked-samples")
CROSSREF = "crossref_work_10.7554-elife.01567.json"
PREFIXES = """PREFIX schema: <http://schema.org/> PREFIX kg: <https://kg.example.org/ontology#>
PREFIX bibo: <http://purl.org/ontology/bibo/>
"""
ADA = """\
name: Ada Example
same_as: [https://orcid.org/0000-0002-1825-0097]
publications:
  - title: Graph Sampling at Scale
    authors: [Ada Example, Bo Sample]
    year: 2020
    venue: arXiv
"""
VENUES = "- id: arxiv\n  name: arXiv\n  type: repository\n"
ENCYCLOPEDIA = """\
@prefix dblp: <https://dblp.org/rdf/schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

<https://dblp.org/rec/reference/db/X09a> a dblp:Publication, dblp:Reference ;
    dblp:title "Absolute Time." ;
    dblp:numberOfCreators 0 ;
    dblp:doi <https://doi.org/10.1007/978-0-387-39940-9_1> ;
    dblp:publishedInBook "Encyclopedia of Database Systems" ;
    dblp:yearOfPublication "2009"^^xsd:gYear .

<https://dblp.org/rec/reference/db/X09b> a dblp:Publication, dblp:Reference ;
    dblp:title "Access Control." ;
    dblp:numberOfCreators 0 ;
    dblp:publishedInBook "Encyclopedia of Database Systems" .
"""
GOOD = {"DOI": "10.1234/good", "title": ["A Good Work"], "author": [{"given": "Ann", "family": "Good"}],
        "published": {"date-parts": [[2020]]}, "container-title": ["Journal of Things"]}
UNTITLED = {"DOI": "10.1234/untitled", "title": [], "author": [{"given": "Una", "family": "Titled"}],
            "published": {"date-parts": [[2021]]}, "container-title": ["Journal of Things"]}


def _data(tmp_path: Path, profiles: dict[str, str], records: dict[str, str | Path]) -> Path:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    (data / "records").mkdir()
    (data / "venues.yaml").write_text(VENUES, encoding="utf-8")
    for name, text in profiles.items():
        (data / "profiles" / name).write_text(text, encoding="utf-8")
    for name, source in records.items():
        if isinstance(source, Path):
            shutil.copyfile(source, data / "records" / name)
        else:
            (data / "records" / name).write_text(source, encoding="utf-8")
    return data


def _crossref(*items: dict[str, object]) -> str:
    return json.dumps({"status": "ok", "message-type": "work-list", "message": {"items": list(items)}}, indent=1)


def _rows(store: Store, query: str) -> list[tuple[str, ...]]:
    return [tuple(str(term.value) for term in row) for row in store.query(PREFIXES + query)]  # type: ignore[union-attr]


def _quads(store: Store, graph: str | None = None) -> set[ox.Quad]:
    """The quads of a graph (or the default graph), without the record file's hash (it differs between files)."""
    found = store.quads_for_pattern(None, None, None, ox.NamedNode(graph) if graph else ox.DefaultGraph())
    return {q for q in found if not q.predicate.value.endswith("#sha256")}


def test_reference_entries_without_creators_build_beside_the_profiles(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example.yaml": ADA}, {"eds.ttl": ENCYCLOPEDIA})
    config = Config(data=data, store=tmp_path / "store")
    result = build(config)
    assert result.report.passes and not result.quarantined
    store = Store.open(config.store)
    entries = _rows(store, "SELECT ?w ?n WHERE { ?w a kg:UnattributedWork , schema:CreativeWork , bibo:Document ;"
                           " schema:name ?n } ORDER BY ?n")
    assert [n for _, n in entries] == ["Absolute Time", "Access Control"]
    assert not bool(store.query(PREFIXES + "ASK { ?w a kg:UnattributedWork . { ?w a schema:ScholarlyArticle } UNION "
                                           "{ ?w schema:author ?a } UNION { ?w kg:authorship ?s } }"))
    assert _rows(store, f"SELECT ?n WHERE {{ <{BASE}/id/work/graph-sampling-at-scale> schema:name ?n }}") == [
        ("Graph Sampling at Scale",)]
    del store
    from kg.server import create_app

    client = create_app(Config(data=data, store=config.store, query_workers=0)).test_client()
    assert client.get("/page/work/absolute-time").status_code == 200
    cited = client.get("/bib/work/absolute-time")
    assert cited.status_code == 200 and "title = {Absolute Time}" in cited.text and "author" not in cited.text


def test_an_invalid_record_entity_is_quarantined_and_nothing_else_is_lost(tmp_path: Path) -> None:
    bad = _data(tmp_path / "bad", {"ada-example.yaml": ADA}, {"works.json": _crossref(GOOD, UNTITLED)})
    good = _data(tmp_path / "good", {"ada-example.yaml": ADA}, {"works.json": _crossref(GOOD)})
    built = CliRunner().invoke(main, ["build", "--data", str(bad), "--store", str(tmp_path / "bad-store")])
    assert built.exit_code == 0, built.output
    lines = [line for line in built.output.splitlines() if line.startswith("quarantined:")]
    assert len(lines) == 1 and f"{bad}/records/works.json: message.items[1]" in lines[0], built.output
    assert f"({BASE}/id/work/untitled): schema:name:" in lines[0] and "correct the entry at its source" in lines[0]
    assert "quarantined record entities: 1" in built.output
    assert build(Config(data=good, store=tmp_path / "good-store")).report.passes
    with_bad, without = Store.open(tmp_path / "bad-store"), Store.open(tmp_path / "good-store")
    graph = f"{BASE}/graph/record/works-json"
    assert _quads(with_bad, graph) == _quads(without, graph), "the rest of the record is built, and only it"
    assert _quads(with_bad) == _quads(without)
    assert not bool(with_bad.query(f"ASK {{ GRAPH ?g {{ ?s ?p <{BASE}/id/work/untitled> }} }}"))  # nothing dangles
    kept = ox.Dataset(ox.parse(path=str(tmp_path / "bad-store.quarantine.nq"), format=ox.RdfFormat.N_QUADS))
    held = {q.subject.value for q in kept if q.graph_name.value == f"{BASE}/graph/quarantine/works-json"}
    assert {f"{BASE}/id/work/untitled", f"{BASE}/id/work/untitled/authorship/1",
            f"{BASE}/id/person/una-titled"} <= held
    assert with_bad.metadata["quarantined"][0]["node"] == f"{BASE}/id/work/untitled"
    validated = CliRunner().invoke(main, ["validate", "--data", str(bad)])
    assert validated.exit_code == 0, validated.output
    assert any(line.startswith("quarantined: ") and "message.items[1]" in line
               for line in validated.output.splitlines())
    as_json = json.loads(CliRunner().invoke(main, ["validate", "--data", str(bad), "--format", "json"]).output)
    assert [q["node"] for q in as_json["quarantined"]] == [f"{BASE}/id/work/untitled"]
    conflicts = CliRunner().invoke(main, ["conflicts", "--data", str(bad)])
    assert conflicts.exit_code == 0 and "quarantined: " in conflicts.output and "message.items[1]" in conflicts.output
    again = build(Config(data=bad, store=tmp_path / "bad-store"))  # the next build quarantines it again
    assert [q.node for q in again.quarantined] == [f"{BASE}/id/work/untitled"]


def test_a_violation_in_a_profile_still_fails_and_the_previous_store_keeps_serving(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example.yaml": ADA}, {"works.json": _crossref(GOOD, UNTITLED)})
    config = Config(data=data, store=tmp_path / "store")
    first = build(config)
    (data / "profiles" / "bo-sample.yaml").write_text("name: Bo Sample\nemail: not-an-address\n", encoding="utf-8")
    with pytest.raises(ValidationFailed) as caught:
        build(config)
    assert any("bo-sample.yaml" in (v.file or "") for v in caught.value.report.errors)
    assert config.store.resolve() == Path(first.location).resolve()


def test_files_no_reader_recognises_are_warnings_naming_them(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example.yaml": ADA}, {"notes.md": "# my notes\n", "odd.json": '{"hello": 1}'})
    result = build(Config(data=data, store=tmp_path / "store"))
    shown = [str(w) for w in result.warnings]
    assert any(w.startswith(f"{data}/records/notes.md: warning: not read") for w in shown), shown
    assert any(w.startswith(f"{data}/records/odd.json: warning: this JSON is not a record shape") for w in shown)


def test_a_profile_named_yml_is_read(tmp_path: Path) -> None:
    data = _data(tmp_path, {"ada-example.yml": ADA}, {})
    config = Config(data=data, store=tmp_path / "store")
    assert build(config).report.passes
    store = Store.open(config.store)
    assert _rows(store, f"SELECT ?n WHERE {{ <{BASE}/id/person/ada-example> schema:name ?n }}") == [("Ada Example",)]
    (data / "profiles" / "ada-example.yaml").write_text(ADA, encoding="utf-8")
    with pytest.raises(SourceError, match="ada-example.yaml and ada-example.yml are the same profile"):
        build(config)


RIS = """\
TY  - JOUR
AU  - Sankar, Martial
AU  - Nieminen, Kaisa
AU  - Ragni, Laura
AU  - Xenarios, Ioannis
AU  - Hardtke, Christian S
TI  - Modeling Arabidopsis secondary growth
JO  - eLife
PY  - 2014///
DO  - 10.7554/eLife.01567
VL  - 3
SP  - e01567
ER  -
"""
CSL = [{"id": "x", "type": "article-journal", "title": "Modeling Arabidopsis secondary growth",
        "author": [{"family": "Sankar", "given": "Martial"}, {"family": "Nieminen", "given": "Kaisa"},
                   {"family": "Ragni", "given": "Laura"}, {"family": "Xenarios", "given": "Ioannis"},
                   {"literal": "Christian S Hardtke"}],
        "issued": {"date-parts": [[2014, 2, 11]]}, "container-title": "eLife", "DOI": "10.7554/eLife.01567",
        "URL": "https://elifesciences.org/articles/01567"}]


@pytest.mark.parametrize(("name", "text"), [("refs.ris", RIS), ("items.json", json.dumps(CSL))])
def test_ris_and_csl_json_merge_by_doi_with_crossref(tmp_path: Path, name: str, text: str) -> None:
    if not SHARED.is_dir():
        pytest.skip("../shared/linked-samples is not beside the repository")
    data = _data(tmp_path, {}, {name: text, CROSSREF: SHARED / CROSSREF})
    config = Config(data=data, store=tmp_path / "store")
    result = build(config)
    assert result.report.passes and not result.quarantined
    store = Store.open(config.store)
    works = _rows(store, "SELECT DISTINCT ?w WHERE { ?w bibo:doi '10.7554/elife.01567' }")
    assert len(works) == 1
    graphs = _rows(store, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?w bibo:doi '10.7554/elife.01567' } } ORDER BY ?g")
    assert len(graphs) == 2
    people = _rows(store, "SELECT DISTINCT ?p WHERE { ?w bibo:doi '10.7554/elife.01567' ; schema:author ?p }")
    assert len(people) == 5


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("refs.ris", "TY  - JOUR\nTI  - A\n", "records/refs.ris:1: malformed RIS (this reference is never closed"),
    ("refs.ris", "TY  - JOUR\nTI  - A\nthis is not a tag\nER  -\n", "records/refs.ris:3: malformed RIS (the line"),
    ("refs.ris", "TY  - JOUR\nER  -\nTI  - A\n", "records/refs.ris:3: malformed RIS (the tag TI outside"),
    ("items.json", '[{"type": "book", "title": "T", "author": "Ann"}]', "records/items.json: [0].author: malformed"),
    ("items.json", '[{"type": "book", "title": "T"}, 7]', "records/items.json: [1]: malformed CSL-JSON"),
])
def test_malformed_ris_and_csl_json_name_the_place(tmp_path: Path, name: str, text: str, expected: str) -> None:
    data = _data(tmp_path, {}, {name: text})
    with pytest.raises(SourceErrors) as caught:
        build(Config(data=data, store=tmp_path / "store"))
    assert expected in str(caught.value)


def test_a_ris_field_longer_than_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_MAX_FIELD_CHARS", "50")
    data = _data(tmp_path, {}, {"refs.ris": f"TY  - JOUR\nTI  - {'x' * 60}\nER  -\n"})
    with pytest.raises(SourceErrors, match=r"refs.ris:2: TI: a text of 60 characters"):
        build(Config(data=data, store=tmp_path / "store"))


def test_a_nameless_orcid_person_and_their_works_are_modelled(tmp_path: Path) -> None:
    if not SHARED.is_dir():
        pytest.skip("../shared/linked-samples is not beside the repository")
    record = json.loads((SHARED / "orcid_record-full-3.0.json").read_text(encoding="utf-8"))
    record["person"]["name"] = None  # a private name: the record gives the iD only
    data = _data(tmp_path, {}, {"orcid.json": json.dumps(record)})
    config = Config(data=data, store=tmp_path / "store")
    result = build(config)
    assert result.report.passes and not result.quarantined
    store = Store.open(config.store)
    authors = _rows(store, """SELECT ?name ?written WHERE { ?w kg:authorship ?a . ?a kg:agent ?p ;
        kg:nameAsWritten ?written . ?p schema:name ?name }""")
    assert authors == [("ORCID iD 0000-0002-7319-2192", "ORCID iD 0000-0002-7319-2192")]


def test_a_work_dated_outside_the_shapes_years_is_quarantined_alone(tmp_path: Path) -> None:
    old = {**GOOD, "DOI": "10.1234/old", "title": ["An Old Work"], "published": {"date-parts": [[1850]]}}
    data = _data(tmp_path, {}, {"works.json": _crossref(GOOD, old)})
    result = build(Config(data=data, store=tmp_path / "store"))
    assert [(q.node, q.place) for q in result.quarantined] == [
        (f"{BASE}/id/work/an-old-work", f"{data}/records/works.json: message.items[1]")]
    store = Store.open(tmp_path / "store")
    assert _rows(store, "SELECT ?n WHERE { ?w a schema:ScholarlyArticle ; schema:name ?n }") == [("A Good Work",)]


CASCADE = """\
@prefix schema: <http://schema.org/> . @prefix bibo: <http://purl.org/ontology/bibo/> .
@prefix kg: <https://kg.example.org/ontology#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix id: <https://kg.example.org/id/> .
id:person\\/nobody a schema:Person ; schema:name "" .
id:person\\/ann a schema:Person ; schema:name "Ann" .
id:work\\/w a schema:ScholarlyArticle , bibo:AcademicArticle ; schema:name "W" ; schema:author id:person\\/nobody ;
    bibo:authorList ( id:person\\/nobody ) ; kg:authorship id:work\\/w\\/authorship\\/1 ; kg:authorListComplete true ;
    schema:isPartOf id:venue\\/j .
id:work\\/w\\/authorship\\/1 a kg:Authorship ; kg:agent id:person\\/nobody ; kg:rank 1 ; kg:nameAsWritten "N" ;
    kg:equalContribution false .
id:work\\/v a schema:ScholarlyArticle , bibo:AcademicArticle ; schema:name "V" ; schema:author id:person\\/ann ;
    bibo:authorList ( id:person\\/ann ) ; kg:authorship id:work\\/v\\/authorship\\/1 ; kg:authorListComplete true ;
    schema:isPartOf id:venue\\/j .
id:work\\/v\\/authorship\\/1 a kg:Authorship ; kg:agent id:person\\/ann ; kg:rank 1 ; kg:nameAsWritten "Ann" ;
    kg:equalContribution false .
id:venue\\/j a schema:Periodical ; schema:name "J" .
"""


def test_quarantine_cascades_to_what_pointed_at_a_removed_entity_and_leaves_nothing_dangling() -> None:
    from rdflib import Graph, URIRef

    from kg.iris import Minter
    from kg.mapping import MappedGraphs
    from kg.pipeline.quarantine import screen
    from kg.turtle_files import load_turtle_dir
    from kg.validation import validate_graphs

    root = Path(__file__).parents[1]
    shapes, ontology = load_turtle_dir(root / "shapes"), load_turtle_dir(root / "ontology")
    graph_iri = URIRef(f"{BASE}/graph/record/works-json")
    mapped = MappedGraphs({graph_iri: Graph().parse(data=CASCADE, format="turtle")}, {}, {graph_iri: "works.json"})
    screened = screen(mapped, validate_graphs(mapped, shapes, ontology), Minter(BASE),
                      lambda m: validate_graphs(m, shapes, ontology))
    assert screened.report.passes
    assert [q.node for q in screened.quarantined] == [f"{BASE}/id/person/nobody", f"{BASE}/id/work/w"]
    kept = screened.mapped.graphs[graph_iri]
    assert {str(s) for s in kept.subjects() if isinstance(s, URIRef)} == {
        f"{BASE}/id/person/ann", f"{BASE}/id/work/v", f"{BASE}/id/work/v/authorship/1", f"{BASE}/id/venue/j"}
    subjects = set(kept.subjects())
    assert all(o in subjects or not str(o).startswith(f"{BASE}/id/") for o in kept.objects()), "nothing dangles"
    held = screened.held[URIRef(f"{BASE}/graph/quarantine/works-json")]
    assert len(held) + len(kept) == len(mapped.graphs[graph_iri])


def test_ris_authors_past_the_limit_are_cut_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    from kg.records import parse_record

    monkeypatch.setenv("KG_MAX_AUTHORS", "2")
    text = "TY  - JOUR\nTI  - Many\nAU  - A, Ann\nAU  - B, Bo\nAU  - C, Cy\nPY  - 2020\nER  -\n"
    record = parse_record(text.encode(), "records/refs.ris")
    (work,) = record.works
    assert [a.name for a in work.authors] == ["Ann A", "Bo B"] and not work.authors_complete
    assert any("3 authors, more than the limit of 2" in w.message for w in record.warnings)


def test_an_untitled_csl_item_first_in_the_list_is_still_csl_json() -> None:
    from kg.records import parse_record

    items = [{"type": "article-journal", "issued": {"date-parts": [[2020]]}}, {"type": "book", "title": "B"}]
    record = parse_record(json.dumps(items).encode(), "records/items.json")
    assert record.format == "CSL-JSON" and [w.title for w in record.works] == ["", "B"]
