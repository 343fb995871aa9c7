"""Venues as written ('… Symposium on NSDI (NSDI 23)') found in venues.yaml: kg import's and the records' resolution."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Venue
from .names import Lookup, normalize_name

ARXIV_ID = re.compile(r"\barXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?", re.I)
_LEADING = re.compile(r"^(?:(?:in|at|to appear in|accepted (?:at|to|by)|appeared in|published in|proc\.?|"
                      r"proceedings of|the|of|ieee/acm|acm/ieee)\s+)+", re.I)
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.I)
_VOLUME = re.compile(r"[,:;]?\s*\b(?:vol|no|nr|pp?|art|issue)\.?\s*\d+(?:\s*[–-]\s*\d+)?|\b\d+\s*\(\d+\)"
                     r"|[,:;.]?\s*\b\d+\s*[–-]\s*\d+\b|,?\s*\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.(?=\s|,|$)",
                     re.I)
_WORKSHOP = re.compile(r"\bworkshops?\b", re.I)
_GENERIC = {"proceedings", "proc", "of", "the", "conference", "symposium", "international", "annual", "acm",
            "ieee", "usenix", "on", "in", "sigops", "sigplan", "sigarch", "sigmod", "intl", "conf", "symp", "th",
            "st", "nd", "rd"}
_SHORT_YEARS = re.compile(r"['’]\d{2}\b")
_YEARS = re.compile(r"\b(?:19|20)\d\d\b")
_TRAILING_YEAR = re.compile(r"(?<=[A-Za-z])\s\d{2}$")
_EMPTY_PARENS = re.compile(r"\(\s*\)")
_PAREN_SPACE = re.compile(r"\(\s+|\s+\)")
_DANGLING_COMMA = re.compile(r"\s*,\s*(?=,|$)")


def _strip_years(text: str) -> str:
    text = _SHORT_YEARS.sub(" ", text)
    text = _YEARS.sub(" ", text)
    text = _TRAILING_YEAR.sub(" ", text.strip())
    return " ".join(text.split())


def _core(name: str) -> str:
    """A venue name without generic words, ordinals and years: 'Conference on ML and Systems' -> 'ml and systems'."""
    words = normalize_name(_ORDINAL.sub(" ", _strip_years(name))).split()
    return " ".join(w for w in words if w not in _GENERIC and not w.isdigit())


def venue_label(text: str) -> str:
    """The venue's name without 'In Proc.', ordinals, years, trailing punctuation: 'USENIX OSDI'."""
    text = ARXIV_ID.sub("arXiv", text)
    text = _LEADING.sub("", text.strip())
    text = _ORDINAL.sub(" ", _strip_years(text))
    text = _VOLUME.sub(" ", text)
    text = _EMPTY_PARENS.sub(" ", text)
    text = _PAREN_SPACE.sub(lambda m: m.group(0).strip(), text)
    text = _DANGLING_COMMA.sub("", " ".join(text.split()))
    return text.strip(" .,;:–-")


@dataclass
class VenueIndex:
    """The venues of venues.yaml by id, name, acronym and alias, and the phrases that name them inside a longer text."""

    lookup: Lookup = field(default_factory=lambda: Lookup("venue"))
    types: dict[str, str] = field(default_factory=dict)
    phrases: list[tuple[str, str]] = field(default_factory=list)
    cores: list[tuple[str, str]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    found: dict[str, str | None] = field(default_factory=dict, repr=False, compare=False)  # find() by text

    @classmethod
    def of(cls, venues: tuple[Venue, ...] | list[Venue]) -> VenueIndex:
        """The index of some venues."""
        index = cls()
        for venue in venues:
            index.add(venue)
        index.phrases.sort(key=lambda p: -len(p[0]))
        return index

    def add(self, venue: Venue) -> None:
        """Register one venue (call of() for a whole list: it also orders the phrases, longest first)."""
        self.lookup.add(venue.id, venue.name, venue.acronym, *venue.aliases)
        self.types[venue.id] = venue.type
        known = [n for n in (venue.name, venue.acronym, *venue.aliases) if n]
        self.phrases += [(normalize_name(n), venue.id) for n in known if len(normalize_name(n)) >= 3]
        self.names[venue.id] = " ".join(known)
        self.cores += [(core, venue.id) for core in {_core(n) for n in known} if len(core.split()) >= 3]

    def find(self, text: str) -> str | None:
        """The id of the venue a text names, or None; a workshop at a conference is not the conference (cached)."""
        if text not in self.found:
            named = self._named(text)
            if named and _WORKSHOP.search(text) and not _WORKSHOP.search(self.names.get(named, "")):
                named = None
            self.found[text] = named
        return self.found[text]

    def _named(self, text: str) -> str | None:
        for inner in re.findall(r"\(([^()]+)\)", text):
            found = self.lookup.find(_strip_years(inner))
            if found:
                return found
        found = self.lookup.find(venue_label(text))
        if found:
            return found
        padded = f" {normalize_name(_strip_years(text))} "
        for phrase, ident in self.phrases:
            if f" {phrase} " in padded:
                return ident
        core = f" {_core(text)} "
        for phrase, ident in self.cores:
            if f" {phrase} " in core:
                return ident
        return None
