"""Wikidata entity JSON: `Special:EntityData/Q….json`, a `wbgetentities` response, or one bare entity object.

Humans (P31 Q5) become people, scholarly works (P31 Q13442814, or anything with a title P1476 or authors
P50/P2093) become works; other entities in the file (employers, journals, co-authors) only lend their labels to
the values that point at them, which otherwise are named by their QID. Deprecated statements are skipped.
Authors are ordered by the series ordinal qualifier P1545 (a string), items (P50) and name strings (P2093)
together; authors without an ordinal follow in statement order. A work whose highest ordinal exceeds its number
of authors lists only some of them (authors_complete False).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..model import ExternalId, Origin, RecordAuthor, RecordOrg, RecordPerson, RecordRole, RecordWork
from .reading import RecordReader, Shape, clean, obj, year_of

FieldPath = tuple[str | int, ...]
HUMAN = "Q5"
WORK_CLASSES = {"Q13442814": "article", "Q591041": "article", "Q18918145": "article", "Q23927052": "inproceedings",
                "Q571": "book", "Q1980247": "incollection", "Q1266946": "thesis", "Q187685": "phdthesis"}
PERSON_IDS = (("P496", "orcid"), ("P2456", "dblp"), ("P1960", "scholar"), ("P213", "isni"))
WORK_IDS = (("P356", "doi"), ("P698", "pmid"), ("P932", "pmcid"), ("P818", "arxiv"))
ROLES = (("P108", "employment"), ("P69", "education"))
QID = re.compile(r"Q[1-9]\d*")


def _is_entity(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str) and QID.fullmatch(value["id"]) is not None


def _entities(document: Any) -> list[tuple[FieldPath, dict[str, Any]]]:
    if isinstance(document, dict) and isinstance(document.get("entities"), dict):
        return [(("entities", key), value) for key, value in document["entities"].items() if isinstance(value, dict)]
    return [((), document)] if isinstance(document, dict) else []


def is_wikidata(document: Any) -> bool:
    """Entity JSON: an `entities` object of items (EntityData, wbgetentities) or one bare item."""
    if isinstance(document, dict) and isinstance(document.get("entities"), dict):
        values = list(document["entities"].values())
        return bool(values) and all(_is_entity(v) for v in values)
    return _is_entity(document) and document.get("type") == "item" and isinstance(document.get("claims"), dict)


def _text(value: Any) -> str | None:
    """A string, monolingual text or time value as text."""
    if isinstance(value, dict):
        return clean(value.get("text")) or clean(value.get("time"))
    return clean(value)


def _item(value: Any) -> str | None:
    """The QID of an item value."""
    if isinstance(value, dict):
        if isinstance(value.get("id"), str):
            return value["id"]
        if isinstance(value.get("numeric-id"), int):
            return f"Q{value['numeric-id']}"
    return None


def _snak_value(snak: Any) -> Any:
    snak = obj(snak)
    return obj(snak.get("datavalue")).get("value") if snak.get("snaktype", "value") == "value" else None


def label(entity: dict[str, Any]) -> str | None:
    """The English label, else the first label in any language."""
    labels = obj(entity.get("labels"))
    english = clean(obj(labels.get("en")).get("value"))
    return english or next((v for entry in labels.values() if (v := clean(obj(entry).get("value")))), None)


class _Entities:
    """The entities of one file, their labels, and the reader's warnings."""

    def __init__(self, document: Any, reader: RecordReader) -> None:
        self.reader = reader
        self.items = [(path, entity) for path, entity in _entities(document) if "missing" not in entity]
        for path, entity in _entities(document):
            if "missing" in entity:
                reader.warn(reader.at(path), f"{entity.get('id')} is missing from Wikidata (deleted or never created)")
        self.labels = {e["id"]: n for _, e in self.items if isinstance(e.get("id"), str) if (n := label(e))}

    def name(self, qid: str) -> str:
        """The label of an item when the file has it, else its QID."""
        return self.labels.get(qid, qid)

    def statements(self, entity: dict[str, Any], path: FieldPath, prop: str) -> list[tuple[FieldPath, Any, dict]]:
        """(path, value, statement) of a property's statements with a value, deprecated ones skipped."""
        found = []
        for i, statement in enumerate(obj(entity.get("claims")).get(prop) or []):
            statement = obj(statement)
            value = _snak_value(statement.get("mainsnak"))
            if statement.get("rank") != "deprecated" and value is not None:
                found.append((path + ("claims", prop, i), value, statement))
        return found

    def values(self, entity: dict[str, Any], path: FieldPath, prop: str) -> list[tuple[FieldPath, Any]]:
        """(path, value) of a property's statements."""
        return [(p, v) for p, v, _ in self.statements(entity, path, prop)]


def qualifier(statement: dict[str, Any], prop: str) -> Any:
    """The value of a statement's first qualifier of a property, or None."""
    return next((v for snak in obj(statement.get("qualifiers")).get(prop) or [] if (v := _snak_value(snak))), None)


def _classes(found: _Entities, entity: dict[str, Any], path: FieldPath) -> list[str]:
    return [q for _, v in found.values(entity, path, "P31") if (q := _item(v))]


def _ordinal(statement: dict[str, Any]) -> int | None:
    text = _text(qualifier(statement, "P1545"))
    return int(text) if text and text.isdigit() else None


def _authors(found: _Entities, entity: dict[str, Any], path: FieldPath) -> tuple[list[RecordAuthor], bool]:
    """The authors in order (items and name strings together), and whether the list is complete."""
    reader = found.reader
    statements: list[tuple[int | None, int, str, FieldPath, Any, dict[str, Any]]] = []
    for prop in (p for p in obj(entity.get("claims")) if p in ("P50", "P2093")):
        for at, value, statement in found.statements(entity, path, prop):
            statements.append((_ordinal(statement), len(statements), prop, at, value, statement))
    ordinals = Counter(o for o, *_ in statements if o is not None)
    for ordinal in sorted(o for o, count in ordinals.items() if count > 1):
        reader.warn(reader.at(path + ("claims",)), f"two authors share the series ordinal {ordinal}; both are kept")
    statements.sort(key=lambda item: (item[0] is None, item[0] or 0, item[1]))
    kept, complete = reader.first_authors(statements, reader.at(path + ("claims",)))
    authors = []
    for _, _, prop, at, value, statement in kept:
        reader.tick(reader.at(at))
        if prop == "P50" and (qid := _item(value)):
            stated = _text(qualifier(statement, "P1932"))
            known = found.labels.get(qid)
            authors.append(RecordAuthor(stated or known or qid, (ExternalId("wikidata", qid),), reader.at(at),
                                        person_name=known if known and stated and known != stated else None))
        elif prop == "P2093" and (name := _text(value)):
            authors.append(RecordAuthor(name, (), reader.at(at)))
    listed = sum(1 for _, _, prop, _, value, _ in statements if (_item(value) if prop == "P50" else _text(value)))
    return authors, complete and (not ordinals or max(ordinals) <= listed)


def read_work(found: _Entities, entity: dict[str, Any], path: FieldPath) -> RecordWork | None:
    """One scholarly work; one without a title or label is left out with a warning."""
    reader = found.reader
    title = next((t for _, v in found.values(entity, path, "P1476") if (t := _text(v))), None) or label(entity)
    if title is None:
        reader.warn(reader.at(path), f"the work {entity.get('id')} has no title and no label, so it is left out")
        return None
    authors, complete = _authors(found, entity, path)
    pairs = [("wikidata", entity.get("id"), reader.at(path + ("id",)))]
    for prop, scheme in WORK_IDS:
        for at, value in found.values(entity, path, prop):
            text = _text(value)
            if scheme == "pmcid" and text and text.isdigit():
                text = "PMC" + text
            pairs.append((scheme, text, reader.at(at)))
    year = next((y for _, v in found.values(entity, path, "P577") if (y := year_of(_text(v)))), None)
    venue = next((found.name(q) for _, v in found.values(entity, path, "P1433") if (q := _item(v))), None)
    kind = next((WORK_CLASSES[q] for q in _classes(found, entity, path) if q in WORK_CLASSES), None)
    return RecordWork(str(entity.get("id")), title, tuple(authors), complete, year, venue, kind,
                      reader.identifiers(pairs), reader.at(path))


def _roles(found: _Entities, entity: dict[str, Any], path: FieldPath) -> list[RecordRole]:
    roles = []
    for prop, kind in ROLES:
        for at, value, statement in found.statements(entity, path, prop):
            qid = _item(value)
            if qid is None:
                continue
            degree = _item(qualifier(statement, "P512"))
            position = _item(qualifier(statement, "P2868")) or _item(qualifier(statement, "P39"))
            role = found.labels.get(degree or "") or found.labels.get(position or "")  # unlabelled: no role
            start, end = (year_of(_text(qualifier(statement, p))) for p in ("P580", "P582"))
            org = RecordOrg(found.name(qid), (ExternalId("wikidata", qid),))
            roles.append(RecordRole(kind, org, role, None, start, end, found.reader.at(at)))
    return roles


def read_person(found: _Entities, entity: dict[str, Any], path: FieldPath, works: list[RecordWork]) -> RecordPerson:
    """One human: label, aliases, identifiers, employers, schools, doctoral advisors and authored works."""
    reader = found.reader
    qid = str(entity.get("id"))
    name = label(entity) or qid
    aliases = [clean(obj(a).get("value")) for entries in obj(entity.get("aliases")).values() for a in entries or []]
    others = tuple(dict.fromkeys(a for a in aliases if a and a != name))
    pairs: list[tuple[str, str | None, Origin]] = [("wikidata", qid, reader.at(path + ("id",)))]
    pairs += [(scheme, _text(v), reader.at(at)) for prop, scheme in PERSON_IDS
              for at, v in found.values(entity, path, prop)]
    urls = tuple(u for _, v in found.values(entity, path, "P856") if (u := _text(v)))
    given, family = (next((found.labels[q] for _, v in found.values(entity, path, p)
                           if (q := _item(v)) and q in found.labels), None) for p in ("P735", "P734"))
    advisors = tuple(RecordAuthor(found.name(q), (ExternalId("wikidata", q),), reader.at(at))
                     for at, v in found.values(entity, path, "P184") if (q := _item(v)))
    own = tuple(w for w in works if any(ExternalId("wikidata", qid) in a.ids for a in w.authors))
    return RecordPerson(name, given, family, others, reader.identifiers(pairs), urls,
                        tuple(_roles(found, entity, path)), own, advisors, reader.at(path))


def _is_work(found: _Entities, entity: dict[str, Any], path: FieldPath) -> bool:
    claims = obj(entity.get("claims"))
    return bool(set(_classes(found, entity, path)) & set(WORK_CLASSES)) or any(p in claims for p in
                                                                               ("P1476", "P50", "P2093"))


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The humans and scholarly works among a file's entities."""
    found = _Entities(document, reader)
    humans = [(p, e) for p, e in found.items if HUMAN in _classes(found, e, p)]
    works = [w for p, e in found.items if HUMAN not in _classes(found, e, p) and _is_work(found, e, p)
             if (w := read_work(found, e, p))]
    return [read_person(found, e, p, works) for p, e in humans], works


SHAPES: list[Shape] = [("wikidata", "Wikidata entity JSON", is_wikidata, read)]
