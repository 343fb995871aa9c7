"""DataCite records: the REST API's JSON:API documents (one DOI or a `data` list) and kernel-4 metadata XML.

Each DOI gives one work keyed by its DOI, with its creators as authors in order (`authors_complete=True`).
A creator's name is "given family" when the record splits it, else the name as written, turned round when
it is a personal name written "Family, Given". Organisational creators (`nameType="Organizational"`) are not
people and are left out. ORCID and ISNI name identifiers are kept (URL or bare); affiliations keep their ROR
id. The venue is the container's title when there is one, else the publisher; the kind is
`resourceTypeGeneral` as written (Dataset, Software, JournalArticle, ...).
"""

from __future__ import annotations

from typing import Any

from ..model import ExternalId, Origin, RecordAuthor, RecordOrg, RecordPerson, RecordWork
from .files import Element
from .reading import RecordReader, Shape, clean, obj, year_of

FieldPath = tuple[str | int, ...]
NAME_SCHEMES = {"orcid": "orcid", "isni": "isni"}
ORG_SCHEMES = {"ror": "ror", "grid": "grid", "isni": "isni"}


def _personal_name(name: str | None, given: str | None, family: str | None, name_type: str | None) -> str | None:
    """A creator's name, "given family": split fields first, else "Family, Given" turned round."""
    if given and family:
        return f"{given} {family}"
    if name and name.count(",") == 1 and (name_type or "personal").lower() == "personal":
        family_part, given_part = (part.strip() for part in name.split(","))
        if family_part and given_part:
            return f"{given_part} {family_part}"
    return name or family or given


def _org(name: str | None, raw: str | None, scheme: str | None, origin: Origin,
         reader: RecordReader) -> RecordOrg | None:
    """An affiliation with its identifier when the scheme is one kg knows."""
    if name is None:
        return None
    known = ORG_SCHEMES.get((scheme or "").lower())
    return RecordOrg(name, reader.identifiers([(known, raw, origin)]) if known else ())


# --- REST JSON:API --------------------------------------------------------------------------------------------


def _is_doi(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "dois" and isinstance(value.get("attributes"), dict)


def is_datacite_json(document: Any) -> bool:
    """A DataCite REST response: `data` is one DOI object or a non-empty list of them."""
    data = document.get("data") if isinstance(document, dict) else None
    if isinstance(data, list):
        return bool(data) and all(_is_doi(item) for item in data)
    return _is_doi(data)


def _json_affiliations(value: Any, path: FieldPath, reader: RecordReader) -> tuple[RecordOrg, ...]:
    """A creator's affiliations, written as strings or as objects with an identifier."""
    items = value if isinstance(value, list) else [value]
    orgs = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            org = _org(clean(item), None, None, reader.at(path + (i,)), reader)
        else:
            item = obj(item)
            org = _org(clean(item.get("name")), item.get("affiliationIdentifier"),
                       item.get("affiliationIdentifierScheme"), reader.at(path + (i, "affiliationIdentifier")), reader)
        if org is not None and org not in orgs:
            orgs.append(org)
    return tuple(orgs)


def _json_creator(creator: dict[str, Any], path: FieldPath, reader: RecordReader) -> RecordAuthor | None:
    """One JSON creator as an author; None for an organisation or a creator without a name."""
    reader.tick(reader.at(path))
    if str(creator.get("nameType") or "").lower() == "organizational":
        return None
    name = _personal_name(clean(creator.get("name")), clean(creator.get("givenName")),
                          clean(creator.get("familyName")), clean(creator.get("nameType")))
    if name is None:
        reader.warn(reader.at(path), "a creator without a name is left out")
        return None
    pairs = []
    for i, ident in enumerate(creator.get("nameIdentifiers") or []):
        ident = obj(ident)
        scheme = NAME_SCHEMES.get(str(ident.get("nameIdentifierScheme") or "").lower())
        if scheme:
            pairs.append((scheme, ident.get("nameIdentifier"), reader.at(path + ("nameIdentifiers", i))))
    affiliations = _json_affiliations(creator.get("affiliation") or [], path + ("affiliation",), reader)
    return RecordAuthor(name, reader.identifiers(pairs), reader.at(path), affiliations)


def _json_title(titles: Any) -> str | None:
    """The main title: the first without a `titleType`, else the first."""
    items = [obj(t) for t in titles] if isinstance(titles, list) else []
    main = [t for t in items if not t.get("titleType")] or items
    return next((title for t in main if (title := clean(t.get("title")))), None)


def _json_year(attributes: dict[str, Any]) -> int | None:
    """The publication year, else the year of the `Issued` date."""
    year = year_of(attributes.get("publicationYear"))
    issued = (d.get("date") for d in map(obj, attributes.get("dates") or []) if d.get("dateType") == "Issued")
    return year if year is not None else next((y for d in issued if (y := year_of(d)) is not None), None)


def read_attributes(attributes: dict[str, Any], fallback_id: Any, path: FieldPath,
                    reader: RecordReader) -> RecordWork | None:
    """One DOI's attributes as a work; one without a title is kept (and quarantined)."""
    title = _json_title(attributes.get("titles"))
    title = title or ""  # a DOI without a title fails the shapes and is quarantined (kg.pipeline.quarantine)
    raw_doi = attributes.get("doi") or fallback_id
    ids = reader.identifiers([("doi", raw_doi, reader.at(path + ("doi",)))])
    listed, complete = reader.first_authors(attributes.get("creators"), reader.at(path + ("creators",)))
    authors = [a for i, raw in enumerate(listed) if isinstance(raw, dict)
               if (a := _json_creator(raw, path + ("creators", i), reader))]
    publisher = attributes.get("publisher")
    venue = clean(obj(attributes.get("container")).get("title")) or clean(
        obj(publisher).get("name") if isinstance(publisher, dict) else publisher)
    key = ids[0].value if ids else clean(raw_doi) or title
    return RecordWork(key, title, tuple(authors), complete, _json_year(attributes), venue,
                      clean(obj(attributes.get("types")).get("resourceTypeGeneral")), ids, reader.at(path))


def read_json(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The works of a DataCite REST response."""
    data = document["data"]
    items = [(("data", i), item) for i, item in enumerate(data)] if isinstance(data, list) else [(("data",), data)]
    works = [w for path, item in items
             if (w := read_attributes(item["attributes"], item.get("id"), path + ("attributes",), reader))]
    return [], works


# --- kernel-4 XML ---------------------------------------------------------------------------------------------


def is_datacite_xml(document: Any) -> bool:
    """A DataCite kernel metadata document: a `resource` root with an identifier and creators or titles."""
    if not isinstance(document, Element) or document.name != "resource":
        return False
    return document.find("identifier") is not None and bool(document.find("creators") or document.find("titles"))


def _xml_creator(creator: Element, reader: RecordReader) -> RecordAuthor | None:
    """One `creator` element as an author; None for an organisation or a creator without a name."""
    reader.tick(reader.at((), creator.line))
    name_element = creator.find("creatorName")
    name_type = name_element.attributes.get("nameType") if name_element is not None else None
    if (name_type or "").lower() == "organizational":
        return None
    name = _personal_name(creator.text_of("creatorName"), creator.text_of("givenName"),
                          creator.text_of("familyName"), name_type)
    if name is None:
        reader.warn(reader.at((), creator.line), "a creator without a name is left out")
        return None
    pairs = [(scheme, " ".join(ident.text.split()), reader.at((), ident.line)) for ident in creator.findall(
        "nameIdentifier") if (scheme := NAME_SCHEMES.get(ident.attributes.get("nameIdentifierScheme", "").lower()))]
    orgs: list[RecordOrg] = []
    for element in creator.findall("affiliation"):
        org = _org(clean(element.text), element.attributes.get("affiliationIdentifier"),
                   element.attributes.get("affiliationIdentifierScheme"), reader.at((), element.line), reader)
        if org is not None and org not in orgs:
            orgs.append(org)
    return RecordAuthor(name, reader.identifiers(pairs), reader.at((), creator.line), tuple(orgs))


def _xml_title(resource: Element) -> str | None:
    """The main title: the first `title` without a `titleType`, else the first."""
    titles = resource.find("titles")
    items = titles.findall("title") if titles is not None else []
    main = [t for t in items if "titleType" not in t.attributes] or items
    return next((text for t in main if (text := clean(t.text))), None)


def _xml_venue(resource: Element) -> str | None:
    """The title of the item this one is published in (kernel 4.4 `relatedItem`), else the publisher."""
    related = resource.find("relatedItems")
    for item in related.findall("relatedItem") if related is not None else []:
        if item.attributes.get("relationType") == "IsPublishedIn" and (title := item.text_of("titles", "title")):
            return title
    publisher = resource.find("publisher")
    if publisher is None:
        return None
    return clean(publisher.text) or publisher.text_of("publisherName")


def read_xml(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The one work of a DataCite kernel-4 document."""
    resource: Element = document
    title = _xml_title(resource)
    if title is None:
        reader.warn(reader.at((), resource.line), "a DOI without a title is left out")
        return [], []
    identifier = resource.find("identifier")
    ids: tuple[ExternalId, ...] = ()
    raw = None
    if identifier is not None and identifier.attributes.get("identifierType", "DOI").upper() == "DOI":
        raw = clean(identifier.text)
        ids = reader.identifiers([("doi", raw, reader.at((), identifier.line))])
    creators = resource.find("creators")
    listed, complete = reader.first_authors(creators.findall("creator") if creators is not None else [],
                                            reader.at((), creators.line if creators is not None else None))
    authors = [a for c in listed if (a := _xml_creator(c, reader))]
    resource_type = resource.find("resourceType")
    kind = clean(resource_type.attributes.get("resourceTypeGeneral")) if resource_type is not None else None
    key = ids[0].value if ids else raw or title
    return [], [RecordWork(key, title, tuple(authors), complete, year_of(resource.text_of("publicationYear")),
                           _xml_venue(resource), kind, ids, reader.at((), resource.line))]


JSON_SHAPES: list[Shape] = [("datacite", "DataCite REST JSON", is_datacite_json, read_json)]
XML_SHAPES: list[Shape] = [("datacite", "DataCite kernel-4 XML", is_datacite_xml, read_xml)]
SHAPES: list[Shape] = JSON_SHAPES + XML_SHAPES
