"""Wikidata entity JSON records: humans with ids, roles and advisors; works with P50 and P2093 authors in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.model import ExternalId, RecordOrg
from kg.records import parse_record, read_record

from .shared import shared_path

DATA = Path(__file__).parent / "data" / "records" / "wikidata"
SAMPLES = shared_path("linked-samples")


def test_scholarly_article_sample() -> None:
    path = SAMPLES / "wikidata_Q44782775_scholarly-article.json"
    if not path.exists():
        pytest.skip("the shared linked samples are not here")
    record = read_record(path)
    assert (record.system, record.format, record.people, record.warnings) == ("wikidata", "Wikidata entity JSON",
                                                                              (), ())
    work, = record.works
    assert work.key == "Q44782775"
    assert work.title.startswith("A comparison of dothiepin versus placebo")
    assert (work.year, work.venue, work.kind, work.authors_complete) == (1988, "Q15758331", "article", True)
    assert [a.name for a in work.authors] == ["P Sarzi Puttini", "M Cazzola", "L Boccassini", "G Ciniselli",
                                              "S Santandrea", "I Caruso", "C Benvenuti"]
    assert work.authors[0].ids == (ExternalId("wikidata", "Q30002194"),)
    assert work.authors[1].ids == ()
    assert work.ids == (ExternalId("wikidata", "Q44782775"), ExternalId("doi", "10.1177/030006058801600502"),
                        ExternalId("pmid", "3058537"))


def test_human_from_wbgetentities() -> None:
    record = read_record(DATA / "person-wbgetentities.json")
    person, = record.people
    assert (person.name, person.given_name, person.family_name) == ("Jana Nováková", "Jana", None)
    assert person.other_names == ("J. Nováková", "Jana Novakova")
    assert person.ids == (ExternalId("wikidata", "Q900000001"), ExternalId("orcid", "0000-0002-1825-0097"),
                          ExternalId("dblp", "123/4567"), ExternalId("scholar", "AbCdEfGhIjKl"),
                          ExternalId("isni", "0000000123456789"))
    assert person.urls == ("https://example.org/~novakova",)
    roles = [(r.kind, r.organization, r.role, r.start, r.end) for r in person.roles]
    assert roles == [  # the deprecated employer is skipped; an org not in the file is named by its QID
        ("employment", RecordOrg("Example Institute of Technology", (ExternalId("wikidata", "Q900000010"),)), None,
         2014, 2019),
        ("employment", RecordOrg("Q900000011", (ExternalId("wikidata", "Q900000011"),)), None, 2019, None),
        ("education", RecordOrg("Beispieluniversität", (ExternalId("wikidata", "Q900000013"),)),
         "Doctor of Philosophy", None, 2013)]
    assert [(a.name, a.ids) for a in person.advisors] == [
        ("Petr Svoboda", (ExternalId("wikidata", "Q900000002"),)),
        ("Q900000003", (ExternalId("wikidata", "Q900000003"),))]
    messages = [w.message for w in record.warnings]
    assert any("'0000-0002-1825-0098' is not a valid ORCID iD at entities.Q900000001.claims.P496[1]" in m
               for m in messages)
    assert any("Q900000099 is missing" in m for m in messages)


def test_article_orders_items_and_name_strings_by_ordinal() -> None:
    record = read_record(DATA / "article-entitydata.json")
    work, = record.works
    assert [(a.name, a.ids) for a in work.authors] == [
        ("Mahsa Pourazad", (ExternalId("wikidata", "Q900000005"),)),  # P50, ordinal 1, name from the file's label
        ("Lino Coria", ()),  # P2093, ordinal 2
        ("J. Novakova", (ExternalId("wikidata", "Q900000001"),)),  # P50, ordinal 3, name as stated (P1932)
        ("Panos N.", ()),  # P2093, ordinal 4; the deprecated ordinal 5 is skipped
        ("Q900000006", (ExternalId("wikidata", "Q900000006"),)),  # no ordinal: last; no label: its QID
    ]
    assert work.authors[2].person_name == "Jana Nováková"
    assert (work.title, work.year, work.venue, work.authors_complete) == (
        "Stereo video reframing, revisited", 2020, "Journal of Example Imaging", True)
    assert work.ids == (ExternalId("wikidata", "Q900000050"), ExternalId("doi", "10.1234/example.2020.17"))
    person, = record.people  # the human in the same file is credited with the work
    assert [w.key for w in person.works] == ["Q900000050"]


def test_bare_entity_with_an_ordinal_gap_is_incomplete() -> None:
    record = read_record(DATA / "bare-article.json")
    work, = record.works
    assert (work.title, work.year, work.authors_complete) == ("Ein Artikel mit Lücken", 1999, False)
    assert [a.name for a in work.authors] == ["A. First", "B. Second", "E. Fifth"]


def test_other_json_is_not_wikidata() -> None:
    data = json.dumps({"entities": {"x": {"id": "not-a-qid"}}}).encode()
    with pytest.raises(Exception, match="not a record shape"):
        parse_record(data, "other.json")
