"""The Graph Store Protocol read side (/store), and the app around both endpoints: errors, store, CORS, /health."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from rdflib import RDF, Dataset, Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic

from kg.config import Config
from kg.formats import GRAPH_FORMATS, Format
from kg.server import create_app
from kg.store import Store, write_store

SCHEMA = Namespace("http://schema.org/")
ID = Namespace("https://kg.example.org/id/")
ADA_GRAPH = URIRef("https://kg.example.org/graph/profile/ada")
GRACE_GRAPH = URIRef("https://kg.example.org/graph/profile/grace")
BUILT_AT = "2024-05-01T00:00:00Z"


def corpus() -> dict[URIRef, Graph]:
    """Two small profile graphs sharing one triple (which the default graph holds once)."""
    ada, grace = ID["person/ada"], ID["person/grace"]
    shared = (ada, RDF.type, SCHEMA.Person)
    first, second = Graph(), Graph()
    for triple in [shared, (ada, SCHEMA.name, Literal("Ada Lovelace")),
                   (ada, SCHEMA.knowsAbout, Literal("engines", lang="en"))]:
        first.add(triple)
    for triple in [shared, (grace, RDF.type, SCHEMA.Person), (grace, SCHEMA.name, Literal("Grace Hopper"))]:
        second.add(triple)
    return {ADA_GRAPH: first, GRACE_GRAPH: second}


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store written from the corpus."""
    path = tmp_path_factory.mktemp("gsp") / "store"
    write_store(path, corpus(), {"built_at": BUILT_AT, "triples": {str(k): len(v) for k, v in corpus().items()}})
    return path


def make_client(store_dir: Path, **settings: Any) -> FlaskClient:
    """A test client for an app over the store with the given settings."""
    settings.setdefault("query_workers", 0)
    app = create_app(Config(store=store_dir, **settings))
    app.config["TESTING"] = True
    return app.test_client()


@pytest.fixture()
def client(store_dir: Path) -> FlaskClient:
    """A test client over the store."""
    return make_client(store_dir)


def parse_quads(data: bytes, fmt: Format) -> dict[str | None, Graph]:
    """Parse RDF with rdflib into graphs by name (None for the default graph)."""
    if not fmt.supports_datasets:
        return {None: Graph().parse(data=data, format=fmt.rdflib_name)}
    dataset = Dataset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        dataset.parse(data=data, format=fmt.rdflib_name)
    graphs: dict[str | None, Graph] = {}
    for s, p, o, g in dataset.quads():
        name = None if g is None or g == dataset.default_graph.identifier else str(g)
        graphs.setdefault(name, Graph()).add((s, p, o))
    return graphs


@pytest.mark.parametrize("fmt", GRAPH_FORMATS, ids=[f.name for f in GRAPH_FORMATS])
def test_default_graph_every_format(client: FlaskClient, fmt: Format) -> None:
    """?default is the graph of unnamed writes (here empty), not the merge of all graphs, in every RDF format."""
    response = client.get("/store?default", headers={"Accept": fmt.media_type})
    assert response.status_code == 200 and response.mimetype == fmt.media_type
    assert "Accept" in response.headers["Vary"]
    graphs = parse_quads(response.data, fmt)
    assert all(len(graph) == 0 for graph in graphs.values())


@pytest.mark.parametrize("fmt", GRAPH_FORMATS, ids=[f.name for f in GRAPH_FORMATS])
def test_named_graph_every_format(client: FlaskClient, fmt: Format) -> None:
    """?graph=IRI is that graph alone; N-Quads and TriG keep its name, JSON-LD is a plain graph document."""
    response = client.get("/store", query_string={"graph": str(ADA_GRAPH)}, headers={"Accept": fmt.media_type})
    assert response.status_code == 200 and response.mimetype == fmt.media_type
    graphs = parse_quads(response.data, fmt)
    expected_name = str(ADA_GRAPH) if fmt in (Format.N_QUADS, Format.TRIG) else None
    assert list(graphs) == [expected_name]
    assert isomorphic(graphs[expected_name], corpus()[ADA_GRAPH])


def test_default_format_is_turtle_and_head(client: FlaskClient) -> None:
    """Without Accept the graph is Turtle; HEAD answers the headers only."""
    assert client.get("/store?default").mimetype == "text/turtle"
    head = client.head("/store", query_string={"graph": str(GRACE_GRAPH)})
    assert head.status_code == 200 and head.mimetype == "text/turtle" and head.data == b""


@pytest.mark.parametrize(("query_string", "status", "fragment"), [
    ("graph=https%3A%2F%2Fkg.example.org%2Fgraph%2Fnone", 404, "no graph named"),
    ("", 400, "exactly one graph"),
    ("default&graph=https%3A%2F%2Fkg.example.org%2Fgraph%2Fprofile%2Fada", 400, "exactly one graph"),
    ("graph=https%3A%2F%2Fa.example&graph=https%3A%2F%2Fb.example", 400, "exactly one graph"),
    ("graph=not-an-iri", 400, "absolute IRI"),
    ("graph=%FF", 400, "UTF-8"),
], ids=["unknown-graph", "neither", "both", "two-graphs", "relative-iri", "bad-utf8"])
def test_errors(client: FlaskClient, query_string: str, status: int, fragment: str) -> None:
    """Unknown graphs are 404; missing, doubled or invalid parameters are 400."""
    response = client.get(f"/store?{query_string}")
    assert response.status_code == status
    assert fragment in response.get_data(as_text=True)


def test_not_acceptable(client: FlaskClient) -> None:
    """An Accept with no RDF format is a 406 naming the supported types."""
    response = client.get("/store?default", headers={"Accept": "application/sparql-results+json"})
    assert response.status_code == 406 and "text/turtle" in response.get_data(as_text=True)


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE"])
def test_writes_are_refused(client: FlaskClient, method: str) -> None:
    """Without a configured write token, Graph Store writes answer 403 saying how to enable them (the write
    side is tested in tests/test_graphstore_writes.py)."""
    kwargs: dict[str, Any] = {"data": "<a:s> <a:p> <a:o> .", "content_type": "application/n-triples"}
    response = client.open("/store?default", method=method, **kwargs)
    text = response.get_data(as_text=True)
    assert response.status_code == 403 and "read-only" in text and "KG_WRITE_TOKEN" in text



# --- the app around both endpoints: errors and the store's lifecycle ------------------------------------


def test_error_as_json_when_asked(client: FlaskClient) -> None:
    """Errors are short text/plain by default and JSON when the client prefers application/json."""
    plain = client.get("/store?graph=https%3A%2F%2Fkg.example.org%2Fnone")
    assert plain.mimetype == "text/plain" and plain.get_data(as_text=True).startswith("404 NotFound: no graph")
    response = client.get("/sparql?query=ASK%20%7B", headers={"Accept": "application/json"})
    assert response.status_code == 400 and response.json is not None
    assert response.json["status"] == 400 and "malformed" in response.json["message"]


class BrokenStore(Store):
    """A store whose queries and reads fail unexpectedly."""

    def query(self, sparql: str, **options: Any) -> Any:
        """Fail."""
        raise RuntimeError("disk on fire at /secret/path")

    def graph_names(self) -> list[str]:
        """Fail."""
        raise RuntimeError("disk on fire at /secret/path")


@pytest.mark.parametrize("path", ["/sparql?query=ASK%7B%7D", "/store?graph=https%3A%2F%2Fa.example"])
def test_unexpected_error_is_a_logged_500(caplog: pytest.LogCaptureFixture, path: str) -> None:
    """An unexpected exception is logged and answered as a bare 500, without details."""
    app = create_app(Config(), store=BrokenStore(ox.Store()))
    app.config["TESTING"] = True
    with caplog.at_level(logging.ERROR):
        response = app.test_client().get(path)
    text = response.get_data(as_text=True)
    assert response.status_code == 500 and "internal error" in text
    assert "secret" not in text and "Traceback" not in text
    assert "disk on fire" in caplog.text


@pytest.mark.parametrize("path", ["/sparql?query=ASK%7B%7D", "/store?default", "/sparql"])
def test_missing_store_is_503(tmp_path: Path, path: str) -> None:
    """Before a build, reads answer 503 with a hint."""
    response = make_client(tmp_path / "store").get(path)
    assert response.status_code == 503 and "kg build" in response.get_data(as_text=True)


def test_store_swap_is_followed(tmp_path: Path) -> None:
    """After a rebuild swaps the store link, the next request sees the new store."""
    path = tmp_path / "store"
    write_store(path, {ADA_GRAPH: corpus()[ADA_GRAPH]}, {"triples": {}})
    client = make_client(path)
    grace = {"graph": str(GRACE_GRAPH)}
    assert client.get("/store", query_string=grace).status_code == 404
    write_store(path, corpus(), {"triples": {}})
    assert client.get("/store", query_string=grace).status_code == 200


def test_store_passed_in() -> None:
    """create_app(store=...) serves that store."""
    app = create_app(store=Store.in_memory(corpus(), {"triples": {str(ADA_GRAPH): 3}, "built_at": BUILT_AT}))
    response = app.test_client().get("/store", query_string={"graph": str(ADA_GRAPH)})
    assert isomorphic(parse_quads(response.data, Format.TURTLE)[None], corpus()[ADA_GRAPH])


# --- CORS and /health -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/sparql", "/store"])
def test_cors_preflight(client: FlaskClient, path: str) -> None:
    """OPTIONS preflight answers the allowed origin, methods and headers."""
    response = client.options(path, headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                                             "Access-Control-Request-Headers": "content-type"})
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert response.headers["Access-Control-Allow-Headers"] == "content-type"


@pytest.mark.parametrize(("setting", "origin", "expected"), [
    ("*", "https://app.example", "*"),
    ("https://app.example, https://other.example", "https://app.example", "https://app.example"),
    ("https://app.example", "https://evil.example", None),
    ("", "https://app.example", None),
], ids=["star", "listed", "unlisted", "disabled"])
def test_cors_origins(store_dir: Path, setting: str, origin: str, expected: str | None) -> None:
    """Access-Control-Allow-Origin follows cors_origins, on results and on errors, on both endpoints."""
    client = make_client(store_dir, cors_origins=setting)
    for path in ("/sparql?query=ASK%7B%7D", "/sparql?query=ASK%7B", "/store?default", "/store"):
        response = client.get(path, headers={"Origin": origin})
        assert response.headers.get("Access-Control-Allow-Origin") == expected, path
        if setting not in ("", "*"):
            assert "Origin" in response.headers["Vary"]


def test_health(client: FlaskClient, tmp_path: Path) -> None:
    """/health reports status, triple count and build time; 503 without a store."""
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json == {"status": "ok", "triples": sum(len(g) for g in corpus().values()), "built_at": BUILT_AT}
    missing = make_client(tmp_path / "none").get("/health")
    assert missing.status_code == 503 and missing.json is not None and missing.json["status"] == "unavailable"
