"""DataCite records: the REST API's JSON:API documents and kernel-4 XML."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from kg.errors import SourceError
from kg.model import ExternalId, Record, RecordOrg
from kg.records import parse_record, read_record

from .shared import shared_path

FIXTURES = Path(__file__).parent / "data" / "records" / "datacite"
SHARED = shared_path("linked-samples")
SAMPLE = "datacite_api_10.6084-m9.figshare.1449060.json"
WINGS = "Drosophila melanogaster wing images from low and high altitude populations in Ethiopia and Zambia."


def _shared(name: str) -> Path:
    path = SHARED / name
    if not path.is_file():
        pytest.skip(f"shared sample {path} is not present")
    return path


def _fixture(name: str) -> Record:
    return read_record(FIXTURES / name, f"records/datacite/{name}")


def test_sample_rest_json() -> None:
    record = read_record(_shared(SAMPLE), f"records/{SAMPLE}")
    assert (record.system, record.format, record.people, record.warnings) == (
        "datacite", "DataCite REST JSON", (), ())
    (work,) = record.works
    assert (work.key, work.title, work.year, work.venue, work.kind) == (
        "10.6084/m9.figshare.1449060", WINGS, 2020, "figshare", "Dataset")
    assert work.ids == (ExternalId("doi", "10.6084/m9.figshare.1449060"),)
    assert [a.name for a in work.authors] == ["Ian Dworkin", "John Pool", "William Pitchers", "Maria Pesevski"]
    assert work.authors[0].ids == (ExternalId("orcid", "0000-0002-2874-287X"),)
    assert [a.ids for a in work.authors[1:]] == [(), (), ()]
    assert work.authors[3].origin.path == ("data", "attributes", "creators", 3)
    assert work.authors_complete and work.origin.path == ("data", "attributes")


def test_sample_embedded_kernel_xml_agrees() -> None:
    attributes = json.loads(_shared(SAMPLE).read_text(encoding="utf-8"))["data"]["attributes"]
    record = parse_record(base64.b64decode(attributes["xml"]), "records/figshare.xml")
    (work,) = record.works
    assert (work.key, work.title, work.year, work.venue, work.kind) == (
        "10.6084/m9.figshare.1449060", WINGS, 2020, "figshare", "Dataset")
    assert [(a.name, a.ids) for a in work.authors] == [
        ("Ian Dworkin", (ExternalId("orcid", "0000-0002-2874-287X"),)), ("John Pool", ()),
        ("William Pitchers", ()), ("Maria Pesevski", ())]


def test_kernel4_xml() -> None:
    record = _fixture("figshare-kernel4.xml")
    assert (record.system, record.format) == ("datacite", "DataCite kernel-4 XML")
    (work,) = record.works
    assert (work.key, work.title, work.year, work.venue, work.kind) == (
        "10.6084/m9.figshare.1449060", WINGS, 2020, "figshare", "Dataset")  # the alternative title is not used
    # the organisational creator "Dworkin Lab" is not a person; "Pool, John" is turned round
    assert [a.name for a in work.authors] == ["Ian Dworkin", "John Pool", "William Pitchers", "Maria Pesevski"]
    dworkin, pool, pitchers, _ = work.authors
    assert dworkin.ids == (ExternalId("orcid", "0000-0002-2874-287X"),)
    assert dworkin.affiliations == (RecordOrg("McMaster University", (ExternalId("ror", "02fa3aq29"),)),)
    assert pool.affiliations == (RecordOrg("University of Wisconsin-Madison"),)
    assert pitchers.ids == () and [a.origin.line for a in work.authors] == [6, 13, 17, 24]
    (warning,) = record.warnings  # Pitchers' iD fails its check digit
    assert (warning.origin.file, warning.origin.line) == ("records/datacite/figshare-kernel4.xml", 19)
    assert "'https://orcid.org/0000-0002-2874-2870' is not a valid ORCID iD at line 19" in warning.message


def test_rest_json_list() -> None:
    record = _fixture("dois-list.json")
    tools, numbers = record.works
    assert (tools.key, tools.title, tools.year, tools.venue, tools.kind) == (
        "10.5281/zenodo.1234567", "compiler-tools", 2021, "Zenodo", "Software")  # not the Subtitle
    assert [a.name for a in tools.authors] == ["Grace Hopper", "Barbara Liskov"]  # no organisation as author
    hopper, liskov = tools.authors
    assert hopper.ids == (ExternalId("orcid", "0000-0002-1825-0097"),)
    assert hopper.affiliations == (RecordOrg("Yale University", (ExternalId("ror", "03v76x132"),)),)
    assert liskov.affiliations == (RecordOrg("Massachusetts Institute of Technology"),)
    assert liskov.origin.path == ("data", 0, "attributes", "creators", 2)
    assert (numbers.key, numbers.year, numbers.venue, numbers.kind) == (
        "10.48550/arxiv.2101.00001", 2021, "Proceedings of Imaginary Logic", "Preprint")  # the Issued year
    assert [a.name for a in numbers.authors] == ["Alan Turing", "Alonzo Church"]
    assert numbers.origin.path == ("data", 1, "attributes")
    assert record.warnings == ()


def test_other_json_api_is_not_datacite() -> None:
    data = b'{"data": {"id": "42", "type": "users", "attributes": {"name": "x"}}}'
    with pytest.raises(SourceError) as info:
        parse_record(data, "records/users.json")
    assert "not a record shape kg knows" in str(info.value)


def test_doi_without_title_is_kept_untitled_for_the_build_to_quarantine() -> None:
    data = b'{"data": [{"id": "10.5555/x", "type": "dois", "attributes": {"doi": "10.5555/x", "titles": []}}]}'
    record = parse_record(data, "records/untitled.json")
    (work,) = record.works
    assert work.title == "" and work.origin.path == ("data", 0, "attributes")
