"""SPARQL syntax hints that say what is wrong (issue 32, item 4): an incomplete triple pattern, an unclosed string,
an ungrouped variable beside an aggregate, a misspelt keyword; and no hint on valid queries."""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.config import PROJECT_ROOT
from kg.namespaces import PREFIXES
from kg.sparql_checks import incomplete_pattern, missing_dot, unclosed_string, ungrouped_variable, unknown_word
from kg.sparql_syntax import explain

CASES = [
    ("SELECT * WHERE { ?x ?y }", "at line 1, column 24 (1:24), at '}'",
     "the triple pattern before '}' lacks an object"),
    ("SELECT * WHERE { ?x }", "at '}'", "lacks a predicate and an object"),
    ("SELECT * WHERE { ?x ?p ?o ; ?q }", "at '}'", "lacks an object"),
    ("SELECT * WHERE { ?x ?p FILTER(?x) }", "at 'FILTER'", "lacks an object"),
    ('SELECT * WHERE { ?x ?y "abc }', "at line 1, column 24 (1:24)", "this string is never closed: end it with \""),
    ("SELECT ?x (COUNT(?y) AS ?n) WHERE { ?x ?p ?y }", "at '?x'",
     "?x is selected beside an aggregate but is not grouped: add it to GROUP BY, or select (SAMPLE(?x) AS ?x_any)"),
    ("SELECT ?x ?p WHERE { ?x ?p ?o } GROUP BY ?x", "at '?p'", "?p is selected with GROUP BY but is not grouped"),
    ("SELECT * WEHRE { ?s ?p ?o }", "at 'WEHRE'", "'WEHRE' is not a SPARQL keyword: did you mean WHERE?"),
    ("SELECT * WHERE { ?s ?p ?o FITLER(?o > 1) }", "at 'FITLER'", "did you mean FILTER?"),
    ("SELECT * WHERE { ?s ?p ?o } ORDER BY ?s LIMT 5", "at 'LIMT'", "did you mean LIMIT?"),
]


def _parser_message(query: str) -> str:
    try:
        ox.Store().query(query, prefixes=PREFIXES)
    except SyntaxError as error:
        return str(error)
    raise AssertionError(f"the parser accepts {query!r}")


@pytest.mark.parametrize(("query", "where", "fix"), CASES)
def test_the_hint_names_the_place_and_the_fix(query: str, where: str, fix: str) -> None:
    text = explain(query, _parser_message(query), PREFIXES)
    assert where in text and fix in text, text
    assert "LATERAL" not in text and "The SELECT contains" not in text and "expected DISTINCT" not in text


def test_an_unexplained_parser_sentence_is_quoted_not_called_an_expectation() -> None:
    text = explain("SELECT ?x WHERE { }", "error at 1:19: expected one of The SELECT contains a variable that is "
                   "unbound, [_]", PREFIXES)
    assert text.endswith("the parser says: The SELECT contains a variable that is unbound"), text


VALID = [
    'SELECT * WHERE { ?s ?p 42 . ?s ?q 4.5 . ?s ?r -2e3 . ?s ?t true . ?s ?u "x"@en-GB . ?s ?v "1"^^xsd:integer }',
    "SELECT * WHERE { [ schema:name ?n ] . ?s schema:author [ schema:name ?m ] }",
    "SELECT * WHERE { ?s ?p ?o ; . ?s ?q ?r , ?t }",
    "SELECT * WHERE { ?s schema:a/schema:b|^schema:c ?o . ?s (schema:a)+ ?x . ?s !(rdf:type) ?y }",
    "SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?s HAVING (COUNT(*) > 1) ORDER BY DESC(?n) LIMIT 5",
    "SELECT (COUNT(DISTINCT ?s) AS ?n) (SAMPLE(?o) AS ?any) WHERE { ?s ?p ?o }",
    "SELECT ?y (GROUP_CONCAT(?n; SEPARATOR=', ') AS ?names) WHERE { ?w schema:datePublished ?y ; schema:name ?n } "
    "GROUP BY ?y",
    "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } OPTIONAL { ?s schema:name ?n } MINUS { ?s a schema:Event } "
    "FILTER NOT EXISTS { ?s schema:url ?u } BIND(STRLEN(?n) AS ?l) VALUES ?v { 1 2 UNDEF } }",
    "SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 3 } UNION { ?s a schema:Person } }",
    "SELECT * WHERE { ?s ?p ?o FILTER(isIRI(?s) && regex(str(?o), '^a', 'i') && ?o IN (1, 2)) }",
    "CONSTRUCT { ?s schema:name ?n } WHERE { ?s schema:name ?n }",
    "ASK { ?s ?p ( 1 2 3 ) }",
    "DESCRIBE ?s WHERE { ?s a schema:Person }",
    'SELECT * WHERE { ?s ?p """a "quoted" text\nover two lines""" . ?s ?q \'it\\\'s\' }',
]


def _documented_queries() -> list[str]:
    found = []
    for page in sorted((PROJECT_ROOT / "docs").glob("*.md")):
        found += re.findall(r"```sparql\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    found += [p.read_text(encoding="utf-8") for p in sorted((PROJECT_ROOT / "benchmarks" / "queries").glob("*.rq"))]
    return found


@pytest.mark.parametrize("query", VALID + _documented_queries())
def test_valid_queries_get_no_hint(query: str) -> None:
    try:
        ox.Store().query(query, prefixes=PREFIXES)
    except SyntaxError:
        pytest.skip("not a query on its own (a fragment or an update)")
    for check in (unclosed_string, unknown_word, ungrouped_variable, incomplete_pattern, missing_dot):
        assert check(query) is None, (check.__name__, query)


def test_the_documented_queries_are_many() -> None:
    assert len(_documented_queries()) >= 10
    assert Path(PROJECT_ROOT / "docs" / "queries.md").exists()
