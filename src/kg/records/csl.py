"""CSL-JSON (the citation-style item list Zotero, pandoc and citeproc exchange) as records: each item is a work.

Read: the array-of-items form with `type`, `title`, `author` (`family`, `given` or `literal`), `issued`
(`date-parts`), `container-title`, `DOI` and `URL`. An item that is not an object, or a field of the wrong kind
(a title that is not text, authors that are not a list), is malformed: an error naming its JSON path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from ..identifiers import looks_like
from ..model import RecordAuthor, RecordPerson, RecordWork
from ..sources import FieldPath, format_path
from .reading import RecordReader, Shape, clean, year_of

KINDS = {"dataset": "dataset", "software": "software"}


def is_csl(document: Any) -> bool:
    """A JSON array whose first item has a CSL `type` and a text `title` (or `issued`), not a Crossref `member`."""
    if not isinstance(document, list) or not document or not isinstance(document[0], dict):
        return False
    first = document[0]
    titled = isinstance(first.get("title"), str) or ("title" not in first and "issued" in first)
    return isinstance(first.get("type"), str) and titled and "member" not in first


def _malformed(reader: RecordReader, path: FieldPath, why: str) -> SourceError:
    return SourceError(Location(Path(reader.file), None, format_path(path)),
                       f"malformed CSL-JSON ({why}); export the items again")


def _expect(reader: RecordReader, item: dict[str, Any], path: FieldPath, key: str, kind: type,
            what: str) -> Any:
    value = item.get(key)
    if value is not None and not isinstance(value, kind):
        raise _malformed(reader, path + (key,), f"{key} must be {what}")
    return value


def _author(raw: Any, path: FieldPath, reader: RecordReader) -> RecordAuthor | None:
    if not isinstance(raw, dict):
        raise _malformed(reader, path, "an author must be an object with family, given or literal")
    parts = [clean(raw.get(k)) for k in ("given", "family")]
    name = clean(raw.get("literal")) or clean(" ".join(p for p in parts if p))
    if name is None:
        reader.warn(reader.at(path), "an author without a name is left out")
        return None
    return RecordAuthor(name, (), reader.at(path))


def read_item(item: Any, path: FieldPath, reader: RecordReader) -> RecordWork:
    """One CSL item as a work."""
    if not isinstance(item, dict):
        raise _malformed(reader, path, "each item must be an object")
    reader.tick(reader.at(path))
    title = _expect(reader, item, path, "title", str, "text")
    kind = _expect(reader, item, path, "type", str, "text")
    written = _expect(reader, item, path, "author", list, "a list")
    issued = _expect(reader, item, path, "issued", dict, "an object with date-parts")
    listed, complete = reader.first_authors(written or [], reader.at(path + ("author",)))
    authors = [a for i, raw in enumerate(listed) if (a := _author(raw, path + ("author", i), reader))]
    url = clean(item.get("URL"))
    doi = item.get("DOI") or (url if url and looks_like(url) == "doi" else None)
    ids = reader.identifiers([("doi", doi, reader.at(path + ("DOI",)))])
    key = ids[0].value if ids else clean(item.get("id")) or format_path(path)
    return RecordWork(key, clean(title) or "", tuple(authors), complete, year_of(issued) if issued else None,
                      clean(item.get("container-title")), KINDS.get(kind or "", kind), ids, reader.at(path))


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The works of a CSL-JSON item list."""
    return [], [read_item(item, (i,), reader) for i, item in enumerate(document)]


SHAPES: list[Shape] = [("csl", "CSL-JSON", is_csl, read)]
