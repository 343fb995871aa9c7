"""What record linking decided: the node each record entity is, the value each merged entity shows, the conflicts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field

from ..model import ExternalId, Record, RecordOrg, RecordWork
from .names import normalize_name
from .references import BuildWarning

ORG_SCHEMES = ("ror", "wikidata", "grid", "isni", "ringgold", "openalex")

Key = tuple[Hashable, ...]


@dataclass(frozen=True)
class Conflict:
    """Sources disagreeing on a single-valued property of one entity: each value with the files that give it."""

    kind: str
    slug: str
    label: str
    property: str
    values: tuple[tuple[str, tuple[str, ...]], ...]

    def __str__(self) -> str:
        shown = "; ".join(f"{value!r} ({', '.join(files)})" for value, files in self.values)
        return f"{self.kind} {self.slug} ({self.label}): {self.property} differs: {shown}; the first is shown"



@dataclass(frozen=True)
class KeptApart:
    """A record person left a node of its own although another person has the same or a similar name."""

    slug: str
    name: str
    files: tuple[str, ...]
    candidates: tuple[str, ...]
    reason: str

    def as_json(self) -> dict[str, object]:
        """The fields for kg conflicts --format json."""
        return {"id": self.slug, "label": self.name, "files": list(self.files), "candidates": list(self.candidates),
                "reason": self.reason}

    def __str__(self) -> str:
        return (f"kept apart: person {self.slug} ({self.name!r}, {', '.join(self.files)}) may be "
                f"{', '.join(self.candidates)}: {self.reason}")



def record_works(record: Record) -> Iterator[tuple[int, RecordWork, int | None]]:
    """Every work of a record with its index, and the index of the record's person it belongs to (or None)."""
    index, seen = 0, set()
    for p, person in enumerate(record.people):
        for work in person.works:
            seen.add(id(work))
            yield index, work, p
            index += 1
    for work in record.works:
        if id(work) not in seen:  # a dblp page lists its person's works in both places
            yield index, work, None
            index += 1



@dataclass
class Linking:
    """Which node each record entity is, the value each merged entity shows, and where sources disagree."""

    precedence: tuple[str, ...]
    work_slugs: dict[Key, str] = field(default_factory=dict)
    person_slugs: dict[Key, str] = field(default_factory=dict)
    person_names: dict[str, str] = field(default_factory=dict)
    person_ids: dict[str, list[ExternalId]] = field(default_factory=lambda: defaultdict(list))
    work_sources: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    work_preferred: dict[str, str] = field(default_factory=dict)
    person_preferred: dict[str, str] = field(default_factory=dict)
    org_slugs: dict[Key, str] = field(default_factory=dict)
    org_names: dict[str, str] = field(default_factory=dict)
    possible_same_as: dict[str, tuple[str, ...]] = field(default_factory=dict)
    work_authors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)
    kept_apart: list[KeptApart] = field(default_factory=list)  # record people left apart from a similar name
    warnings: list[BuildWarning] = field(default_factory=list)

    def rank(self, source: str) -> int:
        """Position of a source system in the precedence (unknown systems last)."""
        return self.precedence.index(source) if source in self.precedence else len(self.precedence)

    def work(self, record: Record, index: int) -> str:
        """Slug of the node a record's work is."""
        return self.work_slugs[("work", record.name, index)]

    def author(self, record: Record, index: int, position: int) -> str:
        """Slug of the node an author of a record's work is."""
        return self.person_slugs[("author", record.name, index, position)]

    def person(self, record: Record, index: int) -> str:
        """Slug of the node a record's person is."""
        return self.person_slugs[("person", record.name, index)]

    def advisor(self, record: Record, index: int, position: int) -> str:
        """Slug of the node an advisor named by a record's person is."""
        return self.person_slugs[("advisor", record.name, index, position)]

    def organization(self, org: RecordOrg) -> str:
        """Slug of the node an organisation named in a record is."""
        return self.org_slugs[org_key(org)]


def org_key(org: RecordOrg) -> Key:
    """The key of an organisation named in a record: its first identifier in ORG_SCHEMES, else its normalised name."""
    for ident in org.ids:
        if ident.scheme in ORG_SCHEMES:
            return ("org-id", ident.scheme, ident.value)
    return ("org-name", normalize_name(org.name))
