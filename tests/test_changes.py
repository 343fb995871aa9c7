"""What changed: kg build prints it per entity, kg diff compares kept versions, /changes lists it, and each build's
record is a named graph the SPARQL endpoint answers from (outside the default graph, the dumps and VoID)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from kg.changes.rdf import when
from kg.config import PROJECT_ROOT, Config
from kg.exports import Selection, export, selected_graphs
from kg.store import Store

from .repo_data import copy_repo_data
from .server_process import kg_serve

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)

WORK = "https://kg.example.org/id/work/megascale-scaling-large-language-model-training-to-more"
PROFILE = "profiles/ziheng-jiang.yaml"
OLD_VENUE = '"21st USENIX Symposium on Networked Systems Design and Implementation (NSDI), 2024."'


def kg(*args: str) -> subprocess.CompletedProcess[str]:
    """Run this checkout's kg command."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "kg", *args], capture_output=True, text=True, env=env, check=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A real build of the repository's data, an edit of one work, a rebuild: the root and both outputs."""
    root = tmp_path_factory.mktemp("changes")
    data, store = copy_repo_data(root / "data"), root / "store"
    first = kg("build", "--data", str(data), "--store", str(store))
    assert first.returncode == 0, first.stderr
    profile = data / PROFILE
    text = profile.read_text(encoding="utf-8")
    assert OLD_VENUE in text
    profile.write_text(text.replace(OLD_VENUE, '"NSDI 2024, Santa Clara"'), encoding="utf-8")
    second = kg("build", "--data", str(data), "--store", str(store))
    assert second.returncode == 0, second.stderr
    return {"root": root, "data": data, "store": store, "first": first.stdout, "second": second.stdout}


def _change_lines(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("changes"))
    return lines[start:]


def test_a_first_build_counts_what_it_added(built: dict[str, object]) -> None:
    heading = _change_lines(str(built["first"]))[0]
    assert heading.startswith("changes: first build: ") and " people, " in heading and " works, " in heading


def test_the_rebuild_names_the_edited_work_and_its_counts(built: dict[str, object]) -> None:
    lines = _change_lines(str(built["second"]))
    assert str(built["second"]).index("violations:") < str(built["second"]).index(lines[0])  # after the summary
    assert lines[0] == "changes since store.v1: 1 work changed; 2 triples added, 2 removed"
    (line,) = [line for line in lines[1:] if WORK in line]
    assert line.split()[:2] == ["changed", "work"] and "MegaScale: Scaling Large Language Model" in line
    assert "+1 -1" in line  # kg:venueAsWritten replaced; the other pair is the source file's hash, no entity's


def test_kg_diff_prints_the_same_change_as_text_and_json(built: dict[str, object]) -> None:
    store = str(built["store"])
    text = kg("diff", "--store", store)
    assert text.returncode == 0, text.stderr
    heading = "changes from store.v1 to store.v2: 1 work changed; 2 triples added, 2 removed"
    assert text.stdout.splitlines()[0] == heading
    assert text.stdout.splitlines()[1:] == _change_lines(str(built["second"]))[1:]
    explicit = kg("diff", "--store", store, "v1", "2", "--format", "json")
    document = json.loads(explicit.stdout)
    assert (document["from_version"], document["to_version"]) == ("store.v1", "store.v2")
    assert document["counts"] == {"work": {"changed": 1}}
    assert document["entities"] == [{"iri": WORK, "kind": "work", "status": "changed", "triples_added": 1,
                                     "triples_removed": 1, "label": document["entities"][0]["label"]}]
    reverse = json.loads(kg("diff", "--store", store, "2", "1", "--format", "json").stdout)
    assert reverse["entities"][0]["triples_added"] == 1 and reverse["triples_removed"] == 2
    missing = kg("diff", "--store", store, "v9")
    assert missing.returncode == 1 and "kept: store.v1, store.v2" in missing.stderr


def test_the_changes_page_lists_the_builds_with_links(built: dict[str, object]) -> None:
    from kg.server import create_app

    config = Config(data=Path(str(built["data"])), store=Path(str(built["store"])), query_workers=0)
    client = create_app(config).test_client()
    home = client.get("/", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert 'href="/changes"' in home
    page = client.get("/changes", headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.content_type.startswith("text/html")
    body = page.get_data(as_text=True)
    assert f'href="/page/work/{WORK.rsplit("/", 1)[1]}"' in body and "1 work changed" in body
    listing = client.get("/changes", headers={"Accept": "application/json"}).get_json()
    newest, first = listing["builds"]
    assert newest["entities"][0]["iri"] == WORK and newest["previous_build_id"] == first["build_id"]
    assert first["first_build"] and when(newest["ended_at"]) > when(first["ended_at"])
    assert newest["graph"] == f"https://kg.example.org/graph/changes/{newest['build_id']}"
    turtle = client.get(f"/changes/{newest['build_id']}", headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200 and b"schema:UpdateAction" in turtle.data
    assert client.get("/changes/nope", headers={"Accept": "application/json"}).status_code == 404


def test_the_changes_page_over_a_real_server(built: dict[str, object]) -> None:
    with kg_serve(Path(str(built["data"])), Path(str(built["store"]))) as url:
        request = urllib.request.Request(f"{url}/changes", headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.headers["Content-Type"].startswith("application/json")
            builds = json.loads(response.read())["builds"]
        request = urllib.request.Request(f"{url}/changes", headers={"Accept": "text/html"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert "Recent changes" in response.read().decode("utf-8")
    assert [len(b["entities"]) for b in builds] == [1, 0]


def test_each_build_is_a_named_graph_sparql_answers_from(built: dict[str, object]) -> None:
    store = Store.open(Path(str(built["store"])))
    rows = list(store.query(f"""
        PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX schema: <http://schema.org/>
        PREFIX kg: <https://kg.example.org/ontology#> PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?g ?start ?end ?added ?removed WHERE {{ GRAPH ?g {{
            ?build a prov:Activity ; prov:startedAtTime ?start ; prov:endedAtTime ?end ; prov:generated ?version ;
                   prov:used ?previous .
            ?record a schema:UpdateAction ; schema:object <{WORK}> ; dcterms:isPartOf ?build ;
                    dcterms:type schema:ScholarlyArticle ; kg:triplesAdded ?added ;
                    kg:triplesRemoved ?removed }} }}"""))
    assert len(rows) == 1 and (rows[0]["added"].value, rows[0]["removed"].value) == ("1", "1")
    assert when(rows[0]["start"].value) < when(rows[0]["end"].value)
    assert len(store.log_graph_names()) == 2 and not set(store.log_graph_names()) & set(store.graph_names())
    assert not store.query("ASK { ?s <http://www.w3.org/ns/prov#endedAtTime> ?o }")  # not in the default graph
    assert selected_graphs(store, Selection.CHANGES) == store.log_graph_names()
    assert b"endedAtTime" not in export(store, "nq") and b"endedAtTime" in export(store, "nq", Selection.CHANGES)
    assert sum(store.metadata["triples"].values()) == sum(store.triple_count(g) for g in store.graph_names())


def test_a_failed_build_leaves_no_change_entry(built: dict[str, object], tmp_path: Path) -> None:
    root = Path(str(built["root"]))
    store_dir = tmp_path / "store"
    for version in ("store.v1", "store.v2"):
        subprocess.run(["cp", "-a", str(root / version), str(tmp_path / version)], check=True)
    store_dir.symlink_to("store.v2")
    data = tmp_path / "data"
    subprocess.run(["cp", "-a", str(built["data"]), str(data)], check=True)
    profile = data / PROFILE
    profile.write_text(profile.read_text(encoding="utf-8") + "  - title: [unclosed\n", encoding="utf-8")
    before = Store.open(store_dir).log_graph_names()
    failed = kg("build", "--data", str(data), "--store", str(store_dir))
    assert failed.returncode != 0 and "changes" not in failed.stdout
    assert os.readlink(store_dir) == "store.v2" and Store.open(store_dir).log_graph_names() == before


def test_an_http_write_keeps_the_records_outside_the_data(built: dict[str, object], tmp_path: Path) -> None:
    from kg.writes import Writer

    store_dir = tmp_path / "store"
    subprocess.run(["cp", "-a", str(Path(str(built["root"])) / "store.v2"), str(tmp_path / "store.v2")], check=True)
    store_dir.symlink_to("store.v2")
    data = copy_repo_data(tmp_path / "data")
    before = Store.open(store_dir).log_graph_names()
    Writer(Config(data=data, store=store_dir)).update("INSERT DATA { <http://e/s> <http://e/p> 1 }")
    after = Store.open(store_dir)
    assert after.log_graph_names() == before and "graph_ids" not in after.metadata
    assert not after.query("ASK { ?s <http://www.w3.org/ns/prov#endedAtTime> ?o }")
    assert set(after.metadata["triples"]) == set(after.graph_names())
