"""BibTeX files as records: one work per entry, names reordered, DOIs checked, 'and others' marks incompleteness."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import SourceError
from kg.model import ExternalId
from kg.records import parse_record, read_record

DATA = Path(__file__).parent / "data" / "records" / "bibtex"


def test_bibtex_entries_as_works() -> None:
    record = read_record(DATA / "di-xu.bib")
    assert (record.system, record.format, record.people) == ("bibtex", "BibTeX", ())
    assert [w.key for w in record.works] == ["DBLP:journals/tvcg/XuDN11", "coria2012reframing", "xu2009logo"]
    article, reframing, logo = record.works
    assert [a.name for a in article.authors] == ["Di Xu", "Colin Doutre", "Panos Nasiopoulos"]
    assert (article.title, article.year, article.venue, article.kind, article.authors_complete) == (
        "Correction of Clipped Pixels in Color Images", 2011, "IEEE Trans. Vis. Comput. Graph.", "article", True)
    assert article.ids == (ExternalId("doi", "10.1109/tvcg.2010.63"),
                           ExternalId("dblp-record", "journals/tvcg/XuDN11"))
    assert article.origin.line == 4
    assert [a.name for a in reframing.authors] == ["Lino Coria-Mendoza", "Di Xu"]
    assert (reframing.title, reframing.authors_complete) == ("Automatic Stereoscopic 3D Video Reframing", False)
    assert (reframing.venue, reframing.year) == ("3DTV-Conference", 2012)
    assert reframing.ids == (ExternalId("doi", "10.1109/3dtv.2012.6365428"),)
    assert (logo.title, logo.ids) == ("Logo insertion transcoding for H.264/AVC compressed video", ())
    bad_doi, untitled = record.warnings
    assert "'10.1109 ICIP.2009.5414225' is not a valid DOI" in bad_doi.message and bad_doi.origin.line == 23
    assert "@misc{untitled2010} has no title" in untitled.message and untitled.origin.line == 31


def test_comments_before_the_first_entry() -> None:
    text = b"% exported\n\n%% by hand\n@book{k, author = {Doe, Jane and John Roe}, title = {A {Book}}, year = 1999}\n"
    record = parse_record(text, "x.bib")
    work, = record.works
    assert (work.key, work.title, work.year, work.kind) == ("k", "A Book", 1999, "book")
    assert [a.name for a in work.authors] == ["Jane Doe", "John Roe"]


def test_text_that_is_not_bibtex() -> None:
    with pytest.raises(SourceError, match="not a record shape"):
        parse_record(b"Some notes\n@article{k, title={x}}\n", "notes.bib")


def test_unreadable_blocks_become_warnings_with_lines() -> None:
    text = b"@article{a, title={First}, year=2001}\n@article{a, title={Again}}\n@article{b, title={Cut\n"
    record = parse_record(text, "x.bib")
    assert [w.title for w in record.works] == ["First"]
    assert [(w.origin.line, w.message) for w in record.warnings] == [
        (2, "a BibTeX block that cannot be read is left out (Duplicate entry key 'a')"),
        (3, "a BibTeX block that cannot be read is left out (malformed BibTeX)")]
