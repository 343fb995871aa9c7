"""The app's store handle notices a swapped store version without resolving the symlink on every request."""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from rdflib import Graph, Literal, URIRef

from kg.config import Config
from kg.server import create_app
from kg.server.floor import handle as handle_module
from kg.store import write_store

from .conftest import REPO_DATA

GRAPH = URIRef("http://e/g")
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"


def _write(store_dir: Path, triples: int) -> None:
    g = Graph()
    for n in range(triples):
        g.add((URIRef("http://e/s"), URIRef("http://e/p"), Literal(n)))
    write_store(store_dir, {GRAPH: g}, {"triples": {str(GRAPH): len(g)}})


def _count(client: FlaskClient) -> int:
    response = client.get(f"/sparql?{urllib.parse.urlencode({'query': COUNT})}",
                          headers={"Accept": "application/sparql-results+json"})
    assert response.status_code == 200, response.data
    return int(json.loads(response.data)["results"]["bindings"][0]["n"]["value"])


@pytest.mark.parametrize("workers", [0, 1])
def test_next_request_after_a_real_swap_sees_the_new_version(tmp_path: Path, workers: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 18: requests lstat() the link only; a build's swap (a new link renamed over it) is seen by the
    very next request, with the result cache keyed by the new version; between swaps, no resolve()."""
    store_dir = tmp_path / "store"
    _write(store_dir, 2)
    app = create_app(Config(data=REPO_DATA, store=store_dir, query_workers=workers, cache_bytes=1_000_000))
    client = app.test_client()
    assert _count(client) == 2
    resolves = []
    real_resolve = Path.resolve

    def counting_resolve(self: Path, strict: bool = False) -> Path:
        if self == store_dir:
            resolves.append(self)
        return real_resolve(self, strict)

    monkeypatch.setattr(Path, "resolve", counting_resolve)
    monkeypatch.setattr(handle_module, "STORE_RESOLVE_SECONDS", 60.0)  # no backstop resolve on a slow machine
    for _ in range(50):
        assert _count(client) == 2
    assert not resolves
    for triples in (3, 5):
        _write(store_dir, triples)  # a real swap: STORE.v<N+1>, then the link renamed over
        assert _count(client) == triples
    assert os.readlink(store_dir) == "store.v3"


def test_a_link_changed_in_place_is_seen_within_the_backstop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a link's inode and times ever repeat, the periodic resolve still finds the new target."""
    store_dir = tmp_path / "store"
    _write(store_dir, 2)
    _write(store_dir, 4)
    app = create_app(Config(data=REPO_DATA, store=store_dir, query_workers=0, cache_bytes=0))
    client = app.test_client()
    monkeypatch.setattr(handle_module, "STORE_RESOLVE_SECONDS", 60.0)
    assert _count(client) == 4
    store_handle = app.extensions[handle_module.EXTENSION]
    store_handle._link = handle_module._link_signature(store_dir)
    monkeypatch.setattr(handle_module, "_link_signature", lambda link: store_handle._link)  # never changes
    os.replace(store_dir, tmp_path / "moved")
    (tmp_path / "store").symlink_to("store.v1")
    assert _count(client) == 4  # within the interval: the version it resolved last
    monkeypatch.setattr(handle_module, "STORE_RESOLVE_SECONDS", 0.0)
    assert _count(client) == 2
