"""Repeat GETs answered before Flask (kg.server.layers.fastpath): same bytes and headers, keyed and bypassed right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from kg.config import Config
from kg.server import create_app
from kg.server.floor.handle import data_version
from kg.server.layers.fastpath import ResponseCache, kept_size

from .conftest import REPO_DATA

LOOKUP = 'SELECT ?p WHERE { ?p <http://schema.org/name> "Ziheng Jiang" }'
PERSON = "/page/person/ziheng-jiang"


def counting_views(app: Flask) -> dict[str, int]:
    """Count the requests that reach Flask (the middleware sits in front of Flask's own wsgi_app)."""
    calls = {"n": 0}
    assert isinstance(app.wsgi_app, ResponseCache)
    inner = app.wsgi_app.app

    def counted(environ: dict[str, Any], start_response: Any) -> Any:
        calls["n"] += 1
        return inner(environ, start_response)
    app.wsgi_app.app = counted
    return calls


def header_set(response: Any) -> set[tuple[str, str]]:
    """A response's headers as a set of pairs."""
    return {(name.lower(), value) for name, value in response.headers.items()}


@pytest.mark.parametrize("path, params, headers", [
    ("/sparql", {"query": LOOKUP}, {"Accept": "application/sparql-results+json"}),
    ("/sparql", {"query": LOOKUP}, {"Accept": "text/csv", "Origin": "https://example.org"}),
    (PERSON, {}, {"Accept": "text/html"}),
    ("/data/person/ziheng-jiang.ttl", {}, {}),
])
def test_a_repeat_is_answered_before_flask_with_the_same_response(app: Flask, path: str, params: dict[str, str],
                                                                  headers: dict[str, str]) -> None:
    client = app.test_client()
    calls = counting_views(app)
    first = client.get(path, query_string=params, headers=headers)
    assert first.status_code == 200 and calls["n"] == 1
    again = client.get(path, query_string=params, headers=headers)
    assert calls["n"] == 1
    assert again.status_code == 200 and again.data == first.data and header_set(again) == header_set(first)


def test_what_the_answer_depends_on_is_in_the_key(app: Flask) -> None:
    client = app.test_client()
    calls = counting_views(app)
    ask = {"query": LOOKUP}
    as_json = client.get("/sparql", query_string=ask, headers={"Accept": "application/sparql-results+json"})
    as_xml = client.get("/sparql", query_string=ask, headers={"Accept": "application/sparql-results+xml"})
    assert calls["n"] == 2 and as_json.data != as_xml.data
    other_host = client.get("/sparql", query_string={"query": LOOKUP}, base_url="http://other.example:8080",
                            headers={"Accept": "application/sparql-results+json"})
    assert calls["n"] == 3 and other_host.status_code == 200
    client.get("/sparql", query_string={"query": LOOKUP}, headers={"Accept": "application/sparql-results+json",
                                                                   "Origin": "https://example.org"})
    assert calls["n"] == 4


def test_errors_conditional_requests_and_posts_go_through_flask(app: Flask) -> None:
    client = app.test_client()
    calls = counting_views(app)
    for _ in range(2):
        assert client.get("/sparql", query_string={"query": "SELECT WHERE {"}).status_code == 400
    assert calls["n"] == 2
    page = client.get(PERSON)
    for _ in range(2):
        assert client.get(PERSON, headers={"If-None-Match": page.headers["ETag"]}).status_code == 304
    assert calls["n"] == 5
    for _ in range(2):
        client.post("/sparql", data={"query": LOOKUP})
    assert calls["n"] == 7


@pytest.mark.parametrize("setting, path", [("cache_bytes", "/sparql?query=ASK%20%7B%7D"),
                                           ("page_cache_bytes", PERSON), ("response_cache_bytes", PERSON)])
def test_the_cache_switches_turn_it_off(built_store_dir: Path, setting: str, path: str) -> None:
    app = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0, **{setting: 0}))
    calls = counting_views(app)
    client = app.test_client()
    assert client.get(path).status_code == client.get(path).status_code == 200
    assert calls["n"] == 2


class FakeStore:
    """A store with a version and build metadata, as data_version reads them."""

    def __init__(self, version: str) -> None:
        self.version, self.metadata = version, {"built_at": version}


class FakeHandle:
    """A store handle whose current store a test replaces."""

    def __init__(self) -> None:
        self.config = Config(query_workers=0)
        self.store = FakeStore("v1")

    def get(self) -> FakeStore:
        return self.store

    def version(self) -> str:
        return data_version(self.store)


def test_a_new_data_version_is_a_miss() -> None:
    answers = []

    def inner(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        answers.append(1)
        body = f"answer {len(answers)}".encode()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    store_handle = FakeHandle()
    middleware = ResponseCache(inner, store_handle)
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/sparql", "QUERY_STRING": "query=ASK%7B%7D"}

    def call() -> bytes:
        return b"".join(middleware(dict(environ), lambda status, headers, exc_info=None: None))
    assert call() == call() == b"answer 1"
    store_handle.store = FakeStore("v2")
    assert call() == call() == b"answer 2"


def test_a_kept_response_shares_its_body_with_the_app_and_counts_its_headers() -> None:
    body = b"x" * 10_000  # as the result or page cache hands it to the view: the object is kept, not a copy

    def inner(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    middleware = ResponseCache(inner, FakeHandle())
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/sparql", "QUERY_STRING": "query=ASK%7B%7D"}
    first = middleware(dict(environ), lambda status, headers, exc_info=None: None)
    again = middleware(dict(environ), lambda status, headers, exc_info=None: None)
    assert list(first)[0] is body and list(again)[0] is body
    (kept, size), = middleware.kept.entries.values()
    assert kept[2] is body and kept_size(kept) == 10_000 + len("200 OK") + len("Content-Type") + len(
        "text/plain") + len("Content-Length") + len("10000") + 8
