"""OpenAlex work and author JSON: single objects and `results` lists."""

from __future__ import annotations

from typing import Any

from ..model import ExternalId, RecordAuthor, RecordOrg, RecordPerson, RecordRole, RecordWork
from .reading import RecordReader, Shape, clean, obj, year_of

FieldPath = tuple[str | int, ...]


def _kind(value: Any) -> str | None:
    """'work' or 'author' for an OpenAlex object (by its id's letter), else None."""
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return None
    ident = value["id"].rsplit("/", 1)[-1]
    if "openalex.org/" not in value["id"]:
        return None
    return {"W": "work", "A": "author"}.get(ident[:1].upper())


def _objects(document: Any) -> list[tuple[FieldPath, dict[str, Any]]]:
    if isinstance(document, dict) and isinstance(document.get("results"), list):
        return [(("results", i), item) for i, item in enumerate(document["results"]) if isinstance(item, dict)]
    return [((), document)]


def is_openalex(document: Any) -> bool:
    """An OpenAlex work or author, or a `results` list of them."""
    objects = _objects(document)
    return bool(objects) and all(_kind(item) for _, item in objects)


def _institution(value: Any, path: FieldPath, reader: RecordReader) -> RecordOrg | None:
    if not isinstance(value, dict) or not clean(value.get("display_name")):
        return None
    ids = reader.identifiers([("ror", value.get("ror"), reader.at(path + ("ror",))),
                              ("openalex", value.get("id"), reader.at(path + ("id",)))])
    return RecordOrg(clean(value["display_name"]) or "", ids)


def _authorship(value: dict[str, Any], path: FieldPath, reader: RecordReader) -> RecordAuthor | None:
    reader.tick(reader.at(path))
    author = obj(value.get("author"))
    display = clean(author.get("display_name"))
    name = clean(value.get("raw_author_name")) or display
    if name is None:
        reader.warn(reader.at(path), "an authorship without a name is left out")
        return None
    ids = reader.identifiers([("orcid", author.get("orcid"), reader.at(path + ("author", "orcid"))),
                              ("openalex", author.get("id"), reader.at(path + ("author", "id")))])
    orgs = tuple(o for i, inst in enumerate(value.get("institutions") or [])
                 if (o := _institution(inst, path + ("institutions", i), reader)))
    return RecordAuthor(name, ids, reader.at(path), orgs, display if display != name else None)


def read_work(work: dict[str, Any], path: FieldPath, reader: RecordReader) -> RecordWork | None:
    """One OpenAlex work; one without a title is kept (and quarantined)."""
    title = clean(work.get("title")) or clean(work.get("display_name"))
    title = title or ""  # a work without a title fails the shapes and is quarantined (kg.pipeline.quarantine)
    extra = obj(work.get("ids"))
    ids = reader.identifiers([
        ("doi", work.get("doi") or extra.get("doi"), reader.at(path + ("doi",))),
        ("openalex", work.get("id"), reader.at(path + ("id",))),
        ("pmid", extra.get("pmid"), reader.at(path + ("ids", "pmid"))),
        ("pmcid", extra.get("pmcid"), reader.at(path + ("ids", "pmcid")))])
    listed, complete = reader.first_authors(work.get("authorships"), reader.at(path + ("authorships",)))
    authors = [a for i, raw in enumerate(listed) if isinstance(raw, dict)
               if (a := _authorship(raw, path + ("authorships", i), reader))]
    location = obj(work.get("primary_location"))
    source = obj(location.get("source"))
    year = year_of(work.get("publication_year")) or year_of(work.get("publication_date"))
    key = next((i.value for i in ids if i.scheme == "openalex"), title)
    return RecordWork(key, title, tuple(authors), complete, year, clean(source.get("display_name")),
                      clean(work.get("type")), ids, reader.at(path))


def _roles(author: dict[str, Any], path: FieldPath, reader: RecordReader) -> list[RecordRole]:
    roles = []
    for i, entry in enumerate(author.get("affiliations") or []):
        if not isinstance(entry, dict):
            continue
        org = _institution(entry.get("institution"), path + ("affiliations", i, "institution"), reader)
        years = sorted(y for y in entry.get("years") or [] if isinstance(y, int))
        if org is not None:
            roles.append(RecordRole("affiliation", org, None, None, years[0] if years else None,
                                    years[-1] if years else None, reader.at(path + ("affiliations", i))))
    if not roles:
        for i, inst in enumerate(author.get("last_known_institutions") or []):
            org = _institution(inst, path + ("last_known_institutions", i), reader)
            if org is not None:
                roles.append(RecordRole("affiliation", org, None, None, None, None,
                                        reader.at(path + ("last_known_institutions", i))))
    return roles


def read_author(author: dict[str, Any], path: FieldPath, reader: RecordReader) -> RecordPerson | None:
    """One OpenAlex author; one without a name is left out with a warning."""
    name = clean(author.get("display_name"))
    if name is None:
        reader.warn(reader.at(path + ("display_name",)), "an author without a name is left out")
        return None
    extra = obj(author.get("ids"))
    ids: tuple[ExternalId, ...] = reader.identifiers([
        ("openalex", author.get("id"), reader.at(path + ("id",))),
        ("orcid", author.get("orcid") or extra.get("orcid"), reader.at(path + ("orcid",)))])
    others = tuple(n for raw in author.get("display_name_alternatives") or [] if (n := clean(raw)) and n != name)
    return RecordPerson(name, None, None, others, ids, (), tuple(_roles(author, path, reader)), (), (),
                        reader.at(path))


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The authors and works of an OpenAlex document."""
    people, works = [], []
    for path, item in _objects(document):
        if _kind(item) == "author":
            if (person := read_author(item, path, reader)) is not None:
                people.append(person)
        elif (work := read_work(item, path, reader)) is not None:
            works.append(work)
    return people, works


SHAPES: list[Shape] = [("openalex", "OpenAlex JSON", is_openalex, read)]
