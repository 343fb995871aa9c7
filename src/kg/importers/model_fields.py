"""Publication entries read by the field model: a segmented entry's lines -> PubParts for `finish`."""

from __future__ import annotations

import re

from .citation import PubParts, take_addresses
from .entries import strip_bullet
from .names import is_name, split_marks
from .pipeline.fields import Fields, read_fields
from .records import Line
from .venues import Reference

_BULLET = re.compile(r"^(?:[-*•·▪◦‣–]|\d{1,3}[.)]|\[\d{1,3}\])\s")


def entry_texts(lines: list[Line]) -> list[str]:
    """The lines of one entry as the model reads them: bullets off, addresses out."""
    out = []
    for line in lines:
        text = strip_bullet(line.text) if _BULLET.match(line.text) else line.text
        text, _ = take_addresses(text)
        if text.strip():
            out.append(text)
    return out


def parts_of(fields: Fields, base: PubParts) -> PubParts:
    """The PubParts a model reading gives, keeping the base entry's lines and addresses."""
    authors = ["..." if a.elision else a.name + a.marks for a in fields.authors]
    if all(a == "..." for a in authors):
        authors = []
    venue = fields.venue
    if fields.status and not venue:
        venue = fields.status
    elif fields.status and re.match(r"(?i)to appear|accepted|in press|forthcoming", fields.status) is None:
        venue = f"{venue} ({fields.status})"
    return PubParts(title=fields.title, authors=authors or None, venue=venue, year=fields.year,
                    awards=list(fields.awards), notes=list(fields.notes), links=list(fields.links) or base.links,
                    lines=list(base.lines), reviews=list(base.reviews), urls=dict(base.urls),
                    label=fields.badge if fields.badge and fields.badge != venue else None)


def _filled(parts: PubParts) -> int:
    """How many of title, authors, venue (or its badge) and year a reading has."""
    return sum(map(bool, (parts.title, parts.authors, parts.venue or parts.label, parts.year)))


def _complete(parts: PubParts) -> bool:
    """Whether a reading has a title, authors, and a venue or a year (the rules' reading then stands)."""
    return bool(parts.title and parts.authors and (parts.venue or parts.label or parts.year))


def model_parts(lines: list[Line], base: PubParts, ref: Reference, keys: set[str]) -> PubParts | None:
    """The model's reading of one entry's lines where it fills more fields than the rules' reading `base`; None
    when it does not, or no model is installed."""
    texts = entry_texts(lines)
    if not texts:
        return None
    fields = read_fields(texts, ref, keys)
    if fields is None or not fields.title:
        return None
    parts = parts_of(fields, base)
    names = [a for a in parts.authors or [] if a != "..."]
    if not all(is_name(split_marks(a)[0]) for a in names) or len((parts.title or "").split()) > 40:
        return None
    dated = parts.year is not None and bool(parts.venue or parts.label)
    return parts if dated and _filled(parts) > _filled(base) and not _complete(base) else None
