"""Parsing: YAML documents of a data directory into the typed records of kg.model, with located errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .errors import SourceError, SourceErrors
from .fields import PRESENT, Fields
from .model import (
    ELISION,
    EQUAL_MARKS,
    SLUG,
    Advisor,
    Author,
    Corpus,
    Education,
    Experience,
    Link,
    Metric,
    Organization,
    OtherName,
    Profile,
    Project,
    Publication,
    Venue,
    origin_of,
)
from .sources import DataFiles, FieldPath, YamlDocument

T = TypeVar("T")


def parse_author(written: str) -> Author:
    """Split an author entry into name and marks: 'Ziheng Jiang*' is an equal contributor.

    >>> parse_author("Ziheng Jiang*")
    Author(name='Ziheng Jiang', equal_contribution=True, is_elision=False, same_as=None, written='Ziheng Jiang*')
    >>> parse_author("...").is_elision
    True
    """
    text = " ".join(written.split())
    if text in (ELISION, "…"):
        return Author(name=ELISION, is_elision=True, written=text)
    name, equal = text, False
    if name.lower().endswith("(co-first author)"):
        name, equal = name[: -len("(co-first author)")].strip(), True
    while name and name[-1] in EQUAL_MARKS:
        name, equal = name[:-1].rstrip(), True
    return Author(name=name, equal_contribution=equal, written=text)


def _links(f: Fields, key: str) -> tuple[Link, ...]:
    links = []
    for path, item in f.items(key):
        lf = Fields(f.document, path, item, "a link")
        links.append(Link(lf.required_text("label"), lf.iri("url")))
        lf.finish()
    return tuple(links)


def _authors(f: Fields) -> tuple[Author, ...]:
    authors = []
    for path, item in f.items("authors"):
        if isinstance(item, dict):
            af = Fields(f.document, path, item, "an author")
            parsed = parse_author(af.required_text("name"))
            authors.append(Author(parsed.name, parsed.equal_contribution or bool(af.boolean("equal_contribution")),
                                  parsed.is_elision, af.text("same_as"), parsed.written))
            af.finish()
        elif isinstance(item, str) and item.strip():
            authors.append(parse_author(item))
        else:
            raise f.document.error(path, f"expected an author name, got {f.document.shown(path, item)}")
    if not any(not a.is_elision for a in authors):
        raise f.error("authors", "a publication needs at least one named author")
    return tuple(authors)


def _publication(document: YamlDocument, path: FieldPath, value: object) -> Publication:
    f = Fields(document, path, value, "a publication")
    year = f.year("year")
    pub = Publication(
        title=f.required_text("title"), authors=_authors(f), venue=f.text("venue"),
        venue_as_written=f.text("venue_as_written"), year=None if year is None else int(year),
        status=f.choice("status", ("published", "preprint"), "published"),
        notes=f.text_list("notes"), awards=f.text_list("awards"), links=_links(f, "links"),
        origin=origin_of(document, path), doi=f.identifier("doi", "doi"), same_as=f.linked_iris("same_as"))
    f.finish()
    return pub


def _span(f: Fields) -> tuple[int | None, int | None, bool]:
    start, end = f.year("start"), f.year("end", allow_present=True)
    is_present = end == PRESENT
    end_year = None if is_present or end is None else int(end)
    if start is not None and end_year is not None and int(start) > end_year:
        raise f.error("end", f"ends ({end_year}) before it starts ({start}); swap start and end")
    return (None if start is None else int(start)), end_year, is_present


def _experience(document: YamlDocument, path: FieldPath, value: object) -> Experience:
    f = Fields(document, path, value, "an experience entry")
    start, end, is_present = _span(f)
    orgs = f.text_list("organizations")
    if not orgs:
        raise f.error(None, "missing required field 'organizations' (a list of organisation ids)")
    current = f.boolean("current", default=is_present)
    exp = Experience(f.required_text("role"), orgs, start, end, bool(current), f.text("duration_as_written"),
                     f.text("description"), origin_of(document, path))
    f.finish()
    return exp


def _education(document: YamlDocument, path: FieldPath, value: object) -> Education:
    f = Fields(document, path, value, "an education entry")
    start, end, is_present = _span(f)
    advisors = []
    for apath, item in f.items("advisors"):
        af = Fields(document, apath, item, "an advisor")
        advisors.append(Advisor(af.required_text("name"), af.text("honorific"), af.text("affiliation")))
        af.finish()
    completed = f.boolean("completed", default=False)
    edu = Education(
        degree=f.required_text("degree"), degree_name=f.text("degree_name"), field=f.text("field"),
        focus=f.text("focus"), institution=f.required_text("institution"), department=f.text("department"),
        partner=f.text("partner"), start=start, end=end, completed=bool(completed), advisors=tuple(advisors),
        advisor_label=f.text("advisor_label"), lab=f.text("lab"), worked_with=f.text_list("worked_with"),
        origin=origin_of(document, path))
    if is_present and completed:
        raise f.error("completed", "a programme that runs to 'present' cannot be completed")
    f.finish()
    return edu


def _metric(document: YamlDocument, path: FieldPath, value: object) -> Metric:
    f = Fields(document, path, value, "a metric")
    metric = Metric(f.choice("kind", ("citations", "publications", "h-index"), ""), f.integer("min_value"),
                    f.integer("value"), f.text("as_written"), origin_of(document, path))
    f.finish()
    if not metric.kind:
        raise f.error(None, "missing required field 'kind' (citations, publications or h-index)")
    if metric.min_value is None and metric.value is None:
        raise f.error(None, "a metric needs 'value' or 'min_value'")
    return metric


def _simple_list(f: Fields, key: str, build: Callable[[YamlDocument, FieldPath, Any], T]) -> tuple[T, ...]:
    return tuple(build(f.document, path, item) for path, item in f.items(key))


def parse_profile(document: YamlDocument) -> Profile:
    """Turn one profile document into a Profile, or raise a SourceError naming line and field."""
    profile_id = document.path.stem
    if not SLUG.match(profile_id):
        raise document.error((), f"file name '{document.path.name}' must be a slug such as ada-lovelace.yaml")
    f = Fields(document, (), document.data, "a profile")
    other_names = []
    for path, item in f.items("other_names"):
        nf = Fields(document, path, item, "a name")
        other_names.append(OtherName(nf.required_text("name"), nf.required_text("lang")))
        nf.finish()
    projects = []
    for path, item in f.items("projects"):
        pf = Fields(document, path, item, "a project")
        projects.append(Project(pf.required_text("name"), pf.choice("status", ("current", "past", "unknown"),
                                                                     "unknown")))
        pf.finish()
    profile = Profile(
        id=profile_id, name=f.required_text("name"), given_name=f.text("given_name"),
        family_name=f.text("family_name"), other_names=tuple(other_names), title=f.text("title"),
        affiliation=f.text("affiliation"), email=f.text("email"), homepage=f.iri("homepage"),
        same_as=f.linked_iris("same_as"), summary=f.text("summary"), research_areas=f.text_list("research_areas"),
        links=_links(f, "links"), projects=tuple(projects),
        experience=_simple_list(f, "experience", _experience),
        education=_simple_list(f, "education", _education),
        metrics=_simple_list(f, "metrics", _metric),
        publications=_simple_list(f, "publications", _publication),
        origin=origin_of(document, ()), sha256=document.sha256)
    f.finish()
    return profile


def _reference_list(document: YamlDocument | None, what: str) -> list[tuple[Fields, FieldPath]]:
    if document is None or document.data is None:
        return []
    if not isinstance(document.data, list):
        raise document.error((), f"expected a list of {what}, each starting with '- id: …'")
    return [(Fields(document, (i,), item, f"an entry of {what}"), (i,)) for i, item in enumerate(document.data)]


def _checked_id(f: Fields, seen: set[str]) -> str:
    ident = f.required_text("id")
    if not SLUG.match(ident):
        raise f.error("id", f"id {ident!r} must be a slug: lower-case letters, digits and '-'")
    if ident in seen:
        raise f.error("id", f"duplicate id {ident!r}; ids must be unique")
    seen.add(ident)
    return ident


def parse_organizations(document: YamlDocument | None) -> tuple[Organization, ...]:
    """Parse organizations.yaml."""
    orgs: list[Organization] = []
    seen: set[str] = set()
    kinds = ("company", "university", "department", "lab", "research-lab", "team", "organization")
    for f, path in _reference_list(document, "organisations"):
        assert document is not None
        orgs.append(Organization(_checked_id(f, seen), f.required_text("name"),
                                 f.choice("type", kinds, "organization"), f.text("parent"),
                                 f.text_list("aliases"), f.text_map("names"), f.iri_list("same_as"),
                                 f.iri("url"), origin_of(document, path)))
        f.finish()
    return tuple(orgs)


def parse_venues(document: YamlDocument | None) -> tuple[Venue, ...]:
    """Parse venues.yaml."""
    venues: list[Venue] = []
    seen: set[str] = set()
    for f, path in _reference_list(document, "venues"):
        assert document is not None
        venues.append(Venue(_checked_id(f, seen), f.required_text("name"), f.text("acronym"),
                            f.choice("type", ("conference", "journal", "repository", "workshop"), "conference"),
                            f.text_list("aliases"), f.iri_list("same_as"), origin_of(document, path)))
        f.finish()
    return tuple(venues)


def parse_corpus(files: DataFiles) -> Corpus:
    """Parse every document, collecting all source errors before failing."""
    errors: list[SourceError] = []
    orgs: tuple[Organization, ...] = ()
    venues: tuple[Venue, ...] = ()
    profiles: list[Profile] = []
    try:
        orgs = parse_organizations(files.organizations)
    except SourceError as exc:
        errors.append(exc)
    try:
        venues = parse_venues(files.venues)
    except SourceError as exc:
        errors.append(exc)
    for document in files.profiles:
        try:
            profiles.append(parse_profile(document))
        except SourceError as exc:
            errors.append(exc)
    if errors:
        raise SourceErrors(errors)
    return Corpus(orgs, venues, tuple(profiles), root=files.root)
