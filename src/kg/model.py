"""Typed profile records (parsed and checked by kg.parsing); no rdflib here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .sources import FieldPath, YamlDocument

ELISION = "..."
EQUAL_MARKS = ("*", "†")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Origin:
    """Where a record came from: the file as displayed, the field path, its line, and the file's line map."""

    file: str
    path: FieldPath
    line: int | None
    lines: Mapping[FieldPath, int] = field(default_factory=dict, compare=False, repr=False)

    def line_of(self, path: FieldPath) -> int | None:
        """Line of a field path in the same file (nearest enclosing field), or this record's line."""
        for cut in range(len(path), len(self.path) - 1, -1):
            if path[:cut] in self.lines:
                return self.lines[path[:cut]]
        return self.line

    def at(self, *parts: str | int) -> Origin:
        """The origin of a field inside this record."""
        path = self.path + parts
        return Origin(self.file, path, self.line_of(path), self.lines)


def origin_of(document: YamlDocument, path: FieldPath) -> Origin:
    return Origin(document.display_path or str(document.path), path, document.line_of(path), document.lines)


@dataclass(frozen=True)
class Organization:
    """An organisation from the reference data."""

    id: str
    name: str
    type: str
    parent: str | None
    aliases: tuple[str, ...]
    names: dict[str, str]
    same_as: tuple[str, ...]
    url: str | None
    origin: Origin


@dataclass(frozen=True)
class Venue:
    """A publication venue series from the reference data."""

    id: str
    name: str
    acronym: str | None
    type: str
    aliases: tuple[str, ...]
    same_as: tuple[str, ...]
    origin: Origin = field(compare=False)  # where the file is shown does not make it another venue (kg.mapping.cache)


@dataclass(frozen=True)
class Link:
    """A link a page offers; the URL may be unknown."""

    label: str
    url: str | None


@dataclass(frozen=True)
class Author:
    """One entry of an author list as written; an elision stands for omitted authors."""

    name: str
    equal_contribution: bool = False
    is_elision: bool = False
    same_as: str | None = None
    written: str = ""


@dataclass(frozen=True)
class Publication:
    """A publication listed on a profile; the year is None when the source gives none."""

    title: str
    authors: tuple[Author, ...]
    venue: str | None
    venue_as_written: str | None
    year: int | None
    status: str
    notes: tuple[str, ...]
    awards: tuple[str, ...]
    links: tuple[Link, ...]
    origin: Origin
    doi: str | None = None
    same_as: tuple[str, ...] = ()


@dataclass(frozen=True)
class Advisor:
    """An advisor or supervisor named for a degree."""

    name: str
    honorific: str | None
    affiliation: str | None


@dataclass(frozen=True)
class Education:
    """A degree programme, completed or not."""

    degree: str
    degree_name: str | None
    field: str | None
    focus: str | None
    institution: str
    department: str | None
    partner: str | None
    start: int | None
    end: int | None
    completed: bool
    advisors: tuple[Advisor, ...]
    advisor_label: str | None
    lab: str | None
    worked_with: tuple[str, ...]
    origin: Origin


@dataclass(frozen=True)
class Experience:
    """A dated position at one or more organisations."""

    role: str
    organizations: tuple[str, ...]
    start: int | None
    end: int | None
    current: bool
    duration_as_written: str | None
    description: str | None
    origin: Origin


@dataclass(frozen=True)
class Metric:
    """A count stated on a profile, with 'at least' semantics when written as 35+ or 'more than'."""

    kind: str
    min_value: int | None
    value: int | None
    as_written: str | None
    origin: Origin


@dataclass(frozen=True)
class Project:
    """A project the person is or was involved in."""

    name: str
    status: str


@dataclass(frozen=True)
class OtherName:
    """A name in another script or language."""

    name: str
    lang: str


@dataclass(frozen=True)
class Profile:
    """One person's curated profile."""

    id: str
    name: str
    given_name: str | None
    family_name: str | None
    other_names: tuple[OtherName, ...]
    title: str | None
    affiliation: str | None
    email: str | None
    homepage: str | None
    same_as: tuple[str, ...]
    summary: str | None
    research_areas: tuple[str, ...]
    links: tuple[Link, ...]
    projects: tuple[Project, ...]
    experience: tuple[Experience, ...]
    education: tuple[Education, ...]
    metrics: tuple[Metric, ...]
    publications: tuple[Publication, ...]
    origin: Origin
    sha256: str = ""


@dataclass(frozen=True)
class Corpus:
    """Everything read from a data directory."""

    organizations: tuple[Organization, ...]
    venues: tuple[Venue, ...]
    profiles: tuple[Profile, ...]
    records: tuple[Record, ...] = ()
    root: Path = Path("data")  # the data directory as the caller wrote it, for messages that name its files


# --- downloaded standard records (kg.records reads them into these) ---------------------------------------------


@dataclass(frozen=True)
class ExternalId:
    """An identifier in another system, in its normal form (kg.identifiers)."""

    scheme: str
    value: str


@dataclass(frozen=True)
class RecordOrg:
    """An organisation as a record names it."""

    name: str
    ids: tuple[ExternalId, ...] = ()


@dataclass(frozen=True)
class RecordRole:
    """An employment, education or affiliation of a record's person; years are None when the record gives none."""

    kind: str
    organization: RecordOrg
    role: str | None
    department: str | None
    start: int | None
    end: int | None
    origin: Origin


@dataclass(frozen=True)
class RecordAuthor:
    """One author of a work as the record writes it, with the identifiers the record gives for that person."""

    name: str
    ids: tuple[ExternalId, ...]
    origin: Origin
    affiliations: tuple[RecordOrg, ...] = ()
    person_name: str | None = None  # the system's own name for the person, when it differs from the byline


@dataclass(frozen=True)
class RecordWork:
    """A work as a record describes it; authors in order, authors_complete False when the record lists only some."""

    key: str
    title: str
    authors: tuple[RecordAuthor, ...]
    authors_complete: bool
    year: int | None
    venue: str | None
    kind: str | None
    ids: tuple[ExternalId, ...]
    origin: Origin


@dataclass(frozen=True)
class RecordPerson:
    """The person a person record (ORCID, dblp person, Wikidata human, OpenAlex author) is about."""

    name: str
    given_name: str | None
    family_name: str | None
    other_names: tuple[str, ...]
    ids: tuple[ExternalId, ...]
    urls: tuple[str, ...]
    roles: tuple[RecordRole, ...]
    works: tuple[RecordWork, ...]
    advisors: tuple[RecordAuthor, ...]
    origin: Origin


@dataclass(frozen=True)
class RecordWarning:
    """A problem inside a downloaded record that does not stop the build (an identifier failing its check, ...)."""

    origin: Origin
    message: str


@dataclass(frozen=True)
class Record:
    """One downloaded file: the system it came from, the people and works it describes, and its warnings."""

    system: str
    format: str
    people: tuple[RecordPerson, ...]
    works: tuple[RecordWork, ...]
    warnings: tuple[RecordWarning, ...]
    origin: Origin
    name: str = ""
    sha256: str = ""
