"""ORCID API v3.0 records, JSON and XML: full record, person, activities, employments, educations, works, one work.

Both formats are read through one view of the tree (`orcid_tree.Node`), so each field is read once.

What comes out:
- A document about one person (full record, `/person`, `/activities`, `/employments`, `/educations`, `/works`)
  gives one `RecordPerson`. Its ORCID iD is the first of `orcid-identifier/path`, the document's `path`
  (`/0000-…/person`) and `person/name/path` that is present; an iD failing its check is warned about and not
  used. `name` is the credit name, else "given family", else "" when the document carries no name (activities,
  employments, works): the person is then known by the iD alone. Employments and educations become roles
  (kind "employment" / "education"), organisations keep their ROR, GRID and Ringgold ids. Works summaries
  become the person's `works`: one work per group (the first summary, the one ORCID shows as preferred), with
  no authors and `authors_complete=False`, since summaries carry no contributors; the person whose record it
  is should be taken as an author.
- A single full work gives that work in the record's `works`, its contributors (role absent or an author
  role; editors, translators, assignees and support staff are not authors) as authors in document order,
  `authors_complete=True` when any are listed (False when one has no credit name and is left out). A work
  listing none goes, when the document names its owner, to a nameless person with that iD instead.
- A single full employment or education gives a nameless person with the owner's iD and the one role;
  without an iD there is nothing to attribute it to, and a warning says so.
A bare activity's owner is the iD of its `path` (`/0000-…/employment/12`), else its `source-orcid` (the
person who added it; an activity added by a member client has only a `source-client-id` and no owner).
A work's key is `put-code-N`, else its DOI, else its title.
"""

from __future__ import annotations

from typing import Any

from ..model import ExternalId, Origin, RecordAuthor, RecordOrg, RecordPerson, RecordRole, RecordWork
from .orcid_tree import SECTIONS, JsonNode, Node, XmlNode, json_kind, summaries, xml_kind
from .reading import RecordReader, Shape, year_of

ORG_SCHEMES = {"ROR": "ror", "GRID": "grid", "RINGGOLD": "ringgold"}
PERSON_SCHEMES = {"isni": "isni"}
WORK_SCHEMES = {"doi": "doi", "pmid": "pmid", "pmc": "pmcid", "arxiv": "arxiv"}
NOT_AUTHORS = {"editor", "chair-or-translator", "assignee", "support-staff"}


def _orcid_in(path: str | None) -> str | None:
    """The first segment of an ORCID path (`/0000-…/person` → `0000-…`), or None."""
    segment = (path or "").strip("/").split("/", 1)[0]
    return segment or None


def _owner(root: Node, reader: RecordReader, standalone: bool) -> ExternalId | None:
    """The ORCID iD a document is about: the first candidate present, checked (a failing one is warned about)."""
    candidates: list[tuple[str | None, Origin]] = []
    ident = root.get("orcid-identifier")
    if ident is not None:
        candidates.append((ident.text("path") or ident.text("uri"), ident.origin(reader, "path")))
    candidates.append((_orcid_in(root.attr("path")), root.origin(reader, "path")))
    name = root.get("person", "name") or root.get("name")
    if name is not None:
        candidates.append((_orcid_in(name.attr("path")), name.origin(reader, "path")))
    source = root.get("source", "source-orcid")
    if standalone and source is not None:
        candidates.append((source.text("path") or source.text("uri"), source.origin(reader, "path")))
    raw, origin = next(((raw, origin) for raw, origin in candidates if raw), (None, root.origin(reader)))
    return reader.identifier("orcid", raw, origin)


def _org(node: Node, reader: RecordReader) -> RecordOrg | None:
    """An organisation with its ROR, GRID or Ringgold id."""
    name = node.text("name")
    if name is None:
        return None
    found = node.get("disambiguated-organization")
    scheme = ORG_SCHEMES.get((found.text("disambiguation-source") or "").upper()) if found else None
    if found is None or scheme is None:
        return RecordOrg(name)
    raw = found.text("disambiguated-organization-identifier")
    origin = found.origin(reader, "disambiguated-organization-identifier")
    return RecordOrg(name, reader.identifiers([(scheme, raw, origin)]))


def _role(node: Node, kind: str, reader: RecordReader) -> RecordRole | None:
    """An employment or education (summary or full); one without an organisation name is left out."""
    found = node.get("organization")
    org = _org(found, reader) if found is not None else None
    if org is None:
        reader.warn(node.origin(reader, "organization"), f"an {kind} without an organisation name is left out")
        return None
    return RecordRole(kind, org, node.text("role-title"), node.text("department-name"),
                      year_of(node.text("start-date", "year")), year_of(node.text("end-date", "year")),
                      node.origin(reader))


def _contributor(node: Node, reader: RecordReader) -> RecordAuthor | None:
    """A work's contributor as an author; None for an editor, translator, ... or one without a name."""
    role = (node.text("contributor-attributes", "contributor-role") or "author").lower()
    if role in NOT_AUTHORS:
        return None
    ident = node.get("contributor-orcid")
    ids = reader.identifiers([("orcid", ident.text("path") or ident.text("uri"), ident.origin(reader, "path"))]
                             if ident is not None else [])
    name = node.text("credit-name")
    if name is None:
        reader.warn(node.origin(reader), "a contributor without a credit name is left out; the work's author list "
                                         "is read as incomplete")
        return None
    return RecordAuthor(name, ids, node.origin(reader))


def _authors(work: Node, reader: RecordReader) -> tuple[tuple[RecordAuthor, ...], bool]:
    """A work's authors in document order (each once), and whether the list is complete."""
    contributors = work.get("contributors")
    every = contributors.all("contributor") if contributors is not None else []
    listed, complete = reader.first_authors(every, contributors.origin(reader) if contributors is not None
                                             else reader.at())
    authors: list[RecordAuthor] = []
    seen: set[tuple[str, tuple[ExternalId, ...]]] = set()
    complete = complete and bool(listed)
    for node in listed:
        reader.tick()
        author = _contributor(node, reader)
        if author is None:
            nameless = node.text("credit-name") is None
            complete = complete and not nameless
        elif (author.name, author.ids) not in seen:
            seen.add((author.name, author.ids))
            authors.append(author)
    return tuple(authors), complete


def _work(node: Node, reader: RecordReader) -> RecordWork | None:
    """A work summary or full work; one without a title is left out with a warning."""
    title = node.text("title", "title")
    if title is None:
        reader.warn(node.origin(reader, "title"), "a work without a title is left out")
        return None
    subtitle = node.text("title", "subtitle")
    if subtitle and not title.endswith(subtitle):
        title = f"{title}: {subtitle}"
    external = node.get("external-ids")
    pairs = []
    for ext in external.all("external-id") if external is not None else []:
        scheme = WORK_SCHEMES.get((ext.text("external-id-type") or "").lower())
        if scheme and (ext.text("external-id-relationship") or "").lower() == "self":
            pairs.append((scheme, ext.text("external-id-value"), ext.origin(reader, "external-id-value")))
    ids = reader.identifiers(pairs)
    authors, complete = _authors(node, reader)
    put_code = node.attr("put-code")
    doi = next((i.value for i in ids if i.scheme == "doi"), None)
    key = f"put-code-{put_code}" if put_code else doi or title
    return RecordWork(key, title, authors, complete, year_of(node.text("publication-date", "year")),
                      node.text("journal-title"), node.text("type"), ids, node.origin(reader))


def _person_ids(person: Node | None, owner: ExternalId | None, reader: RecordReader) -> tuple[ExternalId, ...]:
    """The person's ORCID iD and the external identifiers kg knows (ISNI); other types are skipped."""
    pairs: list[tuple[str, Any, Origin]] = []
    section = person.get("external-identifiers") if person is not None else None
    for ext in section.all("external-identifier") if section is not None else []:
        scheme = PERSON_SCHEMES.get((ext.text("external-id-type") or "").lower())
        if scheme:
            pairs.append((scheme, ext.text("external-id-value"), ext.origin(reader, "external-id-value")))
    found = reader.identifiers(pairs)
    return ((owner,) if owner else ()) + tuple(i for i in found if i != owner)


def _texts(section: Node | None, item: str, field: str, exclude: str = "") -> tuple[str, ...]:
    """The distinct texts of a field of a section's items (other names, researcher URLs)."""
    found: list[str] = []
    for node in section.all(item) if section is not None else []:
        text = node.text(field)
        if text and text != exclude and text not in found:
            found.append(text)
    return tuple(found)


def _sections(root: Node, kind: str) -> tuple[Node | None, dict[str, Node | None]]:
    """The person part and the employments, educations and works parts of a person document."""
    if kind in SECTIONS:
        return None, {name: root if name == kind else None for name in SECTIONS}
    person = root if kind == "person" else root.get("person")
    activities = root if kind == "activities" else root.get("activities-summary")
    return person, {name: activities.get(name) if activities else None for name in SECTIONS}


def _roles(part: Node | None, kind: str, reader: RecordReader) -> list[RecordRole]:
    """The roles of an employments or educations part, group by group."""
    groups = part.all("affiliation-group") if part is not None else []
    return [r for group in groups for summary in summaries(group, kind) if (r := _role(summary, kind, reader))]


def _summary_works(part: Node | None, reader: RecordReader) -> list[RecordWork]:
    """One work per group of a works part, from its first (preferred) summary."""
    groups = part.all("group") if part is not None else []
    return [w for group in groups if (first := group.all("work-summary")[:1]) if (w := _work(first[0], reader))]


def _person(root: Node, kind: str, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The one person of a record, person, activities, employments, educations or works document."""
    owner = _owner(root, reader, standalone=False)
    person, parts = _sections(root, kind)
    name_node = person.get("name") if person is not None else None
    given = name_node.text("given-names") if name_node else None
    family = name_node.text("family-name") if name_node else None
    credit = name_node.text("credit-name") if name_node else None
    name = credit or " ".join(p for p in (given, family) if p)
    roles = _roles(parts["employments"], "employment", reader) + _roles(parts["educations"], "education", reader)
    works = _summary_works(parts["works"], reader)
    ids = _person_ids(person, owner, reader)
    if not name and not ids:
        reader.warn(root.origin(reader), "the record names no valid ORCID iD and no name; its works are read "
                                         "without an author and its affiliations are left out")
        return [], works
    others = _texts(person.get("other-names") if person else None, "other-name", "content", name)
    urls = _texts(person.get("researcher-urls") if person else None, "researcher-url", "url")
    return [RecordPerson(name, given, family, others, ids, urls, tuple(roles), tuple(works), (),
                         person.origin(reader) if person else root.origin(reader))], []


def _standalone(root: Node, kind: str, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """One full work, employment or education, attributed to the iD its path or source names, if any."""
    owner = _owner(root, reader, standalone=True)
    if kind == "work":
        work = _work(root, reader)
        if work is None:
            return [], []
        if work.authors or owner is None:
            return [], [work]
        return [RecordPerson("", None, None, (), (owner,), (), (), (work,), (), root.origin(reader))], []
    if owner is None:
        reader.warn(root.origin(reader), f"this ORCID {kind} names no valid ORCID iD (no path or source-orcid); "
                                         "there is nobody to attribute it to, so it is not used")
        return [], []
    role = _role(root, kind, reader)
    if role is None:
        return [], []
    return [RecordPerson("", None, None, (), (owner,), (), (role,), (), (), root.origin(reader))], []


def _read(root: Node, kind: str, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The people and works of an ORCID document of a known shape."""
    if kind in ("work", "employment", "education", "affiliation"):
        return _standalone(root, kind, reader)
    return _person(root, kind, reader)


def is_orcid_json(document: Any) -> bool:
    """An ORCID v3.0 JSON record, person, activities, affiliations, works or work."""
    return json_kind(document) is not None


def is_orcid_xml(document: Any) -> bool:
    """An ORCID v3.0 XML record, person, activities, affiliations, works or work."""
    return xml_kind(document) is not None


def read_json(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The people and works of an ORCID JSON document."""
    return _read(JsonNode(document), json_kind(document) or "", reader)


def read_xml(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The people and works of an ORCID XML document."""
    return _read(XmlNode(document), xml_kind(document) or "", reader)


JSON_SHAPES: list[Shape] = [("orcid", "ORCID v3.0 JSON", is_orcid_json, read_json)]
XML_SHAPES: list[Shape] = [("orcid", "ORCID v3.0 XML", is_orcid_xml, read_xml)]
SHAPES: list[Shape] = JSON_SHAPES + XML_SHAPES
