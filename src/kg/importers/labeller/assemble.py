"""Publications from labelled lines: a record per `B-` label, its fields parsed by the citation rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..citation import (
    NOTE,
    PubParts,
    parse_citation,
    take_addresses,
    take_awards,
    take_links,
    take_notes,
    venue_first,
)
from ..dates import last_year
from ..entries import strip_bullet
from ..names import is_name, split_authors
from ..pubs import YEAR_HEADING, PubBlock, heading_status
from ..records import Line
from ..venues import Reference

DATE_ONLY = re.compile(r"(?:(?:published|date|year)\s*:?\s*)?(?:[A-Za-z]{3,9}\.?\s+)?(?:\d{1,2},?\s+)?(?:19|20)\d\d"
                       r"(?:[./-]\d{1,2})?\.?", re.I)
_DATED = re.compile(r"^((?:[A-Za-z]{3,9}\.?,?\s+)?(?:\d{1,2},?\s+)?(?:19|20)\d\d)\s*[,·|:–-]?\s+([^\d\s].*)$")
_BADGE = re.compile(r"^\[\s*([A-Z][A-Za-z0-9&/.'’ -]{1,20}?)\s*\]\s+(?=\S)")  # '[ICLR] Title', a venue badge
_TAIL_LABEL = re.compile(r"\s*[(\[]\s*([A-Z][\w&/.-]*\s*(?:['’]\s?\d{2}|\d{4}))\b[^()\[\]]*[)\]]\s*\.?$")
_GLUED = re.compile(r"^(?P<short>[A-Z][\w&/.-]{1,14}(?:\s[A-Z][\w&-]{1,10})?\s?(?:['’]\s?\d{2}|(?:19|20)\d\d))"
                    r"(?P<long>[A-Z][a-z].*)$")


@dataclass
class Record:
    """One publication being assembled, with the heading context it sits under."""

    parts: PubParts = field(default_factory=PubParts)
    year: int | None = None
    status: str | None = None
    lines: list[Line] = field(default_factory=list)
    venue_texts: list[str] = field(default_factory=list)


def unglued_venue(text: str) -> str:
    """'OSDI 2026' from 'OSDI 2026Operating Systems Design and Implementation' (a browser copy's gluing)."""
    match = _GLUED.match(text.strip())
    return match.group("short") if match else text


def lenient_authors(text: str) -> tuple[list[str] | None, str | None]:
    """The authors of a line the labeller calls an author list, and a venue written after a semicolon
    ('A, B; Physical Review B'): the strict reading first, else comma parts that are mostly names."""
    venue = None
    head, _, tail = text.rpartition(";")
    if head and tail.strip() and not split_authors(tail) and not is_name(tail.strip()):
        text, venue = head, tail.strip()
    strict = split_authors(text)
    if strict:
        return strict, venue
    parts = [p.strip(" .") for p in re.split(r",\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*", text) if p.strip(" .")]
    named = [p for p in parts if 1 <= len(p.split()) <= 5 and p[:1].isupper() or p in ("...", "…")]
    if len(parts) >= 2 and len(named) == len(parts) and sum(1 for p in parts if is_name(p)) >= 0.6 * len(parts):
        return ["..." if p in ("...", "…") else p for p in parts], venue
    return None, venue


def _body(text: str, record: Record, ref: Reference) -> str:
    """A line without its bullet, addresses, link labels, awards and notes (those go to the record)."""
    parts = record.parts
    body = strip_bullet(text) if re.match(r"^(?:[-*•·▪◦‣–]|\d{1,3}[.)]|\[\d{1,3}\])\s", text) else text
    body, urls = take_addresses(body)
    body, links = take_links(body)
    body, awards = take_awards(body)
    parts.urls.update(urls)
    parts.links += links + list(urls)
    parts.awards += awards
    label, body = venue_first(body, ref)
    if label and not parts.label:
        parts.label = label
    body, notes = take_notes(body)
    parts.notes += notes
    return body.strip()


def _add(record: Record, kind: str, line: Line, ref: Reference, keys: set[str]) -> None:
    """Put one labelled line's content into its record."""
    parts = record.parts
    record.lines.append(line)
    parts.lines.append(line.no)
    furniture = len(parts.awards) + len(parts.notes)
    body = _body(line.text, record, ref)
    if kind == "award" or (kind == "note" and NOTE.match(line.text.strip(" .()"))):
        if len(parts.awards) + len(parts.notes) == furniture:
            parts.notes.append(line.text.strip(" ."))
        return
    if kind == "citation":
        parsed = parse_citation(re.sub(r"^(?:cite|citation|recommended citation)\s*:\s*", "", body, flags=re.I),
                                ref, keys)
        if parsed is not None:
            if parts.title is None:
                parts.title = parsed.title
            parts.authors = parts.authors or parsed.authors
            parts.year = parts.year or parsed.year
            if parsed.venue and not record.venue_texts:
                record.venue_texts.append(parsed.venue)
            return
        kind = "title" if parts.title is None else "venue"
    if kind == "title" and body:
        badge = _BADGE.match(body)
        if badge and not parts.label:
            parts.label, body = badge.group(1), body[badge.end():]
        tail = _TAIL_LABEL.search(body)
        if tail and not parts.label:
            parts.label, body = tail.group(1), body[: tail.start()].strip()
        parts.title = f"{parts.title} {body}" if parts.title else body
    elif kind == "authors" and body:
        found, venue = lenient_authors(body)
        if found:
            parts.authors = (parts.authors or []) + found
        if venue:
            record.venue_texts.append(venue)
    elif kind == "venue" and body and DATE_ONLY.fullmatch(body):
        parts.year = parts.year or last_year(body)
    elif kind == "venue" and body and (dated := _DATED.match(body)):
        parts.year = parts.year or last_year(dated.group(1))
        record.venue_texts.append(unglued_venue(dated.group(2)))
    elif kind == "venue" and body:
        record.venue_texts.append(unglued_venue(re.sub(r"^published in\s*:?\s*", "", body, flags=re.I)))
    elif kind == "note" and body:
        parts.notes.append(body.strip(" ."))


def records_of(labelled: list[tuple[Line, str]], ref: Reference, keys: set[str]
               ) -> tuple[list[Record], list[Line], set[int]]:
    """Records in order, the lines labelled `other`, and the indexes of headings read."""
    records: list[Record] = []
    other: list[Line] = []
    headings: set[int] = set()
    year: int | None = None
    status: str | None = None
    current: Record | None = None
    for line, label in labelled:
        if label == "heading":
            found = YEAR_HEADING.match(line.text)
            if found:
                year = int(found.group(1))
            else:
                status = heading_status(line.text)
                year = None if last_year(line.text) is None else year
            headings.add(line.index)
            current = None
            continue
        if label == "other":
            other.append(line)
            continue
        prefix, kind = label.split("-", 1)
        if current is None or prefix == "B":
            current = Record(year=year, status=status)
            records.append(current)
        _add(current, kind, line, ref, keys)
    for record in records:
        parts = record.parts
        if record.venue_texts:
            parts.venue = " ".join(record.venue_texts)
        if parts.year is None:
            parts.year = last_year(parts.venue or "") or (last_year(parts.label or "") if parts.label else None)
    return [r for r in records if r.parts.title or r.parts.authors], other, headings


def block_of(record: Record) -> PubBlock:
    """The heading context of a record, as the rule parser's block carries it."""
    return PubBlock(lines=list(record.lines), year=record.year, status=record.status)
