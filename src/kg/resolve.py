"""Entity resolution: one identity per real person, organisation, venue and work."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Location, SourceError, SourceErrors
from .iris import slugify
from .model import Corpus, Organization, Origin, Profile, Venue
from .sources import format_path


def normalize_name(text: str) -> str:
    """Comparison key for a name or title: NFKC, case-folded, punctuation dropped, spaces collapsed.

    >>> normalize_name("Cesar A. Stuardo")
    'cesar a stuardo'
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


def initials_form(name: str) -> tuple[tuple[str, ...], str] | None:
    """(initials, family name) when every given name is a single letter, as in 'B Wan' or 'J. K. Rowling'."""
    tokens = normalize_name(name).split()
    if len(tokens) < 2 or len(tokens[-1]) < 2:
        return None
    given = tokens[:-1]
    if all(len(t) == 1 for t in given):
        return tuple(given), tokens[-1]
    return None


def _error(origin: Origin, field: str, message: str) -> SourceError:
    path = format_path(origin.path + (field,))
    return SourceError(Location(Path(origin.file), origin.line, path), message)


@dataclass
class Lookup:
    """Maps ids, names, acronyms and aliases to one id."""

    kind: str
    ids: dict[str, str] = field(default_factory=dict)

    def add(self, ident: str, *names: str | None) -> None:
        """Register an id under itself and its names."""
        self.ids[ident] = ident
        for name in names:
            if name:
                self.ids.setdefault(normalize_name(name), ident)

    def find(self, text: str) -> str | None:
        """The id a text refers to, or None."""
        return self.ids.get(text) or self.ids.get(normalize_name(text))


@dataclass
class Resolution:
    """The identities resolved across a corpus."""

    organizations: dict[str, Organization]
    venues: dict[str, Venue]
    org_lookup: Lookup
    venue_lookup: Lookup
    person_slugs: dict[str, str]
    person_names: dict[str, str]
    possible_same_as: dict[str, tuple[str, ...]]
    work_slugs: dict[str, str]

    def person(self, name: str) -> str:
        """Slug of the person node for a name as written."""
        return self.person_slugs[normalize_name(name)]

    def organization(self, text: str) -> str:
        """Id of the organisation a text names."""
        found = self.org_lookup.find(text)
        if found is None:
            raise KeyError(text)
        return found

    def venue(self, text: str) -> str:
        """Id of the venue a text names."""
        found = self.venue_lookup.find(text)
        if found is None:
            raise KeyError(text)
        return found

    def work(self, title: str) -> str:
        """Slug of the work with a title."""
        return self.work_slugs[normalize_name(title)]


def _people_mentioned(profile: Profile) -> list[str]:
    names = [a.name for p in profile.publications for a in p.authors if not a.is_elision]
    for edu in profile.education:
        names += [a.name for a in edu.advisors] + list(edu.worked_with)
    return names


def _allocate(key: str, preferred: str, taken: dict[str, str]) -> str:
    slug, n = preferred, 2
    while slug in taken and taken[slug] != key:
        slug, n = f"{preferred}-{n}", n + 1
    taken[slug] = key
    return slug


def _people(corpus: Corpus) -> tuple[dict[str, str], dict[str, str]]:
    slugs: dict[str, str] = {}
    names: dict[str, str] = {}
    taken: dict[str, str] = {}
    for profile in corpus.profiles:
        key = normalize_name(profile.name)
        slugs[key] = _allocate(key, profile.id, taken)
        names[slugs[key]] = profile.name
    for profile in corpus.profiles:
        for pub in profile.publications:
            for author in pub.authors:
                key = normalize_name(author.name)
                if author.same_as and not author.is_elision and key not in slugs:
                    slugs[key] = author.same_as
                    taken.setdefault(author.same_as, key)
                    names.setdefault(author.same_as, author.name)
    mentioned = sorted({normalize_name(n): n for p in corpus.profiles for n in _people_mentioned(p)}.items())
    for key, written in mentioned:
        if key not in slugs:
            slugs[key] = _allocate(key, slugify(written), taken)
            names[slugs[key]] = written
    return slugs, names


def _candidates(slugs: dict[str, str]) -> dict[str, tuple[str, ...]]:
    full_by_family: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
    for key, slug in slugs.items():
        tokens = key.split()
        if len(tokens) >= 2 and initials_form(key) is None:
            full_by_family[tokens[-1]].append((tuple(t[0] for t in tokens[:-1]), slug))
    links: dict[str, tuple[str, ...]] = {}
    for key, slug in sorted(slugs.items()):
        form = initials_form(key)
        if form is None:
            continue
        matches = sorted({s for initials, s in full_by_family.get(form[1], []) if initials == form[0]})
        if len(matches) == 1:
            links[slug] = tuple(matches)
    return links


def _works(corpus: Corpus) -> dict[str, str]:
    slugs: dict[str, str] = {}
    taken: dict[str, str] = {}
    for profile in corpus.profiles:
        for pub in profile.publications:
            key = normalize_name(pub.title)
            if key not in slugs:
                slugs[key] = _allocate(key, slugify(pub.title, max_length=60), taken)
    return slugs


def _check_references(corpus: Corpus, orgs: Lookup, venues: Lookup, known_orgs: dict[str, Organization]) -> None:
    errors: list[SourceError] = []

    def need(lookup: Lookup, text: str | None, origin: Origin, field: str) -> None:
        if text is not None and lookup.find(text) is None:
            file = "organizations.yaml" if lookup.kind == "organisation" else "venues.yaml"
            errors.append(_error(origin, field, f"unknown {lookup.kind} {text!r}; add it to data/{file} "
                                                f"or use one of its ids or aliases"))

    for org in known_orgs.values():
        need(orgs, org.parent, org.origin, "parent")
    for profile in corpus.profiles:
        need(orgs, profile.affiliation, profile.origin, "affiliation")
        for exp in profile.experience:
            for i, org_text in enumerate(exp.organizations):
                need(orgs, org_text, exp.origin, f"organizations[{i}]")
        for edu in profile.education:
            for name in ("institution", "department", "partner", "lab"):
                need(orgs, getattr(edu, name), edu.origin, name)
            for i, adv in enumerate(edu.advisors):
                need(orgs, adv.affiliation, edu.origin, f"advisors[{i}].affiliation")
        for pub in profile.publications:
            need(venues, pub.venue, pub.origin, "venue")
    if errors:
        raise SourceErrors(errors)


def resolve(corpus: Corpus) -> Resolution:
    """Resolve every mention in the corpus to one identity; unknown references are source errors."""
    org_lookup, venue_lookup = Lookup("organisation"), Lookup("venue")
    for org in corpus.organizations:
        org_lookup.add(org.id, org.name, *org.aliases, *org.names.values())
    for venue in corpus.venues:
        venue_lookup.add(venue.id, venue.name, venue.acronym, *venue.aliases)
    organizations = {o.id: o for o in corpus.organizations}
    _check_references(corpus, org_lookup, venue_lookup, organizations)
    slugs, names = _people(corpus)
    return Resolution(organizations, {v.id: v for v in corpus.venues}, org_lookup, venue_lookup, slugs, names,
                      _candidates(slugs), _works(corpus))
