"""A real `kg serve` (granian) process on 127.0.0.1: builds when there is no store, then answers."""

from __future__ import annotations

import gzip
import json
import re
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import REPO_DATA
from .server_process import kg_serve

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A served store built from scratch by `kg serve` itself."""
    store = tmp_path_factory.mktemp("serve") / "store"
    with kg_serve(REPO_DATA, store) as url:
        yield url, store


def _get(url: str, accept: str) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers["Content-Type"], response.read()


def test_serve_builds_the_missing_store(server: tuple[str, Path]) -> None:
    _, store = server
    assert Path(store).is_symlink()


def test_sparql_over_http(server: tuple[str, Path]) -> None:
    url, _ = server
    query = 'SELECT ?n WHERE { ?p <http://schema.org/alternateName> "肖文聪"@zh ; <http://schema.org/name> ?n }'
    status, ctype, body = _get(f"{url}/sparql?{urllib.parse.urlencode({'query': query})}",
                               "application/sparql-results+json")
    assert status == 200 and ctype.startswith("application/sparql-results+json")
    assert json.loads(body)["results"]["bindings"][0]["n"]["value"] == "Wencong Xiao"


def test_gzip_over_http(server: tuple[str, Path]) -> None:
    url, _ = server
    query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o LIMIT 300"
    target = f"{url}/sparql?{urllib.parse.urlencode({'query': query})}"
    plain = urllib.request.Request(target, headers={"Accept": "application/sparql-results+json"})
    packed = urllib.request.Request(target, headers={"Accept": "application/sparql-results+json",
                                                     "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(plain, timeout=10) as response:
        identity = response.read()
        assert response.headers.get("Content-Encoding") is None
    for _ in range(2):  # computed, then from the response cache
        with urllib.request.urlopen(packed, timeout=10) as response:
            assert response.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in response.headers["Vary"]
            body = response.read()
            assert int(response.headers["Content-Length"]) == len(body) < len(identity) / 3
        assert gzip.decompress(body) == identity


def test_sparql_post_form_over_http(server: tuple[str, Path]) -> None:
    url, _ = server
    data = urllib.parse.urlencode({"query": "ASK { ?s ?p ?o }"}).encode()
    request = urllib.request.Request(f"{url}/sparql", data=data,
                                     headers={"Accept": "application/sparql-results+json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.loads(response.read())["boolean"] is True


def test_health(server: tuple[str, Path]) -> None:
    url, _ = server
    status, _, body = _get(f"{url}/health", "application/json")
    assert status == 200 and json.loads(body)["status"] == "ok"


def _serve_log(store: Path, url: str) -> str:
    port = url.rsplit(":", 1)[1]
    return (Path(store).parent / f"serve-{port}.log").read_text(encoding="utf-8", errors="replace")


def test_access_log_is_off_by_default(server: tuple[str, Path]) -> None:
    """issue 18: no access-log line per request unless asked for (it cost 11 % of a cheap query)."""
    url, store = server
    _get(f"{url}/health?probe=default", "application/json")
    time.sleep(0.3)
    assert '"GET /health' not in _serve_log(store, url)


def test_access_log_when_asked_keeps_its_format(server: tuple[str, Path]) -> None:
    """--access-log (or KG_ACCESS_LOG=1) turns it on, in the escaped one-line format."""
    _, store = server
    for extra, env in ((("--access-log",), {}), ((), {"KG_ACCESS_LOG": "1"})):
        with kg_serve(REPO_DATA, Path(store), *extra, env=env) as url:
            _get(f"{url}/health?probe=on", "application/json")
            time.sleep(0.3)
            log = _serve_log(store, url)
        assert re.search(r'127\.0\.0\.1 - \[[^\]]+\] "GET /health HTTP/1\.1" 200 [0-9.]+ ms', log), log


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A served store with a 2 s query time limit."""
    store = tmp_path_factory.mktemp("limited") / "store"
    with kg_serve(REPO_DATA, store, env={"KG_QUERY_TIMEOUT": "2"}) as url:
        yield url


def test_runaway_query_is_stopped_while_others_are_served(limited_server: str) -> None:
    import threading
    import time
    import urllib.error

    cartesian = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    lookup = 'SELECT ?p WHERE { ?p <http://schema.org/name> "Wencong Xiao" }'
    outcome: dict[str, object] = {}

    def runaway() -> None:
        started = time.monotonic()
        try:
            _get(f"{limited_server}/sparql?{urllib.parse.urlencode({'query': cartesian})}", "application/json")
        except urllib.error.HTTPError as error:
            outcome["status"], outcome["body"] = error.code, error.read().decode()
        outcome["seconds"] = time.monotonic() - started

    fast = 0
    for attempt in range(200):
        started = time.monotonic()
        _get(f"{limited_server}/sparql?{urllib.parse.urlencode({'query': lookup + f' # warm {attempt}'})}",
             "application/sparql-results+json")
        fast = fast + 1 if time.monotonic() - started < 0.5 else 0
        if fast >= 6:
            break
    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.3)
    lookups = 0
    while thread.is_alive():
        query_string = urllib.parse.urlencode({"query": lookup + " # " + str(lookups)})
        status, _, body = _get(f"{limited_server}/sparql?{query_string}",
                               "application/sparql-results+json")
        lookups += status == 200 and b"wencong-xiao" in body
    thread.join()
    assert outcome["status"] == 503 and "time limit" in str(outcome["body"])
    assert float(outcome["seconds"]) < 2 + 1
    assert lookups >= 3


def test_service_is_refused_without_contacting_the_target(limited_server: str) -> None:
    import socket
    import urllib.error

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(1.0)
    port = listener.getsockname()[1]
    query = f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}"
    with pytest.raises(urllib.error.HTTPError) as info:
        _get(f"{limited_server}/sparql?{urllib.parse.urlencode({'query': query})}", "application/json")
    assert info.value.code == 400 and "SERVICE" in info.value.read().decode()
    with pytest.raises(socket.timeout):
        listener.accept()
    listener.close()
