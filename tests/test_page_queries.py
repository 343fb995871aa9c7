"""Uncached pages ask the store a handful of queries (kg.server.pages.prefetch) and render as the lazy path renders."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask, url_for

from kg.config import Config
from kg.server import create_app
from kg.server.pages import linked as pages

from .conftest import REPO_DATA, count_store_calls

PEOPLE = ["person/ziheng-jiang", "person/wencong-xiao"]
OTHERS = ["person/xinyi-zhang", "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep",
          "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep/authorship/3", "organization/bytedance",
          "venue/osdi", "venue/osdi-2018", "project/apache-tvm", "role/wencong-xiao-education-1",
          "role/wencong-xiao-education-1/credential", "metric/wencong-xiao-citations"]
MAX_CALLS = 6


@pytest.fixture()
def uncached(built_store_dir: Path) -> Flask:
    """The app over the built store with the page cache off, so that every request renders."""
    app = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0, page_cache_bytes=0))
    app.config["TESTING"] = True
    return app


def counting(app: Flask) -> dict[str, int]:
    """Count the store's queries, pattern look-ups and graph listings from now on."""
    return count_store_calls(app, ("quads_for_pattern", "query", "graph_names"))


@pytest.mark.parametrize("path", PEOPLE + ["work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep"])
def test_uncached_page_makes_a_handful_of_store_calls(uncached: Flask, path: str) -> None:
    calls = counting(uncached)
    response = uncached.test_client().get(f"/page/{path}")
    assert response.status_code == 200
    assert 0 < calls["n"] <= MAX_CALLS, calls["n"]


@pytest.mark.parametrize("path", PEOPLE)
def test_person_twin_makes_a_handful_of_store_calls(uncached: Flask, path: str) -> None:
    calls = counting(uncached)
    assert uncached.test_client().get(f"/data/{path}.ttl").status_code == 200
    assert 0 < calls["n"] <= MAX_CALLS, calls["n"]


def test_prefetched_pages_equal_the_lazy_ones(uncached: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page and twin is byte for byte what the Reader renders when it asks the store question by question."""
    client = uncached.test_client()
    urls = [f"/page/{p}" for p in PEOPLE + OTHERS] + [f"/data/{p}.{x}" for p in PEOPLE for x in ("ttl", "jsonld")]
    fast = {url: client.get(url).get_data() for url in urls}
    calls = counting(uncached)
    monkeypatch.setattr(pages, "prefetch", lambda *args, **kwargs: None)
    lazy = {url: client.get(url).get_data() for url in urls}
    assert calls["n"] > 10 * MAX_CALLS  # the lazy path really asked the store
    for url in urls:
        assert fast[url] == lazy[url], url


@pytest.mark.parametrize("path", ["person/ada", "work/a b/authorship/1", "x/ü/%41", "a?b#c", ";=@!$&'()*+,:",
                                  "ünïcödé/路径"])
def test_page_url_is_url_for(uncached: Flask, path: str) -> None:
    with uncached.test_request_context("/page/x"):
        assert pages.page_url(path) == url_for("pages.page", path=path)
    with uncached.test_request_context("/page/x", base_url="http://example.org/mounted/"):
        assert pages.page_url(path) == url_for("pages.page", path=path)


def test_prefetch_query_keeps_iris_that_look_like_variables() -> None:
    """A subject IRI holding "?s" (a query string) is sent as it is, not renamed with the query's variable."""
    import pyoxigraph as ox
    from rdflib import Graph, Literal, URIRef

    from kg.server.pages.prefetch import Branch, record, run
    from kg.server.pages.resources import Reader
    from kg.store import Store

    odd, name = "https://example.org/search?s=ada", "http://schema.org/name"
    graph = Graph()
    graph.add((URIRef(odd), URIRef(name), Literal("Ada")))
    reader = Reader(Store.in_memory({URIRef("https://kg.example.org/graph/profile/ada"): graph}),
                    "https://kg.example.org")
    branch = Branch("$SUBJECTS ?s ?q ?o $PROPS", (name,), {ox.NamedNode(odd)})
    empty = Branch("$SUBJECTS ?s ?q ?o $PROPS", (name,), set())
    run(reader, [branch, empty])
    record(reader, branch)
    assert empty.rows == [] and reader.text(ox.NamedNode(odd), name) == "Ada"
