"""ORCID v3.0 records, JSON and XML: the real orcid-model samples and fixtures of each shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import SourceError
from kg.identifiers import normalize
from kg.model import ExternalId, Record
from kg.records import parse_record, read_record

from .shared import shared_path

FIXTURES = Path(__file__).parent / "data" / "records" / "orcid"
SHARED = shared_path("linked-samples")


def _shared(name: str) -> Record:
    path = SHARED / name
    if not path.is_file():
        pytest.skip(f"shared sample {path} is not present")
    return read_record(path, f"records/{name}")


def _fixture(name: str) -> Record:
    return read_record(FIXTURES / name, f"records/orcid/{name}")


def _orcid(value: str) -> ExternalId:
    return ExternalId("orcid", value)


def test_sample_full_record_json() -> None:
    record = _shared("orcid_record-full-3.0.json")
    assert (record.system, record.format, record.works) == ("orcid", "ORCID v3.0 JSON", ())
    (person,) = record.people
    assert (person.name, person.given_name, person.family_name) == ("Three releasecandidate1", "Three",
                                                                     "releasecandidate1")
    assert person.ids == (_orcid("0000-0002-7319-2192"),)  # "My ID System" is not a scheme kg knows
    assert person.other_names == ("Other Name", "{}", "{yo}", "dreamofaredbird")
    assert person.urls == ("https://site1.com/", "http://www.fjksbl.com")
    assert person.origin.path == ("person",)
    assert [r.kind for r in person.roles] == ["employment", "education", "education", "education"]
    employment = person.roles[0]
    assert (employment.organization.name, employment.role, employment.department) == (
        "common:name", "role-title", "department-name")
    assert (employment.start, employment.end) == (1948, 1948)
    assert employment.organization.ids == ()  # FUNDREF is not an organisation scheme kg keeps
    assert employment.origin.path == ("activities-summary", "employments", "affiliation-group", 0, "summaries", 0,
                                      "employment-summary")
    (work,) = person.works
    assert (work.key, work.title, work.year, work.venue, work.kind) == (
        "put-code-178602", "Work Title", 2012, "Jounral Title", "journal-article")
    assert (work.authors, work.authors_complete) == ((), False)
    assert work.ids == ()  # the version-of DOI is not the work's own, and its self DOI "work:doi" is invalid
    assert work.origin.path == ("activities-summary", "works", "group", 0, "work-summary", 0)
    (warning,) = record.warnings
    assert "'work:doi' is not a valid DOI" in warning.message
    assert warning.origin.file == "records/orcid_record-full-3.0.json"
    assert warning.origin.path[-3:] == ("external-id", 1, "external-id-value")


def test_sample_full_work_xml() -> None:
    assert normalize("orcid", "8888-8888-8888-8880") == "8888-8888-8888-8880"  # the sandbox iD passes MOD 11-2
    record = _shared("orcid_work-full-3.0.xml")
    assert (record.format, record.people) == ("ORCID v3.0 XML", ())
    (work,) = record.works
    assert (work.key, work.title, work.year, work.venue, work.kind) == (
        "put-code-123", "common:title: common:subtitle", 1948, "common:journal-title", "artistic-performance")
    (author,) = work.authors
    assert (author.name, author.ids, author.origin.line) == ("work:credit-name", (_orcid("8888-8888-8888-8880"),), 49)
    assert work.authors_complete and work.ids == ()
    (warning,) = record.warnings
    assert warning.origin.line == 42 and "'work:doi' is not a valid DOI at line 42" in warning.message


def test_sample_full_employment_xml() -> None:
    record = _shared("orcid_employment-full-3.0.xml")
    (person,) = record.people
    assert (person.name, person.ids, person.works) == ("", (_orcid("8888-8888-8888-8880"),), ())  # from source-orcid
    (role,) = person.roles
    assert (role.kind, role.organization.name, role.role, role.department, role.start, role.end) == (
        "employment", "common:name", "employment:role-title", "employment:department-name", 1948, 1948)
    assert role.organization.ids == ()  # a ROR URL, but the record says its source is FUNDREF
    assert record.warnings == ()


def test_full_record_xml() -> None:
    record = _fixture("record-full.xml")
    (person,) = record.people
    assert (person.name, person.given_name, person.family_name) == ("Josiah S. Carberry", "Josiah", "Carberry")
    assert person.other_names == ("J. S. Carberry", "Josiah Stinkney Carberry")
    assert person.ids == (_orcid("0000-0002-1825-0097"), ExternalId("isni", "0000000121032683"))
    assert person.urls == ("https://library.brown.edu/about/hay/carberry.php",)
    assert person.origin.line == 15
    brown, visiting, nsf, phd = person.roles
    assert (brown.kind, brown.organization.name, brown.role, brown.department, brown.start, brown.end) == (
        "employment", "Brown University", "Professor of Psychoceramics", "Psychoceramics", 1989, None)
    assert brown.organization.ids == (ExternalId("ror", "05gq02987"),)
    assert brown.origin.line == 76
    assert (visiting.organization.ids, visiting.start, visiting.end) == ((ExternalId("grid", "grid.268117.b"),),
                                                                         1986, 1988)
    assert (nsf.organization.name, nsf.organization.ids, nsf.role, nsf.start) == (
        "National Science Foundation", (), None, None)
    assert (phd.kind, phd.organization.ids, phd.role, phd.start, phd.end) == (
        "education", (ExternalId("ringgold", "5788"),), "PhD", 1980, 1985)
    theory, pots = person.works  # one work per group: the first, preferred, summary
    assert (theory.key, theory.year, theory.venue) == ("put-code-601", 2008, "Journal of Psychoceramics")
    assert theory.title == "Toward a Unified Theory of High-Energy Metaphysics: Silly String Theory"
    assert theory.ids == (ExternalId("doi", "10.5555/12345678"),)  # wosuid and the part-of ISSN are skipped
    assert (theory.authors, theory.authors_complete, theory.origin.line) == ((), False, 127)
    assert (pots.key, pots.kind, pots.year) == ("put-code-603", "conference-paper", 2014)
    assert pots.ids == (ExternalId("pmid", "24520159"), ExternalId("pmcid", "PMC3917233"))  # not the version-of DOI
    assert record.works == () and record.warnings == ()


def test_person_json() -> None:
    record = _fixture("person.json")
    (person,) = record.people
    assert (person.name, person.given_name, person.family_name) == ("Ada Lovelace", "Ada", "Lovelace")
    assert person.other_names == ("Augusta Ada King",)  # the other name equal to the name is not repeated
    assert person.ids == (_orcid("0000-0002-1694-233X"), ExternalId("isni", "0000000121032683"))
    assert person.urls == ("https://ada.example.org/",)
    assert (person.roles, person.works, record.warnings) == ((), (), ())


def test_works_summaries_json() -> None:
    record = _fixture("works.json")
    (person,) = record.people
    assert (person.name, person.ids) == ("", (_orcid("0000-0003-1419-2405"),))  # known by the iD of the path
    histology, preprint, talk = person.works
    assert (histology.key, histology.year, histology.venue, histology.kind) == (
        "put-code-9001", 2014, "eLife", "journal-article")
    assert histology.ids == (ExternalId("doi", "10.7554/elife.01567"), ExternalId("pmid", "24520159"))
    assert histology.origin.path == ("group", 0, "work-summary", 0)
    assert (preprint.title, preprint.ids) == ("A preprint about wings: first results",
                                              (ExternalId("arxiv", "1501.00001"),))
    assert (talk.year, talk.venue, talk.ids) == (None, None, ())
    assert all(w.authors == () and not w.authors_complete for w in person.works)


def test_full_work_with_three_contributors_xml() -> None:
    record = _fixture("work-three-contributors.xml")
    assert record.people == ()  # the contributors say who wrote it; the source is a client, not a person
    (work,) = record.works
    assert [a.name for a in work.authors] == ["Martial Sankar", "Kaisa Nieminen", "Christian S. Hardtke"]
    assert [a.ids for a in work.authors] == [(), (_orcid("0000-0001-7004-9422"),), (_orcid("0000-0003-3203-1058"),)]
    assert [a.origin.line for a in work.authors] == [30, 37, 49]
    assert (work.key, work.year, work.venue, work.authors_complete) == ("put-code-9001", 2014, "eLife", True)
    assert work.ids == (ExternalId("doi", "10.7554/elife.01567"),)


def test_wrong_check_digit_is_warned_and_not_used() -> None:
    record = _fixture("bad-check-digit.json")
    (person,) = record.people
    assert (person.name, person.ids) == ("Josiah Carberry", ())
    (warning,) = record.warnings
    assert warning.origin.file == "records/orcid/bad-check-digit.json"
    assert warning.origin.path == ("orcid-identifier", "path")
    assert "'0000-0002-1825-0098' is not a valid ORCID iD at orcid-identifier.path" in warning.message


def test_wrong_check_digit_in_xml_names_the_line() -> None:
    xml = b"""<?xml version="1.0"?>
<person:person xmlns:person="http://www.orcid.org/ns/person" path="/0000-0002-1825-0096/person"
    xmlns:pd="http://www.orcid.org/ns/personal-details" xmlns:other-name="http://www.orcid.org/ns/other-name">
  <person:name><pd:given-names>Josiah</pd:given-names><pd:family-name>Carberry</pd:family-name></person:name>
  <other-name:other-names/>
</person:person>
"""
    record = parse_record(xml, "records/person.xml")
    assert [(p.name, p.ids) for p in record.people] == [("Josiah Carberry", ())]
    (warning,) = record.warnings
    assert (warning.origin.file, warning.origin.line) == ("records/person.xml", 2)
    assert "'0000-0002-1825-0096' is not a valid ORCID iD at line 2" in warning.message


def test_contributors_editors_and_nameless() -> None:
    data = b"""{"put-code": 7, "path": "/0000-0002-1825-0097/work/7", "type": "book",
      "title": {"title": {"value": "Collected Pots"}},
      "external-ids": {"external-id": [{"external-id-type": "doi", "external-id-value": "https://doi.org/10.5555/POTS",
                                        "external-id-relationship": "self"}]},
      "contributors": {"contributor": [
        {"credit-name": {"value": "Ann Editor"}, "contributor-attributes": {"contributor-role": "editor"}},
        {"contributor-orcid": {"path": "0000-0002-1825-0097"}, "credit-name": {"value": "Josiah Carberry"},
         "contributor-attributes": {"contributor-sequence": "first", "contributor-role": "author"}},
        {"contributor-orcid": {"path": "0000-0002-1825-0097"}, "credit-name": {"value": "Josiah Carberry"},
         "contributor-attributes": {"contributor-sequence": "first", "contributor-role": null}},
        {"contributor-orcid": null, "credit-name": null, "contributor-attributes": null}]}}"""
    record = parse_record(data, "records/work.json")
    (work,) = record.works
    assert [(a.name, a.ids) for a in work.authors] == [("Josiah Carberry", (_orcid("0000-0002-1825-0097"),))]
    assert work.authors[0].origin.path == ("contributors", "contributor", 1)
    assert (work.key, work.kind, work.ids) == ("put-code-7", "book", (ExternalId("doi", "10.5555/pots"),))
    assert not work.authors_complete  # one contributor had no name
    (warning,) = record.warnings
    assert warning.origin.path == ("contributors", "contributor", 3)


def test_full_work_without_contributors_goes_to_its_owner() -> None:
    data = b"""{"put-code": 8, "path": "/0000-0002-1825-0097/work/8", "type": "lecture-speech",
      "title": {"title": {"value": "On Pots"}}, "publication-date": {"year": {"value": "1999"}}}"""
    record = parse_record(data, "records/work.json")
    (person,) = record.people
    assert (person.name, person.ids, record.works) == ("", (_orcid("0000-0002-1825-0097"),), ())
    assert [(w.key, w.year, w.authors_complete) for w in person.works] == [("put-code-8", 1999, False)]


def test_employments_json() -> None:
    data = b"""{"affiliation-group": [{"external-ids": {"external-id": []}, "summaries": [{"employment-summary": {
        "put-code": 1, "role-title": "Curator", "start-date": {"year": {"value": "2001"}}, "end-date": null,
        "organization": {"name": "Brown University", "disambiguated-organization": {
          "disambiguated-organization-identifier": "https://ror.org/05gq02987", "disambiguation-source": "ROR"}},
        "path": "/0000-0002-1825-0097/employment/1"}}]}],
      "path": "/0000-0002-1825-0097/employments"}"""
    record = parse_record(data, "records/employments.json")
    (person,) = record.people
    assert person.ids == (_orcid("0000-0002-1825-0097"),)
    (role,) = person.roles
    assert (role.kind, role.role, role.start, role.end) == ("employment", "Curator", 2001, None)
    assert role.organization.ids == (ExternalId("ror", "05gq02987"),)


def test_employment_without_an_id_is_not_attributed() -> None:
    xml = b"""<?xml version="1.0"?>
<employment:employment xmlns:employment="http://www.orcid.org/ns/employment"
    xmlns:common="http://www.orcid.org/ns/common" put-code="3">
  <common:source><common:source-client-id><common:path>APP-123</common:path></common:source-client-id></common:source>
  <common:organization><common:name>Brown University</common:name></common:organization>
</employment:employment>
"""
    record = parse_record(xml, "records/employment.xml")
    assert (record.people, record.works) == ((), ())
    (warning,) = record.warnings
    assert warning.origin.line == 2 and "nobody to attribute it to" in warning.message


def test_malformed_xml_names_the_line() -> None:
    xml = (b'<?xml version="1.0"?>\n<work:work xmlns:work="http://www.orcid.org/ns/work">\n'
           b'  <work:title>\n</work:work>\n')
    with pytest.raises(SourceError) as info:
        parse_record(xml, "records/broken.xml")
    assert info.value.location.line == 4
    assert "records/broken.xml:4" in str(info.value) and "malformed XML" in str(info.value)


def test_doctype_is_refused() -> None:
    xml = b'<?xml version="1.0"?>\n<!DOCTYPE work [<!ENTITY x "y">]>\n<work put-code="1"><title>&x;</title></work>\n'
    with pytest.raises(SourceError) as info:
        parse_record(xml, "records/doctype.xml")
    assert "DOCTYPE" in str(info.value) and info.value.location.line == 2
