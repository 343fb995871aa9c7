"""The Graph Store Protocol write side: PUT, POST (also multipart), DELETE, HEAD, direct identification, and the
W3C Graph Store Protocol test cases (graph-store-protocol/manifest.ttl) against a real `kg serve` process."""

from __future__ import annotations

import http.client
import json
import urllib.parse
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from rdflib import Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic
from rdflib.term import Node

from kg.config import Config
from kg.server import create_app
from kg.store import Store, write_store
from kg.writes import inferred_matches

from .server_process import kg_serve
from .shared import shared_path

TOKEN = "gsp-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TURTLE = """@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<http://e/person/1> a foaf:Person ; foaf:name "Ada" ; foaf:knows [ foaf:name "Charles" ] .
"""
BODIES = {
    "text/turtle": TURTLE,
    "application/n-triples": '<http://e/person/1> <http://xmlns.com/foaf/0.1/name> "Ada" .\n',
    "application/ld+json": json.dumps({"@id": "http://e/person/1", "http://xmlns.com/foaf/0.1/name": "Ada"}),
    "application/rdf+xml": """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:foaf="http://xmlns.com/foaf/0.1/">
  <rdf:Description rdf:about="http://e/person/1"><foaf:name>Ada</foaf:name></rdf:Description>
</rdf:RDF>""",
}
GRAPH = "http://e/graph/1"


@pytest.fixture()
def config(tmp_path: Path) -> Config:
    """An empty store (a graph store starts empty) with writes enabled."""
    write_store(tmp_path / "store", {}, {"triples": {}})
    (tmp_path / "data").mkdir()
    return Config(data=tmp_path / "data", store=tmp_path / "store", query_workers=0, write_token=TOKEN)


@pytest.fixture()
def client(config: Config) -> FlaskClient:
    app = create_app(config)
    app.config["TESTING"] = True
    return app.test_client()


def get_graph(client: FlaskClient, query_string: dict[str, str] | str, path: str = "/store") -> Graph:
    response = client.get(path, query_string=query_string, headers={"Accept": "text/turtle"})
    assert response.status_code == 200, response.data
    return Graph().parse(data=response.data, format="turtle")


@pytest.mark.parametrize("media_type", sorted(BODIES))
def test_put_get_delete_in_every_body_format(client: FlaskClient, config: Config, media_type: str) -> None:
    """PUT creates (201), PUT again replaces (204), GET returns it, DELETE removes it (204, then 404)."""
    target = {"graph": GRAPH}
    response = client.put("/store", query_string=target, data=BODIES[media_type], content_type=media_type,
                          headers=AUTH)
    assert response.status_code == 201, response.data
    expected = Graph().parse(data=BODIES[media_type], format={"text/turtle": "turtle", "application/n-triples": "nt",
                                                              "application/ld+json": "json-ld",
                                                              "application/rdf+xml": "xml"}[media_type])
    assert isomorphic(get_graph(client, target), expected)
    response = client.put("/store", query_string=target, data=BODIES["application/n-triples"],
                          content_type="application/n-triples; charset=utf-8", headers=AUTH)
    assert response.status_code == 204 and response.data == b""
    assert len(get_graph(client, target)) == 1
    assert client.delete("/store", query_string=target, headers=AUTH).status_code == 204
    assert client.get("/store", query_string=target).status_code == 404
    assert client.delete("/store", query_string=target, headers=AUTH).status_code == 404
    missing, extra = inferred_matches(config.store)
    assert not missing and not extra


def test_post_merges_and_multipart_adds_every_part(client: FlaskClient) -> None:
    target = {"graph": GRAPH}
    assert client.post("/store", query_string=target, data=TURTLE, content_type="text/turtle",
                       headers=AUTH).status_code == 201
    boundary = "b0undary"
    foaf = "http://xmlns.com/foaf/0.1/"
    parts = [("family.ttl", "text/turtle; charset=utf-8", f'<http://e/person/1> <{foaf}familyName> "L" .'),
             ("given.nt", "", f'<http://e/person/1> <{foaf}givenName> "A" .')]
    body = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{name}"\r\n'
                   + (f"Content-Type: {kind}\r\n" if kind else "") + f"\r\n{text}\r\n" for name, kind, text in parts)
    body += f"--{boundary}--\r\n"
    response = client.post("/store", query_string=target, data=body.encode(),
                           content_type=f"multipart/form-data; boundary={boundary}", headers=AUTH)
    assert response.status_code == 204, response.data
    graph = get_graph(client, target)
    assert len(graph) == 6
    assert (URIRef("http://e/person/1"), URIRef("http://xmlns.com/foaf/0.1/givenName"), None) in graph


def test_blank_nodes_of_two_posts_stay_apart(client: FlaskClient) -> None:
    """Each document's blank nodes are its own: the same label in two POSTs names two nodes."""
    for name in ("one", "two"):
        client.post("/store?default", data=f'_:b <http://e/p> "{name}" .', content_type="application/n-triples",
                    headers=AUTH)
    graph = get_graph(client, "default")
    assert len(set(graph.subjects())) == 2


def test_default_graph_writes_land_in_the_edits_graph(client: FlaskClient) -> None:
    assert client.post("/store?default", data=TURTLE, content_type="text/turtle", headers=AUTH).status_code == 204
    assert isomorphic(get_graph(client, {"graph": "https://kg.example.org/graph/edits"}), Graph().parse(data=TURTLE))
    assert client.put("/store?default", data=BODIES["application/n-triples"], content_type="application/n-triples",
                      headers=AUTH).status_code == 204
    assert len(get_graph(client, "default")) == 1
    assert client.delete("/store?default", headers=AUTH).status_code == 204
    assert len(get_graph(client, "default")) == 0


def test_post_to_the_store_creates_a_graph(client: FlaskClient) -> None:
    response = client.post("/store", data=TURTLE, content_type="text/turtle", headers=AUTH)
    assert response.status_code == 201
    location = response.headers["Location"]
    assert location.startswith("http://localhost/store/")
    assert isomorphic(get_graph(client, {"graph": location}), Graph().parse(data=TURTLE))
    assert isomorphic(get_graph(client, {}, path=urllib.parse.urlsplit(location).path), Graph().parse(data=TURTLE))


def test_direct_identification(client: FlaskClient) -> None:
    """/store/<path> names the graph whose IRI is the request URL."""
    assert client.put("/store/people/ada", data=TURTLE, content_type="text/turtle", headers=AUTH).status_code == 201
    assert isomorphic(get_graph(client, {"graph": "http://localhost/store/people/ada"}), Graph().parse(data=TURTLE))
    head = client.head("/store/people/ada")
    get = client.get("/store/people/ada")
    assert head.status_code == 200 and head.data == b""
    assert {k: v for k, v in head.headers.items()} == {k: v for k, v in get.headers.items()}
    assert client.delete("/store/people/ada", headers=AUTH).status_code == 204
    assert client.head("/store/people/ada").status_code == 404


@pytest.mark.parametrize(("content_type", "body", "status", "fragment"), [
    (None, TURTLE, 415, "Content-Type"),
    ("text/plain", TURTLE, 415, "text/turtle"),
    ("text/turtle; charset=latin-1", TURTLE, 415, "UTF-8"),
    ("text/turtle", "<http://e/s> <http://e/p> .", 400, "not valid Turtle"),
    ("application/ld+json", '{"@context": "http://schema.org/", "@id": "http://e/s", "name": "x"}', 400,
     "not valid Json-Ld"),
    ("multipart/form-data", "x", 400, "boundary"),
], ids=["no-type", "unsupported", "charset", "bad-turtle", "remote-context", "no-boundary"])
def test_bad_bodies(client: FlaskClient, config: Config, content_type: str | None, body: str, status: int,
                    fragment: str) -> None:
    """Bad bodies are refused before anything changes; remote JSON-LD contexts are never fetched."""
    before = config.store.resolve()
    response = client.put("/store", query_string={"graph": GRAPH}, data=body, content_type=content_type,
                          headers=AUTH)
    assert response.status_code == status and fragment in response.get_data(as_text=True), response.data
    assert config.store.resolve() == before


def test_oversized_body_is_413(config: Config) -> None:
    app = create_app(Config(data=config.data, store=config.store, query_workers=0, write_token=TOKEN,
                            max_request_bytes=100))
    response = app.test_client().put("/store?default", data=TURTLE * 10, content_type="text/turtle", headers=AUTH)
    assert response.status_code == 413


def test_patch_is_not_allowed(client: FlaskClient) -> None:
    assert client.patch("/store?default", data="", headers=AUTH).status_code == 405


# --- the W3C Graph Store Protocol test cases, against a real server --------------------------------------

def _suite() -> Path | None:
    manifest = shared_path("w3c-sparql-tests", "graph-store-protocol", "manifest.ttl")
    return manifest.parent if manifest.is_file() else None


SUITE = _suite()
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
STATUS = {"OK": 200, "Created": 201, "NoContent": 204, "NotFound": 404}


@dataclass(frozen=True)
class Step:
    method: str
    path: str
    headers: dict[str, str]
    body: str | None
    statuses: frozenset[str]
    location: str | None
    expected_type: str | None
    expected_body: str | None


def _headers(graph: Graph, node: Node | None) -> dict[str, str]:
    items = graph.value(node, HT.headers)
    return {str(graph.value(h, HT.fieldName)).lower(): str(graph.value(h, HT.fieldValue))
            for h in (Collection(graph, items) if items is not None else [])}


def _text(graph: Graph, node: Node | None) -> str | None:
    body = graph.value(node, HT.body)
    return None if body is None else str(graph.value(body, CNT.chars))


def read_cases() -> list[tuple[str, list[Step]]]:
    """Every mf:GraphStoreProtocolTest of the manifests manifest.ttl includes, in order."""
    assert SUITE is not None
    top = Graph().parse(SUITE / "manifest.ttl", format="turtle")
    cases = []
    for include in Collection(top, next(top.objects(None, MF.include))):
        graph = Graph().parse(SUITE / Path(urllib.parse.urlsplit(str(include)).path).name, format="turtle")
        manifest = next(graph.subjects(MF.entries, None))
        for entry in Collection(graph, graph.value(manifest, MF.entries)):
            steps = []
            for request in Collection(graph, graph.value(graph.value(entry, MF.action), HT.requests)):
                response = graph.value(request, HT.resp)
                location = graph.value(response, MF.expectedLocation)
                steps.append(Step(
                    str(graph.value(request, HT.methodName)), str(graph.value(request, HT.absolutePath)),
                    _headers(graph, request), _text(graph, request),
                    frozenset(str(s).rsplit("#", 1)[1] for s in graph.objects(response, MF.expectedStatus)),
                    str(location) if location is not None else None,
                    _headers(graph, response).get("content-type"), _text(graph, response)))
            cases.append((str(entry).rsplit("#", 1)[1], steps))
    return cases


CASES = read_cases() if SUITE is not None else []


def test_the_manifests_are_read_completely() -> None:
    if SUITE is None:
        pytest.skip("the W3C graph-store-protocol manifests are not available")
    assert len(CASES) == 13  # 4 with direct, 9 with indirect graph identification
    assert all(step.statuses for _, steps in CASES for step in steps)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`kg serve` with writes enabled over an empty store."""
    root = tmp_path_factory.mktemp("gsp-w3c")
    write_store(root / "store", {}, {"triples": {}})
    (root / "data").mkdir()
    with kg_serve(root / "data", root / "store", env={"KG_WRITE_TOKEN": TOKEN}) as url:
        yield url


def send(server: str, method: str, path: str, headers: dict[str, str], body: bytes | None) -> tuple[int, dict[str, str],
                                                                                                       bytes]:
    host, port = urllib.parse.urlsplit(server).netloc.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def reset(server: str) -> None:
    """Each case starts from an empty graph store."""
    status, _, body = send(server, "POST", "/sparql", {"Content-Type": "application/sparql-update", **AUTH},
                           b"DROP ALL")
    assert status == 200, body


@pytest.mark.skipif(SUITE is None, reason="the W3C graph-store-protocol manifests are not available")
@pytest.mark.parametrize("case", [pytest.param(steps, id=name) for name, steps in CASES])
def test_w3c_graph_store_protocol(server: str, case: list[Step]) -> None:
    """Each request as the manifest gives it, with /gsp replaced by /store, the bearer token added, and
    $LOCATION$ replaced by the Location of the response that defines it."""
    reset(server)
    variables: dict[str, str] = {}
    for step in case:
        path, body = step.path, step.body
        for name, value in variables.items():
            path = path.replace(name, value)
            body = body.replace(name, value) if body is not None else None
        assert path.startswith("/gsp")
        path = "/store" + path[len("/gsp"):]
        status, headers, data = send(server, step.method, path, {**step.headers, **AUTH},
                                     body.encode("utf-8") if body is not None else None)
        described = f"{step.method} {path} -> {status} {data[:300]!r}"
        assert status in {STATUS[s] for s in step.statuses}, described
        if step.location is not None:
            variables[step.location] = headers["location"]
        if step.expected_type is not None:
            assert headers["content-type"].replace(" ", "").lower() == step.expected_type.replace(" ", "").lower()
        if step.method == "HEAD":
            assert data == b""
        if step.expected_body is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = Graph().parse(data=step.expected_body, format="turtle")
            assert isomorphic(Graph().parse(data=data, format="turtle"), expected), data.decode()


def test_w3c_server_store_is_consistent_after_the_cases(server: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """After the manifest's writes the served store keeps its invariants (checked on disk)."""
    status, _, _ = send(server, "PUT", "/store?graph=http%3A%2F%2Fe%2Flast", {"Content-Type": "text/turtle", **AUTH},
                        TURTLE.encode())
    assert status in (201, 204)
    stores = [p for p in Path(str(tmp_path_factory.getbasetemp())).glob("gsp-w3c*/store")]
    assert stores
    store = Store.open(stores[0])
    assert set(store.default_triples()) == {q.triple for q in store.quads()}
    missing, extra = inferred_matches(stores[0])
    assert not missing and not extra
