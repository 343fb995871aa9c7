"""The W3C SPARQL 1.1 Protocol test cases, over HTTP against one real `kg serve` process.

The cases come from the suite's protocol/manifest.ttl, read with rdflib: each mf:ProtocolTest is one or more
ht:Requests (method, path, headers, body in a character encoding) with an ht:Response expectation (status
class, result format "boolean" / "tabular" / "RDF", ASK answer). The server's store holds the suite's
data1.nt, data2.nt and data3.nt as named graphs under the IRIs the manifest gives them (their ut:graphData
labels), built with kg.store.write_store; `kg serve` serves an existing store as it is.

Every case runs. Some requests name http://kasei.us/2009/09/sparql/data/data0.rdf as their dataset, a graph
the suite does not ship; their expectations (ASK {} is true, SELECT (1 AS ?value) {} is a table, a CONSTRUCT
or DESCRIBE is RDF) hold whatever that graph holds, so they need no remote data: kg never dereferences graph
IRIs and an unknown graph is simply empty.

Writes are enabled on this server (KG_WRITE_TOKEN): every update request carries the bearer token, which
the manifest's requests cannot know about, and gets the manifest's expectations (the query after an update
checks its effect). Without the token the same update answers 401 (and 403 on a server with no token; both
are tested in tests/test_writes.py).

The Graph Store Protocol's default-graph cases run on the same server before the protocol cases, while it
holds the three named graphs: graph-store-protocol/manifest-indirect.ttl's put_get_default as the manifest
gives it, then a POST to ?default read back alone and a DELETE of ?default that leaves it empty (the named
graphs untouched, SPARQL's default graph still their merge). ?default is a graph of its own
(kg.server.sparql.graphstore), so none of them sees the named graphs' triples.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rdflib import RDF, Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic
from rdflib.term import Node

from kg.store import write_store

from .server_process import kg_serve
from .shared import shared_path


def _suite() -> Path | None:
    """The W3C suite in shared/ (tests/shared.py)."""
    manifest = shared_path("w3c-sparql-tests", "protocol", "manifest.ttl")
    return manifest.parent.parent if manifest.is_file() else None


SUITE = _suite()
if SUITE is None:
    pytest.skip("the W3C SPARQL test suite (shared/w3c-sparql-tests/protocol/manifest.ttl) is not available",
                allow_module_level=True)
MANIFEST = SUITE / "protocol" / "manifest.ttl"

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
RDFS = Namespace("http://www.w3.org/2000/01/rdf-schema#")
SRX = "{http://www.w3.org/2005/sparql-results#}"
ENDPOINT_PREFIX = "/sparql/"  # every ht:absolutePath starts with it; the manifest says to replace it
TIMEOUT = 30
TOKEN = "w3c-protocol-token"

# The media types the manifest's expected formats allow (see its query_content_type_* cases).
BOOLEAN_TYPES = {"application/sparql-results+xml", "application/sparql-results+json"}
TABULAR_TYPES = BOOLEAN_TYPES | {"text/csv", "text/tab-separated-values"}
RDF_TYPES = {"application/rdf+xml": "xml", "text/turtle": "turtle", "application/n-triples": "nt"}
EXPECTED_TYPES = {"boolean": BOOLEAN_TYPES, "tabular": TABULAR_TYPES, "RDF": set(RDF_TYPES)}


@dataclass(frozen=True)
class Step:
    """One ht:Request of a case and what its response must be."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    statuses: frozenset[int]  # status classes: 2 for 2xx, ...
    result_format: str | None
    boolean: bool | None

    @property
    def params(self) -> dict[str, list[str]]:
        """The query-string and form-body parameters of the request."""
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(self.target).query)
        if self.body is not None and ("content-type", "application/x-www-form-urlencoded") in self.headers:
            for name, values in urllib.parse.parse_qs(self.body.decode("ascii")).items():
                params.setdefault(name, []).extend(values)
        return params

    @property
    def is_update(self) -> bool:
        """Whether this request is a SPARQL update (update= or an application/sparql-update body)."""
        content_type = dict(self.headers).get("content-type", "")
        return "update" in self.params or content_type.startswith("application/sparql-update")


@dataclass(frozen=True)
class Case:
    """One mf:ProtocolTest: its requests in order and the graphs it expects in the store."""

    name: str
    title: str
    steps: tuple[Step, ...]
    graph_data: tuple[tuple[str, Path], ...]


def _status_class(term: URIRef) -> int:
    """2 for hts:StatusCode2xx, and so on."""
    return int(str(term).rsplit("StatusCode", 1)[1][0])


def _step(graph: Graph, request: URIRef) -> Step:
    path = str(graph.value(request, HT.absolutePath))
    assert path.startswith(ENDPOINT_PREFIX), path
    headers_list = graph.value(request, HT.headers)
    headers = tuple((str(graph.value(h, HT.fieldName)).lower(), str(graph.value(h, HT.fieldValue)))
                    for h in (Collection(graph, headers_list) if headers_list is not None else []))
    body_node = graph.value(request, HT.body)
    body = None
    if body_node is not None:
        encoding = str(graph.value(body_node, CNT.characterEncoding) or "UTF-8")
        body = str(graph.value(body_node, CNT.chars)).encode(encoding)
    response = graph.value(request, HT.resp)
    result_format = graph.value(response, MF.expectedFormat)
    boolean = graph.value(response, MF.expectedBoolean)
    return Step(
        method=str(graph.value(request, HT.methodName)),
        target="/sparql" + path[len(ENDPOINT_PREFIX) - 1:].removeprefix("/"),
        headers=headers,
        body=body,
        statuses=frozenset(_status_class(s) for s in graph.objects(response, MF.expectedStatus)),
        result_format=str(result_format) if result_format is not None else None,
        boolean=boolean.toPython() if boolean is not None else None,
    )


def _graph_data(graph: Graph, entry: URIRef) -> tuple[tuple[str, Path], ...]:
    """(graph IRI, local file) for each ut:graphData of a case: the file is ut:graph, the IRI its label."""
    found = []
    for data in graph.objects(entry, UT.graphData):
        file = Path(urllib.parse.unquote(urllib.parse.urlsplit(str(graph.value(data, UT.graph))).path))
        found.append((str(graph.value(data, RDFS.label)), file))
    return tuple(sorted(found))


def read_manifest(path: Path) -> list[Case]:
    """The manifest's test cases in manifest order."""
    graph = Graph().parse(path, format="turtle")
    manifest = graph.value(predicate=RDF.type, object=MF.Manifest)
    cases = []
    for entry in Collection(graph, graph.value(manifest, MF.entries)):
        action = graph.value(entry, MF.action)
        steps = tuple(_step(graph, r) for r in Collection(graph, graph.value(action, HT.requests)))
        cases.append(Case(str(entry).rsplit("#", 1)[1], str(graph.value(entry, MF.name)), steps,
                          _graph_data(graph, entry)))
    return cases


CASES = read_manifest(MANIFEST)


def test_manifest_is_read_completely() -> None:
    """All 34 entries, each with at least one request and an expected status, and the data files exist."""
    assert len(CASES) == 34
    assert len({c.name for c in CASES}) == len(CASES)
    assert all(c.steps and all(s.statuses for s in c.steps) for c in CASES)
    assert {path.name for c in CASES for _, path in c.graph_data} == {"data1.nt", "data2.nt", "data3.nt"}
    assert all(path.is_file() for c in CASES for _, path in c.graph_data)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`kg serve` over a store holding the suite's data files as named graphs."""
    graphs: dict[URIRef, Graph] = {}
    for case in CASES:
        for iri, path in case.graph_data:
            graphs.setdefault(URIRef(iri), Graph().parse(path, format="nt"))
    assert len(graphs) == 3
    root = tmp_path_factory.mktemp("w3c")
    store = root / "store"
    write_store(store, graphs, {"triples": {str(iri): len(g) for iri, g in graphs.items()}})
    # The store exists, so nothing is built; --data is where accepted edits are kept (data/edits/).
    (root / "data").mkdir()
    with kg_serve(root / "data", store, env={"KG_WRITE_TOKEN": TOKEN}) as url:
        yield url


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


def send(server: str, step: Step) -> Answer:
    """Send one request as the manifest describes it (no Accept, no Content-Type unless given), adding the
    bearer token to updates."""
    host, port = urllib.parse.urlsplit(server).netloc.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    headers = dict(step.headers)
    if step.is_update:
        headers["authorization"] = f"Bearer {TOKEN}"
    try:
        connection.request(step.method, step.target, body=step.body, headers=headers)
        response = connection.getresponse()
        return Answer(response.status, response.getheader("Content-Type", ""), response.read())
    finally:
        connection.close()


def read_boolean(answer: Answer) -> bool:
    media_type = answer.content_type.split(";")[0].strip()
    if media_type == "application/sparql-results+json":
        value = json.loads(answer.body)["boolean"]
        assert isinstance(value, bool)
        return value
    element = ET.fromstring(answer.body).find(SRX + "boolean")
    assert element is not None and element.text in ("true", "false"), answer.body
    return element.text == "true"


def check_result(step: Step, answer: Answer) -> None:
    """The response has a media type the expected format allows and parses in it."""
    media_type = answer.content_type.split(";")[0].strip()
    assert media_type in EXPECTED_TYPES[step.result_format or ""], (step.result_format, answer.content_type)
    if step.result_format == "boolean":
        read_boolean(answer)
    elif step.result_format == "tabular":
        if media_type == "application/sparql-results+json":
            document = json.loads(answer.body)
            assert isinstance(document["head"]["vars"], list) and isinstance(document["results"]["bindings"], list)
        elif media_type == "application/sparql-results+xml":
            assert ET.fromstring(answer.body).find(SRX + "results") is not None
        else:
            assert answer.body.strip(), "a table has at least a header line"
    elif step.result_format == "RDF":
        Graph().parse(data=answer.body, format=RDF_TYPES[media_type])


GSP_MANIFEST = SUITE / "graph-store-protocol" / "manifest-indirect.ttl"
HTS = {"OK": 200, "Created": 201, "NoContent": 204}
GSP_AUTH = {"authorization": f"Bearer {TOKEN}"}
NAMED = "http://kasei.us/2009/09/sparql/data/data1.rdf"


@dataclass(frozen=True)
class GspStep:
    """One ht:Request of a Graph Store Protocol case (/gsp replaced by /store) and its expected response."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes | None
    statuses: frozenset[int]
    content_type: str | None
    expected: str | None


def _gsp_headers(graph: Graph, node: Node | None) -> dict[str, str]:
    items = graph.value(node, HT.headers)
    return {str(graph.value(h, HT.fieldName)).lower(): str(graph.value(h, HT.fieldValue))
            for h in (Collection(graph, items) if items is not None else [])}


def read_gsp_case(name: str) -> list[GspStep]:
    """The requests of one case of graph-store-protocol/manifest-indirect.ttl."""
    graph = Graph().parse(GSP_MANIFEST, format="turtle")
    entry = next(e for e in graph.subjects(RDF.type, MF.GraphStoreProtocolTest) if str(e).endswith("#" + name))
    steps = []
    for request in Collection(graph, graph.value(graph.value(entry, MF.action), HT.requests)):
        response = graph.value(request, HT.resp)
        body, expected = graph.value(request, HT.body), graph.value(response, HT.body)
        path = str(graph.value(request, HT.absolutePath))
        assert path.startswith("/gsp")
        steps.append(GspStep(
            str(graph.value(request, HT.methodName)), "/store" + path[len("/gsp"):], _gsp_headers(graph, request),
            str(graph.value(body, CNT.chars)).encode("utf-8") if body is not None else None,
            frozenset(HTS[str(s).rsplit("#", 1)[1]] for s in graph.objects(response, MF.expectedStatus)),
            _gsp_headers(graph, response).get("content-type"),
            str(graph.value(expected, CNT.chars)) if expected is not None else None))
    return steps


def gsp(server: str, method: str, target: str, headers: dict[str, str], body: bytes | None = None) -> Answer:
    """One Graph Store request with the bearer token."""
    host, port = urllib.parse.urlsplit(server).netloc.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        connection.request(method, target, body=body, headers={**headers, **GSP_AUTH})
        response = connection.getresponse()
        return Answer(response.status, response.getheader("Content-Type", ""), response.read())
    finally:
        connection.close()


def default_graph(server: str) -> Graph:
    answer = gsp(server, "GET", "/store?default", {"accept": "text/turtle"})
    assert answer.status == 200, answer
    return Graph().parse(data=answer.body, format="turtle")


def named_count(server: str) -> int:
    query = urllib.parse.urlencode({"query": f"SELECT (COUNT(*) AS ?n) {{ GRAPH <{NAMED}> {{ ?s ?p ?o }} }}"})
    answer = gsp(server, "GET", f"/sparql?{query}", {"accept": "application/sparql-results+json"})
    return int(json.loads(answer.body)["results"]["bindings"][0]["n"]["value"])


def test_gsp_put_get_default(server: str) -> None:
    """graph-store-protocol put_get_default as the manifest gives it, on a store that also holds named
    graphs: GET ?default returns exactly what PUT ?default stored, and the named graphs keep their triples."""
    steps = read_gsp_case("put_get_default")
    assert [s.method for s in steps] == ["PUT", "GET"]
    before = named_count(server)
    assert before > 0
    try:
        for step in steps:
            answer = gsp(server, step.method, step.target, step.headers, step.body)
            assert answer.status in step.statuses, (step.method, step.target, answer.status, answer.body[:300])
            if step.content_type is not None:
                assert answer.content_type.replace(" ", "").lower() == step.content_type.replace(" ", "").lower()
            if step.expected is not None:
                assert isomorphic(Graph().parse(data=answer.body, format="turtle"),
                                  Graph().parse(data=step.expected, format="turtle")), answer.body.decode()
        assert named_count(server) == before, "PUT ?default replaced the named graphs too"
    finally:
        assert gsp(server, "DELETE", "/store?default", {}).status == 204


def test_gsp_post_to_default_reads_back_alone_and_delete_empties_it(server: str) -> None:
    """POST ?default twice merges, GET ?default returns only what was posted, DELETE ?default empties it;
    the named graphs keep their triples and SPARQL's default graph is still their merge."""
    before = named_count(server)
    assert before > 0
    one = b'<http://e/alice> <http://xmlns.com/foaf/0.1/name> "Alice" .\n'
    two = b'<http://e/alice> <http://xmlns.com/foaf/0.1/mbox> <mailto:alice@example.org> .\n'
    for body in (one, two):
        answer = gsp(server, "POST", "/store?default", {"content-type": "application/n-triples"}, body)
        assert answer.status == 204, answer
    assert isomorphic(default_graph(server), Graph().parse(data=(one + two).decode(), format="nt"))
    merged = urllib.parse.urlencode({"query": f"ASK {{ <{NAMED}> ?p ?o . <http://e/alice> ?q ?r }}"})
    assert read_boolean(gsp(server, "GET", f"/sparql?{merged}", {"accept": "application/sparql-results+json"}))
    assert gsp(server, "DELETE", "/store?default", {}).status == 204
    assert len(default_graph(server)) == 0
    assert gsp(server, "DELETE", "/store?default", {}).status == 204, "the default graph always exists"
    assert named_count(server) == before


def test_protocol_dataset_replaces_the_querys_own(server: str) -> None:
    """Beyond the manifest: with default-graph-uri=data3 only data3 is in the default graph, not the union."""
    query = "ASK { <http://kasei.us/2009/09/sparql/data/data1.rdf> a ?type }"
    for default, expected in (("data3", False), ("data1", True)):
        params = {"query": query, "default-graph-uri": f"http://kasei.us/2009/09/sparql/data/{default}.rdf"}
        answer = send(server, Step("GET", "/sparql?" + urllib.parse.urlencode(params), (), None, frozenset({2}),
                                   "boolean", expected))
        assert answer.status == 200 and read_boolean(answer) is expected, default


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_w3c_protocol(server: str, case: Case) -> None:
    for step in case.steps:
        answer = send(server, step)
        described = f"{case.name} ({case.title}): {step.method} {step.target} -> {answer.status} {answer.body[:200]!r}"
        assert answer.status // 100 in step.statuses, described
        if answer.status // 100 != 2 or step.result_format is None:
            continue
        check_result(step, answer)
        if step.boolean is not None:
            assert read_boolean(answer) is step.boolean, described


def test_updates_left_the_data_the_manifest_implies(server: str) -> None:
    """After the update cases (the last ones CLEAR ALL, then write <test> resolved against the endpoint) only
    that graph is left, and an update without the token is refused."""
    query = """ASK { GRAPH <http://example.org/protocol-base-test/> { <http://example.org/s> <http://example.org/p> ?o
                     FILTER(STRSTARTS(STR(?o), "http://127.0.0.1")) }
                     FILTER NOT EXISTS { GRAPH <http://kasei.us/2009/09/sparql/data/data1.rdf> { ?s ?p ?x } } }"""
    step = Step("GET", "/sparql?" + urllib.parse.urlencode({"query": query}), (), None, frozenset({2}), "boolean", True)
    answer = send(server, step)
    assert answer.status == 200 and read_boolean(answer) is True
    refused = Step("POST", "/sparql", (("content-type", "application/sparql-update"),), b"CLEAR ALL",
                   frozenset({4}), None, None)
    host, port = urllib.parse.urlsplit(server).netloc.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        connection.request(refused.method, refused.target, body=refused.body, headers=dict(refused.headers))
        response = connection.getresponse()
        assert response.status == 401 and response.getheader("WWW-Authenticate", "").startswith("Bearer")
        response.read()
    finally:
        connection.close()
