"""Guarded writes (kg.writes, SPARQL 1.1 Update on /sparql): tokens, validation, reasoning, the merged default
graph, persisted edits and rebuilds. Each test writes to its own copy of a store built from the repository's
data (and its own copy of data/, where the edits are kept)."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient

from kg.config import Config
from kg.edits import edits_file
from kg.errors import BadQuery
from kg.pipeline import build
from kg.server import create_app
from kg.server.sparql.updates import add_using, check_update, split_operations
from kg.store import Store
from kg.writes import Writer, WriteRejected, inferred_matches

from .repo_data import copy_repo_data

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BASE = "https://kg.example.org"
ID = f"{BASE}/id/"
SCHEMA = "http://schema.org/"
UPDATE = "application/sparql-update"
PERSON = f"<{ID}person/ziheng-jiang>"
MSR, MICROSOFT = f"<{ID}organization/microsoft-research>", f"<{ID}organization/microsoft>"


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory copy and a store built from it (copied again for every test)."""
    root = tmp_path_factory.mktemp("writes-seed")
    copy_repo_data(root / "data", edits=False)
    build(Config(data=root / "data", store=root / "store"))
    return root


def fresh(seed: Path, target: Path) -> Config:
    """A private copy of the seed data and store under target, and a configuration with writes enabled."""
    shutil.copytree(seed / "data", target / "data")
    version = (seed / "store").resolve()
    shutil.copytree(version, target / version.name)
    os.symlink(version.name, target / "store")
    return Config(data=target / "data", store=target / "store", query_workers=0, write_token=TOKEN)


@pytest.fixture()
def config(seed: Path, tmp_path: Path) -> Config:
    """A writable store of the repository's data."""
    return fresh(seed, tmp_path)


@pytest.fixture()
def client(config: Config) -> FlaskClient:
    """A test client over the writable store (queries in the web thread)."""
    app = create_app(config)
    app.config["TESTING"] = True
    return app.test_client()


def dump(config: Config) -> bytes:
    """The whole current store version as sorted N-Quads."""
    store = Store.open(config.store)
    return b"".join(sorted(str(q).encode() + b" .\n" for q in store.ox.quads_for_pattern(None, None, None, None)))


def ask(client: FlaskClient, query: str) -> bool:
    response = client.get("/sparql", query_string={"query": query},
                          headers={"Accept": "application/sparql-results+json"})
    assert response.status_code == 200, response.data
    assert response.json is not None
    return bool(response.json["boolean"])


def update(client: FlaskClient, text: str, **headers: str) -> Any:
    return client.post("/sparql", data=text, content_type=UPDATE, headers={**AUTH, **headers})


def assert_consistent(config: Config) -> None:
    """The default graph is the union of the named graphs, the metadata counts match, and the inferred graph
    equals a full re-reasoning of the asserted graphs."""
    store = Store.open(config.store)
    union = {q.triple for q in store.quads()}
    assert set(store.default_triples()) == union
    for graph, count in store.metadata["triples"].items():
        assert sum(1 for _ in store.quads(graph)) == count
    missing, extra = inferred_matches(config.store)
    assert not missing and not extra, (missing, extra)


# --- who may write ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path", "body", "content_type"), [
    ("POST", "/sparql", "INSERT DATA { <http://e/s> <http://e/p> 1 }", UPDATE),
    ("POST", "/sparql", "update=INSERT%20DATA%20%7B%20%3Chttp%3A%2F%2Fe%2Fs%3E%20%3Chttp%3A%2F%2Fe%2Fp%3E%201%20%7D",
     "application/x-www-form-urlencoded"),
    ("PUT", "/store?default", "<http://e/s> <http://e/p> 1 .", "application/n-triples"),
    ("POST", "/store?graph=http%3A%2F%2Fe%2Fg", "<http://e/s> <http://e/p> 1 .", "application/n-triples"),
    ("DELETE", "/store?graph=http%3A%2F%2Fe%2Fg", None, None),
], ids=["update-direct", "update-form", "gsp-put", "gsp-post", "gsp-delete"])
def test_without_a_configured_token_writes_are_refused(seed: Path, tmp_path: Path, method: str, path: str,
                                                       body: str | None, content_type: str | None) -> None:
    """No token configured: 403 saying how to enable writes, even with an Authorization header; nothing changes."""
    config = fresh(seed, tmp_path)
    app = create_app(Config(data=config.data, store=config.store, query_workers=0))
    before = dump(config)
    response = app.test_client().open(path, method=method, data=body, content_type=content_type, headers=AUTH)
    text = response.get_data(as_text=True)
    assert response.status_code == 403 and "KG_WRITE_TOKEN" in text and "Bearer" in text
    assert dump(config) == before and not edits_file(config.data).exists()


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", "Basic czNjcmV0LXRva2Vu", "Bearer "],
                         ids=["missing", "wrong", "basic", "empty"])
def test_missing_or_wrong_token_is_401(client: FlaskClient, config: Config, header: str | None) -> None:
    """A token is configured: without the right bearer token, 401 with WWW-Authenticate: Bearer."""
    before = dump(config)
    headers = {"Authorization": header} if header is not None else {}
    for response in (client.post("/sparql", data="CLEAR ALL", content_type=UPDATE, headers=headers),
                     client.delete("/store?default", headers=headers)):
        assert response.status_code == 401, response.data
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert dump(config) == before


# --- a valid update ---------------------------------------------------------------------------------------

def test_valid_update_is_visible_to_the_next_query(client: FlaskClient, config: Config) -> None:
    """The next query sees the write, although the same query was answered (and cached) before it."""
    query = f"ASK {{ {PERSON} <{SCHEMA}knowsAbout> 'Graph databases' }}"
    assert ask(client, query) is False
    response = update(client, f"INSERT DATA {{ {PERSON} <{SCHEMA}knowsAbout> 'Graph databases' }}",
                      Accept="application/json")
    assert response.status_code == 200, response.data
    assert response.json["changed"] and response.json["added"] == 1
    assert response.json["graphs"] == [f"{BASE}/graph/edits"]
    assert ask(client, query) is True
    assert ask(client, f"ASK {{ GRAPH <{BASE}/graph/edits> {{ {PERSON} <{SCHEMA}knowsAbout> 'Graph databases' }} }}")
    assert_consistent(config)


def test_update_by_form_and_summary_as_text(client: FlaskClient) -> None:
    """update= in a form body works too; without Accept the summary is one line of text."""
    response = client.post("/sparql", data={"update": f"INSERT DATA {{ {PERSON} <{SCHEMA}knowsAbout> 'X' }}"},
                           headers=AUTH)
    assert response.status_code == 200 and response.mimetype == "text/plain"
    assert response.get_data(as_text=True).startswith("Committed store.v2: 1 triples added")


def test_an_update_that_changes_nothing_keeps_the_version(client: FlaskClient, config: Config) -> None:
    version = config.store.resolve()
    response = update(client, f"INSERT DATA {{ {MSR} <{SCHEMA}parentOrganization> {MICROSOFT} }}")
    assert response.status_code == 200 and "No change" in response.get_data(as_text=True)
    assert config.store.resolve() == version


# --- validation -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("accept", "check"), [
    ("application/json", lambda r: r.json["report"]["conforms"] is False
     and r.json["report"]["violations"][0]["path"] == "schema:name"),
    ("text/plain", lambda r: "exactly one non-empty name" in r.get_data(as_text=True)),
    ("text/turtle", lambda r: "sh:ValidationReport" in r.get_data(as_text=True)),
], ids=["json", "text", "turtle"])
def test_violating_update_is_422_with_the_report_and_changes_nothing(client: FlaskClient, config: Config,
                                                                     accept: str, check: Any) -> None:
    """A second name for a person violates person-name: 422, the report by Accept, the store byte-for-byte unchanged."""
    version, before = config.store.resolve(), dump(config)
    response = update(client, f"INSERT DATA {{ {PERSON} <{SCHEMA}name> 'Somebody Else' }}", Accept=accept)
    assert response.status_code == 422, response.data
    assert response.mimetype == accept and check(response)
    assert config.store.resolve() == version and dump(config) == before
    assert not edits_file(config.data).exists()


def test_only_introduced_violations_block_a_write(config: Config) -> None:
    """The report names only what the write introduced; a later valid write passes."""
    writer = Writer(config)
    with pytest.raises(WriteRejected) as rejected:
        writer.update(f"DELETE WHERE {{ {PERSON} <{SCHEMA}name> ?name }}")
    assert [v.focus for v in rejected.value.report.errors] == [PERSON[1:-1]]
    assert writer.update(f"INSERT DATA {{ {PERSON} <{SCHEMA}knowsAbout> 'Y' }}").changed


# --- reasoning --------------------------------------------------------------------------------------------

def test_deleting_the_support_of_an_inference_removes_it(client: FlaskClient, config: Config) -> None:
    """microsoft subOrganization microsoft-research is inferred from the inverse; deleting the parent link
    (asserted in the reference graph) retracts it, and the inferred graph equals a full re-reasoning."""
    inferred = f"ASK {{ GRAPH <{BASE}/graph/inferred> {{ {MICROSOFT} <{SCHEMA}subOrganization> {MSR} }} }}"
    assert ask(client, inferred) is True
    response = update(client, f"DELETE DATA {{ {MSR} <{SCHEMA}parentOrganization> {MICROSOFT} }}",
                      Accept="application/json")
    assert response.status_code == 200, response.data
    assert response.json["inferred_removed"] >= 1
    assert ask(client, inferred) is False
    assert ask(client, f"ASK {{ {MSR} <{SCHEMA}parentOrganization> ?any }}") is False
    assert_consistent(config)


def test_new_triples_are_reasoned_over(client: FlaskClient, config: Config) -> None:
    other = f"<{ID}person/wencong-xiao>"
    update(client, f"INSERT DATA {{ {PERSON} <https://kg.example.org/ontology#advisor> {other} }}")
    assert ask(client, f"ASK {{ GRAPH <{BASE}/graph/inferred> {{ {other} <https://kg.example.org/ontology#advisee> "
                       f"{PERSON} . {PERSON} <http://xmlns.com/foaf/0.1/knows> {other} }} }}")
    assert_consistent(config)


# --- the default graph and the named graphs ---------------------------------------------------------------

def test_deleting_from_the_default_graph_deletes_from_every_named_graph(client: FlaskClient, config: Config) -> None:
    """A triple held by a profile graph and another graph leaves both when deleted from the (merged) default
    graph; the deletion from the YAML-derived graph is recorded as a retraction."""
    triple = f"{PERSON} <{SCHEMA}knowsAbout> 'Shared'"
    profile = f"{BASE}/graph/profile/ziheng-jiang"
    response = update(client, f"INSERT DATA {{ GRAPH <{profile}> {{ {triple} }} GRAPH <http://e/g> {{ {triple} }} }}")
    assert response.status_code == 200, response.data
    assert ask(client, f"ASK {{ GRAPH <http://e/g> {{ {triple} }} GRAPH <{profile}> {{ {triple} }} }}")
    response = update(client, f"DELETE DATA {{ {triple} }}")
    assert response.status_code == 200, response.data
    assert ask(client, f"ASK {{ GRAPH ?g {{ {triple} }} }}") is False
    assert ask(client, "ASK { GRAPH <http://e/g> { ?s ?p ?o } }") is False
    lines = edits_file(config.data).read_text(encoding="utf-8").splitlines()
    assert lines == [f"{PERSON} <{SCHEMA}knowsAbout> \"Shared\" <{BASE}/graph/retracted/profile/ziheng-jiang> ."]
    assert_consistent(config)


def test_derived_graphs_cannot_be_written(client: FlaskClient, config: Config) -> None:
    before = dump(config)
    for graph in ("inferred", "ontology", "retracted/reference"):
        response = update(client, f"INSERT DATA {{ GRAPH <{BASE}/graph/{graph}> {{ <http://e/s> <http://e/p> 1 }} }}")
        assert response.status_code == 403 and "derived" in response.get_data(as_text=True), graph
        response = client.put("/store", query_string={"graph": f"{BASE}/graph/{graph}"}, headers=AUTH,
                              data="<http://e/s> <http://e/p> \"1\" .", content_type="application/n-triples")
        assert response.status_code == 403, graph
    assert dump(config) == before


def test_operations_of_one_request_see_the_merged_default_graph(client: FlaskClient, config: Config) -> None:
    """The second operation sees, through the default graph, what the first wrote into a named graph."""
    response = update(client, "INSERT DATA { GRAPH <http://e/g> { <http://e/a> <http://e/p> <http://e/b> } } ;\n"
                              "INSERT { ?b <http://e/q> ?a } WHERE { ?a <http://e/p> ?b }")
    assert response.status_code == 200, response.data
    assert ask(client, f"ASK {{ GRAPH <{BASE}/graph/edits> {{ <http://e/b> <http://e/q> <http://e/a> }} }}")
    assert_consistent(config)


def test_clear_all_keeps_the_derived_graphs(client: FlaskClient, config: Config) -> None:
    """CLEAR ALL removes every asserted graph; the ontology stays and the inferred graph is recomputed (empty)."""
    assert update(client, "CLEAR ALL").status_code == 200
    store = Store.open(config.store)
    assert store.graph_names() == [f"{BASE}/graph/ontology"]
    assert_consistent(config)


# --- refused updates --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "fragment"), [
    ("LOAD <http://example.org/data.ttl>", "LOAD"),
    ("LOAD SILENT <http://example.org/data.ttl> INTO GRAPH <http://e/g>", "LOAD"),
    ("INSERT { ?s ?p ?o } WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }", "SERVICE"),
    ("INSERT DATA { <http://e/s> <http://e/p> }", "not valid"),
    ("INSERT DATA { <http://e/s> <http://e/p> 1 }", "using-graph-uri"),
], ids=["load", "load-silent", "service", "syntax", "dataset-params"])
def test_refused_updates_are_400(client: FlaskClient, config: Config, text: str, fragment: str) -> None:
    before = dump(config)
    path = "/sparql?default-graph-uri=http%3A%2F%2Fe%2Fg" if fragment == "using-graph-uri" else "/sparql"
    response = client.post(path, data=text, content_type=UPDATE, headers=AUTH)
    assert response.status_code == 400 and fragment in response.get_data(as_text=True), response.data
    assert dump(config) == before


@pytest.mark.parametrize(("text", "place", "fix"), [
    ("INSRT DATA { <http://e/s> <http://e/p> 1 }", "line 1, column 1 (1:1), at 'INSRT'", "did you mean INSERT?"),
    ("INSERT DATA { <http://e/s> <http://e/p> 1 } ;\nDELET WHERE { ?s ?p ?o }", "line 2, column 1 (2:1)",
     "did you mean DELETE?"),
    ("INSERT DATA { <http://e/s> ex:p 1 }", "line 1, column 28 (1:28), at 'ex:p'",
     "add PREFIX ex: <namespace IRI> before the update"),
    ("PREFIX e: <http://e/>\nINSERT DATA { e:s e:p 1 ", "line 2, column 13 (2:13), at '{'", "add '}' where it ends"),
], ids=["operation", "second-operation", "prefix", "unclosed"])
def test_update_syntax_errors_name_the_place_and_the_fix(client: FlaskClient, config: Config, text: str,
                                                         place: str, fix: str) -> None:
    before = dump(config)
    response = update(client, text)
    body = response.get_data(as_text=True)
    assert response.status_code == 400, body
    assert place in body and fix in body and "^" in body, body
    assert dump(config) == before


def test_load_and_service_are_decided_on_tokens() -> None:
    check_update("INSERT DATA { <http://e/LOAD> <http://e/p> 'LOAD SERVICE' } # LOAD <http://x>")
    with pytest.raises(BadQuery, match="LOAD"):
        check_update("load <http://example.org/x>")


def test_protocol_dataset_becomes_using_clauses() -> None:
    assert add_using("INSERT { ?s a <http://e/C> } WHERE { ?s ?p ?o }", ("http://e/g",), ("http://e/n",)) == \
        "INSERT { ?s a <http://e/C> } USING <http://e/g> USING NAMED <http://e/n> WHERE { ?s ?p ?o }"
    assert add_using("DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", ("http://e/g",), ()) == \
        "DELETE { ?s ?p ?o } USING <http://e/g> WHERE { ?s ?p ?o }"
    assert add_using("INSERT DATA { <http://e/s> <http://e/p> 1 }", ("http://e/g",), ()) == \
        "INSERT DATA { <http://e/s> <http://e/p> 1 }"
    for text in ("WITH <http://e/w> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
                 "DELETE { ?s ?p ?o } USING <http://e/u> WHERE { ?s ?p ?o }"):
        with pytest.raises(BadQuery, match="own dataset"):
            add_using(text, (), ("http://e/n",))
    assert split_operations("BASE <http://e/> PREFIX x: <http://x/> CLEAR ALL ; CLEAR DEFAULT") == \
        ["BASE <http://e/> PREFIX x: <http://x/> CLEAR ALL ", "BASE <http://e/> PREFIX x: <http://x/>  CLEAR DEFAULT"]


def test_using_graph_uri_restricts_the_where_clause(client: FlaskClient) -> None:
    text = "INSERT { GRAPH <http://e/out> { ?p a <http://e/Found> } } WHERE { ?p a <http://schema.org/Person> }"
    graph = "https://kg.example.org/graph/reference"  # holds no people
    response = client.post("/sparql", query_string={"using-graph-uri": graph}, data=text, content_type=UPDATE,
                           headers=AUTH)
    assert response.status_code == 200 and "No change" in response.get_data(as_text=True)
    response = client.post("/sparql", data=text, content_type=UPDATE, headers=AUTH)
    assert response.status_code == 200 and ask(client, "ASK { GRAPH <http://e/out> { ?p a <http://e/Found> } }")


# --- persisted edits and rebuilds -------------------------------------------------------------------------

def test_edits_are_persisted_and_replayed_by_a_rebuild(client: FlaskClient, config: Config) -> None:
    """An insert and a deletion of a YAML-derived triple land in data/edits/edits.nq (sorted N-Quads) and
    survive kg.pipeline.build."""
    update(client, f"INSERT DATA {{ {PERSON} <{SCHEMA}knowsAbout> 'Rebuilds' }}")
    update(client, f"DELETE DATA {{ {MSR} <{SCHEMA}parentOrganization> {MICROSOFT} }}")
    lines = edits_file(config.data).read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines) and len(lines) == 2
    assert f"{PERSON} <{SCHEMA}knowsAbout> \"Rebuilds\" <{BASE}/graph/edits> ." in lines
    assert f"{MSR} <{SCHEMA}parentOrganization> {MICROSOFT} <{BASE}/graph/retracted/reference> ." in lines
    before = {q for q in Store.open(config.store).quads() if not q.graph_name.value.endswith("/inferred")}
    build(config)
    store = Store.open(config.store)
    assert store.metadata.get("writes") is None, "a fresh build"
    after = {q for q in store.quads() if not q.graph_name.value.endswith("/inferred")}
    assert after == before
    assert ask(client, f"ASK {{ {PERSON} <{SCHEMA}knowsAbout> 'Rebuilds' }}")
    assert not ask(client, f"ASK {{ {MSR} <{SCHEMA}parentOrganization> {MICROSOFT} }}")
    assert_consistent(config)


def test_reinserting_a_retracted_triple_cancels_the_retraction(client: FlaskClient, config: Config) -> None:
    triple = f"{MSR} <{SCHEMA}parentOrganization> {MICROSOFT}"
    update(client, f"DELETE DATA {{ {triple} }}")
    update(client, f"INSERT DATA {{ GRAPH <{BASE}/graph/reference> {{ {triple} }} }}")
    lines = edits_file(config.data).read_text(encoding="utf-8").splitlines()
    assert lines == [f"{triple} <{BASE}/graph/reference> ."]
    build(config)
    assert ask(client, f"ASK {{ GRAPH <{BASE}/graph/reference> {{ {triple} }} }}")


def test_blank_nodes_survive_a_rebuild(client: FlaskClient, config: Config) -> None:
    update(client, "INSERT DATA { GRAPH <http://e/g> { <http://e/s> <http://e/p> [ <http://e/q> 'inner' ] } }")
    before = sorted(str(q) for q in Store.open(config.store).quads("http://e/g"))
    build(config)
    assert sorted(str(q) for q in Store.open(config.store).quads("http://e/g")) == before


# --- concurrency ------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_concurrent_writes_are_serialised(config: Config) -> None:
    """Threads writing at once (each with its own writer, as separate worker processes would): every write
    lands, in some order, and the store stays consistent."""
    errors: list[BaseException] = []

    def write(number: int) -> None:
        try:
            Writer(config).update(f"INSERT DATA {{ <http://e/s> <http://e/n> {number} }}")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    store = Store.open(config.store)
    values = {int(q.object.value) for q in store.ox.quads_for_pattern(ox.NamedNode("http://e/s"), None, None,
                                                                       ox.DefaultGraph())}
    assert values == set(range(6)) and store.metadata["writes"] == 6
    assert_consistent(config)


def test_a_failed_commit_leaves_the_store_alone(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while writing the new version removes it; the link still points at the old one."""
    import kg.store.embedded

    version, before = config.store.resolve(), dump(config)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(kg.store.embedded, "fsync_tree", broken)
    with pytest.raises(OSError):
        Writer(config).update("INSERT DATA { <http://e/s> <http://e/p> 1 }")
    assert config.store.resolve() == version and dump(config) == before
    assert sorted(p.name for p in config.store.parent.glob("store.v*")) == [version.name]
    assert not edits_file(config.data).exists()


def test_version_metadata(config: Config) -> None:
    Writer(config).update("INSERT DATA { <http://e/s> <http://e/p> 1 }")
    metadata = json.loads((config.store.resolve() / "kg-build.json").read_text())
    assert metadata["writes"] == 1 and metadata["built_at"] and metadata["written_at"]
    assert metadata["triples"][f"{BASE}/graph/edits"] == 1


CRASHING_WRITE = """
import os, sys
from pathlib import Path
import kg.writes.writer as writes
from kg.config import Config

def crash(*args, **kwargs):
    os._exit(9)

if sys.argv[3] == "before-switch":
    writes.derive_version = crash
else:
    real = writes.derive_version
    def switch_then_crash(*args, **kwargs):
        real(*args, **kwargs)
        os._exit(9)
    writes.derive_version = switch_then_crash
writes.Writer(Config(data=Path(sys.argv[1]), store=Path(sys.argv[2]))).update(
    "INSERT DATA { <http://e/s> <http://e/p> 'crashed' }")
"""


@pytest.mark.parametrize("moment", ["before-switch", "after-switch"])
def test_a_crash_between_persisting_edits_and_the_switch(config: Config, moment: str) -> None:
    """A process dies right before (or right after) the store switch of a write whose edits are persisted: the
    edits that hold are those of the store that is served, for the next write and for a rebuild."""
    import subprocess
    import sys

    from kg.edits import current_edits_text

    Writer(config).update("INSERT DATA { <http://e/s> <http://e/p> 'first' }")
    process = subprocess.run([sys.executable, "-c", CRASHING_WRITE, str(config.data), str(config.store), moment],
                             capture_output=True, timeout=120)
    assert process.returncode == 9, process.stderr.decode()
    committed = moment == "after-switch"
    assert ("crashed" in edits_file(config.data).read_text()) and edits_file(config.data).with_suffix(
        ".nq.pending").exists()
    assert ("crashed" in (current_edits_text(config) or "")) is committed
    assert any(q.object.value == "crashed" for q in Store.open(config.store).quads()) is committed
    Writer(config).update("INSERT DATA { <http://e/s> <http://e/p> 'after' }")
    text = edits_file(config.data).read_text()
    assert "first" in text and "after" in text and ("crashed" in text) is committed
    assert not edits_file(config.data).with_suffix(".nq.pending").exists()
    build(config)
    values = {q.object.value for q in Store.open(config.store).quads(f"{BASE}/graph/edits")}
    assert values == ({"first", "after", "crashed"} if committed else {"first", "after"})
