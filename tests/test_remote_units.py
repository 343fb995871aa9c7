"""The remote store's pieces that need no engine: prologue, skolem IRIs, the switch update, settings, auth."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
import requests

from kg.config import Config
from kg.iris import RemoteNames
from kg.store.client import BearerAuth, RemoteConfigError, RemoteLocation, _auth
from kg.store.push import ntriples_lines, switch_update
from kg.store.remote import MANIFEST_PROPERTY, Manifest, Skolem, _prologue, is_graph_query

NAMES = RemoteNames("https://kg.example.org/")


def test_prologue_declares_only_what_the_query_leaves_out() -> None:
    prefixes = {"schema": "http://schema.org/", "foaf": "http://xmlns.com/foaf/0.1/"}
    text = "PREFIX schema: <http://other.example/> SELECT * { ?s schema:name ?n ; foaf:name ?m }"
    prologue = _prologue(text, "http://127.0.0.1/sparql", prefixes)
    assert prologue == "BASE <http://127.0.0.1/sparql>\nPREFIX foaf: <http://xmlns.com/foaf/0.1/>\n"
    assert _prologue("BASE <http://b/> ASK {}", "http://127.0.0.1/sparql", {}) == ""
    assert _prologue('SELECT * { ?s schema:name "PREFIX schema: <x>" }', None, prefixes) == (
        "PREFIX schema: <http://schema.org/>\n")
    assert _prologue("SELECT * { ?s ?p ?o }", None, prefixes) == ""


def test_skolem_iris_round_trip_blank_nodes() -> None:
    skolem = Skolem(NAMES)
    triple = ox.Triple(ox.BlankNode("list1"), ox.NamedNode("http://e/p"), ox.BlankNode("list2"))
    stored = skolem.triple_to_iris(triple)
    assert stored.subject == ox.NamedNode("https://kg.example.org/.well-known/genid/list1")
    assert skolem.triple_to_blanks(stored) == triple
    assert skolem.to_blank(ox.NamedNode("https://kg.example.org/id/person/x")) == ox.NamedNode(
        "https://kg.example.org/id/person/x")


def test_upload_lines_are_sorted_distinct_ntriples() -> None:
    skolem = Skolem(NAMES)
    b, a = (ox.Triple(ox.NamedNode(f"http://e/{x}"), ox.NamedNode("http://e/p"), ox.Literal("肖文聪", language="zh"))
            for x in "ba")
    lines = ntriples_lines([b, a, b], skolem)
    assert lines == sorted(lines) and len(lines) == 2
    assert [q.triple for q in ox.parse(b"".join(lines), format=ox.RdfFormat.N_TRIPLES)] == [a, b]


def test_switch_update_is_one_valid_request() -> None:
    manifest = Manifest("v2", {"https://kg.example.org/graph/reference": {"sha256": "x", "triples": 1}},
                        {"sha256": "y", "triples": 1, "graph": NAMES.merged("v2")},
                        {"note": 'quotes " and \n newlines'},
                        [NAMES.merged("v1")])
    text = switch_update(NAMES, {"https://kg.example.org/graph/reference": NAMES.staging + "v2/0"},
                         ["https://kg.example.org/graph/profile/gone"], manifest)
    store = ox.Store()
    store.update(f"INSERT DATA {{ GRAPH <{NAMES.manifest}> {{ <{NAMES.build('v1')}> <{MANIFEST_PROPERTY}> 'old' }} }}")
    store.update(text)
    assert len(list(store.quads_for_pattern(None, None, None, ox.NamedNode(NAMES.manifest)))) == 1
    assert text.index("INSERT DATA") < text.index("DELETE {"), "the new manifest goes in before the old goes"
    literal = next(iter(store.quads_for_pattern(None, None, None, ox.NamedNode(NAMES.manifest)))).object
    assert Manifest.from_json(literal.value) == manifest
    assert text.index("DROP SILENT GRAPH <https://kg.example.org/graph/reference>") < text.index("MOVE SILENT")


def test_graph_queries_are_told_apart() -> None:
    assert is_graph_query("CONSTRUCT WHERE { ?s ?p ?o }") and is_graph_query("DESCRIBE <http://e/x>")
    assert not is_graph_query("ASK {}") and not is_graph_query("SELECT * {}")


def test_settings_are_checked() -> None:
    with pytest.raises(RemoteConfigError, match="KG_STORE_URL"):
        RemoteLocation.from_config(Config())
    with pytest.raises(RemoteConfigError, match="basic, digest, bearer"):
        RemoteLocation.from_config(Config(store_url="http://127.0.0.1:1/q", store_auth="kerberos"))
    location = RemoteLocation.from_config(Config(store_url="http://127.0.0.1:1/q"))
    assert location.update_url == location.query_url and location.gsp_url == ""


def test_bearer_auth_sends_the_token() -> None:
    auth = _auth(RemoteLocation("http://127.0.0.1:1/q", "http://127.0.0.1:1/u", password="t0k", auth="bearer"))
    assert isinstance(auth, BearerAuth)
    prepared = auth(requests.Request("GET", "http://127.0.0.1:1/q").prepare())
    assert prepared.headers["Authorization"] == "Bearer t0k"
    assert _auth(RemoteLocation("http://127.0.0.1:1/q", "http://127.0.0.1:1/u")) is None


def test_virtuoso_partial_answers_are_noticed() -> None:
    from kg.store.client import _partial

    answer = requests.Response()
    answer.headers["X-SQL-State"] = "S1TAT"
    answer.headers["X-SQL-Message"] = "RC...: Returning incomplete results, query interrupted by result timeout."
    assert _partial(answer).startswith("S1TAT RC...: Returning incomplete results")
    assert _partial(requests.Response()) == ""
