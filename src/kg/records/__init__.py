"""Downloaded standard records (ORCID, dblp, Wikidata, OpenAlex, Crossref, DataCite) into kg's typed records.

The format is recognised from the content, never the file name: JSON documents by their shape, XML by the root
element and its namespace, RDF text (dblp) by its vocabulary. Nothing is fetched: a record is a file a user saved.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..errors import Location, SourceError, SourceErrors
from ..iris import slugify
from ..model import Origin, Record, RecordWarning
from ..source_files import read_limited
from . import bibtex, crossref, csl, datacite, dblp, dblp_rdf, openalex, orcid, ris, wikidata
from .files import load_xml
from .json_files import MAX_DUPLICATE_WARNINGS, duplicate_warning, read_json
from .reading import RecordReader, Shape, record_of

RECORD_SETTING = "KG_MAX_RECORD_BYTES"
RECORD_SUFFIXES = (".json", ".xml", ".nt", ".ttl", ".rdf", ".bib", ".ris")
JSON_SHAPES: list[Shape] = [*csl.SHAPES, *crossref.SHAPES, *openalex.SHAPES, *orcid.JSON_SHAPES, *datacite.JSON_SHAPES,
                             *wikidata.SHAPES]
XML_SHAPES: list[Shape] = [*orcid.XML_SHAPES, *datacite.XML_SHAPES, *dblp.SHAPES]
TEXT_SHAPES: list[Shape] = [*dblp_rdf.SHAPES, *bibtex.SHAPES, *ris.SHAPES]
TRIPLE_START = re.compile(r"<[A-Za-z][\w+.-]*:[^\s<>\"]*>\s+<[A-Za-z][\w+.-]*:")  # N-Triples begins with <IRI> <IRI>
FORMATS = ("ORCID v3.0 JSON or XML, dblp person XML or RDF (N-Triples, Turtle), Wikidata entity JSON, OpenAlex, "
           "Crossref or DataCite JSON, DataCite kernel-4 XML, BibTeX, RIS and CSL-JSON")


def _unknown(display: str, what: str) -> SourceError:
    return SourceError(Location(Path(display)), (
        f"{what} is not a record shape kg knows; kg reads {FORMATS} records as downloaded from their APIs; "
        f"save the API's response unchanged, or move the file out of data/records/"))


def parse_record(data: bytes, display: str, name: str = "") -> Record:
    """Read one record file's bytes: detect its format from the content and map it to typed records."""
    record, what = _parse(data, display, name)
    if record is None:
        raise _unknown(display, what)
    return record


def _parse(data: bytes, display: str, name: str) -> tuple[Record | None, str]:
    """The record of a file's bytes, or None and what the content looked like when no reader recognises it."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SourceError(Location(Path(display)), f"is not UTF-8 text (byte {error.start}); save the record as "
                                                   "downloaded, in UTF-8") from None
    start = text.lstrip()[:1]
    reader = RecordReader(display)
    if start in ("{", "["):
        document, repeated = read_json(text, display, reader.bounds, reader.deadline)
        for path, line in repeated[:MAX_DUPLICATE_WARNINGS]:
            reader.warn(reader.at(path, line), duplicate_warning(path))
        if len(repeated) > MAX_DUPLICATE_WARNINGS:
            reader.warn(reader.at(), f"{len(repeated) - MAX_DUPLICATE_WARNINGS:,} more repeated keys are not listed")
        shapes, what = JSON_SHAPES, "this JSON"
    elif start == "<" and not TRIPLE_START.match(text.lstrip()):
        document = load_xml(text.encode("utf-8"), display, reader.bounds, reader.deadline)
        shapes, what = XML_SHAPES, f"XML with root element <{getattr(document, 'name', '?')}>"
    else:
        document, shapes, what = text, TEXT_SHAPES, "this text"
    for system, label, recognises, read in shapes:
        if recognises(document):
            people, works = read(document, reader)
            record = record_of(system, label, people, works, reader)
            return Record(record.system, record.format, record.people, record.works, record.warnings, record.origin,
                          name, hashlib.sha256(data).hexdigest()), what
    return None, what


def read_record(path: Path, display: str = "", name: str = "", max_bytes: int | None = None) -> Record:
    """Read one record file (a regular file under the size limit)."""
    from ..config import Config

    limit = Config.from_env().max_record_bytes if max_bytes is None else max_bytes
    data = read_limited(path, limit, display or path, RECORD_SETTING)
    return parse_record(data, display or str(path), name)


def _read_known(path: Path, display: str, name: str) -> Record | RecordWarning:
    """A record file's record, or a warning naming it when no reader recognises its content."""
    from ..config import Config

    data = read_limited(path, Config.from_env().max_record_bytes, display, RECORD_SETTING)
    record, what = _parse(data, display, name)
    if record is None:
        return RecordWarning(Origin(display, (), None), f"{what} is not a record shape kg knows, so the file is "
                                                        f"not read; kg reads {FORMATS}; save the API's response "
                                                        "unchanged, or move the file out of data/records/")
    return record


def record_files(folder: Path) -> list[Path]:
    """The record files under a folder and its sub-folders, sorted; hidden files and other suffixes are skipped."""
    return [p for p in _visible(folder) if p.suffix.lower() in RECORD_SUFFIXES]


def _visible(folder: Path) -> list[Path]:
    """The files under a folder and its sub-folders that are not hidden (nor in hidden folders), sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if not p.is_dir()
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


def unread_files(root: Path, display_root: str = "") -> tuple[RecordWarning, ...]:
    """A warning naming each file under root/records/ whose suffix no reader takes (a .md, a .pdf)."""
    shown = display_root or str(root)
    return tuple(RecordWarning(Origin(f"{shown}/{p.relative_to(root).as_posix()}", (), None),
                               f"not read: kg reads record files named "
                               f"{', '.join('*' + s for s in RECORD_SUFFIXES)} ({FORMATS}); rename it if it is one, "
                               "or move it out of data/records/")
                 for p in _visible(root / "records") if p.suffix.lower() not in RECORD_SUFFIXES)


def record_slug(record: Record) -> str:
    """The slug of a record's graph: its path under data/records/, suffix included."""
    return slugify(record.name.removeprefix("records/"), max_length=120)


def read_records_dir(root: Path, display_root: str = "") -> tuple[tuple[Record, ...], tuple[RecordWarning, ...]]:
    """Every record under root/records/ (sorted) and a warning per file no reader takes; errors reported together."""
    records: list[Record] = []
    skipped, errors = list(unread_files(root, display_root)), []
    shown = display_root or str(root)  # as the caller wrote it, like data/ files
    for path in record_files(root / "records"):
        relative = path.relative_to(root).as_posix()
        try:
            found = _read_known(path, f"{shown}/{relative}", relative)
        except SourceError as error:
            errors.append(error)
            continue
        if isinstance(found, Record):
            records.append(found)
        else:
            skipped.append(found)
    if errors:
        raise SourceErrors(errors)
    return tuple(records), tuple(skipped)
