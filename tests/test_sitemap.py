"""robots.txt and the sitemap: every entity's page listed once, absolute under the request's host, each one
answering; an index of numbered files past the per-file limit; ETags by data version."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from kg.changes import BuildChanges, EntityChange
from kg.config import Config
from kg.server import create_app
from kg.server.pages.sitemap import last_changes
from kg.store import Store

from .conftest import REPO_DATA

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
ENTITIES = """PREFIX schema: <http://schema.org/>
SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {
  VALUES ?t { schema:Person schema:ScholarlyArticle schema:Organization schema:EventSeries schema:Event
              schema:Periodical schema:Collection schema:Project }
  ?s a ?t FILTER(STRSTARTS(STR(?s), "https://kg.example.org/id/")) }"""


@pytest.fixture(scope="module")
def client(built_store_dir: Path) -> FlaskClient:
    """A test client over the repository's data."""
    return create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0)).test_client()


def _locs(body: bytes, tag: str) -> list[str]:
    root = ET.fromstring(body)
    return [e.text or "" for e in root.findall(f"s:{tag}/s:loc", NS)]


def test_the_sitemap_lists_every_entity_page_once_and_each_answers(client: FlaskClient, built_store_dir: Path) -> None:
    response = client.get("/sitemap.xml", headers={"Host": "profiles.example.edu"})
    assert response.status_code == 200 and response.content_type == "application/xml; charset=utf-8"
    locs = _locs(response.data, "url")
    expected = int(next(iter(Store.open(built_store_dir).query(ENTITIES)))[0].value)
    assert len(locs) == len(set(locs)) == expected > 100
    assert all(loc.startswith("http://profiles.example.edu/page/") for loc in locs)
    assert "http://profiles.example.edu/page/person/ziheng-jiang" in locs
    for loc in locs:
        page = client.get(loc.removeprefix("http://profiles.example.edu"), headers={"Accept": "text/html"})
        assert page.status_code == 200, loc


def test_the_sitemap_revalidates_by_data_version(client: FlaskClient) -> None:
    first = client.get("/sitemap.xml")
    assert first.headers["ETag"] and "no-cache" in first.headers["Cache-Control"]
    again = client.get("/sitemap.xml", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.data


def test_past_the_limit_the_sitemap_is_an_index_of_numbered_files(client: FlaskClient,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _locs(client.get("/sitemap.xml").data, "url")
    monkeypatch.setattr("kg.server.pages.sitemap.PER_FILE", 50)
    index = client.get("/sitemap.xml", headers={"Host": "other.example"})
    files = _locs(index.data, "sitemap")
    assert ET.fromstring(index.data).tag == f"{{{NS['s']}}}sitemapindex"
    assert files == [f"http://other.example/sitemap-{n}.xml" for n in range(1, (len(whole) - 1) // 50 + 2)]
    parts = [_locs(client.get(f.removeprefix("http://other.example"), headers={"Host": "other.example"}).data, "url")
             for f in files]
    assert all(len(p) <= 50 for p in parts)
    assert [loc.removeprefix("http://other.example") for p in parts for loc in p] == [
        loc.removeprefix("http://localhost") for loc in whole]
    for missing in (0, len(files) + 1):
        assert client.get(f"/sitemap-{missing}.xml").status_code == 404


def test_robots_keeps_crawlers_off_the_query_routes_and_names_the_sitemap(client: FlaskClient) -> None:
    text = client.get("/robots.txt", headers={"Host": "profiles.example.edu"}).get_data(as_text=True)
    lines = text.splitlines()
    assert lines[0] == "User-agent: *" and lines[-1] == "Sitemap: http://profiles.example.edu/sitemap.xml"
    assert {"Disallow: /sparql", "Disallow: /store", "Disallow: /explain", "Disallow: /search"} <= set(lines)
    assert not any(line.startswith(("Disallow: /page", "Disallow: /id", "Disallow: /data")) for line in lines)


def test_lastmod_is_when_the_kept_records_last_saw_each_page_change(client: FlaskClient) -> None:
    root = ET.fromstring(client.get("/sitemap.xml").data)
    stamps = {e.text for e in root.findall("s:url/s:lastmod", NS)}
    builds = client.get("/changes", headers={"Accept": "application/json"}).get_json()["builds"]
    assert len(root.findall("s:url", NS)) == len(root.findall("s:url/s:lastmod", NS))  # one build: all known
    assert stamps == {builds[-1]["ended_at"]}


def _build(ended: str, initial: bool, entities: list[tuple[str, str]], unlisted: int = 0) -> BuildChanges:
    return BuildChanges(ended, ended, ended, None if initial else "x",
                        [EntityChange(iri, "work", status, iri, 1, 0) for iri, status in entities], unlisted=unlisted)


def test_last_changes_trusts_the_records_only_as_far_as_they_go() -> None:
    first = _build("2026-01-01T00:00:00Z", True, [])
    middle = _build("2026-02-01T00:00:00Z", False, [("a", "changed"), ("b", "removed")])
    newest = _build("2026-03-01T00:00:00Z", False, [("a", "changed"), ("c", "added")])
    assert last_changes([newest, middle, first]) == ({"a": "2026-03-01T00:00:00Z", "c": "2026-03-01T00:00:00Z"},
                                                     "2026-01-01T00:00:00Z")
    truncated = _build("2026-02-01T00:00:00Z", False, [("a", "changed")], unlisted=5)
    assert last_changes([newest, truncated, first])[1] is None  # some change went unlisted
    assert last_changes([newest, middle])[1] is None  # the first build's record has expired
    assert last_changes([]) == ({}, None)
