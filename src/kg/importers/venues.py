"""Reference data lookups: organisations and venues from data/, matched by id, name, acronym and alias."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from ..parsing import parse_organizations, parse_venues
from ..resolution import Lookup, normalize_name
from ..resolution.venues import ARXIV_ID, VenueIndex, venue_label
from ..sources import read_yaml
from .dates import last_year

ORG_WORDS = re.compile(r"\b(?:universi\w*|institute|institut|college|school|"
                       r"laborator(?:y|ies)|labs?|research|inc|corp(?:oration)?|ltd|llc|gmbh|company|group|team|cent(?:er|re)|academy|"
                       r"department|dept|faculty|foundation|hospital|polytechnic|polytechnique|politecnico|technion|[ée]cole|"
                       r"hochschule|universidade|universit[àa])\b", re.I)
VENUE_WORDS = re.compile(r"\b(?:conference|symposium|workshop|journal|transactions|proceedings|proc\.|letters|"
                         r"magazine|review|annual meeting|colloquium|congress)\b", re.I)
PREPRINT = re.compile(r"\b(?:preprint|under review|under submission|in submission|submitted|manuscript|"
                      r"working paper|in preparation)\b", re.I)
_SHORT_YEAR = re.compile(r"(?:['’](\d{2})\b|\b[A-Za-z][\w-]*\s(\d{2})\))")


@dataclass(frozen=True)
class VenueMatch:
    """What a venue text resolves to: id (or None), year, status and the venue as named."""

    id: str | None
    year: int | None
    status: str
    label: str


@dataclass
class Reference:
    """Organisations and venues known in data/, for resolving names as written."""

    orgs: Lookup = field(default_factory=lambda: Lookup("organisation"))
    venue_index: VenueIndex = field(default_factory=VenueIndex)
    org_types: dict[str, str] = field(default_factory=dict)
    org_parents: dict[str, str | None] = field(default_factory=dict)
    org_phrases: list[tuple[str, str]] = field(default_factory=list)
    data: Path = Path("data")  # the data directory as the user named it, for review notes that name its files
    resolved: dict[str, VenueMatch] = field(default_factory=dict, repr=False, compare=False)  # venue() by text
    citations: dict[tuple[str, frozenset[str]], Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def load(cls, data: Path) -> Reference:
        """Read organizations.yaml and venues.yaml from a data directory (either may be missing)."""
        if not data.is_dir():
            raise SourceError(Location(data), "data directory not found; pass --data DIR (it holds "
                                              "organizations.yaml and venues.yaml)")
        ref = cls(data=data)
        orgs_file, venues_file = data / "organizations.yaml", data / "venues.yaml"
        orgs = parse_organizations(read_yaml(orgs_file)) if orgs_file.exists() else ()
        venues = parse_venues(read_yaml(venues_file)) if venues_file.exists() else ()
        for org in orgs:
            names = (org.name, *org.aliases, *org.names.values())
            ref.orgs.add(org.id, *names)
            ref.org_types[org.id], ref.org_parents[org.id] = org.type, org.parent
            ref.org_phrases += [(normalize_name(n), org.id) for n in names if len(normalize_name(n)) >= 2]
        ref.venue_index = VenueIndex.of(venues)
        ref.org_phrases.sort(key=lambda p: -len(p[0]))
        return ref

    @property
    def venues(self) -> Lookup:
        """The venues by id, name, acronym and alias (exact, after normalisation)."""
        return self.venue_index.lookup

    @property
    def venue_types(self) -> dict[str, str]:
        """Each venue's type (conference, journal, repository, ...)."""
        return self.venue_index.types

    def unknown_org(self, text: str) -> str:
        """The review note of an organisation not in organizations.yaml."""
        listing = self.data / "organizations.yaml"
        return (f"unknown organisation '{text}': kg build accepts it by name (it makes an organisation node from the "
                f"name and warns); to give it an id, aliases and a parent, add it to {listing} with this name or an "
                "alias")

    def unknown_venue(self, text: str) -> str:
        """The review note of a venue not in venues.yaml."""
        return f"venue '{text}' is not in {self.data / 'venues.yaml'}; add it there and set venue: to link it"

    def org(self, text: str) -> str | None:
        """The id of the organisation a text names, also without 'the' or a parenthesised other-script name."""
        text = text.strip().strip(".,;")
        candidates = [text, re.sub(r"^the\s+", "", text, flags=re.I), re.sub(r"\s*\([^()]*\)\s*$", "", text)]
        for candidate in candidates:
            if candidate and not candidate.isdigit():
                found = self.orgs.find(candidate)
                if found:
                    return found
        return None

    def org_like(self, text: str) -> bool:
        """Whether a text names a known organisation or reads as one."""
        return bool(self.org(text)) or is_org_like(text)

    def ancestors(self, ident: str) -> list[str]:
        """The organisations an organisation belongs to, nearest first ('microsoft-research-asia' -> MSR, MS)."""
        out: list[str] = []
        parent = self.org_parents.get(ident)
        while parent and parent not in out:
            out.append(parent)
            parent = self.org_parents.get(parent)
        return out

    def related(self, a: str, b: str) -> bool:
        """Whether two organisation ids are the same or one belongs to the other."""
        return a == b or a in self.ancestors(b) or b in self.ancestors(a)

    def orgs_in(self, text: str) -> list[str]:
        """Known organisations named anywhere in a text, longest names first, without overlaps, in text order."""
        padded = f" {normalize_name(text)} "
        found: list[tuple[int, str]] = []
        taken: list[tuple[int, int]] = []
        for phrase, ident in self.org_phrases:
            start = padded.find(f" {phrase} ")
            while start >= 0:
                end = start + len(phrase) + 1
                if not any(s < end and start < e for s, e in taken):
                    taken.append((start, end))
                    found.append((start, ident))
                start = padded.find(f" {phrase} ", start + 1)
        seen: list[str] = []
        for _, ident in sorted(found):
            if ident not in seen:
                seen.append(ident)
        return seen

    def venue(self, text: str) -> VenueMatch:
        """Resolve a venue line: '21st USENIX Symposium on ... (NSDI), 2024.' -> nsdi, 2024 (each text once: the
        readings of a page ask for the same segments many times)."""
        found = self.resolved.get(text)
        if found is None:
            found = self.resolved[text] = self._resolve_venue(text)
        return found

    def _resolve_venue(self, text: str) -> VenueMatch:
        clean = ARXIV_ID.sub("arXiv", re.sub(r"\bCoRR\s+abs/", "arXiv:", text))
        year = last_year(clean)
        if year is None:
            short = _SHORT_YEAR.search(clean)
            if short:
                year = 2000 + int(short.group(1) or short.group(2))
        ident = self.venue_index.find(clean)
        label = venue_label(clean)
        repository = ident is not None and self.venue_types.get(ident) == "repository"
        is_preprint = bool(PREPRINT.search(clean)) or repository
        return VenueMatch(ident, year, "preprint" if is_preprint else "published", label)


def is_org_like(text: str) -> bool:
    """Whether a text reads as an organisation's name: an org word, or an acronym such as 'EPFL' or 'ETH Zurich'."""
    if ORG_WORDS.search(text):
        return True
    tokens = text.split()
    return bool(tokens) and len(tokens) <= 4 and re.fullmatch(r"[A-Z][A-Z&]{1,6}", tokens[0]) is not None and all(
        t[:1].isupper() for t in tokens)
