"""kg fetch against a real HTTP server on 127.0.0.1 answering with recorded responses of the real shapes: the files
land in data/records/<source>/ with their provenance, a build reads them, a person's works are followed, errors
name the identifier, URL and fix, a rerun resumes, and --refresh prints what changed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main

from .fetch_server import Apis, Reply, fixture, ok, serving

J = "0000-0002-1825-0097"
A = "A5000000042"
PAGE2, PAGE3 = "IlsxMjM0XSI=", "IlsxMjM1XSI="


def healthy(apis: Apis) -> None:
    """Every source answering as it should."""
    apis.route(f"/orcid/v3.0/{J}/record", ok(f"orcid_record_{J}.json"))
    apis.route(f"/orcid/v3.0/{J}/works/1001,1003,1005", ok(f"orcid_bulk_{J}.json"))
    apis.route(f"/openalex/authors/{A}", ok(f"openalex_{A}.json"))
    apis.route("/openalex/works|cursor=*", ok(f"openalex_works_{A}_page1.json"))
    apis.route(f"/openalex/works|cursor={PAGE2}", ok(f"openalex_works_{A}_page2.json"))
    apis.route(f"/openalex/works|cursor={PAGE3}", ok(f"openalex_works_{A}_page3.json"))
    apis.route("/openalex/works/W2121398592", ok("openalex_W2121398592.json"))
    apis.route("/dblp/pid/95/7448-1.xml", Reply(200, fixture("dblp_95-7448-1.xml"), {
        "Content-Type": "application/xml", "Last-Modified": "Tue, 26 Nov 2019 10:00:00 GMT"}))
    apis.route("/crossref/works/10.7554/elife.01567", ok("crossref_10.7554-elife.01567.json", **{
        "x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"}))
    apis.route("/crossref/works/10.6084/m9.figshare.1449060", Reply(404, b"Resource not found."))
    apis.route("/datacite/dois/10.6084/m9.figshare.1449060", ok("datacite_10.6084-m9.figshare.1449060.json"))
    apis.route("/wikidata/Q44782775.json", ok("wikidata_Q44782775.json"))
    apis.route("/ror/v2/organizations/05gq02987", ok("ror_05gq02987.json"))


@pytest.fixture()
def apis() -> Iterator[Apis]:
    """The recorded APIs on a free port of 127.0.0.1."""
    with serving() as server:
        healthy(server)
        yield server


def kg(apis: Apis, *args: str, **env: str) -> tuple[int, str, str]:
    """Run kg with the settings pointing at the local server; exit code, stdout, stderr."""
    result = CliRunner().invoke(main, list(args), env={**apis.environment(), **env}, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def manifest(data: Path, source: str) -> dict[str, dict[str, str]]:
    """A source folder's provenance manifest."""
    return json.loads((data / "records" / source / ".fetched.json").read_text(encoding="utf-8"))["records"]


def test_an_orcid_person_brings_their_full_works_one_per_doi(apis: Apis, tmp_path: Path) -> None:
    code, out, err = kg(apis, "fetch", f"orcid:{J}", "--data", str(tmp_path))
    assert code == 0, err
    folder = tmp_path / "records" / "orcid"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("[!.]*.json")) == [
        f"{J}.json", f"{J}/1001.json", f"{J}/1003.json", f"{J}/1005.json"]
    # one bulk call for the three groups left once 1002 (same group) and 1004 (same DOI, another group) are dropped
    assert apis.paths() == [f"/orcid/v3.0/{J}/record", f"/orcid/v3.0/{J}/works/1001,1003,1005"]
    work = json.loads((folder / J / "1003.json").read_text(encoding="utf-8"))
    assert [c["credit-name"]["value"] for c in work["contributors"]["contributor"]] == [
        "Josiah Carberry", "Friedrich Beißer"]
    provenance = manifest(tmp_path, "orcid")
    assert provenance[f"{J}/1003.json"]["url"] == f"{apis.base}/orcid/v3.0/{J}/work/1003"
    assert provenance[f"{J}/1003.json"]["via"].endswith("/works/1001,1003,1005")
    assert provenance[f"{J}.json"]["modified"] == "2023-11-14T22:13:29Z"
    assert provenance[f"{J}.json"]["identifier"] == f"orcid:{J}" and provenance[f"{J}.json"]["retrieved"]
    assert "fetched 4 records for 1 identifiers in 2 requests" in out
    assert not (tmp_path / "records" / ".fetch-state.json").exists()
    agent = apis.seen[0].headers["user-agent"]
    assert agent.startswith("kg/") and "mailto:curator@example.org" in agent
    assert apis.seen[0].headers["accept"] == "application/vnd.orcid+json"


def test_openalex_pages_through_an_authors_works_with_the_key(apis: Apis, tmp_path: Path) -> None:
    code, out, err = kg(apis, "fetch", f"openalex:{A}", "openalex:W2121398592", "--data", str(tmp_path))
    assert code == 0, err
    folder = tmp_path / "records" / "openalex"
    assert sorted(p.name for p in folder.glob("[!.]*.json")) == [
        f"{A}.json", "W2121398592.json", "W4000000001.json", "W4000000002.json"]
    pages = [s.query for s in apis.seen if s.path == "/openalex/works"]
    assert [p["cursor"] for p in pages] == ["*", PAGE2, PAGE3]
    assert all(p["filter"] == f"author.id:{A}" and p["api_key"] == "test-key-123" for p in pages)
    stored = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*")) + out + err
    assert "test-key-123" not in stored  # the key is sent, never written or shown
    assert manifest(tmp_path, "openalex")["W4000000002.json"]["url"] == f"{apis.base}/openalex/works/W4000000002"


def test_openalex_without_a_key_says_how_to_get_one(apis: Apis, tmp_path: Path) -> None:
    code, _, err = kg(apis, "fetch", f"openalex:{A}", "--data", str(tmp_path), KG_OPENALEX_KEY="")
    assert code == 4
    assert f"openalex:{A}" in err and "KG_OPENALEX_KEY" in err and "openalex.org/settings/api" in err
    assert "Traceback" not in err and not apis.seen


def test_a_doi_comes_from_crossref_else_datacite_and_the_build_reads_every_file(apis: Apis, tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, out, err = kg(apis, "fetch", "doi:10.7554/eLife.01567", "https://doi.org/10.6084/m9.figshare.1449060",
                        "dblp:95/7448-1", "wikidata:Q44782775", "ror:05gq02987", f"orcid:{J}", "--data", str(data))
    assert code == 0, err
    assert (data / "records" / "crossref" / "10.7554" / "elife.01567.json").is_file()
    assert (data / "records" / "datacite" / "10.6084" / "m9.figshare.1449060.json").is_file()
    assert not (data / "records" / "crossref" / "10.6084").exists()
    assert (data / "records" / "dblp" / "95" / "7448-1.xml").is_file()
    assert (data / "records" / "wikidata" / "Q44782775.json").is_file()
    assert (data / "ror" / "05gq02987.json").is_file()  # kept for curators; the build reads no ROR records
    crossref = next(s for s in apis.seen if s.path.startswith("/crossref/works/10.7554"))
    assert crossref.query == {"mailto": "curator@example.org"}
    assert manifest(data, "dblp")["95/7448-1.xml"]["modified"] == "Tue, 26 Nov 2019 10:00:00 GMT"
    assert manifest(data, "crossref")["10.7554/elife.01567.json"]["modified"] == "2023-10-11T20:43:13Z"

    from kg.records import read_records_dir

    records, unread = read_records_dir(data)
    assert unread == ()  # the hidden manifests and state file are no unrecognised records
    assert sorted(r.system for r in records) == ["crossref", "datacite", "dblp", "orcid", "orcid", "orcid", "orcid",
                                                 "wikidata"]
    (data / "profiles").mkdir()
    code, out, err = kg(apis, "build", "--data", str(data), "--store", str(tmp_path / "store"))
    assert code == 0, err + out
    assert "/graph/record/" in out and "violations: 0" in out
    assert "fetched.json" not in out + err and "fetch-state" not in out + err


def test_a_bad_identifier_names_itself_and_the_form(apis: Apis, tmp_path: Path) -> None:
    code, _, err = kg(apis, "fetch", "orcid:0000-0002-1825-0098", "--data", str(tmp_path))
    assert code == 2 and "'orcid:0000-0002-1825-0098' is not a valid ORCID iD (its check digit is wrong)" in err
    code, _, err = kg(apis, "fetch", "isbn:123", "--data", str(tmp_path))
    assert code == 2 and "write scheme:value" in err
    code, _, err = kg(apis, "fetch", "--data", str(tmp_path))
    assert code == 2 and "name identifiers to fetch" in err
    assert not apis.seen


def test_an_unknown_record_is_a_404_naming_the_url(apis: Apis, tmp_path: Path) -> None:
    code, _, err = kg(apis, "fetch", "wikidata:Q1", "--data", str(tmp_path))
    assert code == 1 and f"wikidata:Q1: {apis.base}/wikidata/Q1.json answers 404 Not Found; check the QID" in err
    code, _, err = kg(apis, "fetch", "doi:10.5555/nothing", "--data", str(tmp_path))
    assert code == 1 and "neither Crossref" in err and "DataCite" in err


def test_a_profile_names_the_identifiers_to_fetch(apis: Apis, tmp_path: Path) -> None:
    profile = tmp_path / "josiah-carberry.yaml"
    profile.write_text(f"name: Josiah Carberry\nsame_as: [https://orcid.org/{J}, https://dblp.org/pid/95/7448-1, "
                       "https://scholar.google.com/citations?user=abcdefghijkl]\n", encoding="utf-8")
    code, out, err = kg(apis, "fetch", "--profile", str(profile), "--data", str(tmp_path / "data"))
    assert code == 0, err
    assert "for 2 identifiers" in out
    assert {s.path for s in apis.seen} >= {f"/orcid/v3.0/{J}/record", "/dblp/pid/95/7448-1.xml"}


def test_an_interrupted_run_resumes_where_it_stopped(apis: Apis, tmp_path: Path) -> None:
    apis.route(f"/openalex/works|cursor={PAGE2}", Reply(500, b"upstream error"))
    code, out, err = kg(apis, "fetch", f"orcid:{J}", f"openalex:{A}", "--data", str(tmp_path), KG_FETCH_RETRIES="1")
    assert code == 9
    assert f"{apis.base}/openalex/works?filter=author.id%3A{A}" in err and "HTTP 500" in err
    assert "rerun kg fetch later (it resumes where it stopped)" in err and "test-key-123" not in err
    state = json.loads((tmp_path / "records" / ".fetch-state.json").read_text(encoding="utf-8"))
    assert state["cursors"] == {f"openalex/{A}/works": PAGE2}
    assert (tmp_path / "records" / "openalex" / "W4000000001.json").is_file()
    assert f"{J}/1005.json" in manifest(tmp_path, "orcid")  # flushed although the run failed

    apis.seen.clear()
    healthy(apis)
    code, out, err = kg(apis, "fetch", f"orcid:{J}", f"openalex:{A}", "--data", str(tmp_path))
    assert code == 0, err
    # nothing finished is asked for again: not the ORCID record or works, not the author, not the first page
    assert [(s.path, s.query.get("cursor")) for s in apis.seen] == [
        ("/openalex/works", PAGE2), ("/openalex/works", PAGE3)]
    assert "5 already written by the interrupted run were skipped" in out
    assert (tmp_path / "records" / "openalex" / "W4000000002.json").is_file()
    assert not (tmp_path / "records" / ".fetch-state.json").exists()


def test_refresh_prints_what_changed_as_kg_diff_does(apis: Apis, tmp_path: Path) -> None:
    code, _, err = kg(apis, "fetch", "doi:10.7554/elife.01567", "dblp:95/7448-1", f"orcid:{J}",
                      "--data", str(tmp_path))
    assert code == 0, err
    code, out, _ = kg(apis, "fetch", "--refresh", "--older-than", "30d", "--data", str(tmp_path))
    assert code == 0 and "refreshed: 0 changed, 0 unchanged, 0 gone, 6 fetched more recently" in out

    apis.route("/crossref/works/10.7554/elife.01567", ok("crossref_10.7554-elife.01567_changed.json"))
    apis.route(f"/orcid/v3.0/{J}/work/1003", ok("orcid_work_1003_changed.json"))
    apis.route(f"/orcid/v3.0/{J}/work/1001", Reply(200, json.dumps(json.loads(fixture(
        f"orcid_bulk_{J}.json"))["bulk"][0]["work"]).encode()))
    apis.route(f"/orcid/v3.0/{J}/work/1005", Reply(404, b"{}"))
    apis.seen.clear()
    code, out, err = kg(apis, "fetch", "--refresh", "--data", str(tmp_path))
    assert code == 0, err
    assert {s.path for s in apis.seen} == {"/crossref/works/10.7554/elife.01567", "/dblp/pid/95/7448-1.xml",
                                           f"/orcid/v3.0/{J}/record", f"/orcid/v3.0/{J}/work/1001",
                                           f"/orcid/v3.0/{J}/work/1003", f"/orcid/v3.0/{J}/work/1005"}
    assert "refreshed: 2 changed, 3 unchanged, 1 gone" in out
    crossref = out.split("changed: ")[1]
    assert "elife.01567.json" in crossref and "changes from the copy fetched" in crossref
    assert "1 person changed; 2 triples added, 1 removed" in crossref  # the ORCID the new deposit gives her
    assert re.search(r"changed +person +Kaisa Nieminen +\+1 -0 +<https://kg.example.org/id/person/kaisa-nieminen>",
                     crossref)
    assert re.search(r"added +person +Quinn Carberry", out)  # added to work 1003's contributors
    assert re.search(r"changed +work +The Memory Bus Considered Harmful", out)
    assert f"gone: {tmp_path}/records/orcid/{J}/1005.json" in out
    changed = json.loads((tmp_path / "records" / "crossref" / "10.7554" / "elife.01567.json").read_text("utf-8"))
    assert changed["message"]["author"][1]["ORCID"] == "http://orcid.org/0000-0001-7004-9422"
    assert manifest(tmp_path, "crossref")["10.7554/elife.01567.json"]["modified"] == "2026-11-02T08:00:00Z"


def test_dois_follows_every_doi_the_fetched_records_name(apis: Apis, tmp_path: Path) -> None:
    apis.route("/crossref/works/10.5555/12345678", ok("crossref_10.5555-12345678.json"))
    code, out, err = kg(apis, "fetch", f"orcid:{J}", "dblp:95/7448-1", "--dois", "--data", str(tmp_path))
    assert code == 0, err
    asked = [s.path for s in apis.seen if s.path.startswith(("/crossref", "/datacite"))]
    # the ORCID works' DOIs, then the dblp records' (from their ee links), each once; 404s at both are warnings
    assert asked[:3] == ["/crossref/works/10.5555/12345678", "/crossref/works/10.5555/666655554444",
                         "/datacite/dois/10.5555/666655554444"]
    assert "/crossref/works/10.1109/3DTV.2012.6365428".lower() in [a.lower() for a in asked]
    assert (tmp_path / "records" / "crossref" / "10.5555" / "12345678.json").is_file()
    assert "warning: doi:10.5555/666655554444: neither Crossref" in out and "; skipped" in out
    assert manifest(tmp_path, "crossref")["10.5555/12345678.json"]["identifier"] == "doi:10.5555/12345678"


def test_ctrl_c_keeps_what_was_written_and_a_rerun_continues(apis: Apis, tmp_path: Path) -> None:
    from kg.config import Config
    from kg.fetch import fetch, parse_target

    config = Config.from_env(environ=apis.environment(), data=tmp_path)
    targets = [parse_target(f"orcid:{J}"), parse_target("wikidata:Q44782775")]
    lines: list[str] = []

    def interrupt_at_the_third_file(line: str) -> None:
        lines.append(line)
        if len(lines) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fetch(config, targets, report=interrupt_at_the_third_file)
    state = json.loads((tmp_path / "records" / ".fetch-state.json").read_text(encoding="utf-8"))
    assert state["done"] == [f"orcid/{J}.json", f"orcid/{J}/1001.json", f"orcid/{J}/1003.json"]
    assert set(manifest(tmp_path, "orcid")) == {f"{J}.json", f"{J}/1001.json", f"{J}/1003.json"}
    assert not list(tmp_path.rglob("*.tmp"))

    apis.seen.clear()
    bulk = json.loads(fixture(f"orcid_bulk_{J}.json"))
    apis.route(f"/orcid/v3.0/{J}/works/1005", Reply(200, json.dumps({"bulk": bulk["bulk"][2:]}).encode()))
    outcome = fetch(config, targets)
    assert apis.paths() == [f"/orcid/v3.0/{J}/works/1005", "/wikidata/Q44782775.json"]
    assert outcome.skipped == 3 and outcome.resumed
    assert [e.file for e in outcome.written] == [f"{J}/1005.json", "Q44782775.json"]
    assert (tmp_path / "records" / "wikidata" / "Q44782775.json").is_file()


def test_progress_shows_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from kg.fetch import command

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    command._progress()("orcid:0000-0002-1825-0097: fetching")
    assert screen.getvalue() == "\r\033[Korcid:0000-0002-1825-0097: fetching"
    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    command._progress()("anything")
    assert plain.getvalue() == ""


def test_a_folder_that_cannot_be_written_is_one_line(apis: Apis, tmp_path: Path) -> None:
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "wikidata").write_text("a file where the folder should be", encoding="utf-8")
    code, _, err = kg(apis, "fetch", "wikidata:Q44782775", "--data", str(tmp_path))
    assert code == 1 and err.startswith("error: cannot write ") and "Traceback" not in err


def test_kg_import_of_an_identifier_fetches_then_drafts_the_profile(apis: Apis, tmp_path: Path) -> None:
    from .repo_data import copy_repo_data

    data = copy_repo_data(tmp_path / "data", edits=False)
    code, out, err = kg(apis, "import", f"orcid:{J}", "--data", str(data))
    assert code == 0, err
    assert f"fetching orcid:{J} into {data / 'records'} (kg fetch)" in err
    assert (data / "records" / "orcid" / J / "1003.json").is_file()
    assert "name: Josiah Carberry" in out and J in out
    assert "suggested file data/profiles/josiah-carberry.yaml" in err
    code, out, err = kg(apis, "import", "https://www.wikidata.org/wiki/Q44782775", "--data", str(data))
    assert code == 0 and "fetching wikidata:Q44782775" in err and "Wikidata" in err
    code, _, err = kg(apis, "import", "ror:05gq02987", "--data", str(data))
    assert code == 2 and "a ROR record is an organisation" in err
    code, _, err = kg(apis, "import", str(tmp_path / "missing.txt"))
    assert code == 2 and "does not exist" in err


def test_a_bulk_answer_writes_only_the_works_asked_for(apis: Apis, tmp_path: Path) -> None:
    bulk = json.loads(fixture(f"orcid_bulk_{J}.json"))
    bulk["bulk"][1]["work"]["put-code"] = "../../../escaped"
    bulk["bulk"].append({"error": {"response-code": 404, "developer-message": "Not found: put-code 1005"}})
    apis.route(f"/orcid/v3.0/{J}/works/1001,1003,1005", Reply(200, json.dumps(bulk).encode()))
    code, out, err = kg(apis, "fetch", f"orcid:{J}", "--data", str(tmp_path))
    assert code == 0, err
    assert out.count("ORCID answered an error or an unasked work") == 2
    assert sorted(p.name for p in (tmp_path / "records" / "orcid" / J).iterdir()) == ["1001.json", "1005.json"]
    assert not list(tmp_path.parent.glob("escaped*")) and not list(tmp_path.rglob("escaped*"))


def test_a_long_works_list_goes_in_bulk_calls_of_at_most_100(apis: Apis, tmp_path: Path) -> None:
    record = json.loads(fixture(f"orcid_record_{J}.json"))
    template = record["activities-summary"]["works"]["group"][1]
    work = json.loads(fixture(f"orcid_bulk_{J}.json"))["bulk"][1]["work"]
    groups = []
    for code in range(2000, 2250):
        group = json.loads(json.dumps(template))
        group["work-summary"][0]["put-code"] = code
        for ids in (group["external-ids"], group["work-summary"][0]["external-ids"]):
            ids["external-id"][0]["external-id-value"] = f"10.5555/kg-test-{code}"
        groups.append(group)
    record["activities-summary"]["works"]["group"] = groups
    apis.route(f"/orcid/v3.0/{J}/record", Reply(200, json.dumps(record).encode()))
    codes = [str(c) for c in range(2000, 2250)]
    for chunk in (codes[:100], codes[100:200], codes[200:]):
        bulk = {"bulk": [{"work": {**work, "put-code": int(c), "path": f"/{J}/work/{c}"}} for c in chunk]}
        apis.route(f"/orcid/v3.0/{J}/works/{','.join(chunk)}", Reply(200, json.dumps(bulk).encode()))
    code, out, err = kg(apis, "fetch", f"orcid:{J}", "--data", str(tmp_path))
    assert code == 0, err
    assert [len(p.rsplit("/", 1)[1].split(",")) for p in apis.paths()[1:]] == [100, 100, 50]
    assert len(list((tmp_path / "records" / "orcid" / J).glob("*.json"))) == 250
    assert "fetched 251 records for 1 identifiers in 4 requests" in out


def test_without_a_contact_kg_fetch_asks_for_one_and_still_fetches(apis: Apis, tmp_path: Path) -> None:
    code, _, err = kg(apis, "fetch", "wikidata:Q44782775", "--data", str(tmp_path), KG_CONTACT_EMAIL="")
    assert code == 0 and "note: KG_CONTACT_EMAIL is not set" in err
    assert "mailto" not in apis.seen[0].headers["user-agent"]


def test_refresh_covers_the_ror_records_kept_beside_the_records(apis: Apis, tmp_path: Path) -> None:
    code, _, err = kg(apis, "fetch", "ror:05gq02987", "--data", str(tmp_path))
    assert code == 0, err
    changed = json.loads(fixture("ror_05gq02987.json"))
    changed["links"].append({"type": "wikipedia", "value": "https://en.wikipedia.org/wiki/Brown_University"})
    changed["admin"]["last_modified"]["date"] = "2026-11-20"
    apis.route("/ror/v2/organizations/05gq02987", Reply(200, json.dumps(changed).encode()))
    code, out, err = kg(apis, "fetch", "--refresh", "--data", str(tmp_path))
    assert code == 0, err
    assert f"changed: {tmp_path}/ror/05gq02987.json" in out and "kg build does not read them" in out
    provenance = json.loads((tmp_path / "ror" / ".fetched.json").read_text(encoding="utf-8"))["records"]
    assert provenance["05gq02987.json"]["modified"] == "2026-11-20"


def test_refresh_asks_conditionally_and_a_304_is_unchanged(apis: Apis, tmp_path: Path) -> None:
    apis.route("/wikidata/Q44782775.json", Reply(200, fixture("wikidata_Q44782775.json"), {
        "ETag": '"rev-1"', "Last-Modified": "Mon, 02 Nov 2026 08:00:00 GMT"}))
    code, _, err = kg(apis, "fetch", "wikidata:Q44782775", "--data", str(tmp_path))
    assert code == 0, err
    before = manifest(tmp_path, "wikidata")["Q44782775.json"]
    assert before["etag"] == '"rev-1"' and before["http_modified"] == "Mon, 02 Nov 2026 08:00:00 GMT"
    apis.route("/wikidata/Q44782775.json", Reply(304))
    code, out, err = kg(apis, "fetch", "--refresh", "--data", str(tmp_path))
    assert code == 0, err
    assert apis.seen[-1].headers["if-none-match"] == '"rev-1"'
    assert apis.seen[-1].headers["if-modified-since"] == "Mon, 02 Nov 2026 08:00:00 GMT"
    assert "refreshed: 0 changed, 1 unchanged" in out
    assert (tmp_path / "records" / "wikidata" / "Q44782775.json").read_bytes() == fixture("wikidata_Q44782775.json")
