"""Differential tests: the Oxigraph engine's SHACL report is isomorphic to pyshacl's (the reference engine)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, SH, XSD

from kg.iris import Minter
from kg.mapping import MappedGraphs, map_corpus
from kg.parsing import parse_corpus
from kg.sources import read_data_dir
from kg.validation.engine import run, run_pyshacl, union

from .conftest import PROJECT_ROOT
from .shacl_suite import assert_same_results, passes
from .test_validation import FIXTURES, INVALID, fixture_graph, namespaced

SDO = Namespace("http://schema.org/")
KG = Namespace("https://kg.example.org/ontology#")
BIBO = Namespace("http://purl.org/ontology/bibo/")

Strict = Callable[[Graph, Graph, Graph], Graph]  # the `strict` fixture: (data, shapes, ontology) -> report


@pytest.fixture()
def strict() -> Strict:
    """Compare the compiled engine with pyshacl, failing if the compiled engine fell back to pyshacl."""
    def compare(data: Graph, shapes: Graph, ontology: Graph) -> Graph:
        outcome = run([data], shapes, ontology)
        assert outcome.engine == "oxigraph", "the engine fell back to pyshacl"
        assert_same_results(outcome.graph, run_pyshacl(data, shapes, ontology), shapes)
        return outcome.graph

    return compare


def conforms(report: Graph) -> bool:
    """The sh:conforms value of a report."""
    return bool(next(report.objects(None, SH.conforms)).toPython())


def result_count(report: Graph) -> int:
    """The number of sh:result links of a report."""
    return len(list(report.objects(None, SH.result)))


def test_seed_data(strict: Strict, mapped: MappedGraphs, shapes: Graph, ontology: Graph) -> None:
    strict(union(mapped.graphs.values()), shapes, ontology)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.stem)
def test_each_negative_fixture(fixture: Path, strict: Strict, shapes: Graph, ontology: Graph) -> None:
    report = strict(Graph().parse(fixture, format="turtle"), shapes, ontology)
    assert result_count(report) >= 1


@pytest.mark.slow
def test_all_negative_fixtures_in_one_graph(strict: Strict, shapes: Graph, ontology: Graph) -> None:
    data = Graph()
    for file in FIXTURES:
        for s, p, o in Graph().parse(file, format="turtle"):
            data.add((namespaced(s, file.stem), p, namespaced(o, file.stem)))
    assert result_count(strict(data, shapes, ontology)) >= len(FIXTURES)


@pytest.mark.parametrize(("name", "old", "new", "valid"), [
    ("work-date-published", '"1899"', '"1900"', True), ("work-date-published", '"1899"', '"2101"', False),
    ("work-date-published", '"1899"', '"2024"', True), ("role-dates-ordered", '"2018"^^', '"2019"^^', True),
    ("work-date-published", 'schema:datePublished "1899"^^xsd:gYear ;', "", True),
    ("work-date-published", '"1899"^^xsd:gYear', '"2020"^^xsd:gYear , "2021"^^xsd:gYear', False),
    ("work-is-part-of", "schema:isPartOf <venue/nsdi-2024>", "schema:isPartOf <venue/nsdi>", True),
    ("person-same-as", "http://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097", True),
    ("person-same-as", "http://orcid.org/0000-0002-1825-0097", "https://ORCID.org/0000-0002-1825-0097", False),
    ("person-same-as", "http://orcid.org/0000-0002-1825-0097", "https://www.wikidata.org/wiki/Q7259", True),
    ("person-email", "ada-at-example.org", "ada@example.org", True),
])
def test_fixture_variants(name: str, old: str, new: str, valid: bool, strict: Strict, shapes: Graph,
                          ontology: Graph) -> None:
    assert old in (INVALID / f"{name}.ttl").read_text(encoding="utf-8")
    report = strict(fixture_graph(name, **{old: new}), shapes, ontology)
    assert passes(report) is valid


def inject_errors(data: Graph) -> int:
    """Break one node of each kind in many ways (deterministically); returns the number of edits."""
    def first(cls: URIRef) -> URIRef:
        return sorted(s for s in data.subjects(RDF.type, cls) if isinstance(s, URIRef))[0]

    person, work, org = first(SDO.Person), first(SDO.ScholarlyArticle), first(SDO.Organization)
    authorship, role = first(KG.Authorship), first(SDO.OrganizationRole)
    stranger = BNode("stranger")
    edits = [
        (person, SDO.name, Literal("Second Name")), (person, SDO.email, Literal("not-an-email")),
        (person, URIRef("http://xmlns.com/foaf/0.1/mbox"), Literal("mailto:x@y.org")),
        (person, SDO.sameAs, URIRef("https://www.orcid.org/0000-0002-1825-0097")), (person, SDO.sameAs, stranger),
        (person, SDO.url, Literal("ftp://example.org")), (person, SDO.affiliation, Literal("ByteDance")),
        (person, SDO.worksFor, work), (person, KG.advisor, stranger),
        (stranger, RDF.type, SDO.Person), (stranger, SDO.name, Literal("")),
        (work, SDO.datePublished, Literal("12", datatype=XSD.gYear)),
        (work, KG.authorListComplete, Literal("yes", datatype=XSD.boolean)),
        (work, SDO.creativeWorkStatus, Literal("Draft")), (work, BIBO.status, URIRef("http://example.org/x")),
        (authorship, KG.rank, Literal("abc", datatype=XSD.integer)), (authorship, KG.nameAsWritten, Literal("")),
        (org, SDO.parentOrganization, Literal("Parent")), (org, SDO.name, Literal("Other name", lang="en")),
        (role, SDO.startDate, Literal("1899", datatype=XSD.gYear)),
    ]
    metric = URIRef("https://kg.example.org/id/metric/injected")
    edits += [(metric, RDF.type, SDO.PropertyValue), (metric, SDO.propertyID, Literal("stars")),
              (metric, SDO.name, Literal("Stars")), (metric, SDO.minValue, Literal(10)),
              (metric, SDO.value, Literal(5)), (metric, SDO.value, Literal(-3)),
              (person, SDO.additionalProperty, metric)]
    for triple in edits:
        data.add(triple)
    data.remove((first(SDO.EventSeries), SDO.name, None))
    return len(edits) + 1


def _synthetic(tmp_path: Path, triples: int) -> Graph:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(triples, tmp_path)
    return union(map_corpus(parse_corpus(read_data_dir(tmp_path)), Minter()).graphs.values())


@pytest.mark.parametrize("triples", [1000, pytest.param(10000, marks=pytest.mark.slow)])
def test_synthetic_corpus(triples: int, tmp_path: Path, strict: Strict, shapes: Graph, ontology: Graph) -> None:
    strict(_synthetic(tmp_path, triples), shapes, ontology)


@pytest.mark.parametrize("triples", [1000, pytest.param(10000, marks=pytest.mark.slow)])
def test_synthetic_corpus_with_injected_errors(triples: int, tmp_path: Path, strict: Strict, shapes: Graph,
                                               ontology: Graph) -> None:
    data = _synthetic(tmp_path, triples)
    edits = inject_errors(data)
    report = strict(data, shapes, ontology)
    assert not conforms(report)
    assert result_count(report) >= edits


def test_literals_oxigraph_rewrites_are_judged_and_reported_as_given(strict: Strict, shapes: Graph,
                                                                     ontology: Graph) -> None:
    """Oxigraph stores "1.50"^^xsd:decimal as "1.5"; the compiled engine still reports the data's own literal."""
    data = fixture_graph("metric-value")
    metric = next(data.subjects(SDO.value, None))
    data.add((metric, SDO.value, Literal("1.50", datatype=XSD.decimal)))
    report = strict(data, shapes, ontology)
    assert Literal("1.50", datatype=XSD.decimal) in set(report.objects(None, SH.value))


def test_rewritten_literals_no_shape_reads_keep_the_compiled_engine(strict: Strict, shapes: Graph,
                                                                    ontology: Graph) -> None:
    data = fixture_graph("person-email")
    person = next(data.subjects(SDO.email, None))
    data.add((person, SDO.alternateName, Literal("Ada", lang="EN")))
    assert result_count(strict(data, shapes, ontology)) == 1


def test_closed_shapes_run_natively_as_pyshacl_does(strict: Strict, shapes: Graph, ontology: Graph) -> None:
    closed = Graph()
    closed += shapes
    closed.add((URIRef("https://kg.example.org/shapes#PersonShape"), SH.closed, Literal(True)))
    report = strict(fixture_graph("person-email"), closed, ontology)
    assert any(report.subjects(SH.sourceConstraintComponent, SH.ClosedConstraintComponent))


def test_what_the_engine_cannot_evaluate_falls_back_to_exactly_pyshacls_report(shapes: Graph, ontology: Graph) -> None:
    """A sh:sparql constraint on a shape with a class target is not the pattern the SPARQL runner takes."""
    odd = Graph()
    odd += shapes
    shape = URIRef("https://kg.example.org/shapes#PersonShape")
    constraint = BNode("odd")
    odd.add((shape, SH.sparql, constraint))
    odd.add((constraint, SH.select, Literal("SELECT $this WHERE { $this <http://schema.org/email> ?e }")))
    data = fixture_graph("person-email")
    outcome = run([data], odd, ontology)
    assert outcome.engine == "pyshacl"
    assert_same_results(outcome.graph, run_pyshacl(data, odd, ontology))
    assert any(outcome.graph.subjects(SH.sourceConstraintComponent, SH.SPARQLConstraintComponent))


def test_unknown_engine_is_refused(shapes: Graph, ontology: Graph) -> None:
    with pytest.raises(ValueError, match="unknown validation engine"):
        run([Graph()], shapes, ontology, engine="fast")
