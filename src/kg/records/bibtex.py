"""BibTeX files as records (parsed with bibtexparser 2.x): each entry is a work, keyed by its citation key.

Names written "Last, First" (or "Last, Jr, First") are turned into "First Last"; a trailing "and others" is
dropped and marks the author list as incomplete. Blocks bibtexparser cannot read become warnings with their line.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import RecordAuthor, RecordPerson, RecordWork
from .reading import RecordReader, Shape, clean, year_of

START = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
VENUE_FIELDS = ("journal", "booktitle", "series", "school", "institution", "publisher", "howpublished")
OTHERS = {"others", "et al.", "et al"}


def is_bibtex(document: Any) -> bool:
    """Text whose first content after blank lines and % comments is an @type{ block."""
    if not isinstance(document, str):
        return False
    for line in document.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            return START.match(stripped) is not None
    return False


def _text(value: Any) -> str | None:
    """A field's value without braces, whitespace collapsed."""
    return clean(str(value).replace("{", "").replace("}", "")) if value is not None else None


def person_name(written: str) -> str:
    """'Last, First' -> 'First Last'; 'Last, Jr, First' -> 'First Last Jr'; other names unchanged."""
    parts = [p.strip() for p in written.split(",")]
    if len(parts) == 2 and all(parts):
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3 and parts[0] and parts[2]:
        return " ".join(p for p in (parts[2], parts[0], parts[1]) if p)
    return written


def _authors(value: Any, origin: Any) -> tuple[list[RecordAuthor], bool]:
    """The authors of an author field, and whether the list is complete (no 'and others')."""
    names = value if isinstance(value, list) else re.split(r"\s+and\s+", str(value))
    authors, complete = [], True
    for raw in names:
        name = _text(raw)
        if not name:
            continue
        if name.lower() in OTHERS:
            complete = False
        else:
            authors.append(RecordAuthor(person_name(name), (), origin))
    return authors, complete


def read_entry(entry: Any, reader: RecordReader) -> RecordWork | None:
    """One entry; one without a title is left out with a warning."""
    origin = reader.at(line=entry.start_line + 1)
    fields = {f.key.lower(): f.value for f in entry.fields}
    title = _text(fields.get("title"))
    if not title:
        reader.warn(origin, f"@{entry.entry_type}{{{entry.key}}} has no title, so it is left out")
        return None
    authors, complete = _authors(fields.get("author", []), origin)
    venue = next((v for f in VENUE_FIELDS if (v := _text(fields.get(f)))), None)
    pairs = [("doi", _text(fields.get("doi")), origin)]
    if entry.key.startswith("DBLP:"):  # dblp's own BibTeX: the key is the record key
        pairs.append(("dblp-record", entry.key[len("DBLP:"):], origin))
    if (_text(fields.get("archiveprefix")) or "").lower() == "arxiv":
        pairs.append(("arxiv", _text(fields.get("eprint")), origin))
    return RecordWork(entry.key, title, tuple(authors), complete, year_of(_text(fields.get("year"))), venue,
                      entry.entry_type.lower(), reader.identifiers(pairs), origin)


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The works of a BibTeX text."""
    import bibtexparser
    from bibtexparser import middlewares

    library = bibtexparser.parse_string(document, append_middleware=[middlewares.LatexDecodingMiddleware(),
                                                                     middlewares.SeparateCoAuthors()])
    for block in library.failed_blocks:
        line = block.start_line + 1 if isinstance(block.start_line, int) else None
        why = str(getattr(block, "error", "") or "") or "malformed BibTeX"
        reader.warn(reader.at(line=line), f"a BibTeX block that cannot be read is left out ({why})")
    return [], [w for entry in library.entries if (w := read_entry(entry, reader))]


SHAPES: list[Shape] = [("bibtex", "BibTeX", is_bibtex, read)]
