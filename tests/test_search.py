"""The full-text index (kg.search, issue 32): folding, prefixes, typos, ranking, topics, facets, the JSON form,
bounds, the index following rebuilds and HTTP writes, and SPARQL's kg:matches."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from kg.config import Config
from kg.errors import BadQuery, QueryTimeout
from kg.pipeline import build
from kg.search import INDEX_FILE, Filters, SearchIndex, expand_matches
from kg.server import create_app

from .repo_data import copy_repo_data

TOKEN = "search-token"
ID = "https://kg.example.org/id/"
JOSE = """\
name: José Méndez
title: Compiler Engineer
affiliation: bytedance
research_areas:
  - ML compilers
  - Program synthesis
publications:
  - title: "Tensor Programs Tuned the Mendez Way"
    authors:
      - Ada Lovelace
    venue: osdi
    year: 2021
    status: published
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Config:
    """The repository's data plus José Méndez (an ML compilers person), built once."""
    root = tmp_path_factory.mktemp("search")
    copy_repo_data(root / "data", edits=False)
    (root / "data" / "profiles" / "jose-mendez.yaml").write_text(JOSE, encoding="utf-8")
    config = Config(data=root / "data", store=root / "store", query_workers=0)
    build(config)
    return config


@pytest.fixture(scope="module")
def index(site: Config) -> SearchIndex:
    """The built version's index."""
    return SearchIndex(site.store.resolve() / INDEX_FILE)


@pytest.fixture()
def client(site: Config) -> FlaskClient:
    """A test client over the built store."""
    app = create_app(site)
    app.config["TESTING"] = True
    return app.test_client()


def labels(index: SearchIndex, text: str, **filters: Any) -> list[str]:
    return [hit.label for hit in index.search(text, Filters(**filters)).hits]


def test_the_index_is_written_inside_the_version(site: Config) -> None:
    version = site.store.resolve()
    assert (version / INDEX_FILE).is_file()
    assert json.loads((version / "kg-build.json").read_text())["index_seconds"] >= 0


def test_case_and_accents_are_folded(index: SearchIndex) -> None:
    assert labels(index, "Jose")[0] == "José Méndez"
    assert labels(index, "JOSÉ MENDEZ")[0] == "José Méndez"


def test_words_match_as_prefixes(index: SearchIndex) -> None:
    assert "TVM: An Automated End-to-End Optimizing Compiler for Deep Learning" in labels(index, "compil")


def test_a_misspelt_word_matches_the_closest_indexed_words(index: SearchIndex) -> None:
    found = index.search("compilres", Filters())
    assert "compilers" in found.corrections["compilres"]
    assert "José Méndez" in [h.label for h in found.hits]


def test_a_name_match_ranks_above_a_title_mention(index: SearchIndex) -> None:
    ranked = labels(index, "mendez")
    assert ranked.index("José Méndez") < ranked.index("Tensor Programs Tuned the Mendez Way")


def test_a_research_area_finds_the_person(index: SearchIndex) -> None:
    assert labels(index, "ML compilers")[0] == "José Méndez"


def test_facets_count_kinds_years_and_organisations_and_filters_narrow(index: SearchIndex) -> None:
    found = index.search("mendez", Filters())
    assert {f["value"]: f["count"] for f in found.facets["kind"]} == {"person": 1, "work": 1}
    assert found.facets["year"] == [{"value": 2021, "count": 1}]
    assert found.facets["organization"][0]["value"] == f"{ID}organization/bytedance"
    assert labels(index, "mendez", kind="work") == ["Tensor Programs Tuned the Mendez Way"]
    assert labels(index, "mendez", year=2021) == ["Tensor Programs Tuned the Mendez Way"]
    assert labels(index, "mendez", org=f"{ID}organization/bytedance") == ["José Méndez"]


def test_the_json_form(client: FlaskClient) -> None:
    for response in (client.get("/search?q=jose&format=json"),
                     client.get("/search?q=jose", headers={"Accept": "application/json"})):
        assert response.status_code == 200 and response.content_type == "application/json"
        body = response.get_json()
        assert body["hits"][0]["label"] == "José Méndez"
        assert body["hits"][0]["url"] == "/page/person/jose-mendez"
        assert body["facets"]["kind"][0]["value"] == "person"
    page = client.get("/search?q=xiao&format=json&per_page=1&page=2").get_json()
    assert page["page"] == 2 and len(page["hits"]) == 1 and page["total"] > 1


def test_the_html_page_shows_facets_and_filters(client: FlaskClient) -> None:
    text = client.get("/search?q=mendez").get_data(as_text=True)
    assert "José Méndez" in text and 'href="/search?q=mendez&amp;kind=work"' in text
    narrowed = client.get("/search?q=mendez&kind=work").get_data(as_text=True)
    assert "José Méndez</a>" not in narrowed and "Tuned the Mendez Way" in narrowed


def test_bounds(client: FlaskClient) -> None:
    response = client.get("/search?q=" + "a" * 201, headers={"Accept": "application/json"})
    assert response.status_code == 400
    assert "201 characters; at most 200" in response.get_json()["error"]
    assert client.get("/search?q=" + "a" * 201).status_code == 400
    assert client.get("/search?q=x&kind=planet&format=json").status_code == 400
    assert client.get("/search?q=x&page=0&format=json").status_code == 400
    assert client.get("/search?q=x&per_page=1000&format=json").status_code == 400


def test_a_search_is_stopped_past_its_time_limit(site: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kg.search.reader.PROGRESS_STEPS", 1)
    late = SearchIndex(site.store.resolve() / INDEX_FILE, timeout=-1.0)
    with pytest.raises(QueryTimeout, match="longer than"):
        late.search("learning", Filters())


def test_suggest(client: FlaskClient) -> None:
    body = client.get("/search/suggest?q=jos").get_json()
    assert body["suggestions"][0] == {"label": "José Méndez", "kind": "person", "detail": "Compiler Engineer",
                                      "url": "/page/person/jose-mendez"}
    assert client.get("/search/suggest?q=" + "a" * 300).status_code == 400
    home = client.get("/").get_data(as_text=True)
    assert 'data-suggest="/search/suggest"' in home and "/static/suggest.js" in home
    script = client.get("/static/suggest.js")
    assert script.status_code == 200 and b"data-suggest" in script.data
    script.close()


def sparql(client: FlaskClient, query: str) -> Any:
    return client.get("/sparql", query_string={"query": query}, headers={"Accept": "application/sparql-results+json"})


def test_kg_matches_in_sparql(client: FlaskClient) -> None:
    response = sparql(client, 'SELECT ?name WHERE { ?p kg:matches "ml compilers" ; schema:name ?name }')
    assert response.status_code == 200, response.data
    assert [b["name"]["value"] for b in response.get_json()["results"]["bindings"]] == ["José Méndez"]
    full = sparql(client, 'SELECT ?p WHERE { ?p <https://kg.example.org/ontology#matches> "jose" . }')
    assert full.get_json()["results"]["bindings"][0]["p"]["value"] == f"{ID}person/jose-mendez"
    refused = sparql(client, 'SELECT ?p WHERE { ?p schema:name ?n ; kg:matches "jose" }')
    assert refused.status_code == 400 and b"kg:matches" in refused.data


def test_expand_matches_is_bounded_and_leaves_other_queries_alone() -> None:
    query = "SELECT * WHERE { ?s ?p ?o }"
    assert expand_matches(query, None) is query
    assert expand_matches('SELECT * { ?x kg:matches "a\\"b" }', lambda text: [f"http://e/{len(text)}"]) == \
        "SELECT * { VALUES ?x { <http://e/3> } }"
    with pytest.raises(BadQuery, match="search index"):
        expand_matches('SELECT * { ?x kg:matches "a" }', None)


def test_the_index_follows_a_rebuild(tmp_path: Path) -> None:
    copy_repo_data(tmp_path / "data", edits=False)
    config = Config(data=tmp_path / "data", store=tmp_path / "store")
    build(config)
    first = SearchIndex(config.store.resolve() / INDEX_FILE)
    assert labels(first, "Jose") == []
    (tmp_path / "data" / "profiles" / "jose-mendez.yaml").write_text(JOSE, encoding="utf-8")
    said: list[str] = []
    build(config, progress=said.append)  # incremental: the version is derived, its index re-indexes what changed
    assert any("incremental" in line for line in said), said
    second = SearchIndex(config.store.resolve() / INDEX_FILE)
    assert labels(second, "ML compilers")[0] == "José Méndez"
    renamed = JOSE.replace("ML compilers", "Quantum annealing")
    (tmp_path / "data" / "profiles" / "jose-mendez.yaml").write_text(renamed, encoding="utf-8")
    build(config, progress=said.append)
    third = SearchIndex(config.store.resolve() / INDEX_FILE)
    assert labels(third, "quantum")[0] == "José Méndez" and "José Méndez" not in labels(third, "ML compilers")
    rows = sqlite3.connect(config.store.resolve() / INDEX_FILE).execute(
        "SELECT COUNT(*) FROM docs WHERE iri = ?", (f"{ID}person/jose-mendez",)).fetchone()
    assert rows == (1,)


def test_the_index_follows_an_http_write(tmp_path: Path) -> None:
    copy_repo_data(tmp_path / "data", edits=False)
    config = Config(data=tmp_path / "data", store=tmp_path / "store", query_workers=0, write_token=TOKEN)
    build(config)
    app = create_app(config)
    app.config["TESTING"] = True
    client = app.test_client()
    update = f"""INSERT DATA {{ <{ID}person/wencong-xiao> <http://schema.org/knowsAbout> "Homomorphic encryption" .
      <{ID}organization/bytedance> <http://schema.org/alternateName> "Zijie Tiaodong" }}"""
    response = client.post("/sparql", data=update, headers={"Content-Type": "application/sparql-update",
                                                            "Authorization": f"Bearer {TOKEN}"})
    assert response.status_code in (200, 204), response.data
    body = client.get("/search?q=homomorphic&format=json").get_json()
    assert [h["label"] for h in body["hits"]] == ["Wencong Xiao"]
    people = client.get("/search?q=tiaodong&format=json&kind=person").get_json()
    assert "Wencong Xiao" in [h["label"] for h in people["hits"]]  # a linked organisation's new name, two links away
