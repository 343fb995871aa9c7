"""Hostile uploads against a real `kg serve` (issue 12, items 7-9): a javascript: link, RDF/XML entity
expansion, deeply nested bodies and long blank-node chains. Each hostile write is refused quickly (400/422),
the server still answers, and nothing is stored; the serve process tree runs under a 4 GB address-space cap."""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph, URIRef

from kg.config import Config
from kg.exports import compact_jsonld, export, load_context
from kg.pipeline import build
from kg.server import create_app
from kg.server.floor.links import linkable
from kg.store import Store

from .conftest import REPO_DATA, assert_isomorphic
from .repo_data import copy_site
from .server_process import kg_serve

TOKEN = "redteam-token"
BASE = "https://kg.example.org"
PERSON = f"{BASE}/id/person/ziheng-jiang"
PAGE = "/page/person/ziheng-jiang"
MEMORY_CAP = 4 * 1024 ** 3
FAST = 10.0  # seconds a refusal may take, on a shared two-core machine
SITECUSTOMIZE = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))\n"
LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
          + "".join(f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'
                    for i in range(1, 10))
          + ']>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/">\n'
          '<rdf:Description rdf:about="http://e/s"><e:p>&lol9;</e:p></rdf:Description>\n</rdf:RDF>\n')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Config:
    """A copy of the repository's data, built."""
    return copy_site(tmp_path_factory.mktemp("redteam"))


@pytest.fixture(scope="module")
def server(site: Config) -> Iterator[str]:
    """`kg serve` with writes enabled, every process of its tree capped at 4 GB of address space."""
    cap = site.store.parent / "memory-cap"
    cap.mkdir(exist_ok=True)
    (cap / "sitecustomize.py").write_text(SITECUSTOMIZE)
    with kg_serve(site.data, site.store, "--workers", "2",
                  env={"KG_WRITE_TOKEN": TOKEN, "PYTHONPATH": f"{cap}:{Path(__file__).parents[1] / 'src'}"}) as url:
        for _ in range(2):  # the first validation in each worker loads the shapes: warm both up, change nothing
            send(url, "/sparql", f"INSERT DATA {{ <{PERSON}> <http://schema.org/sameAs> <urn:warm-up> }}".encode(),
                 "application/sparql-update", timeout=120)
        yield url


def send(url: str, path: str, body: bytes, content_type: str, method: str = "POST",
         timeout: float = 30) -> tuple[int, str, float]:
    """Status, body text and seconds taken of one authorised write."""
    request = urllib.request.Request(url + path, data=body, method=method, headers={
        "Content-Type": content_type, "Authorization": f"Bearer {TOKEN}"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), response.read().decode("utf-8", "replace"), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode("utf-8", "replace"), time.monotonic() - started


def get(url: str, path: str, timeout: float = 30) -> tuple[int, bytes]:
    """Status and body of a GET."""
    try:
        with urllib.request.urlopen(url + path, timeout=timeout) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read()


def ask(url: str, query: str) -> bool:
    """The answer of an ASK query."""
    status, body = get(url, "/sparql?" + urllib.parse.urlencode({"query": query}))
    assert status == 200, body
    return bool(json.loads(body)["boolean"])


def assert_still_serving(url: str) -> None:
    """/health and a normal page answer 200."""
    assert get(url, "/health")[0] == 200
    status, page = get(url, PAGE)
    assert status == 200 and b"<h1>" in page


def assert_refused(answer: tuple[int, str, float], status: int, *words: str) -> None:
    """The write was refused with this status, quickly, with a message holding every word."""
    code, text, seconds = answer
    assert code == status, text[:500]
    assert seconds < FAST, f"took {seconds:.1f} s"
    assert "Traceback" not in text
    for word in words:
        assert word in text, text[:500]


def nothing_stored(url: str, subject: str = "http://e/s") -> bool:
    """No statement about the subject reached the store."""
    return not ask(url, f"ASK {{ {{ <{subject}> ?p ?o }} UNION {{ ?x ?q <{subject}> }} }}")


# --- item 7: javascript: links ------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["update", "put", "post"])
def test_javascript_link_is_refused_on_every_write_path(server: str, how: str) -> None:
    link = "javascript:alert(document.domain)"
    triple = f"<{PERSON}> <http://schema.org/sameAs> <{link}> ."
    if how == "update":
        answer = send(server, "/sparql", f"INSERT DATA {{ {triple} }}".encode(), "application/sparql-update")
    else:
        graph = urllib.parse.quote(f"{BASE}/graph/redteam-{how}", safe="")
        answer = send(server, f"/store?graph={graph}", triple.encode(), "application/n-triples",
                      method=how.upper())
    assert_refused(answer, 422, "sameAs", "http")
    assert not ask(server, f"ASK {{ ?s ?p <{link}> }}")
    assert b"javascript:" not in get(server, PAGE)[1]
    assert_still_serving(server)


def test_yaml_build_refuses_the_same_link(tmp_path: Path) -> None:
    from kg.turtle_files import load_turtle_dir
    from kg.validation import validate_graph

    config = Config()
    graph = Graph()
    graph.add((URIRef(PERSON), URIRef("http://schema.org/sameAs"), URIRef("javascript:alert(1)")))
    graph.add((URIRef("http://e/org"), URIRef("http://xmlns.com/foaf/0.1/homepage"), URIRef("data:text/html,x")))
    report = validate_graph(graph, load_turtle_dir(config.shapes), load_turtle_dir(config.ontology))
    messages = " ".join(v.message for v in report.violations)
    assert not report.passes and "schema:sameAs" in messages and "foaf:homepage" in messages


@pytest.mark.parametrize("url, expected", [
    ("https://orcid.org/0000-0002-1825-0097", True), ("http://example.org/", True), ("HTTPS://EXAMPLE.ORG", True),
    ("mailto:ada@example.org", True), ("/page/person/ada", True), ("javascript:alert(1)", False),
    ("JavaScript:alert(1)", False), (" javascript:alert(1)", False), ("java\tscript:alert(1)", False),
    ("data:text/html,<script>alert(1)</script>", False), ("vbscript:msgbox", False), ("//evil.example/", False),
    ("/\\evil.example/", False), ("http:alert(1)", False), ("https://e.org/\nx", False), ("", False),
    (None, False), ("urn:isbn:0451450523", False)])
def test_linkable(url: str | None, expected: bool) -> None:
    assert linkable(url) is expected


def test_pages_render_other_schemes_as_text(tmp_path: Path) -> None:
    """A javascript: or data: link already in a store (written around the shapes) is never an href or src."""
    config = Config(data=REPO_DATA, store=tmp_path / "store")
    build(config)
    store = Store.open(config.store)
    graph = store.rdflib_graph()
    for prop in ("http://schema.org/sameAs", "http://schema.org/url", "http://xmlns.com/foaf/0.1/homepage",
                 "http://schema.org/worksFor"):
        graph.add((URIRef(PERSON), URIRef(prop), URIRef("javascript:alert(document.domain)")))
    graph.add((URIRef(PERSON), URIRef("http://schema.org/image"), URIRef("data:text/html,x")))
    client = create_app(config, Store.in_memory({URIRef(f"{BASE}/graph/all"): graph})).test_client()
    page = client.get(PAGE).get_data(as_text=True)
    assert "javascript:alert(document.domain)" in page
    for bad in ('href="javascript:', 'src="javascript:', 'href="data:', 'src="data:'):
        assert bad not in page.replace("&#34;", '"')


# --- item 8: entity expansion -------------------------------------------------------------------------------

@pytest.mark.parametrize("path, content_type", [
    ("/store?graph=http%3A%2F%2Fe%2Fg", "application/rdf+xml"), ("/store?default", "application/xml")])
def test_billion_laughs_is_refused_without_expanding(server: str, path: str, content_type: str) -> None:
    assert len(LAUGHS) < 1500
    assert_refused(send(server, path, LAUGHS.encode(), content_type), 400, "may not declare entities",
                   "line 3", "expand them before sending")
    assert nothing_stored(server)
    assert_still_serving(server)


def test_billion_laughs_in_a_multipart_part_is_refused(server: str) -> None:
    body = (b"--XX\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.rdf\"\r\n"
            b"Content-Type: application/rdf+xml\r\n\r\n" + LAUGHS.encode() + b"\r\n--XX--\r\n")
    assert_refused(send(server, "/store?default", body, "multipart/form-data; boundary=XX"), 400,
                   "may not declare entities", "part 'a'")
    assert nothing_stored(server)


# --- item 9: deep nesting -----------------------------------------------------------------------------------

DEPTH = 100_000
DEEP = {
    "turtle": ("text/turtle", ("@prefix e: <http://e/> .\ne:s e:p " + "[ e:p " * DEPTH + "1 " + "] " * DEPTH
                               + ".\n").encode(), "line 2"),
    "list": ("text/turtle", ("<http://e/s> <http://e/p> " + "( " * DEPTH + ") " * DEPTH + ".\n").encode(), "line 1"),
    "jsonld": ("application/ld+json", ('{"@context": {"e": "http://e/p"}, "@id": "http://e/s",\n"e": '
                                       + '{"e": ' * DEPTH + "1" + "}" * DEPTH + "}").encode(), "line 2"),
    "rdfxml": ("application/rdf+xml", ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                                       'xmlns:e="http://e/">\n<rdf:Description rdf:about="http://e/s">\n'
                                       + '<e:p rdf:parseType="Resource">\n' * 20_000 + "</e:p>\n" * 20_000
                                       + "</rdf:Description></rdf:RDF>\n").encode(), "line 65"),
}


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_deep_nesting_is_refused_fast(server: str, kind: str) -> None:
    content_type, body, where = DEEP[kind]
    assert len(body) < 1_000_000
    assert_refused(send(server, "/store?default", body, content_type), 400, "64", where)
    assert nothing_stored(server)
    assert_still_serving(server)


def test_deep_sparql_update_is_refused_fast(server: str) -> None:
    text = "PREFIX e: <http://e/> INSERT DATA { e:s e:p " + "[ e:p " * DEPTH + "1 " + "] " * DEPTH + "}"
    assert_refused(send(server, "/sparql", text.encode(), "application/sparql-update"), 400, "deep")
    assert nothing_stored(server)


def chain(links: int, subject: str = "http://e/chain") -> list[ox.Triple]:
    """<subject> :p _:b0 . _:b0 :p _:b1 . ... with the given number of links, written flat."""
    p = ox.NamedNode("http://e/p")
    triples = [ox.Triple(ox.NamedNode(subject), p, ox.BlankNode("b0"))]
    triples += [ox.Triple(ox.BlankNode(f"b{i}"), p, ox.BlankNode(f"b{i + 1}")) for i in range(links - 1)]
    return triples


def relabelled(triples: set[ox.Triple]) -> set[ox.Triple]:
    """The triples with blank nodes named by their path from the IRIs, in a graph where every node has at most
    one blank node object per property (chains, nested lists): equal results mean isomorphic graphs. Iterative;
    pyoxigraph's RDFC-1.0 overflows its stack on such chains and rdflib's isomorphism recurses."""
    about: dict[object, list[ox.Triple]] = {}
    for t in triples:
        about.setdefault(t.subject, []).append(t)
    names: dict[object, ox.BlankNode] = {}
    pending = sorted((s for s in about if not isinstance(s, ox.BlankNode)), key=str)
    while pending:
        node = pending.pop()
        objects = sorted((t for t in about.get(node, []) if isinstance(t.object, ox.BlankNode)),
                         key=lambda t: t.predicate.value)
        assert len({t.predicate for t in objects}) == len(objects), "more than one blank node per property"
        for t in objects:
            if t.object not in names:
                names[t.object] = ox.BlankNode(f"n{len(names)}")
                pending.append(t.object)
    assert len(names) == len({term for t in triples for term in (t.subject, t.object)
                              if isinstance(term, ox.BlankNode)}), "a blank node is not reachable from an IRI"
    return {ox.Triple(names.get(t.subject, t.subject), t.predicate, names.get(t.object, t.object)) for t in triples}


def parsed_triples(data: bytes) -> set[ox.Triple]:
    """The triples of a JSON-LD document, read by pyoxigraph, blank nodes relabelled."""
    return relabelled({q.triple for q in ox.parse(data, format=ox.RdfFormat.JSON_LD)})


@pytest.mark.slow
def test_jsonld_writer_handles_a_chain_of_100000_blank_nodes() -> None:
    triples = chain(100_000)
    context = load_context()
    data = compact_jsonld(sorted(triples, key=str), context)
    assert data == compact_jsonld(sorted(triples, key=str), context)
    assert parsed_triples(data) == relabelled(set(triples))


def test_jsonld_writer_handles_deeply_nested_lists() -> None:
    """Lists of lists 5,000 deep, written flat with rdf:first/rest (as an N-Triples upload can)."""
    rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    first, rest, nil = (ox.NamedNode(rdf + name) for name in ("first", "rest", "nil"))
    triples = [ox.Triple(ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p"), ox.BlankNode("l0"))]
    for i in range(5000):
        triples.append(ox.Triple(ox.BlankNode(f"l{i}"), first, ox.BlankNode(f"l{i + 1}")))
        triples.append(ox.Triple(ox.BlankNode(f"l{i}"), rest, nil))
    triples.append(ox.Triple(ox.BlankNode("l5000"), first, ox.Literal("end")))
    triples.append(ox.Triple(ox.BlankNode("l5000"), rest, nil))
    data = compact_jsonld(sorted(triples, key=str), load_context())
    assert parsed_triples(data) == relabelled(set(triples))
    dropped = {ox.BlankNode(f"l{i}") for i in range(40, 5001)}
    small = [t for t in triples if t.subject not in dropped and t.object not in dropped]
    small += [ox.Triple(ox.BlankNode("l39"), first, ox.Literal("end"))]
    assert_isomorphic(Graph().parse(data=compact_jsonld(sorted(small, key=str), load_context()), format="json-ld"),
                      Graph().parse(data=ox.serialize(small, format=ox.RdfFormat.N_TRIPLES), format="nt"))


def test_a_stored_blank_node_chain_is_still_served(server: str, site: Config) -> None:
    """A flat N-Triples chain (5,000 links) is accepted; the dump, the resource's JSON-LD and kg export work."""
    body = ox.serialize(chain(5000, f"{BASE}/id/person/ziheng-jiang"), format=ox.RdfFormat.N_TRIPLES)
    graph = urllib.parse.quote(f"{BASE}/graph/chain", safe="")
    status, text, _ = send(server, f"/store?graph={graph}", body, "application/n-triples", method="PUT", timeout=120)
    assert status in (201, 204), text[:500]
    for path in ("/dump.jsonld", "/data/person/ziheng-jiang.jsonld"):
        status, data = get(server, path, timeout=120)
        assert status == 200, data[:500]
        parsed = Graph().parse(data=data, format="json-ld")
        assert len(list(parsed.triples((None, URIRef("http://e/p"), None)))) == 5000
    out = io.BytesIO()
    export(Store.open(site.store), "jsonld", output=out)
    assert json.loads(out.getvalue())["@graph"]
    status, text, _ = send(server, f"/store?graph={graph}", b"", "application/n-triples", method="DELETE")
    assert status == 204, text
    assert_still_serving(server)
