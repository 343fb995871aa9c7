"""RIS files (`TY  - JOUR` … `ER  -`) as records: each reference is a work, located by the line of its TY tag.

Tags read: TY (the kind), AU/A1 (authors, "Last, First" turned round), TI/T1 (title), T2/JO/JF/BT (venue),
PY/Y1/DA (year), DO (DOI), UR (a DOI link), VL, IS, SP, EP (read, not mapped: kg keeps no pages or volumes).
Any other tag is skipped. A line that is not `XX  - value`, a tag outside TY … ER, or a reference never closed
by ER is malformed: an error naming the line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from ..identifiers import looks_like
from ..model import RecordAuthor, RecordPerson, RecordWork
from .bibtex import person_name
from .bounds import too_long
from .reading import RecordReader, Shape, clean, year_of

LINE = re.compile(r"^([A-Z][A-Z0-9])  ?-(?: (.*))?$")
AUTHOR_TAGS = ("AU", "A1")
TITLE_TAGS = ("TI", "T1")
VENUE_TAGS = ("T2", "JO", "JF", "BT", "JA")
YEAR_TAGS = ("PY", "Y1", "DA")
KINDS = {"DATA": "dataset", "DBASE": "dataset", "COMP": "software"}


def is_ris(document: Any) -> bool:
    """Text whose first non-blank line is a TY tag."""
    if not isinstance(document, str):
        return False
    first = next((line.strip() for line in document.splitlines() if line.strip()), "")
    return re.match(r"^TY  ?-", first) is not None


def _malformed(reader: RecordReader, line: int, why: str) -> SourceError:
    return SourceError(Location(Path(reader.file), line), f"malformed RIS ({why}); export the references again")


def _references(text: str, reader: RecordReader) -> list[tuple[int, list[tuple[str, str, int]]]]:
    """(line of TY, [(tag, value, line)]) for each reference, every line checked."""
    found: list[tuple[int, list[tuple[str, str, int]]]] = []
    current: list[tuple[str, str, int]] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        if number % 1000 == 0:
            reader.deadline.check(number)
        if not raw.strip():
            continue
        match = LINE.match(raw.rstrip())
        if match is None:
            raise _malformed(reader, number, f"the line {raw.strip()[:40]!r} is not a tag such as 'TI  - title'")
        tag, value = match.group(1), (match.group(2) or "").strip()
        if len(value) > reader.bounds.field_chars:
            raise too_long(Location(Path(reader.file), number, tag), len(value), reader.bounds.field_chars)
        if tag == "TY":
            if current is not None:
                raise _malformed(reader, number, "a TY tag before the previous reference's ER")
            current = [(tag, value, number)]
            found.append((number, current))
        elif current is None:
            raise _malformed(reader, number, f"the tag {tag} outside a reference (each starts with TY and ends "
                                             "with ER)")
        elif tag == "ER":
            current = None
        else:
            current.append((tag, value, number))
    if current is not None:
        raise _malformed(reader, current[0][2], "this reference is never closed by an 'ER  -' line")
    return found


def _work(index: int, line: int, fields: list[tuple[str, str, int]], reader: RecordReader) -> RecordWork:
    origin = reader.at(line=line)
    values: dict[str, list[str]] = {}
    for tag, value, _ in fields:
        values.setdefault(tag, []).append(value)

    def first(*tags: str) -> str | None:
        return next((c for t in tags for v in values.get(t, []) if (c := clean(v))), None)

    written = [v for t in AUTHOR_TAGS for v in values.get(t, []) if clean(v)]
    listed, complete = reader.first_authors(written, origin)
    authors = [RecordAuthor(person_name(clean(name) or ""), (), origin) for name in listed]
    links = [u for u in values.get("UR", []) if looks_like(u) == "doi"]
    ids = reader.identifiers([("doi", first("DO") or next(iter(links), None), origin)])
    year = next((y for t in YEAR_TAGS for v in values.get(t, []) if (y := year_of(v.split("/")[0])) is not None),
                None)
    kind = first("TY") or ""
    key = ids[0].value if ids else first("ID") or f"ris-{index + 1}"
    return RecordWork(key, first(*TITLE_TAGS) or "", tuple(authors), complete, year, first(*VENUE_TAGS),
                      KINDS.get(kind, kind.lower() or None), ids, origin)


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The works of a RIS text."""
    return [], [_work(i, line, fields, reader) for i, (line, fields) in enumerate(_references(document, reader))]


SHAPES: list[Shape] = [("ris", "RIS", is_ris, read)]
