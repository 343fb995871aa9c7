"""Old IRIs keep answering: a retitled work or a renamed person redirects (301) to its new IRI, a removed one answers
410 Gone, through incremental and full builds, from a graph outside the default graph that SPARQL can read."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.changes import EntityChange
from kg.changes.diff import Side
from kg.changes.moves import INVALIDATED, REPLACED_BY, carry, successors
from kg.config import Config
from kg.exports import Selection, selected_graphs
from kg.pipeline import build
from kg.server import create_app
from kg.store import Store

from .repo_data import copy_repo_data
from .server_process import kg_serve

BASE = "https://kg.example.org"
ID = f"{BASE}/id/"
MOVED = f"{BASE}/graph/changes/moved"
PROFILE = "profiles/ziheng-jiang.yaml"
TVM = "TVM: An Automated End-to-End Optimizing Compiler for Deep Learning"
TVM_NEW = "TVM: An Automated End-to-End Optimising Compiler for Deep Learning"
OLD_WORK = f"{ID}work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep"
NEW_WORK = f"{ID}work/tvm-an-automated-end-to-end-optimising-compiler-for-deep"
EDGE = "Efficient Deep Learning Inference on Edge Devices"
EDGE_WORK = f"{ID}work/efficient-deep-learning-inference-on-edge-devices"


def n(iri: str) -> ox.NamedNode:
    """A named node in the kg namespace or any other."""
    return ox.NamedNode(iri)


def t(s: str, p: str, o: str | ox.Literal) -> ox.Triple:
    """A triple of IRIs (or an IRI and a literal)."""
    return ox.Triple(n(s), n(p), o if isinstance(o, ox.Literal) else n(o))


def _pairs(triples: set[ox.Triple]) -> dict[str, str]:
    return {x.subject.value: x.object.value for x in triples if x.predicate == REPLACED_BY}  # type: ignore[union-attr]  # IRIs here, not RDF 1.2 triple terms


def _gone(triples: set[ox.Triple]) -> set[str]:
    return {x.subject.value for x in triples if x.predicate == INVALIDATED}  # type: ignore[union-attr]  # IRIs here, not RDF 1.2 triple terms


# --- the rules, on small graphs -------------------------------------------------------------------------------

SDO, KG, BIBO = "http://schema.org/", "https://kg.example.org/ontology#", "http://purl.org/ontology/bibo/"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def _work(iri: str, title: str, year: str, authors: list[str], doi: str | None = None) -> set[ox.Triple]:
    found = {t(iri, TYPE, SDO + "ScholarlyArticle"), t(iri, SDO + "name", ox.Literal(title)),
             t(iri, SDO + "datePublished", ox.Literal(year))}
    for rank, agent in enumerate(authors, 1):
        authorship = f"{iri}/authorship/{rank}"
        found |= {t(iri, KG + "authorship", authorship), t(authorship, KG + "agent", agent),
                  t(authorship, KG + "rank", ox.Literal(str(rank)))}
    if doi:
        found.add(t(iri, BIBO + "doi", ox.Literal(doi)))
    return found


def _side(triples: set[ox.Triple]) -> Side:
    store = ox.Store()
    store.extend(ox.Quad(x.subject, x.predicate, x.object, n(f"{BASE}/graph/profile/p")) for x in triples)
    return Side(store)


def _change(iri: str, status: str, kind: str = "work") -> EntityChange:
    return EntityChange(iri, kind, status, iri, 0, 0)


def test_a_shared_doi_pairs_works_whatever_their_titles() -> None:
    old = _side(_work(ID + "work/a", "Alpha", "2020", [ID + "person/x"], doi="10.1/ABC"))
    new = _side(_work(ID + "work/b", "Something else entirely", "2021", [ID + "person/y"], doi="10.1/abc"))
    found = successors(old, new, [_change(ID + "work/a", "removed"), _change(ID + "work/b", "added")])
    assert found == {ID + "work/a": ID + "work/b"}


def test_a_corrected_title_pairs_works_with_the_same_authors_and_year_only() -> None:
    authors = [ID + "person/x", ID + "person/y"]
    old = _side(_work(ID + "work/a", "Scaling graph workload", "2020", authors))
    same = _work(ID + "work/b", "Scaling graph workloads", "2020", authors)
    other_year = _work(ID + "work/c", "Scaling graph workloads", "2021", authors)
    other_order = _work(ID + "work/d", "Scaling graph workloads", "2020", authors[::-1])
    unlike = _work(ID + "work/e", "A survey of caches", "2020", authors)
    gone = _change(ID + "work/a", "removed")
    for triples, expected in ((same, {ID + "work/a": ID + "work/b"}), (other_year, {}), (other_order, {}),
                              (unlike, {})):
        came = next(x.subject.value for x in triples if x.predicate.value == TYPE)  # type: ignore[union-attr]  # IRIs here, not RDF 1.2 triple terms
        assert successors(old, _side(triples), [gone, _change(came, "added")]) == expected


def test_two_candidates_or_two_claimants_pair_nothing() -> None:
    authors = [ID + "person/x"]
    old = _side(_work(ID + "work/a", "Graph caching", "2020", authors)
                | _work(ID + "work/a2", "Graph caching!", "2020", authors))
    new = _side(_work(ID + "work/b", "Graph cachings", "2020", authors))
    changes = [_change(ID + "work/a", "removed"), _change(ID + "work/a2", "removed"), _change(ID + "work/b", "added")]
    assert successors(old, new, changes) == {}  # both old works would claim the new one
    new2 = _side(_work(ID + "work/b", "Graph cachings", "2020", authors)
                 | _work(ID + "work/c", "Graph cachinks", "2020", authors))
    changes = [_change(ID + "work/a", "removed"), _change(ID + "work/b", "added"), _change(ID + "work/c", "added")]
    assert successors(_side(_work(ID + "work/a", "Graph caching", "2020", authors)), new2, changes) == {}


def test_a_renamed_person_with_the_same_authorships_is_paired() -> None:
    old = _side(_work(ID + "work/a", "Alpha", "2020", [ID + "person/meghan-cowan"]))
    new = _side(_work(ID + "work/a", "Alpha", "2020", [ID + "person/meghan-cowen"]))
    changes = [_change(ID + "person/meghan-cowan", "removed", "person"),
               _change(ID + "person/meghan-cowen", "added", "person")]
    assert successors(old, new, changes) == {ID + "person/meghan-cowan": ID + "person/meghan-cowen"}


def test_carry_follows_chains_stamps_removals_and_drops_what_comes_back() -> None:
    stamp = "2026-12-02T00:00:00Z"
    first = carry(set(), {ID + "work/a": ID + "work/b"}, [ID + "work/a", ID + "work/gone", "https://elsewhere.org/x"],
                  [ID + "work/b"], stamp, BASE)
    assert _pairs(first) == {ID + "work/a": ID + "work/b"} and _gone(first) == {ID + "work/gone"}  # only minted IRIs
    second = carry(first, {ID + "work/b": ID + "work/c"}, [ID + "work/b"], [ID + "work/c"], stamp, BASE)
    assert _pairs(second) == {ID + "work/a": ID + "work/c", ID + "work/b": ID + "work/c"}
    back = carry(second, {ID + "work/c": ID + "work/a"}, [ID + "work/c"], [ID + "work/a"], stamp, BASE)
    assert _pairs(back) == {ID + "work/b": ID + "work/a", ID + "work/c": ID + "work/a"}
    removed = carry(back, {}, [ID + "work/a"], [], "2026-12-03T00:00:00Z", BASE)
    assert _pairs(removed) == {} and _gone(removed) == {ID + "work/a", ID + "work/b", ID + "work/c", ID + "work/gone"}
    kept = {x.object for x in removed if x.subject == n(ID + "work/gone")}
    assert kept == {ox.Literal(stamp, datatype=n("http://www.w3.org/2001/XMLSchema#dateTime"))}  # the first stamp


# --- real builds ----------------------------------------------------------------------------------------------


def _edit(data: Path, old: str, new: str) -> None:
    profile = data / PROFILE
    text = profile.read_text(encoding="utf-8")
    assert old in text
    profile.write_text(text.replace(old, new, 1), encoding="utf-8")


def _drop_publication(data: Path, title: str) -> None:
    profile = data / PROFILE
    text = profile.read_text(encoding="utf-8")
    start = text.index(f'  - title: "{title}"')
    end = text.find("\n  - title:", start + 1)
    profile.write_text(text[:start] + (text[end + 1:] if end != -1 else ""), encoding="utf-8")


def _moved(store_dir: Path) -> set[ox.Triple]:
    store = Store.open(store_dir)
    return {q.triple for q in store.ox.quads_for_pattern(None, None, None, n(MOVED))}


@pytest.fixture(params=["incremental", "full"])
def history(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The repository's data built, then TVM retitled, then a co-author renamed, then a paper removed."""
    monkeypatch.setattr("kg.pipeline.incremental.LARGE_CHANGE", 1.0 if request.param == "incremental" else 0.0)
    data, store = copy_repo_data(tmp_path / "data"), tmp_path / "store"
    lines: list[str] = []
    build(Config(data=data, store=store))
    _edit(data, TVM, TVM_NEW)
    build(Config(data=data, store=store), progress=lines.append)
    assert any(("incremental" in x) == (request.param == "incremental") for x in lines if x.startswith("reason"))
    assert _pairs(_moved(store)) == {OLD_WORK: NEW_WORK}
    _edit(data, "      - Meghan Cowan\n", "      - Meghan Cowen\n")
    build(Config(data=data, store=store))
    _drop_publication(data, EDGE)
    build(Config(data=data, store=store))
    yield tmp_path


@pytest.mark.slow  # the history fixture builds four times
def test_builds_keep_every_replacement_and_removal(history: Path) -> None:
    moved = _moved(history / "store")
    assert _pairs(moved) == {OLD_WORK: NEW_WORK, f"{ID}person/meghan-cowan": f"{ID}person/meghan-cowen"}
    assert EDGE_WORK in _gone(moved) and not _gone(moved) & set(_pairs(moved))
    store = Store.open(history / "store")
    assert not store.query(f"ASK {{ <{OLD_WORK}> ?p ?o }}")  # outside the default graph's merge
    assert store.query(f"ASK {{ GRAPH <{MOVED}> {{ <{OLD_WORK}> <http://purl.org/dc/terms/isReplacedBy> ?new }} }}")
    assert MOVED not in store.graph_names() and MOVED in selected_graphs(store, Selection.CHANGES)


@pytest.mark.slow  # the history fixture builds four times
def test_the_title_put_back_takes_its_iri_back(history: Path) -> None:
    data, store = history / "data", history / "store"
    _edit(data, TVM_NEW, TVM)
    build(Config(data=data, store=store))
    assert _pairs(_moved(store)) == {NEW_WORK: OLD_WORK, f"{ID}person/meghan-cowan": f"{ID}person/meghan-cowen"}


@pytest.mark.slow  # the history fixture builds four times
def test_old_iris_answer_301_and_removed_ones_410(history: Path) -> None:
    client = create_app(Config(data=history / "data", store=history / "store", query_workers=0)).test_client()
    old, new = OLD_WORK[len(ID):], NEW_WORK[len(ID):]
    for url, location in ((f"/id/{old}", f"/id/{new}"), (f"/page/{old}", f"/page/{new}"),
                          (f"/data/{old}.ttl", f"/data/{new}.ttl"),
                          (f"/data/{old}?format=nt", f"/data/{new}?format=nt"),
                          (f"/id/{old}/authorship/3", f"/id/{new}/authorship/3"), (f"/bib/{old}", f"/bib/{new}")):
        response = client.get(url)
        assert (response.status_code, response.headers["Location"]) == (301, location), url
    assert client.get(f"/id/{new}/authorship/3").status_code == 303
    assert client.get(f"/id/{old}").headers["Access-Control-Allow-Origin"] == "*"
    gone = EDGE_WORK[len(ID):]
    text = client.get(f"/id/{gone}")
    assert text.status_code == 410 and "410 Gone" in text.get_data(as_text=True) and "removed" in text.get_data(
        as_text=True)
    page = client.get(f"/page/{gone}", headers={"Accept": "text/html"})
    assert page.status_code == 410 and "<h1 id=\"nf-heading\">Gone</h1>" in page.get_data(as_text=True)
    assert client.get(f"/data/{gone}.ttl", headers={"Accept": "application/json"}).get_json()["error"] == "Gone"
    assert client.get("/id/work/never-was").status_code == 404


def test_a_real_server_redirects_an_old_iri(tmp_path: Path) -> None:
    data, store = copy_repo_data(tmp_path / "data"), tmp_path / "store"
    build(Config(data=data, store=store))
    _edit(data, TVM, TVM_NEW)
    build(Config(data=data, store=store))
    with kg_serve(data, store) as url:
        request = urllib.request.Request(f"{url}/page/{OLD_WORK[len(ID):]}", headers={"Accept": "text/html"})
        with urllib.request.urlopen(request, timeout=10) as response:  # follows the 301
            assert response.url == f"{url}/page/{NEW_WORK[len(ID):]}" and TVM_NEW in response.read().decode()
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(f"{url}/id/work/never-was", timeout=10)
        assert error.value.code == 404
        error.value.close()


@pytest.mark.slow  # the history fixture builds four times
def test_the_changes_page_lists_each_build_s_replacements(history: Path) -> None:
    client = create_app(Config(data=history / "data", store=history / "store", query_workers=0)).test_client()
    builds = client.get("/changes", headers={"Accept": "application/json"}).get_json()["builds"]
    assert [b["replaced"] for b in builds] == [{}, {f"{ID}person/meghan-cowan": f"{ID}person/meghan-cowen"},
                                               {OLD_WORK: NEW_WORK}, {}]
    page = client.get("/changes", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert f'<code>{OLD_WORK}</code> → <a href="/page/{NEW_WORK[len(ID):]}">' in page


@pytest.mark.slow  # the history fixture builds four times
def test_an_http_write_keeps_the_record_and_cannot_write_it(history: Path) -> None:
    token = "moves-test-token"
    app = create_app(Config(data=history / "data", store=history / "store", query_workers=0, write_token=token))
    client = app.test_client()
    auth = {"Authorization": f"Bearer {token}"}
    before = _moved(history / "store")
    done = client.post("/sparql", data=f'INSERT DATA {{ <{NEW_WORK}> <http://schema.org/keywords> "compilers" }}',
                       content_type="application/sparql-update", headers=auth)
    assert done.status_code in (200, 204), done.data
    assert _moved(history / "store") == before and client.get(f"/id/{OLD_WORK[len(ID):]}").status_code == 301
    refused = client.post("/sparql", data=f"INSERT DATA {{ GRAPH <{MOVED}> {{ <{ID}work/x> <{REPLACED_BY.value}> "
                                          f"<{ID}work/y> }} }}", content_type="application/sparql-update",
                          headers=auth)
    assert refused.status_code in (400, 403), refused.data
    assert _moved(history / "store") == before


@pytest.mark.slow  # the history fixture builds four times
def test_kg_diff_names_the_replacement_too(history: Path) -> None:
    from click.testing import CliRunner

    from kg.cli import main

    _edit(history / "data", TVM_NEW, TVM)
    build(Config(data=history / "data", store=history / "store"))
    result = CliRunner().invoke(main, ["diff", "--store", str(history / "store"), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["replaced"] == {NEW_WORK: OLD_WORK}
