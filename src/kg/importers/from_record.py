"""`kg import RECORD`: what a downloaded record contributes, and a draft profile from a person record."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import SourceError
from ..identifiers import iri
from ..iris import slugify
from ..model import Record, RecordPerson, RecordRole, RecordWork
from ..parsing import parse_profile
from ..records import parse_record
from ..resolution import record_works
from ..sources import parse_yaml
from .venues import Reference

DEGREE_WORDS = ("phd", "ph.d", "doctor", "master", "msc", "m.sc", "bachelor", "bsc", "b.sc", "ba", "ma", "mba")


@dataclass(frozen=True)
class RecordImport:
    """A record's preview lines and, for a person record, the draft profile's YAML and id."""

    record: Record
    preview: tuple[str, ...]
    yaml_text: str | None
    profile_id: str | None


def read_as_record(data: bytes, path: Path) -> Record | None:
    """The record a JSON or XML file holds, or None for anything else (a homepage, BibTeX: kg import's own inputs)."""
    head = data.lstrip()[:1]
    if head not in (b"{", b"[", b"<"):
        return None
    try:
        return parse_record(data, str(path), path.name)
    except SourceError:
        if head in (b"{", b"["):
            raise
        return None


def preview(record: Record) -> tuple[str, ...]:
    """One line per kind of thing the record contributes, then its warnings."""
    ids = Counter(i.scheme for p in record.people for i in p.ids)
    ids.update(i.scheme for w in _works(record) for i in w.ids)
    lines = [f"{record.format} ({record.system}): {len(record.people)} person{'s' if len(record.people) != 1 else ''}"
             f", {len(_works(record))} works, {sum(len(p.roles) for p in record.people)} roles",
             "identifiers: " + (", ".join(f"{n} {s}" for s, n in sorted(ids.items())) or "none")]
    lines += [f"person: {p.name}" + (f" ({', '.join(i.value for i in p.ids)})" if p.ids else "")
              for p in record.people]
    lines += [f"{w.origin.file}: warning: {w.message}" for w in record.warnings]
    return tuple(lines)


def _works(record: Record) -> list[RecordWork]:
    return [work for _, work, _ in record_works(record)]


def _org(role: RecordRole, ref: Reference) -> str:
    return ref.orgs.find(role.organization.name) or role.organization.name


def _experience(role: RecordRole, ref: Reference) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": role.role or "Employee", "organizations": [_org(role, ref)]}
    if role.start is not None:
        entry["start"] = role.start
    entry["end"] = role.end if role.end is not None else ("present" if role.start is not None else None)
    if entry["end"] is None:
        del entry["end"]
    if role.department:
        entry["description"] = role.department
    return entry


def _education(role: RecordRole, ref: Reference) -> dict[str, Any]:
    entry: dict[str, Any] = {"degree": role.role or "Degree", "institution": _org(role, ref)}
    if role.department:
        entry["department"] = role.department if ref.orgs.find(role.department) else None
        if entry["department"] is None:
            del entry["department"]
            entry["field"] = role.department
    if role.start is not None:
        entry["start"] = role.start
    if role.end is not None:
        entry["end"] = role.end
    if role.start is not None and role.end is not None and role.start > role.end:
        entry["start"], entry["end"] = role.end, role.start
    return entry


def _publication(work: RecordWork, owner: RecordPerson, ref: Reference) -> dict[str, Any]:
    authors: list[Any] = [a.name for a in work.authors] or [owner.name]
    if not work.authors_complete:
        authors.append("...")
    entry: dict[str, Any] = {"title": work.title, "authors": authors}
    venue = ref.venues.find(work.venue) if work.venue else None
    if venue:
        entry["venue"] = venue
    elif work.venue:
        entry["venue_as_written"] = work.venue
    if work.year is not None and 1900 <= work.year <= 2100:
        entry["year"] = work.year
    doi = next((i.value for i in work.ids if i.scheme == "doi"), None)
    if doi:
        entry["doi"] = doi
    return entry


def draft_profile(person: RecordPerson, record: Record, ref: Reference) -> tuple[str, dict[str, Any]]:
    """The profile id and data a person record suggests: names, identifiers, roles and works."""
    data: dict[str, Any] = {"name": person.name}
    if person.given_name:
        data["given_name"] = person.given_name
    if person.family_name:
        data["family_name"] = person.family_name
    same_as = [found for i in person.ids if (found := iri(i.scheme, i.value))]
    if same_as:
        data["same_as"] = same_as
    experience = [_experience(r, ref) for r in person.roles if r.kind == "employment"]
    education = [_education(r, ref) for r in person.roles if r.kind == "education"]
    if experience:
        data["experience"] = experience
    if education:
        data["education"] = education
    publications = [_publication(w, person, ref) for w in person.works if w.title]  # untitled: kg build quarantines
    if publications:
        data["publications"] = publications
    return slugify(person.name), data


def import_record(record: Record, ref: Reference, path: Path) -> RecordImport:
    """The preview of a record, with a draft profile when the record is about one person."""
    lines = preview(record)
    if len(record.people) != 1:
        return RecordImport(record, lines, None, None)
    profile_id, data = draft_profile(record.people[0], record, ref)
    header = (f"# Drafted by `kg import` from {path.name} ({record.format}). Review it, then save it as\n"
              f"# data/profiles/{profile_id}.yaml; keep the record itself in data/records/ so kg build merges\n"
              f"# the two by identifier (each fact stays in its source's graph).\n")
    text = header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)
    parse_profile(parse_yaml(text, Path(f"{profile_id}.yaml")))
    return RecordImport(record, lines, text, profile_id)
