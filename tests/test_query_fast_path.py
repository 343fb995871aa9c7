"""Plain query GETs answered before Flask (kg.server.layers.querypath): the view's exact answer, its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from rdflib import Graph
from werkzeug.test import Client, TestResponse

from kg.config import Config
from kg.server import create_app
from kg.server.floor.handle import EXTENSION
from kg.server.layers.compression import Compression
from kg.server.layers.querypath import QueryFastPath

from .conftest import REPO_DATA, assert_isomorphic

LOOKUP = 'SELECT ?p ?name WHERE { ?p <http://schema.org/name> ?name } ORDER BY ?name LIMIT 3'
CONSTRUCT = "CONSTRUCT { ?p <http://schema.org/name> ?n } WHERE { ?p a schema:Person ; schema:name ?n } LIMIT 2"
ASK = "ASK { ?p a schema:Person }"
RELATIVE = "SELECT ?x WHERE { BIND(<relative> AS ?x) }"
MANY = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 50"


def make_app(built_store_dir: Path, **settings: Any) -> Flask:
    """An app over the built store, answering in-process, with the given settings."""
    app = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0, cache_bytes=0,
                            response_cache_bytes=0, **settings))
    app.config["TESTING"] = True
    return app


def query_fast_path(app: Flask) -> QueryFastPath:
    """The QueryFastPath layer among the middlewares in front of Flask."""
    layer: Any = app.wsgi_app
    while not isinstance(layer, QueryFastPath):
        layer = layer.app
    return layer


def counting_flask(app: Flask) -> dict[str, int]:
    """Count the requests that reach Flask's own WSGI app (behind the middlewares)."""
    calls = {"n": 0}
    fast_path = query_fast_path(app)
    inner = fast_path.app

    def counted(environ: dict[str, Any], start_response: Any) -> Any:
        calls["n"] += 1
        return inner(environ, start_response)
    fast_path.app = counted
    return calls


def view_client(app: Flask) -> Client:
    """A client of the Flask app without the query fast path and the response cache (with the same
    compression layer in front, which both answers pass)."""
    config = app.extensions[EXTENSION].config
    return Client(Compression(query_fast_path(app).app, config.gzip_min_bytes), TestResponse)


def same_response(fast: TestResponse, view: TestResponse) -> None:
    """The two answers carry the same status, headers and body (a Turtle body: the same graph)."""
    assert fast.status == view.status
    assert sorted((k.lower(), v) for k, v in fast.headers.items()) == sorted(
        (k.lower(), v) for k, v in view.headers.items())
    if view.mimetype == "text/turtle":  # the service description's blank nodes are labelled afresh each time
        assert_isomorphic(Graph().parse(data=fast.data, format="turtle"),
                          Graph().parse(data=view.data, format="turtle"))
    else:
        assert fast.data == view.data


@pytest.mark.parametrize("cors", ["*", "https://a.example, https://b.example", ""])
@pytest.mark.parametrize("params, headers", [
    ({"query": LOOKUP}, {"Accept": "application/sparql-results+json"}),
    ({"query": LOOKUP}, {"Accept": "application/sparql-results+xml", "Origin": "https://a.example"}),
    ({"query": LOOKUP}, {"Accept": "text/csv;q=0.9, text/tab-separated-values", "Origin": "https://evil.example"}),
    ({"query": LOOKUP}, {}),
    ({"query": LOOKUP, "format": "csv"}, {"Accept": "text/html"}),
    ({"query": ASK}, {"Accept": "*/*"}),
    ({"query": CONSTRUCT}, {"Accept": "text/turtle"}),
    ({"query": CONSTRUCT}, {"Accept": "application/n-triples"}),
    ({"query": LOOKUP, "default-graph-uri": "https://kg.example.org/graph/profiles"}, {}),
])
def test_a_plain_query_get_gets_the_views_answer_without_entering_flask(
        built_store_dir: Path, cors: str, params: dict[str, str], headers: dict[str, str]) -> None:
    app = make_app(built_store_dir, cors_origins=cors)
    view = view_client(app).get("/sparql", query_string=params, headers=headers)
    calls = counting_flask(app)
    fast = app.test_client().get("/sparql", query_string=params, headers=headers)
    assert fast.status_code == 200 and calls["n"] == 0
    same_response(fast, view)


def test_relative_iris_resolve_against_the_endpoint_url_of_each_host(built_store_dir: Path) -> None:
    app = make_app(built_store_dir)
    calls = counting_flask(app)
    for base in ("http://one.example", "https://two.example:8443/kg"):
        response = app.test_client().get("/sparql", query_string={"query": RELATIVE}, base_url=base,
                                         headers={"Accept": "application/sparql-results+json"})
        binding = response.get_json()["results"]["bindings"][0]["x"]["value"]
        assert binding == f"{base}/relative" and calls["n"] == 0


@pytest.mark.parametrize("params, headers", [
    ({"query": "SELECT * WHERE { ?s ?p }"}, {"Accept": "application/sparql-results+json"}),  # malformed
    ({"query": "SELECT * WHERE { ?s ?p }"}, {"Accept": "text/html"}),  # malformed, shown in the page
    ({"query": LOOKUP}, {"Accept": "text/html"}),  # the HTML query page
    ({"query": CONSTRUCT}, {"Accept": "application/ld+json"}),  # compacted in the view
    ({"query": LOOKUP}, {"Accept": "image/png"}),  # 406
    ({"query": LOOKUP, "update": "CLEAR ALL"}, {}),  # both
    ({"query": "SELECT * WHERE { SERVICE <http://x.example/> { ?s ?p ?o } }"}, {}),  # refused by the guard
    ({}, {"Accept": "text/turtle"}),  # the service description
])
def test_everything_else_is_left_to_the_view(built_store_dir: Path, params: dict[str, str],
                                             headers: dict[str, str]) -> None:
    app = make_app(built_store_dir)
    view = view_client(app).get("/sparql", query_string=params, headers=headers)
    calls = counting_flask(app)
    fast = app.test_client().get("/sparql", query_string=params, headers=headers)
    assert calls["n"] == 1
    same_response(fast, view)


def test_an_error_met_while_the_query_runs_is_rendered_by_the_view(built_store_dir: Path) -> None:
    app = make_app(built_store_dir, max_results=5)
    params, headers = {"query": MANY}, {"Accept": "application/sparql-results+json", "Origin": "https://a.example"}
    view = view_client(app).get("/sparql", query_string=params, headers=headers)
    calls = counting_flask(app)
    fast = app.test_client().get("/sparql", query_string=params, headers=headers)
    assert view.status_code == 400 and b"LIMIT" in view.data
    assert calls["n"] == 1
    same_response(fast, view)


def test_an_oversized_query_string_is_left_to_the_view(built_store_dir: Path) -> None:
    app = make_app(built_store_dir, max_request_bytes=100)
    calls = counting_flask(app)
    response = app.test_client().get("/sparql", query_string={"query": LOOKUP + " " * 200})
    assert response.status_code == 413 and calls["n"] == 1
