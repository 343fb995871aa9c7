"""Issue 17, queries and pages: one styled 404, the home page's counts and class links, query result cells, one
search box, other names, kg query's table, CONSTRUCT as compacted JSON-LD, format= falling
back to Accept, CORS on read-only documents and a quoted realm. Each is a real request through the app."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from click.testing import CliRunner
from flask.testing import FlaskClient
from rdflib import Graph, Literal, URIRef
from SPARQLWrapper import N3, TURTLE, SPARQLWrapper

from kg.cli import main
from kg.config import Config
from kg.terminal import display_width

from .conftest import REPO_DATA
from .server_process import kg_serve

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
PREFIX = "PREFIX schema: <http://schema.org/>\n"


@pytest.mark.parametrize("path", ["/foo/bar", "/static/nothing.css", "/id/person/nobody", "/dump.csv",
                                  "/store?graph=https://kg.example.org/graph/nothing"])
def test_every_unknown_url_gets_the_styled_404(client: FlaskClient, path: str) -> None:
    """Browsers get the styled page (with the site's stylesheet and a search box), programs JSON or text."""
    page = client.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 404 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "<h1" in text and "Not found" in text and "style.css" in text and 'name="q"' in text
    as_json = client.get(path, headers={"Accept": "application/json"})
    assert as_json.status_code == 404 and as_json.mimetype == "application/json"
    assert as_json.get_json()["status"] == 404
    plain = client.get(path, headers={"Accept": "*/*"})
    assert plain.status_code == 404 and plain.mimetype == "text/plain" and "404 " in plain.get_data(as_text=True)


def test_home_page_triple_count_is_the_table_sum_and_health(client: FlaskClient) -> None:
    """The home page's triple count is the sum of its per-graph table, as /health counts."""
    text = client.get("/").get_data(as_text=True)
    count = re.search(r'id="triple-count">([\d,]+)<', text)
    assert count is not None
    shown = int(count.group(1).replace(",", ""))
    table = text.split("Triples per named graph", 1)[1].split("</table>", 1)[0]
    rows = [int(n) for n in re.findall(r'<td class="num">(\d+)</td>', table)]
    assert shown == sum(rows) == client.get("/health").get_json()["triples"]


def test_home_page_classes_link_to_their_instances(client: FlaskClient) -> None:
    """Every row of the class table links to a list of that class's instances (as many as it counts)."""
    text = client.get("/").get_data(as_text=True)
    table = text.split("Instances per class", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr><td><a href="([^"]+)"[^>]*><code>([^<]+)</code></a></td><td class="num">(\d+)', table)
    classes = re.findall(r"<tr>", table)
    assert rows and len(rows) == len(classes) - 1  # the header row has no link
    href, name, count = next(row for row in rows if row[1] == "schema:Person")
    link = urlparse(href.replace("&amp;", "&"))
    listing = client.get(link.path, query_string={"query": parse_qs(link.query)["query"][0]},
                         headers={"Accept": "application/sparql-results+json"}).get_json()
    assert len(listing["results"]["bindings"]) == int(count)
    page = client.get(href.replace("&amp;", "&"), headers={"Accept": BROWSER}).get_data(as_text=True)
    assert "Wencong Xiao" in page and "/page/person/wencong-xiao" in page


def test_query_results_show_numbers_without_their_xsd_type(client: FlaskClient) -> None:
    """A COUNT shows as "1", its type only on hover; a datatype outside XML Schema is still shown."""
    query = PREFIX + ('SELECT (COUNT(*) AS ?n) ("x"^^<https://example.org/t> AS ?odd) '
                      'WHERE { ?p schema:name "Ziheng Jiang" }')
    text = client.get("/sparql", query_string={"query": query}, headers={"Accept": BROWSER}).get_data(as_text=True)
    cells = text.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert re.search(r'<span title="xsd:integer">1</span></td>', cells), cells
    assert "xsd:integer</span>" not in cells and "https://example.org/t</span>" in cells


def test_search_page_has_one_search_box(client: FlaskClient) -> None:
    """The search page's own box is the only one (the header's is left out there)."""
    text = client.get("/search?q=xiao").get_data(as_text=True)
    assert text.count('type="search"') == 1 and "Wencong Xiao" in text


def test_case_variants_are_not_other_names(client: FlaskClient) -> None:
    """ByteDance is not "also known as Bytedance"."""
    text = client.get("/page/organization/bytedance").get_data(as_text=True)
    assert "Bytedance" not in text.split("<h1>", 1)[1].split("</header>", 1)[0]


def test_kg_query_table_aligns_wide_characters(built_store_dir: Path) -> None:
    """Columns line up by display width next to CJK text."""
    query = PREFIX + ('SELECT ?other ?name WHERE { ?p schema:name ?name ; schema:alternateName ?other '
                      'FILTER(LANG(?other) = "zh") }')
    result = CliRunner().invoke(main, ["query", "--store", str(built_store_dir), query])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert any("肖文聪" in line for line in lines)
    bars = {display_width(line.split("|", 1)[0]) for line in lines if "|" in line}
    assert len(bars) == 1 and display_width(lines[1].split("+", 1)[0]) in {b - 1 for b in bars} | bars


def test_construct_as_jsonld_is_compacted_with_the_context(client: FlaskClient) -> None:
    """CONSTRUCT results in JSON-LD use the project's context, as the dumps do."""
    query = PREFIX + 'CONSTRUCT { ?p schema:name ?n } WHERE { ?p schema:name ?n FILTER(?n = "Ziheng Jiang") }'
    response = client.get("/sparql", query_string={"query": query}, headers={"Accept": "application/ld+json"})
    document = json.loads(response.data)
    assert response.mimetype == "application/ld+json"
    assert document["@context"] == client.get("/context.jsonld").get_json()["@context"]
    assert document["@graph"] == [{"@id": "https://kg.example.org/id/person/ziheng-jiang", "name": "Ziheng Jiang"}]


@pytest.mark.parametrize(("form", "accept", "expected"), [
    ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 1", "application/turtle,text/turtle", "text/turtle"),
    ("SELECT * WHERE { ?s ?p ?o } LIMIT 1", "application/sparql-results+json", "application/sparql-results+json"),
    ("SELECT * WHERE { ?s ?p ?o } LIMIT 1", "application/sparql-results+xml", "application/sparql-results+xml"),
])
def test_unknown_format_parameter_falls_back_to_accept(client: FlaskClient, form: str, accept: str,
                                                       expected: str) -> None:
    """format=n3 (as SPARQLWrapper sends) or any unknown value does not override a satisfiable Accept."""
    for value in ("n3", "rdf+n3", "nonsense"):
        response = client.get("/sparql", query_string={"query": form, "format": value}, headers={"Accept": accept})
        assert response.status_code == 200 and response.mimetype == expected, (value, response.data[:200])


def test_n3_means_turtle(client: FlaskClient) -> None:
    """format=n3 without an Accept header names Turtle for graph results and RDF documents."""
    query = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 1"
    assert client.get("/sparql", query_string={"query": query, "format": "n3"}).mimetype == "text/turtle"
    assert client.get("/data/person/ziheng-jiang?format=n3").mimetype == "text/turtle"


@pytest.mark.parametrize("path", ["/data/person/ziheng-jiang.ttl", "/data/person/ziheng-jiang", "/context.jsonld",
                                  "/id/person/ziheng-jiang", "/dump.ttl", "/void", "/ontology"])
def test_read_only_documents_carry_cors(client: FlaskClient, path: str) -> None:
    """Linked-data documents answer cross-origin reads (and preflights) as the query endpoints do."""
    response = client.get(path, headers={"Origin": "https://app.example", "Accept": "text/turtle"})
    assert response.headers.get("Access-Control-Allow-Origin") == "*"
    preflight = client.options(path, headers={"Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
    assert preflight.headers.get("Access-Control-Allow-Origin") == "*"
    assert "GET" in preflight.headers["Access-Control-Allow-Methods"]
    assert client.get("/page/person/ziheng-jiang", headers={"Origin": "https://app.example"}).headers.get(
        "Access-Control-Allow-Origin") is None


def test_bearer_realm_is_quoted(built_store_dir: Path) -> None:
    """WWW-Authenticate: Bearer realm="kg" (RFC 7235 section 2.2), also with the invalid_token error."""
    from kg.server import create_app

    app = create_app(Config(store=built_store_dir, query_workers=0, write_token="secret"))
    client = app.test_client()
    missing = client.post("/sparql", data={"update": "CLEAR GRAPH <https://kg.example.org/graph/edits>"})
    assert missing.status_code == 401 and missing.headers["WWW-Authenticate"] == 'Bearer realm="kg"'
    wrong = client.post("/sparql", data={"update": "CLEAR GRAPH <https://kg.example.org/graph/edits>"},
                        headers={"Authorization": "Bearer nope"})
    assert wrong.headers["WWW-Authenticate"] == 'Bearer realm="kg", error="invalid_token"'


@pytest.fixture(scope="module")
def served(built_store_dir: Path) -> Iterator[str]:
    """A real `kg serve` over the built store."""
    with kg_serve(REPO_DATA, built_store_dir, "--workers", "1") as url:
        yield url


@pytest.mark.parametrize("return_format", [N3, TURTLE])
def test_sparqlwrapper_n3_and_turtle_get_turtle(served: str, return_format: str) -> None:
    """SPARQLWrapper's N3 return format (format=n3 beside Accept: text/turtle) gets Turtle, not a 406."""
    sparql = SPARQLWrapper(f"{served}/sparql")
    sparql.setQuery(PREFIX + 'CONSTRUCT { ?p schema:name ?n } WHERE { ?p schema:name ?n FILTER(?n = "Ziheng Jiang") }')
    sparql.setReturnFormat(return_format)
    body = sparql.queryAndConvert()
    graph = Graph().parse(data=body, format="turtle")
    assert (URIRef("https://kg.example.org/id/person/ziheng-jiang"), URIRef("http://schema.org/name"),
            Literal("Ziheng Jiang")) in graph


def test_cross_origin_reads_of_documents_over_http(served: str) -> None:
    """A browser client on another origin may read a resource's JSON-LD and the context from the real server."""
    for path in ("/data/person/ziheng-jiang.jsonld", "/context.jsonld"):
        response = requests.get(served + path, headers={"Origin": "https://app.example"}, timeout=30)
        assert response.status_code == 200 and response.headers["Access-Control-Allow-Origin"] == "*"
