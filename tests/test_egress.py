"""Nothing gets out: SERVICE and LOAD in every spelling the fuzz can think of, against a canary listener on 127.0.0.1.

The variants glue the keyword to keywords, literals, numbers, prefixed names, brackets and comments, in every
case and with SILENT, with the endpoint as an IRI, a prefixed name or a variable bound by VALUES or BIND, inside
groups, OPTIONAL, UNION, MINUS, FILTER EXISTS and subqueries; for updates, LOAD and SERVICE at each place an
operation can hold them. Three checks:

- through a real `kg serve` (queries and updates, the write token given): the canary sees no connection, and
  every variant the engine would have sent out is refused by the token guard with its own message (the guard
  follows the engine: no answer is the sandbox's NetworkRefused);
- straight to a query worker and the write worker's syntax check, with no guard at all: still no connection,
  and the honest spellings come back as NetworkRefused, which only the kernel's filter produces.
"""

from __future__ import annotations

import itertools
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from kg.config import Config
from kg.errors import NetworkRefused, QueryFailed
from kg.query.executor import PoolSettings, QueryPool
from kg.query.wire import QueryJob
from kg.sandbox import SandboxUnavailable, current_arch

from .repo_data import copy_site
from .server_process import kg_serve

TOKEN = "egress-token"
GLUE = ["", " ", "\t", "\n", "\r\n", "true", "false", "TRUE", "False", "1", "01", "1.0", ".5", "1.", "-1", "+1", "1e0",
        "1.0e0", "1E+3", "1e-0", '"x"', "'x'", '"""x"""', "'''x'''", '"x"@en', '"x"@en-GB', '"x"^^xsd:string',
        "<http://e/x>", "ex:x", "ex:", ":x", "?v", "$v", "_:b", "a", "[]", "()", "(", ")", "{", "}", "[", "]", ".",
        ";", ",", "#c\n", "true.", "1.0.", "ex:x.", "FILTER(true)", "BIND(1 AS ?z)", "OPTIONAL{}", "MINUS{}",
        "VALUES ?q {1}", "ex:a\\.b", "\u00a0"]
SPELLINGS = ["SERVICE", "service", "Service", "sErViCe", "SERVICE SILENT", "service silent"]
GROUPS = [
    "SELECT * WHERE {{ ?s ?p ?o . {glue}{kw} {end} {{ ?a ?b ?c }} }} LIMIT 1",
    "SELECT * WHERE {{ {glue}{kw} {end} {{ ?a ?b ?c }} }}",
    "ASK {{ ?s ?p ?o OPTIONAL {{ {glue}{kw} {end} {{ ?a ?b ?c }} }} }}",
    "SELECT * {{ {{ ?s ?p ?o }} UNION {{ {glue}{kw} {end} {{ ?a ?b ?c }} }} }} LIMIT 1",
    "SELECT * {{ ?s ?p ?o MINUS {{ {glue}{kw} {end} {{ ?s ?b ?c }} }} }} LIMIT 1",
    "SELECT * {{ ?s ?p ?o FILTER EXISTS {{ {glue}{kw} {end} {{ ?a ?b ?c }} }} }} LIMIT 1",
    "SELECT * {{ {{ SELECT * {{ ?s ?p ?o {glue}{kw} {end} {{ ?a ?b ?c }} }} LIMIT 1 }} }}",
    "CONSTRUCT {{ ?a ?b ?c }} WHERE {{ ?s ?p ?o . {glue}{kw} {end} {{ ?a ?b ?c }} }} LIMIT 1",
]
ENDPOINTS = ["<{url}>", "<{url}/sparql>", "ex:sparql", "?e"]
UPDATES = [
    "{glue}{kw} {end} {into}",
    "INSERT DATA {{ <http://e/s> <http://e/p> 1 }} ;{glue}{kw} {end} {into}",
    "CLEAR SILENT GRAPH <http://e/none> ;\n{glue}{kw} {end} {into}",
]


def query_variants(url: str) -> Iterator[str]:
    """Every glue x spelling x endpoint x group pattern, with the prologue and bindings the endpoint needs."""
    for glue, kw, end, group in itertools.product(GLUE, SPELLINGS, ENDPOINTS, GROUPS):
        endpoint = end.format(url=url)
        text = group.format(glue=glue, kw=kw, end=endpoint)
        if endpoint == "?e":
            bound = f"VALUES ?e {{ <{url}> }} "
            text = text.replace("WHERE {", "WHERE { " + bound, 1).replace(
                "SELECT * {", f"SELECT * {{ BIND(<{url}> AS ?e) ", 1).replace("ASK {", "ASK { " + bound, 1)
        yield f"PREFIX ex: <{url}/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n{text}"


def update_variants(url: str) -> Iterator[str]:
    """LOAD at each place an operation starts, and SERVICE in the WHERE of INSERT and DELETE, glued every way."""
    prologue = f"PREFIX ex: <{url}/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
    loads = ["LOAD", "load", "LOAD SILENT", "Load silent"]
    for glue, kw, end, shape in itertools.product(GLUE, loads, ENDPOINTS[:3], UPDATES):
        into = "INTO GRAPH <http://e/g>" if glue in ("", " ") else ""
        yield prologue + shape.format(glue=glue, kw=kw, end=end.format(url=url), into=into)
    for glue, kw, end in itertools.product(GLUE, SPELLINGS, ENDPOINTS[:3]):
        endpoint = end.format(url=url)
        yield (prologue + f"INSERT {{ <http://e/s> <http://e/p> ?c }} WHERE {{ ?s ?p ?o . {glue}{kw} {endpoint} "
               "{ ?a ?b ?c } }")
        yield prologue + f"DELETE WHERE {{ ?s <http://e/never> ?o . {glue}{kw} {endpoint} {{ ?s ?b ?o }} }}"


KNOWN = [  # the spellings the red team found, each with the canary's address filled in
    "SELECT * WHERE {{ ?s ?p trueSERVICE <{url}/sparql> {{ ?a ?b ?c }} }} LIMIT 1",
    "SELECT * WHERE {{ ?s ?p falseSERVICE SILENT <{url}/sparql> {{ ?a ?b ?c }} }} LIMIT 1",
    "SELECT * WHERE {{ ?s ?p 1e0SERVICE <{url}/sparql> {{ ?a ?b ?c }} }} LIMIT 1",
    "SELECT * WHERE {{ ?s ?p 1.0e0SERVICE <{url}/sparql> {{ ?a ?b ?c }} }} LIMIT 1",
    "SELECT * WHERE {{ ?s ?p ?o SERVICE <{url}/sparql> {{ ?a ?b ?c }} }} LIMIT 1",
]


class Canary:
    """A listener on 127.0.0.1 that counts every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()

    def close(self) -> None:
        """Stop listening."""
        self.sock.close()


@pytest.fixture(scope="module")
def canary() -> Iterator[Canary]:
    listener = Canary()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Config:
    return copy_site(tmp_path_factory.mktemp("egress"))


@pytest.fixture(scope="module")
def server(site: Config) -> Iterator[str]:
    with kg_serve(site.data, site.store, env={"KG_WRITE_TOKEN": TOKEN}) as url:
        yield url


def sandbox_available() -> bool:
    try:
        current_arch()
    except SandboxUnavailable:
        return False
    return True


pytestmark = pytest.mark.skipif(not sandbox_available(), reason="the network sandbox needs Linux on x86_64/aarch64")


def error_kind(response: requests.Response) -> str:
    """The error class a kg error answer names (its JSON 'error'), or the status for a success."""
    if response.status_code < 400:
        return str(response.status_code)
    try:
        return str(response.json().get("error"))
    except ValueError:
        return response.text.split(":", 1)[0]


def test_fuzzed_queries_never_reach_the_canary(server: str, canary: Canary) -> None:
    variants = [k.format(url=canary.url) for k in KNOWN] + list(query_variants(canary.url))
    assert len(variants) >= 10_000
    kinds: Counter[str] = Counter()
    with requests.Session() as session:
        for text in variants:
            response = session.post(f"{server}/sparql", data={"query": text},
                                    headers={"Accept": "application/json"}, timeout=60)
            assert response.status_code < 500, (text, response.text[:300])
            kinds[error_kind(response)] += 1
    assert canary.connections == 0
    assert kinds["NetworkRefused"] == 0, "the guard let through a spelling the engine reads as SERVICE"
    assert kinds["BadQuery"] >= len(variants) // 2, kinds


def test_fuzzed_updates_never_reach_the_canary(server: str, canary: Canary) -> None:
    variants = list(update_variants(canary.url))
    assert len(variants) >= 1_000
    kinds: Counter[str] = Counter()
    with requests.Session() as session:
        for text in variants:
            response = session.post(f"{server}/sparql", data=text.encode(), timeout=120, headers={
                "Content-Type": "application/sparql-update", "Authorization": f"Bearer {TOKEN}",
                "Accept": "application/json"})
            assert response.status_code < 500, (text, response.text[:300])
            kinds[error_kind(response)] += 1
    assert canary.connections == 0
    assert kinds["NetworkRefused"] == 0, "the guard let through a spelling the engine reads as LOAD or SERVICE"


def test_the_engine_itself_cannot_connect_without_the_guard(site: Config, canary: Canary) -> None:
    """Jobs sent straight to a query worker (no guard): the kernel refuses the engine's connection."""
    pool = QueryPool(site.store.resolve(), 1, in_memory=False, settings=PoolSettings(fast_lane_timeout=0))
    refused = 0
    try:
        texts = [k.format(url=canary.url) for k in KNOWN] + list(itertools.islice(query_variants(canary.url), 0,
                                                                                   None, 7))
        for text in texts:
            job = QueryJob(text, "http://e/", (), (), False, "SPARQL_JSON", 100, 30.0)
            try:
                pool.run(job)
            except QueryFailed as failure:
                refused += failure.kind == NetworkRefused.__name__
    finally:
        pool.close()
    assert canary.connections == 0
    assert refused >= len(KNOWN), "the honest spellings reached the engine's HTTP client and were refused there"


def test_the_write_worker_cannot_connect_without_the_guard(site: Config, canary: Canary, tmp_path: Path) -> None:
    """An update sent straight to the write worker (no guard): LOAD meets the network filter."""
    from kg.writes.client import WriteClient

    client = WriteClient(site)
    try:
        for text in (f"LOAD <{canary.url}/data.ttl>", f"LOAD <{canary.url}/x> INTO GRAPH <http://e/g>",
                     f"INSERT {{ <http://e/s> <http://e/p> ?c }} WHERE {{ SERVICE <{canary.url}/sparql> "
                     "{ ?a ?b ?c } }"):
            with pytest.raises(NetworkRefused):
                client.update_operations([text], request=text)
        silent = f"LOAD SILENT <{canary.url}/x>"  # SILENT: the refusal is swallowed, as any failure would be
        assert not client.update_operations([silent], request=silent).changed
    finally:
        client.close()
    assert canary.connections == 0
