"""The pages in a real headless Chromium against a real `kg serve`: render, navigate, query, stay on 127.0.0.1.

Chromium is /usr/bin/chromium (or $KG_CHROMIUM). Without it (or without playwright) these tests skip, except
when CI=true, where they fail. Screenshots of each page type go to test-output/screenshots/.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from rdflib import Graph, Literal, URIRef

from kg.config import PROJECT_ROOT

from .conftest import REPO_DATA
from .server_process import kg_serve

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)

SCREENSHOTS = PROJECT_ROOT / "test-output" / "screenshots"
BASE = "https://kg.example.org"
NAME = URIRef("http://schema.org/name")
TVM = "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run on CI: {reason}")
    pytest.skip(reason)


def chromium_path() -> str:
    """The Chromium executable to drive (skips locally, fails on CI, when there is none)."""
    for candidate in (os.environ.get("KG_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    _unavailable("no Chromium at /usr/bin/chromium (install Debian's chromium or set KG_CHROMIUM)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium driven by playwright."""
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install playwright)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def server(browser: Any, built_store_dir: Path) -> Iterator[str]:
    """A real `kg serve` over the built store; yields its base URL."""
    with kg_serve(REPO_DATA, built_store_dir) as url:
        yield url


@dataclass
class Watch:
    """What a page did: console errors, page errors, requests that tried to leave 127.0.0.1."""

    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def route(self, route: Any) -> None:
        """Let requests to 127.0.0.1 through; abort and record anything else."""
        url = route.request.url
        if url.startswith(("data:", "about:")) or urlsplit(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def check(self) -> None:
        """Fail on outside requests and on console errors not explicitly allowed."""
        assert not self.outside, f"requests left 127.0.0.1: {self.outside}"
        unexpected = [e for e in self.errors if not any(a in e for a in self.allowed)]
        assert not unexpected, f"console errors: {unexpected}"


@pytest.fixture()
def page(browser: Any, server: str) -> Iterator[tuple[Any, Watch]]:
    """A fresh page whose requests are confined to the server and whose console errors fail the test."""
    watch = Watch()
    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 900}, service_workers="block")
    context.route("**/*", watch.route)
    tab = context.new_page()
    tab.on("console", lambda message: watch.errors.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: watch.errors.append(f"page error: {error}"))
    yield tab, watch
    context.close()
    watch.check()


def screenshot(tab: Any, name: str) -> None:
    """Save a full-page screenshot under test-output/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def embedded_jsonld(tab: Any) -> list[dict[str, Any]]:
    """The JSON-LD documents embedded in the page, parsed."""
    return [json.loads(text) for text in tab.locator('script[type="application/ld+json"]').all_text_contents()]


PAGES = [
    ("home", "/", "Researcher profiles knowledge graph", None),
    ("search", "/search?q=Xiao", "Search results for “Xiao”", None),
    ("person", "/page/person/wencong-xiao", "Wencong Xiao", f"{BASE}/id/person/wencong-xiao"),
    ("publication", f"/page/{TVM}", "TVM: An Automated End-to-End Optimizing Compiler for Deep Learning",
     f"{BASE}/id/{TVM}"),
    ("organisation", "/page/organization/bytedance", "ByteDance", f"{BASE}/id/organization/bytedance"),
    ("venue", "/page/venue/osdi", "USENIX Symposium on Operating Systems Design and Implementation",
     f"{BASE}/id/venue/osdi"),
    ("edition", "/page/venue/osdi-2018", "OSDI 2018", f"{BASE}/id/venue/osdi-2018"),
    ("resource", f"/page/{TVM}/authorship/3", "Ziheng Jiang", f"{BASE}/id/{TVM}/authorship/3"),
    ("project", "/page/project/apache-tvm", "Apache TVM", f"{BASE}/id/project/apache-tvm"),
    ("query", "/sparql", "SPARQL query", None),
    ("ontology", "/ontology", "kg ontology", None),
]


@pytest.mark.parametrize(("name", "path", "heading", "iri"), PAGES, ids=[p[0] for p in PAGES])
def test_page_renders_and_its_links_navigate(page: tuple[Any, Watch], name: str, path: str, heading: str,
                                             iri: str | None) -> None:
    tab, _ = page
    response = tab.goto(path)
    assert response is not None and response.status == 200
    assert tab.locator("h1").inner_text().strip() == heading
    documents = embedded_jsonld(tab)
    if iri is not None:
        assert len(documents) == 1 and documents[0]["@id"] == iri and documents[0]["@context"] == {"@vocab": "http://schema.org/"}
    for alternate in tab.locator('link[rel="alternate"]').all():
        fetched = tab.request.get(alternate.get_attribute("href"))
        assert fetched.ok and fetched.headers["content-type"].startswith(alternate.get_attribute("type"))
    screenshot(tab, name)
    targets = [href for href in (a.get_attribute("href") for a in tab.locator("main a[href^='/page/']").all()) if href]
    for href in list(dict.fromkeys(targets))[:3]:
        answer = tab.goto(href)
        assert answer is not None and answer.status == 200, href
        assert tab.locator("h1").count() == 1


def test_requests_leaving_127_0_0_1_are_caught(page: tuple[Any, Watch]) -> None:
    """The guard itself: a request to another host is aborted and recorded (then forgiven for this test)."""
    tab, watch = page
    tab.goto("/")
    outcome = tab.evaluate("fetch('http://192.0.2.1/probe').then(() => 'reached', () => 'blocked')")
    assert outcome == "blocked" and watch.outside == ["http://192.0.2.1/probe"]
    watch.outside.clear()
    watch.allowed.append("ERR_FAILED")


def test_unknown_iri_is_a_404_page(page: tuple[Any, Watch]) -> None:
    tab, watch = page
    watch.allowed.append("404")
    response = tab.goto("/id/person/nobody-at-all")
    assert response is not None and response.status == 404
    assert tab.locator("h1").inner_text() == "Not found"
    screenshot(tab, "not-found")


def test_query_page_runs_a_query_and_shows_the_table(page: tuple[Any, Watch]) -> None:
    tab, watch = page
    tab.goto("/sparql")
    tab.get_by_role("link", name="Co-authors shared by Ziheng Jiang and Wencong Xiao").click()
    tab.locator("table.results tbody tr").first.wait_for()
    assert "Xinyi Zhang" in tab.locator("table.results").inner_text()
    assert "format=csv" in tab.get_by_role("link", name="CSV").get_attribute("href")
    tab.locator("#query-text").fill("PREFIX schema: <http://schema.org/>\nSELECT ?p ?name WHERE { "
                                    "?p a schema:Person ; schema:name ?name } ORDER BY ?name LIMIT 5")
    tab.get_by_role("button", name="Run query").click()
    tab.get_by_text("5 rows.").wait_for()
    assert tab.locator("table.results tbody tr").count() == 5
    assert tab.locator("table.results a[href^='/page/person/']").count() == 5
    csv = tab.request.get(tab.get_by_role("link", name="CSV").get_attribute("href"))
    assert csv.ok and csv.text().startswith("p,name")
    screenshot(tab, "query-results")
    watch.allowed.append("400")
    tab.locator("#query-text").fill("SELECT ?x WHERE { ?x")
    tab.get_by_role("button", name="Run query").click()
    tab.get_by_role("alert").wait_for()
    assert "malformed query" in tab.get_by_role("alert").inner_text()
    screenshot(tab, "query-error")


def test_pages_read_without_javascript(browser: Any, server: str) -> None:
    context = browser.new_context(base_url=server, java_script_enabled=False)
    watch = Watch()
    context.route("**/*", watch.route)
    tab = context.new_page()
    tab.goto("/page/person/ziheng-jiang")
    assert tab.locator("h1").inner_text() == "Ziheng Jiang"
    assert tab.locator("ol.publications > li").count() >= 10
    assert tab.locator("svg.network").is_visible() and tab.locator("svg.timeline").is_visible()
    tab.goto("/sparql")
    assert tab.locator("form#query-form textarea[name=query]").is_visible()
    context.close()
    watch.check()


def test_journey_from_search_to_turtle(page: tuple[Any, Watch]) -> None:
    """Home, search "Xiao", Wencong Xiao, a co-author, a paper, Ziheng Jiang; both pictures; Turtle and JSON-LD."""
    tab, _ = page
    tab.goto("/")
    tab.get_by_label("Search names and titles").first.fill("Xiao")
    tab.get_by_label("Search names and titles").first.press("Enter")
    tab.wait_for_url("**/search?q=Xiao")
    tab.get_by_role("link", name="Wencong Xiao", exact=True).click()
    tab.wait_for_url("**/page/person/wencong-xiao")
    assert tab.locator("h1").inner_text() == "Wencong Xiao"
    assert tab.locator("svg.network").is_visible() and tab.locator("svg.timeline").is_visible()
    tab.locator("ol.publications").get_by_role("link", name="Xinyi Zhang", exact=True).first.click()
    tab.wait_for_url("**/page/person/xinyi-zhang")
    tab.get_by_role("link", name="MegaScale-Infer", exact=False).first.click()
    tab.wait_for_url("**/page/work/megascale-infer-*")
    assert "MegaScale-Infer" in tab.locator("h1").inner_text()
    tab.locator("ol.authors").get_by_role("link", name="Ziheng Jiang", exact=True).click()
    tab.wait_for_url("**/page/person/ziheng-jiang")
    assert tab.locator("h1").inner_text() == "Ziheng Jiang"
    network, timeline = tab.locator("svg.network"), tab.locator("svg.timeline")
    assert network.is_visible() and timeline.is_visible()
    assert network.locator("circle").count() > 10 and timeline.locator("rect").count() >= 10
    screenshot(tab, "journey-ziheng-jiang")
    subject = URIRef(f"{BASE}/id/person/ziheng-jiang")
    for media_type, rdflib_name in (("text/turtle", "turtle"), ("application/ld+json", "json-ld")):
        href = tab.locator(f'link[rel="alternate"][type="{media_type}"]').get_attribute("href")
        answer = tab.request.get(href)
        assert answer.ok and answer.headers["content-type"].startswith(media_type)
        graph = Graph().parse(data=answer.body(), format=rdflib_name)
        assert (subject, NAME, Literal("Ziheng Jiang")) in graph
    dereferenced = tab.request.get("/id/person/ziheng-jiang", headers={"Accept": "text/turtle"})
    assert dereferenced.ok and dereferenced.url.endswith("/data/person/ziheng-jiang.ttl")
    assert (subject, NAME, Literal("Ziheng Jiang")) in Graph().parse(data=dereferenced.body(), format="turtle")
