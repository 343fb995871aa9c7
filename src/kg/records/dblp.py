"""dblp person XML (`https://dblp.org/pid/…xml`): the person, their affiliations and links, and their records.

dblp writes a homonym's name with a four-digit suffix ("Di Xu 0001"): the suffix marks a distinct person and is
not part of the name, so names are read without it and the person is identified by the dblp pid alone.

The page's records are the file's works, and also the person's works. A disambiguation page
(`<person publtype="disambiguation">`) is dblp's bucket for the records of several people who share a name: its
records are still the file's works, but the page's own person gets no dblp id and no works (with a warning), so
it is never merged with anyone by that pid nor credited with the others' records. The authors inside the records
keep the pid dblp gives them, even when it is the disambiguation pid: that is what dblp asserts about the byline,
and the XML cannot say more.

Authors are in element order. A record without `<author>` elements (a proceedings volume, an edited book) lists
its `<editor>` elements instead, which then stand as the work's contributors.
"""

from __future__ import annotations

import re
from typing import Any

from ..identifiers import from_iri, looks_like
from ..model import ExternalId, Origin, RecordAuthor, RecordOrg, RecordPerson, RecordRole, RecordWork
from .files import Element
from .reading import RecordReader, Shape, clean, year_of

RECORD_TYPES = ("article", "inproceedings", "proceedings", "incollection", "book", "phdthesis", "mastersthesis",
                "data", "www")
VENUE_FIELDS = ("journal", "booktitle", "series", "school", "publisher")
WORK_ID_SCHEMES = ("doi", "wikidata", "arxiv")
PERSON_ID_SCHEMES = ("orcid", "wikidata", "scholar", "isni")
SUFFIX = re.compile(r"\s+\d{4}$")


def is_dblp_person(document: Any) -> bool:
    """A dblp person page: root <dblpperson>."""
    return isinstance(document, Element) and document.name == "dblpperson"


def plain_name(name: str) -> str:
    """A dblp name without its homonym suffix: 'Di Xu 0001' -> 'Di Xu'."""
    return SUFFIX.sub("", " ".join(name.split()))


def _link_id(text: str, origin: Origin, schemes: tuple[str, ...], reader: RecordReader) -> ExternalId | None:
    """The identifier a link names when it is of one of the schemes (a broken one is warned about), else None."""
    found = from_iri(text)
    if found is not None:
        return ExternalId(*found) if found[0] in schemes else None
    scheme = looks_like(text)
    return reader.identifier(scheme, text, origin) if scheme in schemes else None


def _author(element: Element, reader: RecordReader) -> RecordAuthor | None:
    origin = reader.at(line=element.line)
    reader.tick(origin)
    written = element.full_text()
    if not written:
        reader.warn(origin, "an author without a name is left out")
        return None
    ids = reader.identifiers([("dblp", element.attributes.get("pid"), origin),
                              ("orcid", element.attributes.get("orcid"), origin)])
    return RecordAuthor(plain_name(written), ids, origin)


def read_entry(entry: Element, reader: RecordReader) -> RecordWork | None:
    """One dblp record (<article>, <inproceedings>, ...); one without a title is kept (and quarantined)."""
    origin = reader.at(line=entry.line)
    title_element = entry.find("title")
    title = title_element.full_text() if title_element is not None else ""
    title = title[:-1] if title.endswith(".") and not title.endswith("..") else title
    people, complete = reader.first_authors(entry.findall("author") or entry.findall("editor"), origin)
    authors = tuple(a for e in people if (a := _author(e, reader)))
    key = entry.attributes.get("key", "")
    ids: list[ExternalId] = list(reader.identifiers([("dblp-record", key, origin)]))
    for ee in entry.findall("ee"):
        link = clean(ee.text)
        ident = _link_id(link, reader.at(line=ee.line), WORK_ID_SCHEMES, reader) if link else None
        if ident is not None and ident not in ids:
            ids.append(ident)
    venue = next((v for f in VENUE_FIELDS if (v := entry.text_of(f))), None)
    return RecordWork(key or title, title, authors, complete, year_of(entry.text_of("year")), venue, entry.name,
                      tuple(ids), origin)


def _entries(root: Element) -> list[Element]:
    return [child for r in root.findall("r") for child in r.children if child.name in RECORD_TYPES]


def _person(root: Element, works: list[RecordWork], reader: RecordReader) -> RecordPerson:
    """The page's person: names, pid (not for a disambiguation page), ORCIDs, links and affiliations."""
    person = root.find("person") or Element("person", {}, root.line)
    origin = reader.at(line=person.line)
    names = [n for a in person.findall("author") if (n := a.full_text())] or [root.attributes.get("name", "")]
    name = plain_name(names[0])
    others = tuple(dict.fromkeys(n for raw in names[1:] if (n := plain_name(raw)) != name))
    pid = root.attributes.get("pid") or next((a.attributes.get("pid") for a in person.findall("author")), None)
    ids: list[ExternalId] = []
    bucket = "disambiguation" in person.attributes.get("publtype", "").split()
    if bucket:
        reader.warn(origin, f"{root.attributes.get('name', name)!r} (pid {pid}) is a dblp disambiguation page: it "
                            "names several people, so its person is not merged with anyone by that pid; its "
                            "records are still read")
    else:
        ids.extend(reader.identifiers([("dblp", pid, origin)]))
        ids.extend(reader.identifiers(
            [("orcid", a.attributes.get("orcid"), reader.at(line=a.line)) for a in person.findall("author")]))
        ids.extend(ExternalId("orcid", i.value) for w in works for a in w.authors
                   if ExternalId("dblp", pid or "") in a.ids for i in a.ids if i.scheme == "orcid")
    urls: list[str] = []
    for url in person.findall("url"):
        link = clean(url.text)
        if not link:
            continue
        ident = _link_id(link, reader.at(line=url.line), PERSON_ID_SCHEMES, reader)
        if ident is not None:
            ids.append(ident)
        elif looks_like(link) is None:
            urls.append(link)
    roles = tuple(RecordRole("affiliation", RecordOrg(text), None, None, None, None, reader.at(line=note.line))
                  for note in person.findall("note")
                  if note.attributes.get("type") == "affiliation" and (text := note.full_text()))
    return RecordPerson(name, None, None, others, tuple(dict.fromkeys(ids)), tuple(dict.fromkeys(urls)), roles,
                        () if bucket else tuple(works), (), origin)


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The person of a dblp person page, with the page's records as their works."""
    works = [w for entry in _entries(document) if (w := read_entry(entry, reader))]
    return [_person(document, works, reader)], works


SHAPES: list[Shape] = [("dblp", "dblp person XML", is_dblp_person, read)]
