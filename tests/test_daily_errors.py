"""Issue 17, item 13: a SPARQL syntax error names line and column and the offending token, shows a caret under
the query text and the common fix, in the HTTP error, on the query page and from kg query."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from kg.cli import main
from kg.namespaces import PREFIXES
from kg.sparql_syntax import explain, missing_dot

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
MISSING_DOT = "SELECT * WHERE {\n  ?s schema:name ?n\n  ?s schema:author ?a .\n}"
UNDECLARED = "SELECT ?s WHERE {\n  ?s dbo:birthPlace ?place .\n}"
CASES = [
    (MISSING_DOT, "line 3, column 3 (3:3), at '?s'", "  3 |   ?s schema:author ?a .\n    |   ^^\n",
     "a '.' is probably missing before '?s'"),
    (UNDECLARED, "line 2, column 6 (2:6), at 'dbo:birthPlace'",
     "  2 |   ?s dbo:birthPlace ?place .\n    |      ^^^^^^^^^^^^^^\n",
     "add PREFIX dbo: <http://dbpedia.org/ontology/> before the query"),
    ("SELECT ?n WHERE { ?p shema:name ?n }", "at 'shema:name'", "", "did you mean 'schema:'?"),
    ("SELECT ?n WHERE { ?p schema:name ?n FILTER(?n > 3 }", "at '}'",
     "", "'(' at line 1, column 43 is still open here: add ')' before '}'"),
]


@pytest.mark.parametrize(("query", "where", "caret", "fix"), CASES, ids=["missing-dot", "undeclared-prefix",
                                                                         "misspelt-prefix", "unclosed-bracket"])
def test_http_error_explains_the_syntax_error(client: FlaskClient, query: str, where: str, caret: str,
                                              fix: str) -> None:
    """The 400 names the place and token, shows the line with a caret, and says what to change."""
    response = client.get("/sparql", query_string={"query": query})
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and response.mimetype == "text/plain"
    assert where in text and caret in text and fix in text, text
    assert "[_]" not in text and "expected one of" not in text


def test_query_page_shows_the_caret_under_the_query(client: FlaskClient) -> None:
    """A browser gets the query page with the explanation in a preformatted block (so the caret lines up)."""
    response = client.get("/sparql", query_string={"query": MISSING_DOT}, headers={"Accept": BROWSER})
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and response.mimetype == "text/html"
    block = text.split('id="query-error"', 1)[1].split("</div>", 1)[0]
    assert "<pre>" in block and "line 3, column 3" in block and "    |   ^^\n" in block and "missing before" in block


def test_kg_query_explains_the_syntax_error(built_store_dir: Path) -> None:
    """kg query prints the same explanation and exits 6."""
    result = CliRunner().invoke(main, ["query", "--store", str(built_store_dir), UNDECLARED])
    assert result.exit_code == 6
    assert "line 2, column 6" in result.output and "^^^^^^^^^^^^^^" in result.output
    assert "PREFIX dbo: <http://dbpedia.org/ontology/>" in result.output


@pytest.mark.parametrize("query", [
    'SELECT * WHERE { ?s schema:name "x"^^xsd:string ; schema:a/schema:b ?c . VALUES ?v { 1 2 3 4 } '
    "{ SELECT ?a ?b ?c ?d WHERE { ?a ?b ?c } ORDER BY ?a ?b ?c ?d } FILTER(?x) ?s ?p ?o "
    "OPTIONAL { ?s ?p [ ?a ?b ] } }",
    'SELECT * { ?s ^schema:author/schema:name ?n . ?s a schema:Person ; schema:name "x"@en, "y" }',
])
def test_valid_queries_raise_no_missing_dot(query: str) -> None:
    """Paths, datatypes, VALUES, sub-selects, FILTER and blank-node lists are not mistaken for a missing '.'."""
    assert missing_dot(query) is None


def test_parser_words_are_kept_when_no_common_mistake_is_found() -> None:
    """Without a known mistake the parser's expectation is shown, without its character classes."""
    text = explain("ASK { ?s ?p ?o } LIMIT ?x", "error at 1:24: expected one of [0-9], LIMIT, [_]", PREFIXES)
    assert text.startswith("syntax error at line 1, column 24 (1:24), at '?x'") and text.endswith("expected LIMIT")
