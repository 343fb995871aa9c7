"""The SPARQL 1.1 Protocol endpoint /sparql, in-process with the Flask test client."""

from __future__ import annotations

import csv
import io
import json
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from rdflib import RDF, BNode, Dataset, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic

from kg.config import PROJECT_ROOT, Config
from kg.formats import GRAPH_FORMATS, RESULTS_FORMATS, Format
from kg.server import create_app
from kg.store import write_store

from .shared import shared_path

SCHEMA = Namespace("http://schema.org/")
FOAF = Namespace("http://xmlns.com/foaf/0.1/")
SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
VOID = Namespace("http://rdfs.org/ns/void#")
ID = Namespace("https://kg.example.org/id/")
ADA_GRAPH = URIRef("https://kg.example.org/graph/profile/ada")
GRACE_GRAPH = URIRef("https://kg.example.org/graph/profile/grace")
INFERRED = URIRef("https://kg.example.org/graph/inferred")
SRX = "{http://www.w3.org/2005/sparql-results#}"
PREFIX = "PREFIX schema: <http://schema.org/> "
NAMES = PREFIX + "SELECT ?n WHERE { ?p a schema:Person ; schema:name ?n } ORDER BY ?n"
ASK_ADA = PREFIX + 'ASK { ?p schema:name "Ada Lovelace" }'
CONSTRUCT_ALL = "CONSTRUCT WHERE { ?s ?p ?o }"
W3C_PROTOCOL = shared_path("w3c-sparql-tests", "protocol", "manifest.ttl")


def corpus() -> dict[URIRef, Graph]:
    """Two profile graphs and an inferred graph, with a blank node and a language-tagged literal."""
    ada, grace, paper, degree = ID["person/ada"], ID["person/grace"], ID["work/notes"], BNode("degree")
    triples = {
        ADA_GRAPH: [(ada, RDF.type, SCHEMA.Person), (ada, SCHEMA.name, Literal("Ada Lovelace")),
                    (ada, SCHEMA.hasCredential, degree), (degree, SCHEMA.name, Literal("Mathematics", lang="en")),
                    (paper, RDF.type, SCHEMA.ScholarlyArticle), (paper, SCHEMA.author, ada),
                    (paper, SCHEMA.name, Literal('Notes on the "Analytical Engine"\nwith\ttabs'))],
        GRACE_GRAPH: [(grace, RDF.type, SCHEMA.Person), (grace, SCHEMA.name, Literal("Grace Hopper")),
                      (grace, SCHEMA.knows, ada)],
        INFERRED: [(ada, RDF.type, FOAF.Person), (grace, RDF.type, FOAF.Person)],
    }
    graphs = {name: Graph() for name in triples}
    for name, items in triples.items():
        graphs[name] += items
    return graphs


def merged() -> Graph:
    """The merge of all graphs of the corpus (what the default graph holds)."""
    graph = Graph()
    for part in corpus().values():
        graph += part
    return graph


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store written from the corpus."""
    path = tmp_path_factory.mktemp("sparql") / "store"
    counts = {str(name): len(graph) for name, graph in corpus().items()}
    write_store(path, corpus(), {"built_at": "2024-05-01T00:00:00Z", "triples": counts})
    return path


def make_client(store_dir: Path, **settings: Any) -> FlaskClient:
    """A test client for an app over the store with the given settings."""
    settings.setdefault("query_workers", 0)
    app = create_app(Config(store=store_dir, **settings))
    app.config["TESTING"] = True
    return app.test_client()


@pytest.fixture()
def client(store_dir: Path) -> FlaskClient:
    """A test client with default settings."""
    return make_client(store_dir)


def parse_rdf(data: bytes, fmt: Format) -> Graph:
    """Parse RDF with rdflib; for dataset formats, the merge of all graphs (rdflib's own warnings muted)."""
    if not fmt.supports_datasets:
        return Graph().parse(data=data, format=fmt.rdflib_name)
    dataset = Dataset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        dataset.parse(data=data, format=fmt.rdflib_name)
    graph = Graph()
    for s, p, o, _ in dataset.quads():
        graph.add((s, p, o))
    return graph


def names(data: bytes, fmt: Format) -> list[str]:
    """The ?n column of a SELECT result, parsed from each results format independently."""
    text = data.decode("utf-8")
    if fmt is Format.SPARQL_JSON:
        return [row["n"]["value"] for row in json.loads(text)["results"]["bindings"]]
    if fmt is Format.SPARQL_XML:
        return [str(node.text) for node in ET.fromstring(data).iter(f"{SRX}literal")]
    if fmt is Format.CSV:
        return [row["n"] for row in csv.DictReader(io.StringIO(text, newline=""))]
    header, *rows = text.splitlines()
    assert header == "?n"
    return [json.loads(row) for row in rows]


def boolean(data: bytes, fmt: Format) -> bool:
    """The answer of an ASK result in any results format."""
    if fmt is Format.SPARQL_JSON:
        return bool(json.loads(data)["boolean"])
    if fmt is Format.SPARQL_XML:
        return ET.fromstring(data).findtext(f"{SRX}boolean") == "true"
    return data.decode().strip() == "true"


def select(client: FlaskClient, query: str, **params: Any) -> list[str]:
    """Run a SELECT of ?n by GET and return the names."""
    response = client.get("/sparql", query_string={"query": query, **params})
    assert response.status_code == 200, response.data
    return names(response.data, Format.SPARQL_JSON)


# --- queries and result formats -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", RESULTS_FORMATS, ids=[f.name for f in RESULTS_FORMATS])
def test_select_every_results_format(client: FlaskClient, fmt: Format) -> None:
    """SELECT results in JSON, XML, CSV and TSV parse back to the same names."""
    response = client.get("/sparql", query_string={"query": NAMES}, headers={"Accept": fmt.media_type})
    assert response.status_code == 200
    assert response.mimetype == fmt.media_type
    assert "Accept" in response.headers["Vary"]
    assert names(response.data, fmt) == ["Ada Lovelace", "Grace Hopper"]


@pytest.mark.parametrize("fmt", RESULTS_FORMATS, ids=[f.name for f in RESULTS_FORMATS])
def test_ask_every_results_format(client: FlaskClient, fmt: Format) -> None:
    """ASK answers in every results format."""
    response = client.get("/sparql", query_string={"query": ASK_ADA, "format": fmt.extension})
    assert response.status_code == 200 and response.mimetype == fmt.media_type
    assert boolean(response.data, fmt) is True


@pytest.mark.parametrize("fmt", GRAPH_FORMATS, ids=[f.name for f in GRAPH_FORMATS])
def test_construct_every_rdf_format(client: FlaskClient, fmt: Format) -> None:
    """CONSTRUCT results in each RDF format are isomorphic to the merged corpus."""
    response = client.post("/sparql", data=CONSTRUCT_ALL, content_type="application/sparql-query",
                           headers={"Accept": fmt.media_type})
    assert response.status_code == 200 and response.mimetype == fmt.media_type
    assert isomorphic(parse_rdf(response.data, fmt), merged())


def test_describe(client: FlaskClient) -> None:
    """DESCRIBE answers RDF about the resource (Turtle by default)."""
    response = client.get("/sparql", query_string={"query": f"DESCRIBE <{ID['person/grace']}>"})
    assert response.status_code == 200 and response.mimetype == "text/turtle"
    graph = parse_rdf(response.data, Format.TURTLE)
    assert (ID["person/grace"], SCHEMA.name, Literal("Grace Hopper")) in graph


OPERATIONS = {
    "get": ("GET", "/sparql", {"query_string": {"query": NAMES}}),
    "form": ("POST", "/sparql", {"data": {"query": NAMES}}),
    "direct": ("POST", "/sparql", {"data": NAMES, "content_type": "application/sparql-query; charset=utf-8"}),
    "form-url-dataset": ("POST", f"/sparql?default-graph-uri={ADA_GRAPH}", {"data": {"query": NAMES}}),
    "trailing-slash": ("GET", "/sparql/", {"query_string": {"query": NAMES}}),
}


@pytest.mark.parametrize("how", list(OPERATIONS))
def test_query_operations(client: FlaskClient, how: str) -> None:
    """GET, POST form-encoded and POST application/sparql-query all run the query."""
    method, path, kwargs = OPERATIONS[how]
    response = client.open(path, method=method, **kwargs)
    assert response.status_code == 200
    expected = ["Ada Lovelace"] if how == "form-url-dataset" else ["Ada Lovelace", "Grace Hopper"]
    assert names(response.data, Format.SPARQL_JSON) == expected


def test_head(client: FlaskClient) -> None:
    """HEAD answers like GET without a body."""
    response = client.head("/sparql", query_string={"query": NAMES}, headers={"Accept": "text/csv"})
    assert response.status_code == 200 and response.mimetype == "text/csv" and response.data == b""


def test_predeclared_prefixes_and_base(client: FlaskClient) -> None:
    """Project prefixes need no declaration; relative IRIs resolve against the endpoint."""
    assert select(client, "SELECT ?n WHERE { ?p a schema:Person ; schema:name ?n } ORDER BY ?n")[0] == "Ada Lovelace"
    response = client.get("/sparql", query_string={"query": "CONSTRUCT { <s> <p> 1 } WHERE {}", "format": "nt"})
    assert response.data.startswith(b"<http://localhost/s> <http://localhost/p> ")


# --- dataset parameters ----------------------------------------------------------------------------------

GRAPHS_QUERY = PREFIX + "SELECT DISTINCT ?n WHERE { GRAPH ?g { ?p schema:name ?n } } ORDER BY ?n"


def test_default_graph_is_the_merge(client: FlaskClient) -> None:
    """Without dataset parameters the default graph is the merge, each triple once."""
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    response = client.get("/sparql", query_string={"query": count, "format": "csv"})
    assert names(response.data, Format.CSV) == [str(len(merged()))]


@pytest.mark.parametrize(("params", "query", "expected"), [
    ({"default-graph-uri": str(ADA_GRAPH)}, NAMES, ["Ada Lovelace"]),
    ({"default-graph-uri": [str(ADA_GRAPH), str(GRACE_GRAPH)]}, NAMES, ["Ada Lovelace", "Grace Hopper"]),
    ({"default-graph-uri": "https://kg.example.org/graph/none"}, NAMES, []),
    ({"named-graph-uri": str(GRACE_GRAPH)}, GRAPHS_QUERY, ["Grace Hopper"]),
    ({"named-graph-uri": str(GRACE_GRAPH)}, NAMES, []),
    ({}, GRAPHS_QUERY, ["Ada Lovelace", "Grace Hopper", "Mathematics", 'Notes on the "Analytical Engine"\nwith\ttabs']),
    ({}, PREFIX + f"SELECT ?n FROM <{ADA_GRAPH}> WHERE {{ ?p a schema:Person ; schema:name ?n }}", ["Ada Lovelace"]),
    ({"default-graph-uri": str(GRACE_GRAPH)},
     PREFIX + f"SELECT ?n FROM <{ADA_GRAPH}> WHERE {{ ?p a schema:Person ; schema:name ?n }}", ["Grace Hopper"]),
], ids=["default-one", "default-two", "default-unknown", "named-only", "named-empties-default", "all-named",
        "from-in-query", "protocol-overrides-from"])
def test_dataset_parameters(client: FlaskClient, params: dict[str, Any], query: str, expected: list[str]) -> None:
    """default-graph-uri and named-graph-uri replace the dataset, the query's FROM included."""
    assert select(client, query, **params) == expected


# --- refusals and errors ---------------------------------------------------------------------------------

STATUS_CASES = [
    ("malformed", "get", "/sparql?query=ASK%20%7B", None, None, 400, "1:"),
    ("two-queries", "get", "/sparql?query=ASK%7B%7D&query=ASK%7B%7D", None, None, 400, "more than one 'query'"),
    ("query-and-update", "post", "/sparql", "query=ASK%7B%7D&update=CLEAR%20ALL",
     "application/x-www-form-urlencoded", 400, "not both"),
    ("query-url-and-body", "post", "/sparql?query=ASK%7B%7D", "ASK {}", "application/sparql-query", 400, "do not also"),
    ("update-by-get", "get", "/sparql?update=CLEAR%20ALL", None, None, 400, "POST"),
    ("update-form", "post", "/sparql", "update=CLEAR%20ALL", "application/x-www-form-urlencoded", 403,
     "KG_WRITE_TOKEN"),
    ("update-direct", "post", "/sparql", "CLEAR ALL", "application/sparql-update", 403, "KG_WRITE_TOKEN"),
    ("wrong-type", "post", "/sparql", "ASK {}", "text/plain", 415, "text/plain"),
    ("no-type", "post", "/sparql", "query=ASK%7B%7D", None, 415, "Content-Type"),
    ("utf16", "post", "/sparql", "ASK {}".encode("utf-16"), "application/sparql-query; charset=UTF-16", 415, "UTF-8"),
    ("bad-utf8-body", "post", "/sparql", b"ASK { ?s ?p \"\xff\" }", "application/sparql-query", 400, "UTF-8"),
    ("bad-utf8-form", "post", "/sparql", b"query=ASK%20%7B%22%FF%22%7D", "application/x-www-form-urlencoded", 400,
     "UTF-8"),
    ("bad-utf8-url", "get", "/sparql?query=ASK%20%7B%22%FF%22%7D", None, None, 400, "UTF-8"),
    ("empty-post", "post", "/sparql", "", "application/x-www-form-urlencoded", 400, "needs a query"),
    ("put", "put", "/sparql?query=ASK%7B%7D", "", "application/x-www-form-urlencoded", 405, "not allowed"),
    ("delete", "delete", "/sparql", None, None, 405, "not allowed"),
    ("unknown-route", "get", "/nowhere", None, None, 404, "Not Found"),
    ("relative-dataset-iri", "get", "/sparql?query=ASK%7B%7D&default-graph-uri=not%20an%20iri", None, None, 400,
     "default-graph-uri"),
]


@pytest.mark.parametrize(("method", "path", "body", "content_type", "status", "fragment"),
                         [case[1:] for case in STATUS_CASES], ids=[case[0] for case in STATUS_CASES])
def test_status_codes(client: FlaskClient, method: str, path: str, body: str | bytes | None,
                      content_type: str | None, status: int, fragment: str) -> None:
    """Each protocol violation gets its status and a short plain-text reason, never a stack trace."""
    headers = {"Content-Type": content_type} if content_type is not None else {}
    response = client.open(path, method=method.upper(), data=body, headers=headers)
    text = response.get_data(as_text=True)
    assert response.status_code == status, text
    assert response.mimetype == "text/plain"
    assert fragment in text and "Traceback" not in text
    if status == 405:
        assert "GET" in response.headers["Allow"] and "POST" in response.headers["Allow"]


@pytest.mark.parametrize("query", [
    PREFIX + 'SELECT ?n WHERE { ?p schema:name ?n FILTER(?n != "SERVICE <http://example.org/> {}") }',
    PREFIX + "SELECT ?n WHERE { ?p schema:name ?n } # SERVICE <http://example.org/sparql> { }",
    PREFIX + "SELECT ?n WHERE { ?p schema:name ?n ; <http://example.org/SERVICE> ?x }",
    "SELECT ?SERVICE WHERE { ?SERVICE ?p ?o } LIMIT 1",
], ids=["in-string", "in-comment", "in-iri", "as-variable"])
def test_service_word_outside_a_clause_is_allowed(client: FlaskClient, query: str) -> None:
    """The word SERVICE inside a string, comment, IRI or variable does not make a federated query."""
    assert client.get("/sparql", query_string={"query": query}).status_code == 200


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
    "select * where { service silent <http://example.org/sparql> { ?s ?p ?o } }",
    'SELECT * WHERE { ?s ?p "x".SERVICE <http://example.org/sparql> { ?s ?p ?o } }',
    "SELECT * WHERE { ?s ?p ?o . # comment\nSERVICE ?endpoint { ?s ?p ?o } }",
], ids=["plain", "lower-silent", "after-literal", "after-comment"])
def test_service_clause_is_refused(client: FlaskClient, query: str) -> None:
    """A real SERVICE clause is refused with the reason."""
    response = client.post("/sparql", data={"query": query})
    assert response.status_code == 400 and "federated" in response.get_data(as_text=True)


def test_request_size_limit(store_dir: Path) -> None:
    """Bodies and query strings over max_request_bytes are 413."""
    small = make_client(store_dir, max_request_bytes=200)
    long_query = NAMES + " #" + "x" * 300
    assert small.post("/sparql", data=long_query, content_type="application/sparql-query").status_code == 413
    assert small.post("/sparql", data={"query": long_query}).status_code == 413
    assert small.get("/sparql", query_string={"query": long_query}).status_code == 413
    assert small.get("/sparql", query_string={"query": "ASK {}"}).status_code == 200


def test_result_size_limit(store_dir: Path) -> None:
    """More rows or triples than max_results is a 400 asking for a LIMIT; at the limit it is fine."""
    limited = make_client(store_dir, max_results=2)
    too_many = limited.get("/sparql", query_string={"query": "SELECT * WHERE { ?s ?p ?o }"})
    assert too_many.status_code == 400 and "LIMIT" in too_many.get_data(as_text=True)
    assert limited.get("/sparql", query_string={"query": NAMES}).status_code == 200
    assert limited.get("/sparql", query_string={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 2"}).status_code == 200
    assert limited.get("/sparql", query_string={"query": CONSTRUCT_ALL}).status_code == 400


def test_time_limit(store_dir: Path) -> None:
    """A query past query_timeout is stopped with a 503."""
    response = make_client(store_dir, query_timeout=0.0).get("/sparql", query_string={"query": NAMES})
    assert response.status_code == 503 and "time" in response.get_data(as_text=True)


# --- service description and HTML form ---------------------------------------------------------


@pytest.mark.parametrize("fmt", GRAPH_FORMATS, ids=[f.name for f in GRAPH_FORMATS])
def test_service_description(client: FlaskClient, fmt: Format) -> None:
    """A plain GET answers the service description as RDF in the negotiated format."""
    response = client.get("/sparql", headers={"Accept": fmt.media_type})
    assert response.status_code == 200 and response.mimetype == fmt.media_type
    graph = parse_rdf(response.data, fmt)
    service = graph.value(predicate=RDF.type, object=SD.Service)
    assert graph.value(service, SD.endpoint) == URIRef("http://localhost/sparql")
    assert (service, SD.supportedLanguage, SD.SPARQL11Query) in graph
    assert (service, SD.feature, SD.UnionDefaultGraph) in graph
    assert (service, SD.defaultEntailmentRegime, URIRef("http://www.w3.org/ns/entailment/Simple")) in graph
    formats = {str(o) for o in graph.objects(service, SD.resultFormat)}
    assert formats == {str(f.iri) for f in RESULTS_FORMATS + GRAPH_FORMATS}
    dataset = graph.value(service, SD.defaultDataset)
    counts = {}
    for named in graph.objects(dataset, SD.namedGraph):
        counts[graph.value(named, SD.name)] = graph.value(graph.value(named, SD.graph), VOID.triples).toPython()
    assert counts == {name: len(g) for name, g in corpus().items()}


def test_query_page_for_browsers(client: FlaskClient) -> None:
    """A browser gets an HTML form that posts a query to the endpoint."""
    response = client.get("/sparql", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    text = response.get_data(as_text=True)
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert '<form method="post" action="http://localhost/sparql"' in text and 'name="query"' in text
    assert client.head("/sparql", headers={"Accept": "text/html"}).status_code == 200


# --- the W3C SPARQL 1.1 Protocol manifest ---------------------------------------------------------------

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")


def w3c_cases() -> list[Any]:
    """(name, requests) for every test of the W3C protocol manifest."""
    if not W3C_PROTOCOL.exists():
        return []
    graph = Graph().parse(W3C_PROTOCOL, format="turtle")
    manifest = graph.value(predicate=RDF.type, object=MF.Manifest)
    cases = []
    for entry in Collection(graph, graph.value(manifest, MF.entries)):
        requests = []
        for req in Collection(graph, graph.value(graph.value(entry, MF.action), HT.requests)):
            body = graph.value(req, HT.body)
            data = None
            if body is not None:
                encoding = str(graph.value(body, CNT.characterEncoding) or "UTF-8")
                data = str(graph.value(body, CNT.chars)).encode(encoding)
            headers_node = graph.value(req, HT.headers)
            headers = {str(graph.value(h, HT.fieldName)): str(graph.value(h, HT.fieldValue))
                       for h in (Collection(graph, headers_node) if headers_node is not None else [])}
            expected = graph.objects(graph.value(req, HT.resp), MF.expectedStatus)
            statuses = {int(str(s).rsplit("StatusCode", 1)[1][0]) for s in expected}
            requests.append((str(graph.value(req, HT.methodName)), str(graph.value(req, HT.absolutePath)), data,
                             headers, statuses))
        cases.append(pytest.param(requests, id=str(entry).rsplit("#", 1)[1]))
    return cases


@pytest.mark.skipif(not W3C_PROTOCOL.exists(), reason="W3C protocol manifest not available")
@pytest.mark.parametrize("requests", w3c_cases())
def test_w3c_protocol(client: FlaskClient, requests: list[Any]) -> None:
    """Each W3C protocol test gets a status of the expected class; updates that should succeed get 403 here (no write
    token is configured; tests/test_w3c_protocol.py runs them with one)."""
    for method, path, data, headers, statuses in requests:
        response = client.open(path, method=method, data=data, headers=headers)
        update = "sparql-update" in headers.get("content-type", "") or "update=" in path or b"update=" in (data or b"")
        if update and statuses & {2, 3}:
            assert response.status_code == 403, response.data
        else:
            assert response.status_code // 100 in statuses, (path, response.status_code, response.data)


def test_construct_bytes_do_not_depend_on_blank_node_labels() -> None:
    from kg.query.results import canonical_lines

    one = b'_:a1 <http://e/p> <http://e/x> .\n<http://e/s> <http://e/r> _:a1 .\n_:a1 <http://e/q> "v" .\n'
    other = b'<http://e/s> <http://e/r> _:f0e .\n_:f0e <http://e/q> "v" .\n_:f0e <http://e/p> <http://e/x> .\n'
    assert canonical_lines(one) == canonical_lines(other)
    assert len(canonical_lines(one + other)) == 6  # two distinct blank nodes, however alike: kept apart
    plain = b'<http://e/s> <http://e/p> "b" .\n<http://e/s> <http://e/p> "a" .\n<http://e/s> <http://e/p> "a" .\n'
    assert canonical_lines(plain) == [b'<http://e/s> <http://e/p> "a" .\n', b'<http://e/s> <http://e/p> "b" .\n']


@pytest.mark.parametrize("function", ["RAND()", "NOW()", "STRUUID()", "UUID()", "BNODE()"])
def test_an_answer_that_changes_per_run_is_never_kept(built_store_dir: Path, function: str) -> None:
    app = create_app(Config(data=PROJECT_ROOT / "data", store=built_store_dir, query_workers=0))  # caches on
    client = app.test_client()
    query = f"SELECT ?v WHERE {{ BIND({function} AS ?v) }}"
    answers = []
    for send in (lambda: client.get("/sparql", query_string={"query": query}, headers={"Accept": "text/csv"}),
                 lambda: client.post("/sparql", data={"query": query}, headers={"Accept": "text/csv"})):
        for _ in range(2):
            response = send()
            assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
            answers.append(response.data)
    if function != "BNODE()":  # a fresh blank node each run, but labels are per result
        assert len(set(answers)) == len(answers), answers
    same = client.get("/sparql", query_string={"query": "SELECT ?v WHERE { BIND(1 AS ?v) }"})
    assert "no-store" not in same.headers.get("Cache-Control", "")


def test_a_get_answer_has_an_etag_and_revalidates_to_304(built_store_dir: Path) -> None:
    app = create_app(Config(data=PROJECT_ROOT / "data", store=built_store_dir, query_workers=0))
    client = app.test_client()
    query = {"query": "SELECT ?p WHERE { ?p a <http://schema.org/Person> } ORDER BY ?p"}
    first = client.get("/sparql", query_string=query, headers={"Accept": "text/csv"})
    tag = first.headers["ETag"]
    assert first.status_code == 200 and first.headers["Cache-Control"] == "public, no-cache"
    assert client.get("/sparql", query_string=query, headers={"Accept": "text/csv"}).headers["ETag"] == tag
    as_json = client.get("/sparql", query_string=query, headers={"Accept": "application/sparql-results+json"})
    assert as_json.headers["ETag"] != tag
    again = client.get("/sparql", query_string=query, headers={"Accept": "text/csv", "If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag and not again.data
    assert "Accept" in again.headers["Vary"]
    stale = client.get("/sparql", query_string=query, headers={"Accept": "text/csv", "If-None-Match": '"old"'})
    assert stale.status_code == 200 and stale.data == first.data
    posted = client.post("/sparql", data=query, headers={"Accept": "text/csv"})
    assert posted.status_code == 200 and "ETag" not in posted.headers


def test_the_answer_tag_names_the_data_version_and_the_request() -> None:
    from dataclasses import replace

    from kg.query.wire import QueryJob
    from kg.server.sparql.answers import answer_tag

    job = QueryJob(text="ASK {}", base_iri="http://a/sparql", default_graphs=(), named_graphs=(), dataset=False,
                   format="CSV", max_results=10, timeout=1.0)
    other_base = replace(job, base_iri="http://b/sparql")
    assert answer_tag(job, "v1") == answer_tag(job, "v1") != answer_tag(job, "v2")
    assert answer_tag(job, "v1") != answer_tag(other_base, "v1")
