"""Regression tests for value comparisons, literals across the Oxigraph round trip, severities and the fallback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph, Literal
from rdflib.namespace import SH, XSD

import kg
from kg.validation.engine import run

from .shacl_suite import SUITE, conforms

PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/ns#> .
"""


def graph(text: str) -> Graph:
    """A graph parsed from Turtle with the test prefixes, as rdflib parses it by default (literals normalised)."""
    return Graph().parse(data=PREFIXES + text, format="turtle")


def components(report: Graph) -> list[str]:
    """The constraint components of a report's top-level results, sorted."""
    return sorted(str(report.value(r, SH.sourceConstraintComponent)).rsplit("#", 1)[-1]
                  for r in report.objects(None, SH.result))


def native(data: Graph, shapes: Graph) -> Graph:
    """The report of the Oxigraph engine, which must not have fallen back."""
    outcome = run([data], shapes)
    assert outcome.engine == "oxigraph"
    return outcome.graph


LESS_THAN = graph("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:low ; sh:lessThan ex:high ] .")


def test_less_than_between_an_integer_and_a_string_is_a_violation() -> None:
    report = native(graph('ex:a ex:low 3 ; ex:high "4" .'), LESS_THAN)
    assert components(report) == ["LessThanConstraintComponent"]


def test_less_than_holds_between_comparable_numbers_of_different_types() -> None:
    assert conforms(native(graph("ex:a ex:low 3 ; ex:high 3.5 ."), LESS_THAN))


def test_min_inclusive_with_a_value_that_cannot_be_compared_is_a_violation() -> None:
    shapes = graph("ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; sh:minInclusive 3 .")
    report = native(graph('ex:a ex:p "2024-01-15"^^xsd:date, "abc"^^xsd:integer, true, ex:b, 5 .'), shapes)
    assert components(report) == ["MinInclusiveConstraintComponent"] * 4


def test_an_ill_typed_boolean_fails_sh_datatype_after_the_oxigraph_round_trip() -> None:
    """rdflib reads "none"^^xsd:boolean as an ill-typed "false"; Oxigraph alone would store a valid false."""
    data = graph('ex:a ex:p "none"^^xsd:boolean . ex:b ex:p true .')
    shapes = graph("ex:S a sh:PropertyShape ; sh:targetSubjectsOf ex:p ; sh:path ex:p ; sh:datatype xsd:boolean .")
    report = native(data, shapes)
    assert [str(f) for f in report.objects(None, SH.focusNode)] == ["http://example.org/ns#a"]


def test_an_ill_typed_literal_fails_every_datatype_of_an_sh_or() -> None:
    data = graph('ex:a ex:p "none"^^xsd:boolean .')
    shapes = graph("ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; "
                   "sh:or ( [ sh:datatype xsd:boolean ] [ sh:datatype xsd:string ] ) .")
    assert components(native(data, shapes)) == ["OrConstraintComponent"]


def test_literals_oxigraph_canonicalises_are_reported_as_the_data_writes_them() -> None:
    data = graph('ex:a ex:p "1.50"^^xsd:decimal, "Hi"@EN .')
    shapes = graph("ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; sh:maxLength 1 .")
    values = set(native(data, shapes).objects(None, SH.value))
    assert values == {Literal("1.50", datatype=XSD.decimal), Literal("Hi", lang="EN")}


def test_a_report_with_only_a_warning_does_not_conform_but_passes_the_build() -> None:
    shapes = graph("ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; sh:minCount 1 ; "
                   "sh:severity sh:Warning .")
    report = kg.validate_graph(graph("ex:b ex:p 1 ."), shapes)
    assert (report.conforms, report.passes, len(report.warnings), report.engine) == (False, True, 1, "oxigraph")
    assert conforms(report.graph) is False


def test_a_warning_in_a_nested_shape_makes_the_value_not_conform() -> None:
    """SHACL: a node conforms to a shape when validating it gives no result of any severity."""
    shapes = graph("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:not [ sh:class ex:C ; sh:severity sh:Warning ] .")
    assert conforms(native(graph("ex:a ex:p 1 ."), shapes))


@pytest.mark.skipif(not SUITE.exists(), reason="the W3C suite is in ../shared")
def test_the_pyshacl_fallback_keeps_sh_detail_results_nested() -> None:
    """pyshacl nests the results behind an sh:node violation under sh:detail; they are not results of the report."""
    suite = Graph().parse(SUITE / "node" / "node-001.ttl", format="turtle")
    outcome = run([suite], suite, engine="hybrid")
    assert outcome.engine == "pyshacl"
    assert components(outcome.graph) == ["NodeConstraintComponent"]
    assert components(native(suite, suite)) == ["NodeConstraintComponent"]


def kg_shacl(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run `kg shacl` in a subprocess."""
    return subprocess.run([sys.executable, "-m", "kg", "shacl", *map(str, args)], capture_output=True, text=True,
                          check=False)


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    """Data, shapes and a warning-only shapes file."""
    paths = {"data": tmp_path / "data.ttl", "shapes": tmp_path / "shapes.ttl", "warn": tmp_path / "warn.ttl",
             "nt": tmp_path / "data.nt"}
    paths["data"].write_text(PREFIXES + "ex:a ex:p 1 .\n", encoding="utf-8")
    paths["nt"].write_text("<http://example.org/ns#a> <http://example.org/ns#p> \"x\" .\n", encoding="utf-8")
    paths["shapes"].write_text(PREFIXES + "ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; "
                               "sh:datatype xsd:string .\n", encoding="utf-8")
    paths["warn"].write_text(PREFIXES + "ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; "
                             "sh:datatype xsd:string ; sh:severity sh:Warning .\n", encoding="utf-8")
    return paths


def test_kg_shacl_reports_and_exits_3_when_the_data_does_not_conform(files: dict[str, Path]) -> None:
    done = kg_shacl(files["data"], files["shapes"])
    assert done.returncode == 3, done.stderr
    assert (f"{files['data']}: (http://example.org/ns#a): http://example.org/ns#p: Value is not a well-formed "
            "literal of datatype xsd:string (value: 1)") in done.stdout
    assert "engine: oxigraph; SHACL conforms: no" in done.stdout


def test_kg_shacl_exits_0_on_conforming_data_in_any_rdf_format(files: dict[str, Path]) -> None:
    done = kg_shacl(files["nt"], files["shapes"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_kg_shacl_writes_the_standard_report_as_turtle_and_json(files: dict[str, Path]) -> None:
    turtle = kg_shacl(files["data"], files["shapes"], "--format", "turtle")
    report = Graph().parse(data=turtle.stdout, format="turtle")
    assert components(report) == ["DatatypeConstraintComponent"] and not conforms(report)
    answer = json.loads(kg_shacl(files["data"], files["shapes"], "--format", "json").stdout)
    assert (answer["conforms"], answer["engine"], answer["counts"]["violations"]) == (False, "oxigraph", 1)


def test_kg_shacl_allow_warnings_exits_0_on_warnings_only(files: dict[str, Path]) -> None:
    assert kg_shacl(files["data"], files["warn"]).returncode == 3
    assert kg_shacl(files["data"], files["warn"], "--allow-warnings").returncode == 0


def test_kg_shacl_names_the_file_and_line_of_a_syntax_error(files: dict[str, Path], tmp_path: Path) -> None:
    broken = tmp_path / "broken.ttl"
    broken.write_text(PREFIXES + "ex:a ex:p .\n", encoding="utf-8")
    done = kg_shacl(broken, files["shapes"])
    assert done.returncode == 2
    assert f"error: {broken}:4: TURTLE syntax error" in done.stderr and "Traceback" not in done.stderr
    unknown = kg_shacl(tmp_path / "data.csv", files["shapes"])
    assert unknown.returncode == 2 and "cannot tell the RDF format from the extension" in unknown.stderr


def test_the_inverse_of_a_sequence_path_walks_the_sequence_backwards() -> None:
    """^(ex:a/ex:b) from ex:z reaches ex:x when ex:x ex:a ex:y . ex:y ex:b ex:z (pyshacl follows ^ex:a/^ex:b)."""
    shapes = graph("ex:S a sh:PropertyShape ; sh:targetNode ex:z ; sh:path [ sh:inversePath ( ex:a ex:b ) ] ; "
                   "sh:class ex:C .")
    report = native(graph("ex:x ex:a ex:y . ex:y ex:b ex:z ."), shapes)
    assert [str(v) for v in report.objects(None, SH.value)] == ["http://example.org/ns#x"]
