"""BibTeX files as records (parsed with bibtexparser 2.x): each entry is a work, keyed by its citation key.

Names written "Last, First" (or "Last, Jr, First") are turned into "First Last"; a trailing "and others" is
dropped and marks the author list as incomplete. Blocks bibtexparser cannot read become warnings with their line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import Location
from ..model import RecordAuthor, RecordPerson, RecordWork
from .bounds import Bounds, Deadline, too_long
from .reading import RecordReader, Shape, clean, year_of

START = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
VENUE_FIELDS = ("journal", "booktitle", "series", "school", "institution", "publisher", "howpublished")
OTHERS = {"others", "et al.", "et al"}
PEOPLE_FIELDS = ("author", "editor")
_AND_OR_BRACE = re.compile(r"\s+and\s+|[{}]", re.I)


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


def _first_names(value: str, limit: int) -> tuple[str, int, int]:
    """The first `limit` names of an 'A and B and C' field (an 'and' inside braces does not separate), how many
    names the field holds when that is more (else 0), and the length of its longest kept name."""
    depth, count, begins, longest = 0, 1, 0, 0
    for match in _AND_OR_BRACE.finditer(value):
        if match.group() == "{":
            depth += 1
        elif match.group() == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            longest = max(longest, match.start() - begins)
            if count == limit:
                rest = sum(1 for later in _AND_OR_BRACE.finditer(value, match.end()) if later.group() not in "{}")
                return value[:match.start()], count + 1 + rest, longest
            count, begins = count + 1, match.end()
    return value, 0, max(longest, len(value) - begins)


def bounded_library(text: str, display: str, bounds: Bounds, deadline: Deadline,
                    warn: Callable[[int, str], None]) -> Any:
    """A BibTeX text parsed by bibtexparser within the bounds: author and editor lists cut to KG_MAX_AUTHORS
    (warn(line, message) says so) before any name is decoded, a field longer than KG_MAX_FIELD_CHARS refused,
    and LaTeX decoding (slow on long values) run entry by entry under the deadline."""
    import bibtexparser
    from bibtexparser import middlewares

    library = bibtexparser.parse_string(text)
    for entry in library.entries:
        line = (entry.start_line or 0) + 1
        deadline.check(line)
        for item in entry.fields:
            value = item.value if isinstance(item.value, str) else str(item.value)
            size = len(value)
            if item.key.lower() in PEOPLE_FIELDS:  # long because of its many names: each name is bounded
                value, count, size = _first_names(value, bounds.authors)
                if count:
                    warn(line, f"@{entry.entry_type}{{{entry.key}}}.{item.key}: {bounds.elided(count)}")
                    item.value = value + " and others"
            if size > bounds.field_chars:
                raise too_long(Location(Path(display), (item.start_line or entry.start_line or 0) + 1,
                                        f"@{entry.entry_type}{{{entry.key}}}.{item.key}"), size, bounds.field_chars)
    for middleware in (middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors()):
        for entry in library.entries:
            deadline.check((entry.start_line or 0) + 1)
            middleware.transform_block(entry, library)
    return library


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The works of a BibTeX text."""
    library = bounded_library(document, reader.file, reader.bounds, reader.deadline,
                              lambda line, message: reader.warn(reader.at(line=line), message))
    for block in library.failed_blocks:
        line = block.start_line + 1 if isinstance(block.start_line, int) else None
        why = str(getattr(block, "error", "") or "") or "malformed BibTeX"
        reader.warn(reader.at(line=line), f"a BibTeX block that cannot be read is left out ({why})")
    return [], [w for entry in library.entries if (w := read_entry(entry, reader))]


SHAPES: list[Shape] = [("bibtex", "BibTeX", is_bibtex, read)]
