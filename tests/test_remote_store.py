"""The seed graph built into real remote stores (Oxigraph server, Virtuoso) answers like the embedded store.

Each engine is started by tests/engines.py on 127.0.0.1. The comparison covers the graphs themselves, the
26 repository questions, the README's example queries over HTTP, the linked-data pages and the exports;
then the push's guarantees (idempotent, atomic, nothing left behind on failure) and the endpoint's own
checks in front of the remote engine.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from rdflib import Dataset, Graph

from kg.config import PROJECT_ROOT, Config
from kg.errors import BuildError
from kg.exports import export
from kg.iris import RemoteNames
from kg.pipeline import build
from kg.server import create_app
from kg.store import Store
from kg.store.client import SparqlClient
from kg.store.push import pending_graphs, staging_graphs
from kg.store.remote import RemoteStore, read_manifest

from .conftest import REPO_DATA, assert_isomorphic
from .engines import Engine, clear
from .repo_data import copy_repo_data
from .server_process import kg_serve

pytestmark = pytest.mark.real  # the tests run the Oxigraph server and Virtuoso (tests/engines.py, tests/conftest.py)

ENGINES = ["oxigraph", "virtuoso"]
OTHER_BASE = "https://other.example.org"


def remote_config(engine: Engine, workdir: Path, **overrides: Any) -> Config:
    """A configuration that builds into and serves from the engine."""
    values: dict[str, Any] = dict(data=REPO_DATA, store=workdir / "store", store_url=engine.query_url,
                                  store_update_url=engine.update_url, store_gsp_url=engine.gsp_url,
                                  store_user=engine.user, store_password=engine.password,
                                  store_auth=engine.auth or "basic", query_workers=0)
    values.update(overrides)
    return Config(**values)


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    """A running engine, emptied once for this module."""
    started: Engine = request.getfixturevalue(f"{request.param}_engine")
    clear(started)
    return started


@pytest.fixture(scope="module")
def remote_config_built(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Config:
    """The repository's data built into the engine."""
    config = remote_config(engine, tmp_path_factory.mktemp(f"remote-{engine.name}"))
    build(config)
    return config


@pytest.fixture(scope="module")
def remote_store(remote_config_built: Config) -> RemoteStore:
    """The remote build, opened."""
    return RemoteStore.open(remote_config_built)


def _app(config: Config) -> Any:
    application = create_app(config)
    application.config["TESTING"] = True
    return application.test_client()


# --- the same graphs --------------------------------------------------------------------------------------

def test_graphs_are_the_embedded_graphs(remote_store: RemoteStore, store: Store) -> None:
    assert remote_store.graph_names() == store.graph_names()
    for name in store.graph_names():
        assert_isomorphic(remote_store.rdflib_graph(name), store.rdflib_graph(name))
    assert_isomorphic(remote_store.rdflib_graph(), store.rdflib_graph())


def _repository_questions() -> list[Any]:
    path = Path(__file__).with_name("test_repo_data.py")
    spec = importlib.util.spec_from_file_location("repo_questions", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [fn for name, fn in sorted(vars(module).items())
            if name.startswith("test_q") and list(inspect.signature(fn).parameters) == ["store"]]


@pytest.mark.parametrize("question", _repository_questions(), ids=lambda fn: fn.__name__[5:8])
def test_repository_questions_answer_on_the_remote(remote_store: RemoteStore, question: Any) -> None:
    question(remote_store)


def _readme_queries() -> list[str]:
    readme = (PROJECT_ROOT / "docs" / "queries.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sparql\n(.*?)```", readme, flags=re.S)
    return [blocks[0] + q for q in blocks[1:]]


def _rows(body: bytes) -> list[tuple[tuple[str, str], ...]]:
    """SPARQL JSON rows as sorted tuples, blank-node labels blanked out."""
    data = json.loads(body)
    rows = []
    for binding in data["results"]["bindings"]:
        cells = []
        for name, term in sorted(binding.items()):
            value = "_:" if term["type"] == "bnode" else term["value"]
            cells.append((name, f"{value}|{term.get('xml:lang', '')}|{term.get('datatype', '')}"))
        rows.append(tuple(cells))
    return sorted(rows)


def _plain_string(rows: list[tuple[tuple[str, str], ...]]) -> list[tuple[tuple[str, str], ...]]:
    """Rows with xsd:string datatypes dropped (RDF 1.1: the same literal, which some engines spell out)."""
    marker = "|http://www.w3.org/2001/XMLSchema#string"
    return sorted(tuple((n, v[: -len(marker)] + "|" if v.endswith(marker) else v) for n, v in row) for row in rows)


def test_readme_queries_give_the_same_rows_over_http(remote_config_built: Config, client: FlaskClient) -> None:
    remote = _app(remote_config_built)
    for query in _readme_queries():
        headers = {"Accept": "application/sparql-results+json"}
        expected = client.post("/sparql", data={"query": query}, headers=headers)
        actual = remote.post("/sparql", data={"query": query}, headers=headers)
        assert actual.status_code == expected.status_code == 200, actual.get_data(as_text=True)
        assert _plain_string(_rows(actual.data)) == _plain_string(_rows(expected.data)), query


def test_typed_values_come_back_as_stored(remote_config_built: Config, client: FlaskClient) -> None:
    query = ("SELECT ?a ?v WHERE { ?a <https://kg.example.org/ontology#precededByElision> ?v } ORDER BY ?a")
    remote = _app(remote_config_built)
    headers = {"Accept": "application/sparql-results+json"}
    expected = client.post("/sparql", data={"query": query}, headers=headers)
    actual = remote.post("/sparql", data={"query": query}, headers=headers)
    rows = _rows(expected.data)
    assert rows and all(cell.startswith("true|") for row in rows for name, cell in row if name == "v")
    assert _rows(actual.data) == rows


def test_construct_gives_the_same_graph(remote_config_built: Config, client: FlaskClient) -> None:
    query = ("PREFIX bibo: <http://purl.org/ontology/bibo/> CONSTRUCT { ?w bibo:authorList ?l . ?l ?p ?o } "
             "WHERE { ?w bibo:authorList ?l . ?l ?p ?o }")
    remote = _app(remote_config_built)
    for accept, fmt in (("text/turtle", "turtle"), ("application/n-triples", "nt"), ("application/ld+json", "json-ld")):
        expected = client.post("/sparql", data={"query": query}, headers={"Accept": accept})
        actual = remote.post("/sparql", data={"query": query}, headers={"Accept": accept})
        assert actual.status_code == 200 and actual.mimetype == expected.mimetype
        assert_isomorphic(Graph().parse(data=actual.data, format=fmt), Graph().parse(data=expected.data, format=fmt))


PAGES = ["/page/person/wencong-xiao", "/page/person/ziheng-jiang", "/page/organization/bytedance",
         "/page/venue/neurips", "/search?q=cluster", "/data/person/wencong-xiao.ttl", "/ontology"]


def _page_paths(store: Store) -> list[str]:
    rows = store.query("SELECT ?w WHERE { ?w a <http://schema.org/ScholarlyArticle> } ORDER BY ?w LIMIT 3")
    return PAGES + ["/page/" + row[0].value.split("/id/", 1)[1] for row in rows]


def _found(page: str) -> set[str]:
    """The pages a search results page links to."""
    return set(re.findall(r'href="(/page/[^"#?]+)"', page.split("<main", 1)[-1]))


def test_pages_are_the_same(remote_config_built: Config, client: FlaskClient, store: Store) -> None:
    remote = _app(remote_config_built)
    for path in _page_paths(store):
        expected, actual = client.get(path), remote.get(path)
        assert actual.status_code == expected.status_code == 200, path
        if path.endswith(".ttl"):
            assert_isomorphic(Graph().parse(data=actual.data, format="turtle"),
                              Graph().parse(data=expected.data, format="turtle"))
        elif path.startswith("/search"):  # no full-text index on a remote store: names and titles by substring,
            found = _found(actual.get_data(as_text=True))  # which the index (research areas too) finds as well
            assert set() != found <= _found(expected.get_data(as_text=True)), path
        else:
            assert actual.get_data(as_text=True) == expected.get_data(as_text=True), path


def test_exports_are_the_same_dataset(remote_store: RemoteStore, store: Store) -> None:
    remote, embedded = Dataset(), Dataset()
    remote.parse(data=export(remote_store, "nq"), format="nquads")
    embedded.parse(data=export(store, "nq"), format="nquads")
    names = sorted(str(g.identifier) for g in embedded.graphs() if len(g))
    assert sorted(str(g.identifier) for g in remote.graphs() if len(g)) == names
    for name in names:
        assert_isomorphic(remote.graph(name), embedded.graph(name))
    assert_isomorphic(Graph().parse(data=export(remote_store, "turtle"), format="turtle"),
                      Graph().parse(data=export(store, "turtle"), format="turtle"))


# --- the push --------------------------------------------------------------------------------------------

def _other(engine: Engine, tmp_path: Path, **overrides: Any) -> Config:
    return remote_config(engine, tmp_path, base=OTHER_BASE, **overrides)


def test_push_twice_uploads_nothing_the_second_time(engine: Engine, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    config = _other(engine, tmp_path)
    build(config)
    first = RemoteStore.open(config).manifest
    uploads: list[str] = []
    real = SparqlClient.upload
    monkeypatch.setattr(SparqlClient, "upload", lambda self, graph, *a, **k: uploads.append(graph) or
                        real(self, graph, *a, **k))
    build(config)
    second = RemoteStore.open(config).manifest
    assert uploads == [] and second.version != first.version
    assert second.graphs == first.graphs and second.merged == first.merged


def test_failed_push_leaves_the_previous_build(engine: Engine, tmp_path: Path, store: Store,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    config = _other(engine, tmp_path, data=tmp_path / "data")
    _copy_data(tmp_path / "data")
    build(config)
    before = RemoteStore.open(config)
    (tmp_path / "data" / "profiles" / "wencong-xiao.yaml").unlink()
    calls = {"n": 0}
    real = SparqlClient.upload

    def failing(self: SparqlClient, graph: str, *args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("connection reset (simulated)")
        real(self, graph, *args, **kwargs)

    monkeypatch.setattr(SparqlClient, "upload", failing)
    with pytest.raises(BuildError, match="previous build still serves"):
        build(config)
    after = RemoteStore.open(config)
    assert after.manifest.version == before.manifest.version
    assert after.graph_names() == before.graph_names()
    assert staging_graphs(after.client, RemoteNames(OTHER_BASE)) == []
    monkeypatch.setattr(SparqlClient, "upload", real)
    build(config)
    rebuilt = RemoteStore.open(config)
    assert not any(name.endswith("/wencong-xiao") for name in rebuilt.graph_names())
    count = rebuilt.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert int(next(iter(count))[0].value) == rebuilt.manifest.merged["triples"] < before.manifest.merged["triples"]


def test_a_push_killed_mid_upload_is_cleaned_up_by_the_next(engine: Engine, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    config = _other(engine, tmp_path, data=tmp_path / "data")
    _copy_data(tmp_path / "data")
    build(config)
    before = RemoteStore.open(config).manifest.version
    (tmp_path / "data" / "profiles" / "ziheng-jiang.yaml").unlink()
    real = SparqlClient.upload

    def killed(self: SparqlClient, graph: str, *args: Any, **kwargs: Any) -> None:
        real(self, graph, *args, **kwargs)
        raise KeyboardInterrupt  # like kill -9: no clean-up runs

    monkeypatch.setattr(SparqlClient, "upload", killed)
    with pytest.raises(KeyboardInterrupt):
        build(config)
    store = RemoteStore.open(config)
    assert store.manifest.version == before
    assert len(staging_graphs(store.client, RemoteNames(OTHER_BASE))) == 1
    monkeypatch.setattr(SparqlClient, "upload", real)
    build(config)
    assert staging_graphs(store.client, RemoteNames(OTHER_BASE)) == []
    assert pending_graphs(store.client, RemoteNames(OTHER_BASE)) == []


def test_readers_see_the_old_build_or_the_new_one(engine: Engine, tmp_path: Path) -> None:
    config = _other(engine, tmp_path, data=tmp_path / "data")
    _copy_data(tmp_path / "data")
    build(config)
    full = RemoteStore.open(config).manifest.merged["triples"]
    (tmp_path / "data" / "profiles" / "ziheng-jiang.yaml").unlink()
    seen: set[int] = set()
    done = threading.Event()

    errors: list[str] = []

    def read() -> None:  # as the endpoint does: follow the manifest, query the default graph
        while not done.is_set():
            try:
                answer = RemoteStore.open(config).query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
                seen.add(int(next(iter(answer))[0].value))
                del answer  # pyoxigraph results must be dropped in the thread that made them
            except Exception as error:  # noqa: BLE001 - reported below, in the test's thread
                errors.append(repr(error))
                return

    reader = threading.Thread(target=read)
    reader.start()
    try:
        build(config)
        after = RemoteStore.open(config)
        still = after.client.query(f"ASK {{ GRAPH <{after.manifest.retired[0]}> {{ ?s ?p ?o }} }}",
                                   accept="application/sparql-results+json")
        assert b"true" in still.body, "the previous merge must stay for readers until the next push"
    finally:
        done.set()
        reader.join()
    smaller = RemoteStore.open(config).manifest.merged["triples"]
    assert not errors, errors
    assert seen <= {full, smaller} and smaller < full and full in seen


def _copy_data(target: Path) -> None:

    copy_repo_data(target, edits=False)


# --- the endpoint in front --------------------------------------------------------------------------------

def test_endpoint_keeps_its_checks_in_front(remote_config_built: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[str] = []
    real = SparqlClient.query
    monkeypatch.setattr(SparqlClient, "query", lambda self, text, **k: sent.append(text) or real(self, text, **k))
    small = _app(Config(**{**remote_config_built.__dict__, "max_results": 3}))
    refused = small.get("/sparql", query_string={"query": "SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"})
    assert refused.status_code == 400 and "SERVICE" in refused.get_data(as_text=True)
    too_many = small.get("/sparql", query_string={"query": "SELECT ?s WHERE { ?s ?p ?o }"})
    assert too_many.status_code == 400 and "LIMIT" in too_many.get_data(as_text=True)
    assert not any("SERVICE" in text for text in sent)
    query = "SELECT ?n WHERE { ?p a schema:Person ; schema:name ?n } ORDER BY ?n LIMIT 2"
    first = small.get("/sparql", query_string={"query": query}, headers={"Accept": "text/csv"})
    forwarded = len(sent)
    again = small.get("/sparql", query_string={"query": query}, headers={"Accept": "text/csv"})
    assert first.status_code == again.status_code == 200 and first.data == again.data
    assert len(sent) == forwarded, "a repeated query was not answered from the result cache"
    assert small.post("/sparql", data={"update": "CLEAR ALL"}).status_code == 403


def test_remote_refusal_is_a_clear_error(remote_config_built: Config) -> None:
    wrong = Config(**{**remote_config_built.__dict__, "store_url": remote_config_built.store_url + "-missing"})
    response = _app(wrong).get("/sparql", query_string={"query": "ASK { ?s ?p ?o }"})
    assert response.status_code in (502, 503)
    assert "remote store" in response.get_data(as_text=True)


def test_manifest_names_the_build(remote_store: RemoteStore, remote_config_built: Config) -> None:
    manifest = read_manifest(remote_store.client, RemoteNames(remote_config_built.base))
    assert manifest is not None and manifest.metadata["profiles"] == 2
    assert {name for name in manifest.graphs} == set(remote_store.graph_names())
    assert manifest.merged["triples"] == sum(1 for _ in remote_store.default_triples())


# --- guarded writes on the remote store ---------------------------------------------------------------------

def test_guarded_writes_commit_to_the_remote_store(engine: Engine, tmp_path: Path) -> None:
    _copy_data(tmp_path / "data")
    config = _other(engine, tmp_path, data=tmp_path / "data", write_token="secret")
    build(config)
    site = _app(config)
    person = f"<{OTHER_BASE}/id/person/wencong-xiao>"
    auth = {"Authorization": "Bearer secret", "Accept": "application/json"}
    ask = f"ASK {{ {person} <http://schema.org/knowsAbout> 'Graph databases' }}"

    def answer() -> bool:
        response = site.get("/sparql", query_string={"query": ask}, headers={"Accept": "application/json"})
        return bool(json.loads(response.data)["boolean"])

    assert not answer()
    before = RemoteStore.open(config).manifest
    rejected = site.post("/sparql", data={"update": f"INSERT DATA {{ {person} <http://schema.org/name> 'Else' }}"},
                         headers=auth)
    assert rejected.status_code == 422, rejected.data
    assert RemoteStore.open(config).manifest.version == before.version
    accepted = site.post("/sparql", data={"update": f"INSERT DATA {{ {person} <http://schema.org/knowsAbout> "
                                                    "'Graph databases' }"}, headers=auth)
    assert accepted.status_code == 200 and accepted.json["added"] == 1, accepted.data
    assert answer(), "the write is not visible through the endpoint right after it"
    after = RemoteStore.open(config)
    assert after.manifest.version != before.version
    assert (tmp_path / "data" / "edits" / "edits.nq").exists()
    graph = f"{OTHER_BASE}/graph/notes"
    body = f"<{OTHER_BASE}/id/note/1> <http://www.w3.org/2000/01/rdf-schema#label> \"a note\"@en .\n"
    put = site.put("/store", query_string={"graph": graph}, data=body, content_type="application/n-triples",
                   headers={"Authorization": "Bearer secret"})
    assert put.status_code == 201, put.data
    got = site.get("/store", query_string={"graph": graph}, headers={"Accept": "application/n-triples"})
    assert got.status_code == 200
    assert_isomorphic(Graph().parse(data=got.data, format="nt"), Graph().parse(data=body, format="nt"))
    assert graph in RemoteStore.open(config).graph_names()
    build(config)
    assert answer(), "kg build did not replay the accepted edit"
    assert graph in RemoteStore.open(config).graph_names(), "kg build did not replay the uploaded graph"


def test_kg_serve_process_in_front_of_the_remote_store(remote_config_built: Config, engine: Engine) -> None:
    import requests

    env = {"KG_STORE_UPDATE_URL": engine.update_url, "KG_STORE_GSP_URL": engine.gsp_url,
           "KG_STORE_USER": engine.user, "KG_STORE_PASSWORD": engine.password,
           "KG_STORE_AUTH": engine.auth or "basic", "KG_CACHE_BYTES": "0"}
    with kg_serve(REPO_DATA, remote_config_built.store, "--store-url", engine.query_url, "--workers", "1",
                  env=env) as url:
        answer = requests.get(f"{url}/sparql", params={"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"},
                              headers={"Accept": "application/sparql-results+json"}, timeout=30)
        assert answer.status_code == 200
        count = int(answer.json()["results"]["bindings"][0]["n"]["value"])
        assert count == RemoteStore.open(remote_config_built).manifest.merged["triples"]
        page = requests.get(f"{url}/page/person/ziheng-jiang", timeout=30)
        assert page.status_code == 200 and "Ziheng Jiang" in page.text
        assert requests.get(f"{url}/health", timeout=30).json()["status"] == "ok"
