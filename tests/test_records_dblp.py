"""dblp person XML and dblp RDF records: names without homonym suffixes, ordered authors, ids, disambiguation."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import SourceError
from kg.model import ExternalId, Record
from kg.records import parse_record, read_record

from .shared import shared_path

DATA = Path(__file__).parent / "data" / "records" / "dblp"
SAMPLES = shared_path("linked-samples")


def _read(name: str) -> Record:
    return read_record(DATA / name)


def _authors(record: Record, key: str) -> list[tuple[str, tuple[str, ...]]]:
    work = next(w for w in record.works if w.key == key)
    return [(a.name, tuple(i.value for i in a.ids)) for a in work.authors]


def test_dblp_person_sample() -> None:
    path = SAMPLES / "dblp_person_95-7448-1.xml"
    if not path.exists():
        pytest.skip("the shared linked samples are not here")
    record = read_record(path)
    assert (record.system, record.format, record.warnings) == ("dblp", "dblp person XML", ())
    person, = record.people
    assert person.name == "Di Xu"
    assert person.ids == (ExternalId("dblp", "95/7448-1"),)
    role, = person.roles
    assert (role.kind, role.start, role.end, role.origin.line) == ("affiliation", None, None, 5)
    assert role.organization.name.startswith("University of British Columbia")
    assert len(person.works) == len(record.works) == 8
    first = record.works[0]
    assert first.key == "conf/3dtv/Coria-MendozaXN12"
    assert first.title == "Automatic stereoscopic 3D video reframing"
    assert (first.year, first.venue, first.kind, first.authors_complete) == (2012, "3DTV-Conference", "inproceedings",
                                                                            True)
    assert first.ids == (ExternalId("dblp-record", "conf/3dtv/Coria-MendozaXN12"),
                         ExternalId("doi", "10.1109/3dtv.2012.6365428"))
    assert _authors(record, "conf/3dtv/Coria-MendozaXN12") == [
        ("Lino Coria-Mendoza", ("32/5783",)), ("Di Xu", ("95/7448-1",)), ("Panos Nasiopoulos", ("55/3871",))]
    article = next(w for w in record.works if w.key == "journals/tvcg/XuDN11")
    assert (article.venue, article.year) == ("IEEE Trans. Vis. Comput. Graph.", 2011)
    assert ExternalId("wikidata", "Q51701964") in article.ids  # an <ee> link to Wikidata
    assert [i for i in next(w for w in record.works if w.key == "conf/ictai/PourazadXN12").ids
            if i.scheme == "doi"] == [ExternalId("doi", "10.1109/ictai.2012.57")]


def test_dblp_person_links_and_orcids() -> None:
    record = _read("di-xu-0001-links.xml")
    person, = record.people
    assert (person.name, person.other_names) == ("Di Xu", ("D. Xu",))
    assert person.ids == (ExternalId("dblp", "95/7448-1"), ExternalId("orcid", "0000-0002-1825-0097"),
                          ExternalId("scholar", "AbCdEfGhIjKl"))
    assert person.urls == ("https://www.ece.ubc.ca/~dixu/",)
    assert [r.organization.name for r in person.roles] == [
        "University of British Columbia, Department of Electrical and Computer Engineering, Canada",
        "Example Video Labs, Vancouver, Canada"]
    assert _authors(record, "journals/tvcg/XuDN11") == [
        ("Di Xu", ("95/7448-1", "0000-0002-1825-0097")), ("Colin Doutre", ("58/3497",)),
        ("Panos Nasiopoulos", ("55/3871",))]
    warning, = record.warnings  # the co-author's ORCID fails its check digit: warned, not used
    assert "'0000-0002-1825-009X' is not a valid ORCID iD" in warning.message
    assert warning.origin.line == 18


def test_dblp_disambiguation_page() -> None:
    record = _read("di-xu-disambiguation.xml")
    person, = record.people
    assert (person.name, person.ids, person.works, person.roles) == ("Di Xu", (), (), ())
    assert any("disambiguation page" in w.message and "95/7448" in w.message for w in record.warnings)
    assert any("'0000-0002-1825-0098' is not a valid ORCID iD" in w.message for w in record.warnings)
    article = next(w for w in record.works if w.key == "journals/example/XuW19")
    assert article.title == "Graph sampling for k-hop queries"  # <i>k</i> kept in place, final period dropped
    assert _authors(record, "journals/example/XuW19") == [("Di Xu", ("95/7448",)), ("Wei Wang", ("12/3456",))]
    volume = next(w for w in record.works if w.key == "conf/example/2018")
    assert (volume.kind, volume.venue, volume.year) == ("proceedings", "Example Workshop", 2018)
    assert [a.name for a in volume.authors] == ["Di Xu", "Anna Berg"]  # editors when there are no authors


def test_dblp_rdf_turtle_2024() -> None:
    record = _read("di-xu-2024.ttl")
    assert (record.system, record.format) == ("dblp", "dblp RDF Turtle")
    person, = record.people
    assert (person.name, person.other_names) == ("Di Xu", ("D. Xu",))
    assert person.ids == (ExternalId("dblp", "95/7448-1"), ExternalId("orcid", "0000-0002-1825-0097"))
    assert person.urls == ("https://www.ece.ubc.ca/",)
    assert [r.organization.name for r in person.roles] == [
        "University of British Columbia, Department of Electrical and Computer Engineering, Canada"]
    assert sorted(w.key for w in person.works) == ["conf/3dtv/Coria-MendozaXN12", "conf/icip/XuN09",
                                                   "journals/tvcg/XuDN11"]
    assert _authors(record, "conf/3dtv/Coria-MendozaXN12") == [  # by signatureOrdinal, not file order
        ("Lino Coria-Mendoza", ("32/5783",)), ("Di Xu", ("95/7448-1", "0000-0002-1825-0097")),
        ("Panos Nasiopoulos", ("55/3871",))]
    article = next(w for w in record.works if w.key == "journals/tvcg/XuDN11")
    assert (article.title, article.year, article.venue, article.kind) == (
        "Correction of Clipped Pixels in Color Images", 2011, "IEEE Trans. Vis. Comput. Graph.", "article")
    assert article.ids == (ExternalId("dblp-record", "journals/tvcg/XuDN11"), ExternalId("doi", "10.1109/tvcg.2010.63"),
                           ExternalId("wikidata", "Q51701964"))
    assert article.origin.line == 37
    warning, = record.warnings
    assert "'https://orcid.org/0000-0002-1825-0098' is not a valid ORCID iD" in warning.message


def test_dblp_rdf_ntriples_2024_orders_signatures() -> None:
    record = _read("di-xu-2024.nt")
    assert record.format == "dblp RDF N-Triples"
    person, = record.people
    assert person.ids == (ExternalId("dblp", "95/7448-1"), ExternalId("orcid", "0000-0002-1825-0097"))  # owl:sameAs
    assert _authors(record, "conf/ictai/PourazadXN12") == [
        ("Mahsa T. Pourazad", ("55/6295",)), ("Di Xu", ("95/7448-1",)), ("Panos Nasiopoulos", ("55/3871",))]
    assert _authors(record, "conf/iccel/XuCN12") == [
        ("Di Xu", ("95/7448-1",)), ("Lino E. Coria", ("161/3963",)), ("Panos Nasiopoulos", ("55/3871",))]
    work = next(w for w in record.works if w.key == "conf/iccel/XuCN12")
    assert (work.year, work.venue, work.origin.line) == (2012, "ICCE", 23)
    assert record.warnings == ()


def test_dblp_rdf_2017_schema_authored_by() -> None:
    record = _read("di-xu-2017.nt")
    assert {p.name for p in record.people} == {"Di Xu", "Lino Coria-Mendoza", "Colin Doutre", "Panos Nasiopoulos"}
    assert _authors(record, "journals/tvcg/XuDN11") == [
        ("Di Xu", ("95/7448-1",)), ("Colin Doutre", ("58/3497",)), ("Panos Nasiopoulos", ("55/3871",))]
    assert [a for a, _ in _authors(record, "conf/3dtv/Coria-MendozaXN12")] == [
        "Lino Coria-Mendoza", "Di Xu", "Panos Nasiopoulos"]
    article = next(w for w in record.works if w.key == "journals/tvcg/XuDN11")
    assert article.authors_complete
    assert article.ids == (ExternalId("dblp-record", "journals/tvcg/XuDN11"), ExternalId("doi", "10.1109/tvcg.2010.63"),
                           ExternalId("wikidata", "Q51701964"))
    assert next(w for w in record.works if w.key == "conf/3dtv/Coria-MendozaXN12").venue == "3DTV-Conference"
    warning, = record.warnings
    assert "states no author order" in warning.message


@pytest.mark.parametrize(("name", "line"), [("malformed.ttl", 5), ("malformed.nt", 4)])
def test_malformed_dblp_rdf_names_file_and_line(name: str, line: int) -> None:
    with pytest.raises(SourceError) as caught:
        _read(name)
    assert caught.value.location.line == line
    assert str(caught.value).startswith(f"{DATA / name}:{line}: malformed dblp RDF")


def test_ntriples_is_not_taken_for_xml() -> None:
    text = (DATA / "di-xu-2024.nt").read_bytes()
    assert parse_record(text, "x.nt").format == "dblp RDF N-Triples"
    with pytest.raises(SourceError, match="not a record shape"):
        parse_record(b"<http://example.org/a> <http://example.org/p> \"x\" .\n", "other.nt")
