"""The search index through a real `kg serve` (granian, query worker processes, the plain-GET query fast path):
/search's JSON form, /search/suggest, kg:matches in a query GET and POST, and a write the next search sees."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from kg.config import Config
from kg.pipeline import build

from .repo_data import copy_repo_data
from .server_process import kg_serve
from .test_search import JOSE

pytestmark = pytest.mark.real  # it starts a real `kg serve` (see tests/conftest.py)
TOKEN = "serve-search-token"


def get_json(url: str, accept: str = "application/json") -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept}), timeout=30) as response:
        return json.load(response)


@pytest.mark.real
def test_search_suggest_and_kg_matches_through_kg_serve(tmp_path: Path) -> None:
    copy_repo_data(tmp_path / "data", edits=False)
    (tmp_path / "data" / "profiles" / "jose-mendez.yaml").write_text(JOSE, encoding="utf-8")
    config = Config(data=tmp_path / "data", store=tmp_path / "store")
    build(config)
    with kg_serve(config.data, config.store, env={"KG_WRITE_TOKEN": TOKEN}) as url:
        found = get_json(f"{url}/search?q=ml+compilers&format=json")
        assert found["hits"][0]["label"] == "José Méndez"
        assert get_json(f"{url}/search/suggest?q=jos")["suggestions"][0]["label"] == "José Méndez"
        query = 'SELECT ?name WHERE { ?p kg:matches "Jose Mendez" ; schema:name ?name }'
        answer = get_json(f"{url}/sparql?query={urllib.parse.quote(query)}", "application/sparql-results+json")
        assert answer["results"]["bindings"][0]["name"]["value"] == "José Méndez"
        update = (f'INSERT DATA {{ <{config.base}/id/person/ziheng-jiang> '
                  '<http://schema.org/knowsAbout> "Quantum annealing" }')
        request = urllib.request.Request(f"{url}/sparql", data=update.encode(), method="POST", headers={
            "Content-Type": "application/sparql-update", "Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status in (200, 204)
        after = get_json(f"{url}/search?q=quantum&format=json")
        assert [h["label"] for h in after["hits"]] == ["Ziheng Jiang"]
        posted = urllib.request.Request(f"{url}/sparql", data=query.replace("Jose Mendez", "quantum").encode(),
                                        headers={"Content-Type": "application/sparql-query",
                                                 "Accept": "application/sparql-results+json"})
        with urllib.request.urlopen(posted, timeout=30) as response:
            assert json.load(response)["results"]["bindings"][0]["name"]["value"] == "Ziheng Jiang"
