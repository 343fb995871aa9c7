"""Crossref REST work JSON (a `/works/DOI` message, a `work-list` message, a bare item or a list of items)."""

from __future__ import annotations

from typing import Any

from ..model import RecordAuthor, RecordOrg, RecordPerson, RecordWork
from .reading import RecordReader, Shape, clean, year_of

DATE_FIELDS = ("published", "published-print", "published-online", "issued", "created")


def _is_item(value: Any) -> bool:
    return isinstance(value, dict) and "DOI" in value and ("title" in value or "author" in value)


def _items(document: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    if isinstance(document, list):
        return [((i,), item) for i, item in enumerate(document)]
    message = document.get("message")
    if document.get("message-type") == "work":
        return [(("message",), message)]
    if document.get("message-type") == "work-list":
        return [(("message", "items", i), item) for i, item in enumerate(message.get("items", []))]
    return [((), document)]


def is_crossref(document: Any) -> bool:
    """A Crossref work message, work list, item or list of items."""
    if isinstance(document, dict) and document.get("message-type") in ("work", "work-list"):
        return isinstance(document.get("message"), dict)
    if isinstance(document, list):
        return bool(document) and all(_is_item(item) for item in document)
    return _is_item(document) and "author" in document and isinstance(document.get("title"), list)


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        return next((clean(v) for v in value if clean(v)), None)
    return clean(value)


def _author(author: dict[str, Any], path: tuple[str | int, ...], reader: RecordReader) -> RecordAuthor | None:
    reader.tick(reader.at(path))
    name = clean(" ".join(p for p in (clean(author.get("given")), clean(author.get("family"))) if p)) \
        or clean(author.get("name"))
    if name is None:
        reader.warn(reader.at(path), "an author without a name is left out")
        return None
    ids = reader.identifiers([("orcid", author.get("ORCID"), reader.at(path + ("ORCID",)))])
    affiliations = tuple(RecordOrg(n) for a in author.get("affiliation") or []
                         if isinstance(a, dict) and (n := clean(a.get("name"))))
    return RecordAuthor(name, ids, reader.at(path), affiliations)


def read_item(item: dict[str, Any], path: tuple[str | int, ...], reader: RecordReader) -> RecordWork | None:
    """One Crossref work item; one without a title is kept (and quarantined)."""
    title = _first(item.get("title"))
    title = title or ""  # a work without a title fails the shapes and is quarantined (kg.pipeline.quarantine)
    subtitle = _first(item.get("subtitle"))
    if subtitle and not title.endswith(subtitle):
        title = f"{title}: {subtitle}"
    listed, complete = reader.first_authors(item.get("author"), reader.at(path + ("author",)))
    authors = [a for i, raw in enumerate(listed) if isinstance(raw, dict)
               if (a := _author(raw, path + ("author", i), reader))]
    year = next((y for f in DATE_FIELDS if (y := year_of(item.get(f))) is not None), None)
    ids = reader.identifiers([("doi", item.get("DOI"), reader.at(path + ("DOI",)))])
    doi = ids[0].value if ids else str(item.get("DOI"))
    return RecordWork(doi, title, tuple(authors), complete, year, _first(item.get("container-title")),
                      clean(item.get("type")), ids, reader.at(path))


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The works of a Crossref document."""
    works = [w for path, item in _items(document) if isinstance(item, dict) if (w := read_item(item, path, reader))]
    return [], works


SHAPES: list[Shape] = [("crossref", "Crossref work JSON", is_crossref, read)]
