"""Writes are bounded (issue 28, item 4), against a real `kg serve`: operations and triples per request, time and
memory per write, each refused naming its limit with nothing changed and the write lock released; a graceful stop
during a write ends every process of the server."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from kg.config import Config
from kg.pipeline import build

from .repo_data import copy_repo_data, copy_site
from .server_process import kg_serve, kg_serve_process

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)

TOKEN = "bounded-writes"
LIMITS = {"KG_WRITE_TOKEN": TOKEN, "KG_WRITE_TIMEOUT": "6", "KG_WRITE_MEMORY_MB": "300"}
MARK = "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://e/bounded> ?o }"
CARTESIAN = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i FILTER(STRLEN(STR(?c)) + STRLEN(STR(?i)) < 0)"  # long, no rows


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Config:
    return copy_site(tmp_path_factory.mktemp("bounded-writes"))


@pytest.fixture(scope="module")
def server(site: Config) -> Iterator[str]:
    with kg_serve(site.data, site.store, env=LIMITS) as url:
        yield url


def update(url: str, text: str, timeout: float = 120) -> requests.Response:
    return requests.post(f"{url}/sparql", data=text.encode(), timeout=timeout, headers={
        "Content-Type": "application/sparql-update", "Authorization": f"Bearer {TOKEN}", "Accept": "application/json"})


def marked(url: str) -> int:
    response = requests.get(f"{url}/sparql", params={"query": MARK}, timeout=60,
                            headers={"Accept": "application/sparql-results+json"})
    return int(response.json()["results"]["bindings"][0]["n"]["value"])


def assert_unchanged_and_writable(url: str, site: Config, version: Path) -> None:
    """Nothing of the refused write is in the store, and the next small write goes through at once."""
    assert site.store.resolve() == version
    assert marked(url) == 0
    started = time.monotonic()
    done = update(url, "DELETE DATA { <http://e/none> <http://e/none> 0 }", timeout=60)
    assert done.status_code == 200, done.text
    assert time.monotonic() - started < 30


def test_an_update_making_a_hundred_thousand_triples_is_refused(server: str, site: Config) -> None:
    digits = " ".join(str(n) for n in range(10))
    values = " ".join(f"VALUES ?{v} {{ {digits} }}" for v in "vwxyz")
    text = (f"INSERT {{ ?s <http://e/bounded> ?n }} WHERE {{ {values} "
            "BIND(IRI(CONCAT('http://e/', STR(?v), STR(?w), STR(?x))) AS ?s) BIND(?y * 10 + ?z AS ?n) }")
    assert len(text) < 2_500
    version = site.store.resolve()
    started = time.monotonic()
    response = update(server, text)
    assert response.status_code == 413, response.text
    assert "KG_MAX_UPDATE_TRIPLES" in response.json()["message"] and "100,000" in response.json()["message"]
    assert time.monotonic() - started < 30
    assert_unchanged_and_writable(server, site, version)


def test_thousands_of_operations_are_refused_before_the_lock(server: str, site: Config) -> None:
    text = " ;\n".join(f"INSERT DATA {{ <http://e/s{n}> <http://e/bounded> {n} }}" for n in range(3_000))
    version = site.store.resolve()
    started = time.monotonic()
    response = update(server, text)
    assert response.status_code == 413, response.text
    assert "3000 operations" in response.json()["message"] and "KG_MAX_UPDATE_OPERATIONS" in response.text
    assert time.monotonic() - started < 10
    assert_unchanged_and_writable(server, site, version)


def test_a_write_that_runs_forever_is_stopped_at_the_time_limit(server: str, site: Config) -> None:
    version = site.store.resolve()
    started = time.monotonic()
    response = update(server, f"INSERT {{ <http://e/s> <http://e/bounded> 1 }} WHERE {{ {CARTESIAN} }}")
    elapsed = time.monotonic() - started
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["error"] == "WriteLimit" and "KG_WRITE_TIMEOUT" in body["message"], body
    assert "nothing was changed" in body["message"]
    assert 5 < elapsed < 30
    assert_unchanged_and_writable(server, site, version)


def test_a_write_that_needs_too_much_memory_is_stopped(server: str, site: Config) -> None:
    version = site.store.resolve()
    text = "INSERT { <http://e/s> <http://e/bounded> 1 } WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # keeps every row
    response = update(server, text)
    assert response.status_code == 503, response.text
    message = response.json()["message"]
    assert "memory limit of 300 MB" in message and "KG_WRITE_MEMORY_MB" in message, message
    assert_unchanged_and_writable(server, site, version)


def session_processes(leader: int) -> list[int]:
    """The processes still alive in the server's session (it was started as a session leader)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == leader and fields[0] != "Z":  # fields[3]: the session id
            alive.append(int(entry.name))
    return alive


def test_a_graceful_stop_during_a_write_ends_every_process(tmp_path: Path) -> None:
    copy_repo_data(tmp_path / "data", edits=False)
    config = Config(data=tmp_path / "data", store=tmp_path / "store")
    build(config)
    env = {"KG_WRITE_TOKEN": TOKEN, "KG_WRITE_TIMEOUT": "300"}
    with kg_serve_process(config.data, config.store, env=env) as (url, process):
        version = config.store.resolve()
        writing = threading.Thread(target=lambda: _quietly(url), daemon=True)
        writing.start()
        time.sleep(3)  # the write is running in the write worker
        assert len(session_processes(process.pid)) >= 4  # granian, its worker, two query workers, the write worker
        os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while session_processes(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert session_processes(process.pid) == []
    assert config.store.resolve() == version


def _quietly(url: str) -> None:
    try:
        update(url, f"INSERT {{ <http://e/s> <http://e/bounded> 1 }} WHERE {{ {CARTESIAN} }}", timeout=300)
    except requests.RequestException:
        pass
