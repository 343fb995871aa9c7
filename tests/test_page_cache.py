"""Pages and RDF twins cached by data version: no store query on a repeat, ETag/304, a new version, the bound."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from kg.config import Config
from kg.server import create_app

from .conftest import REPO_DATA, count_store_calls

PERSON = "/page/person/ziheng-jiang"
TWIN = "/data/person/ziheng-jiang.ttl"


def counting(app: Flask) -> dict[str, int]:
    """Count the store look-ups and queries the app makes from now on."""
    return count_store_calls(app)


@pytest.mark.parametrize("path", [PERSON, TWIN, "/data/person/ziheng-jiang?format=jsonld"])
def test_repeat_request_asks_the_store_nothing(app: Flask, path: str) -> None:
    client = app.test_client()
    calls = counting(app)
    first = client.get(path)
    assert first.status_code == 200 and calls["n"] > 0
    calls["n"] = 0
    again = client.get(path)
    assert calls["n"] == 0
    assert again.data == first.data and again.headers["Content-Type"] == first.headers["Content-Type"]
    assert again.headers["Link"] == first.headers["Link"] and again.headers["ETag"] == first.headers["ETag"]


def test_uncached_person_page_makes_few_store_calls(app: Flask) -> None:
    calls = counting(app)
    assert app.test_client().get(PERSON).status_code == 200
    assert calls["n"] < 200, calls["n"]


def test_if_none_match_gives_304_without_rendering(app: Flask) -> None:
    client = app.test_client()
    for path in (PERSON, TWIN, "/dump.ttl", "/void"):
        first = client.get(path)
        etag = first.headers["ETag"]
        assert first.headers["Cache-Control"] == "public, no-cache"
        calls = counting(app)
        again = client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304 and not again.data and again.headers["ETag"] == etag
        assert calls["n"] == 0, path


def test_etag_differs_per_format_and_negotiation_varies(app: Flask) -> None:
    client = app.test_client()
    tags = {client.get(f"/data/person/ziheng-jiang.{ext}").headers["ETag"] for ext in ("ttl", "jsonld", "nt", "rdf")}
    tags.add(client.get(PERSON).headers["ETag"])
    assert len(tags) == 5
    turtle = client.get("/data/person/ziheng-jiang", headers={"Accept": "text/turtle"})
    jsonld = client.get("/data/person/ziheng-jiang", headers={"Accept": "application/ld+json"})
    assert turtle.headers["ETag"] != jsonld.headers["ETag"] and turtle.data != jsonld.data
    assert "Accept" in turtle.headers["Vary"]
    assert client.get("/data/person/ziheng-jiang", headers={"Accept": "application/ld+json",
                                                            "If-None-Match": turtle.headers["ETag"]}).status_code == 200
    void = client.get("/void", headers={"Accept": "application/ld+json"})
    assert "Accept" in void.headers["Vary"] and void.headers["ETag"] != client.get("/void").headers["ETag"]


def test_unknown_resource_is_not_cached(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/page/person/nobody").status_code == 404
    assert "ETag" not in client.get("/page/person/nobody").headers


def test_new_store_version_changes_etag_and_content(tmp_path: Path) -> None:
    from kg.pipeline import build

    store_dir = tmp_path / "store"
    config = Config(data=REPO_DATA, store=store_dir, query_workers=0)
    build(config)
    app = create_app(config)
    client = app.test_client()
    first = client.get("/void")
    page = client.get(PERSON)
    build(config)  # a new version behind the store link
    second, page_again = client.get("/void"), client.get(PERSON)
    assert second.headers["ETag"] != first.headers["ETag"] and second.data != first.data  # dcterms:modified
    assert page_again.headers["ETag"] != page.headers["ETag"]
    assert client.get(PERSON, headers={"If-None-Match": page.headers["ETag"]}).status_code == 200


def test_cache_bound_is_respected(built_store_dir: Path) -> None:
    bound = 60_000
    app = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0, page_cache_bytes=bound))
    client = app.test_client()
    for slug in ("ziheng-jiang", "wencong-xiao", "xinyi-zhang"):
        for ext in ("ttl", "jsonld", "nt", "rdf"):
            assert client.get(f"/data/person/{slug}.{ext}").status_code == 200
        assert client.get(f"/page/person/{slug}").status_code == 200
    pages = app.extensions["kg"].pages
    assert 0 < pages.size <= bound and len(pages.entries) < 15


def test_cache_can_be_disabled(built_store_dir: Path) -> None:
    app = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0, page_cache_bytes=0))
    calls = counting(app)
    client = app.test_client()
    first = client.get(PERSON)
    calls["n"] = 0
    assert client.get(PERSON).data == first.data and calls["n"] > 0
