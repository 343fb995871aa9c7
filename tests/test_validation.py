"""SHACL validation: the repository data conforms, every constraint catches its fixture, reports name sources."""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import SH
from rdflib.term import Node

from kg.config import PROJECT_ROOT
from kg.errors import ValidationFailed
from kg.iris import Minter
from kg.mapping import MappedGraphs, map_corpus
from kg.model import Origin
from kg.parsing import parse_corpus
from kg.sources import read_data_dir
from kg.validation import ValidationReport, Violation, validate_graph, validate_graphs

INVALID = Path(__file__).parent / "data" / "invalid"
FIXTURES = sorted(INVALID.glob("*.ttl"))
KG = "https://kg.example.org/"
KGSH = KG + "shapes#"
BATCHED = (KG + "id/", KG + "graph/", KG + "source/")


def expectation(file: Path) -> dict[str, str]:
    """The `# expect-<key>: <value>` comments of a fixture, with defaults."""
    found = dict(re.findall(r"^# expect-([a-z]+): (.+?)\s*$", file.read_text(encoding="utf-8"), flags=re.M))
    found["focus"] = found["focus"].strip("<>")
    found.setdefault("severity", "Violation")
    found.setdefault("results", "1")
    found["shape"] = KGSH + "".join(part.capitalize() for part in file.stem.split("-"))
    return found


def rule_of(shape: str) -> str:
    """kgsh:WorkRankUnique -> work-rank-unique."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", shape.removeprefix(KGSH)).lower()


def namespaced(node: Node, rule: str) -> Node:
    """Move a fixture's IRIs under .../fixture/<rule>/ so that all fixtures can share one validation run."""
    if isinstance(node, URIRef) and str(node).startswith(BATCHED):
        return URIRef(f"{KG}fixture/{rule}/{str(node)[len(KG):]}")
    return node


def fixture_graph(name: str, **replace: str) -> Graph:
    """Parse one fixture, optionally replacing text in it first."""
    text = (INVALID / f"{name}.ttl").read_text(encoding="utf-8")
    for old, new in replace.items():
        text = text.replace(old, new)
    return Graph().parse(data=text, format="turtle")


@pytest.fixture(scope="session")
def seed_report(mapped: MappedGraphs, shapes: Graph, ontology: Graph) -> ValidationReport:
    """The report on the repository's data."""
    return validate_graphs(mapped, shapes, ontology)


@pytest.fixture(scope="session")
def batch(shapes: Graph, ontology: Graph) -> dict[str, list[Violation]]:
    """All fixtures validated in one run (pySHACL's per-run cost dominates on small graphs), results by rule."""
    data = Graph()
    for file in FIXTURES:
        for s, p, o in Graph().parse(file, format="turtle"):
            data.add((namespaced(s, file.stem), p, namespaced(o, file.stem)))
    by_rule: dict[str, list[Violation]] = defaultdict(list)
    for violation in validate_graph(data, shapes, ontology).violations:
        assert violation.focus.startswith(KG + "fixture/"), violation
        by_rule[violation.focus.split("/")[4]].append(violation)
    return by_rule


def test_repository_data_conforms(seed_report: ValidationReport) -> None:
    assert seed_report.passes, seed_report.text()
    assert seed_report.errors == ()
    assert all(v.file is not None for v in seed_report.violations), seed_report.text()


def test_every_constraint_has_a_fixture(shapes: Graph) -> None:
    constrained = {str(s) for s in shapes.subjects(SH.path, None) if isinstance(s, URIRef)}
    constrained |= {str(s) for s in shapes.subjects(SH.sparql, None) if isinstance(s, URIRef)}
    assert {rule_of(s) for s in constrained} == {f.stem for f in FIXTURES}


def test_every_shape_has_a_message(shapes: Graph) -> None:
    for shape in shapes.subjects(SH.path, None):
        if isinstance(shape, URIRef):
            assert shapes.value(shape, SH.message) or shapes.value(shapes.value(shape, SH.sparql), SH.message), shape


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.stem)
def test_invalid_fixture_fails_on_its_focus_and_path(fixture: Path, batch: dict[str, list[Violation]]) -> None:
    expected = expectation(fixture)
    focus = str(namespaced(URIRef(expected["focus"]), fixture.stem))
    results = batch[fixture.stem]
    shown = "\n".join(v.text() for v in results)
    assert len(results) == int(expected["results"]), shown
    matching = [v for v in results if v.focus == focus and (v.path or "none") == expected["path"]
                and v.shape == expected["shape"]]
    assert len(matching) == 1, shown
    assert matching[0].severity == expected["severity"]
    assert matching[0].message and "{" not in matching[0].message


@pytest.mark.parametrize("name", ["person-email", "work-rank-unique", "role-holder"])
def test_fixture_alone_gives_the_batched_result(name: str, shapes: Graph, ontology: Graph, batch: dict[str,
                                                list[Violation]]) -> None:
    alone = validate_graph(fixture_graph(name), shapes, ontology)
    expected = expectation(INVALID / f"{name}.ttl")
    assert [(v.focus, v.path, v.shape) for v in alone.violations] == [(expected["focus"], expected["path"],
                                                                     expected["shape"])]
    batched = [v.message.replace(f"{KG}fixture/{name}/", KG) for v in batch[name]]
    assert [v.message for v in alone.violations] == batched


@pytest.mark.parametrize(("year", "valid"), [("1899", False), ("1900", True), ("2024", True), ("2100", True),
                                             ("2101", False), ("0999", False)])
def test_publication_years_must_lie_within_1900_and_2100(year: str, valid: bool, shapes: Graph,
                                                         ontology: Graph) -> None:
    report = validate_graph(fixture_graph("work-date-published", **{'"1899"': f'"{year}"'}), shapes, ontology)
    assert report.passes is valid, report.text()


@pytest.mark.parametrize(("start", "end", "valid"), [("2019", "2019", True), ("2018", "2019", True),
                                                     ("2019", "2018", False)])
def test_roles_must_not_end_before_they_start(start: str, end: str, valid: bool, shapes: Graph,
                                              ontology: Graph) -> None:
    graph = fixture_graph("role-dates-ordered", **{'"2019"^^': f'"{start}"^^', '"2018"^^': f'"{end}"^^'})
    assert validate_graph(graph, shapes, ontology).passes is valid


@pytest.mark.parametrize(("iri", "valid"), [
    ("https://orcid.org/0000-0002-1825-0097", True), ("https://orcid.org/0000-0002-1694-233X", True),
    ("https://www.wikidata.org/wiki/Q7259", True), ("https://www.orcid.org/0000-0002-1825-0097", False),
    ("https://orcid.org/0000-0002-1825-009", False), ("https://ORCID.org/0000-0002-1825-0097", False)])
def test_orcid_identifiers_must_use_the_canonical_form(iri: str, valid: bool, shapes: Graph, ontology: Graph) -> None:
    graph = fixture_graph("person-same-as", **{"http://orcid.org/0000-0002-1825-0097": iri})
    assert validate_graph(graph, shapes, ontology).passes is valid


def test_warnings_do_not_fail_validation(shapes: Graph, ontology: Graph) -> None:
    report = validate_graph(fixture_graph("work-venue"), shapes, ontology)
    assert not report.conforms and report.passes and len(report.warnings) == 1
    assert "warning: " in report.text() and "Validation passed" in report.text()


def test_report_formats(shapes: Graph, ontology: Graph) -> None:
    report = validate_graph(fixture_graph("person-email"), shapes, ontology)
    assert not report.passes
    assert list(report.violations) == sorted(report.violations, key=Violation.sort_key)
    parsed = Graph().parse(data=report.turtle(), format="turtle")
    assert (None, SH.conforms, None) in parsed and len(list(parsed.subjects(SH.focusNode, None))) == 1
    data = json.loads(json.dumps(report.as_json()))
    assert data["conforms"] is False and data["counts"] == {"violations": 1, "warnings": 0, "infos": 0}
    assert data["violations"][0]["path"] == "schema:email" and data["violations"][0]["value"] == "ada-at-example.org"
    assert str(ValidationFailed(report)) == report.text()
    assert report.text().splitlines()[-1] == "Validation failed: 1 violation, 0 warnings in 1 source."


def test_origins_give_file_line_and_field(shapes: Graph, ontology: Graph) -> None:
    work = URIRef(KG + "id/work/w")
    origins = {work: Origin("data/profiles/ada.yaml", ("publications", 2), 14)}
    report = validate_graph(fixture_graph("work-date-published"), shapes, ontology, origins=origins)
    (violation,) = report.violations
    assert (violation.file, violation.line, violation.field) == ("data/profiles/ada.yaml", 14, "publications[2].year")
    assert report.text().startswith(f"data/profiles/ada.yaml:14: publications[2].year ({work}): schema:datePublished: ")
    # A node minted under the work's IRI (an authorship here) falls back to the work's origin.
    derived = validate_graph(fixture_graph("authorship-rank"), shapes, ontology, origins=origins).violations[0]
    assert (derived.focus, derived.line, derived.field) == (f"{work}/authorship/1", 14, "publications[2]")


def test_nodes_without_origin_fall_back_to_their_graphs_source(shapes: Graph, ontology: Graph) -> None:
    graph_iri = URIRef(KG + "graph/profile/ada")
    mapped = MappedGraphs({graph_iri: fixture_graph("person-unlinked")}, {}, {graph_iri: "data/profiles/ada.yaml"})
    (violation,) = validate_graphs(mapped, shapes, ontology).violations
    assert (violation.file, violation.line, violation.severity) == ("data/profiles/ada.yaml", None, "Warning")


PROFILE = """\
# A minimal profile with one mistake: the email has no '@'.
name: Ada Lovelace
affiliation: bytedance
email: ada-at-example.org
"""


def test_bad_email_in_a_yaml_profile_is_reported_with_file_line_and_field(tmp_path: Path, shapes: Graph,
                                                                          ontology: Graph) -> None:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    for name in ("organizations.yaml", "venues.yaml"):
        shutil.copy(PROJECT_ROOT / "data" / name, data / name)
    (data / "profiles" / "ada-lovelace.yaml").write_text(PROFILE, encoding="utf-8")
    minter = Minter()
    mapped = map_corpus(parse_corpus(read_data_dir(data)), minter)
    report = validate_graphs(mapped, shapes, ontology)
    assert not report.passes
    person = minter.person("ada-lovelace")
    email = [v for v in report.errors if v.path == "schema:email"]
    assert [(v.file, v.line, v.field, v.focus) for v in email] == [(f"{data}/profiles/ada-lovelace.yaml", 4, "email",
                                                                     str(person))]
    assert {v.field for v in report.errors} == {"email"}  # schema:email and foaf:mbox both come from 'email'
    assert f"{data}/profiles/ada-lovelace.yaml:4: email ({person}): schema:email: " in report.text()
    assert "ada-at-example.org" in str(ValidationFailed(report))
