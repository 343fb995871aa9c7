"""The profiles' references resolved: one identity per real person, organisation, venue and work they name."""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Location, SourceError, SourceErrors
from ..iris import slugify
from ..model import SLUG, Corpus, Organization, Origin, Profile, Venue
from ..sources import format_path
from .names import Lookup, initials_form, normalize_name
from .venues import VenueIndex


def _location(origin: Origin, *parts: str | int) -> Location:
    path = origin.path + parts
    return Location(Path(origin.file), origin.line_of(path), format_path(path))


def _error(origin: Origin, field: str, message: str) -> SourceError:
    return SourceError(_location(origin, field), message)  # the field's own line, not its record's


@dataclass(frozen=True)
class BuildWarning:
    """A problem in the source data that does not stop the build: where it is, and what to do about it."""

    location: Location
    message: str

    def __str__(self) -> str:
        place = str(self.location.path) if self.location.path is not None else "<input>"
        if self.location.line is not None:
            place += f":{self.location.line}"
        field_path = f"{self.location.field}: " if self.location.field else ""
        return f"{place}: warning: {field_path}{self.message}"


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
    unlisted_organizations: dict[str, str] = field(default_factory=dict)
    unlisted_keys: dict[str, str] = field(default_factory=dict)
    warnings: tuple[BuildWarning, ...] = ()
    venue_index: VenueIndex = field(default_factory=VenueIndex)  # venue texts as written (records, kg import)

    def person(self, name: str) -> str:
        """Slug of the person node for a name as written."""
        return self.person_slugs[normalize_name(name)]

    def organization(self, text: str) -> str:
        """Id of the organisation a text names (a slug minted from the name for one not in the reference data)."""
        found = self.org_lookup.find(text) or self.unlisted_keys.get(normalize_name(text))
        if found is None:
            raise KeyError(text)
        return found

    def venue(self, text: str) -> str:
        """Id of the venue a text names."""
        found = self.venue_lookup.find(text)
        if found is None:
            raise KeyError(text)
        return found

    def venue_named(self, text: str) -> str | None:
        """Id of the venue a text as written names, also by an acronym or alias inside it ('… (NSDI 23)'), or None."""
        return self.venue_index.find(text)

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
    full_slugs = {slug for entries in full_by_family.values() for _, slug in entries}
    links: dict[str, tuple[str, ...]] = {}
    for key, slug in sorted(slugs.items()):
        form = initials_form(key)
        if form is None or slug in full_slugs:  # initials pinned (same_as) to a full name's node are that node
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


def _suggestion(text: str, lookup: Lookup) -> str:
    """' (did you mean 'acme'?)' for a text close to a known id, or ''."""
    ids = sorted(set(lookup.ids.values()))
    close = difflib.get_close_matches(text, ids, n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _org_references(profile: Profile) -> list[tuple[str, Origin, tuple[str | int, ...]]]:
    """Every organisation a profile names, with the record it is in and its field path there, in file order."""
    refs: list[tuple[str, Origin, tuple[str | int, ...]]] = []
    if profile.affiliation:
        refs.append((profile.affiliation, profile.origin, ("affiliation",)))
    for exp in profile.experience:
        refs += [(text, exp.origin, ("organizations", i)) for i, text in enumerate(exp.organizations)]
    for edu in profile.education:
        for name in ("institution", "department", "partner", "lab"):
            if getattr(edu, name):
                refs.append((getattr(edu, name), edu.origin, (name,)))
        refs += [(adv.affiliation, edu.origin, ("advisors", i, "affiliation"))
                 for i, adv in enumerate(edu.advisors) if adv.affiliation]
    return refs


@dataclass
class _Unlisted:
    """Organisations named in profiles but not in the reference data: one slug per normalised name."""

    known: dict[str, Organization]
    listing: Path  # the organizations.yaml to add them to
    names: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    warnings: list[BuildWarning] = field(default_factory=list)

    def add(self, text: str, uses: list[Location]) -> None:
        """Mint (or reuse) the slug of a name and warn once for the file, at its first use."""
        key = normalize_name(text)
        if key not in self.keys:
            taken = set(self.known) | set(self.names)
            slug = preferred = slugify(text)
            n = 2
            while slug in taken:
                slug, n = f"{preferred}-{n}", n + 1
            self.keys[key], self.names[slug] = slug, text
        slug = self.keys[key]
        later = sorted({u.line for u in uses[1:] if u.line is not None and u.line != uses[0].line})
        also = f" (also used at line{'s' if len(later) > 1 else ''} {', '.join(map(str, later))})" if later else ""
        self.warnings.append(BuildWarning(uses[0], (
            f"organisation {text!r} is not in {self.listing}; the build made an organisation node from its "
            f"name (id/organization/{slug}){also}. Add it to {self.listing} with this name or an alias to "
            f"give it an id, aliases and a parent, e.g. '- {{id: {slug}, name: {self.names[slug]}}}'")))


def _check_references(corpus: Corpus, orgs: Lookup, venues: Lookup, known_orgs: dict[str, Organization]) -> _Unlisted:
    errors: list[SourceError] = []
    unlisted = _Unlisted(known_orgs, corpus.root / "organizations.yaml")

    def need(lookup: Lookup, text: str | None, origin: Origin, field: str) -> None:
        if text is not None and lookup.find(text) is None:
            file = "organizations.yaml" if lookup.kind == "organisation" else "venues.yaml"
            errors.append(_error(origin, field, f"unknown {lookup.kind} {text!r}{_suggestion(text, lookup)}; add it "
                                                f"to data/{file} or use one of its ids or aliases"))

    for org in known_orgs.values():
        need(orgs, org.parent, org.origin, "parent")
    for profile in corpus.profiles:
        by_name: dict[str, tuple[str, list[Location]]] = {}
        for text, origin, parts in _org_references(profile):
            if orgs.find(text) is not None:
                continue
            if SLUG.match(text) or not normalize_name(text):  # looks like an id: a typo must not become a node
                errors.append(SourceError(_location(origin, *parts), (
                    f"unknown organisation id {text!r}{_suggestion(text, orgs)}; use an id, name or alias from "
                    f"data/organizations.yaml, or write the organisation's full name (kg build accepts a name "
                    f"it does not know, with a warning)")))
                continue
            by_name.setdefault(normalize_name(text), (text, []))[1].append(_location(origin, *parts))
        for text, uses in by_name.values():
            unlisted.add(text, uses)
        for pub in profile.publications:
            need(venues, pub.venue, pub.origin, "venue")
    if errors:
        raise SourceErrors(errors)
    return unlisted


def _owner_warnings(corpus: Corpus, slugs: dict[str, str]) -> list[BuildWarning]:
    """A warning for each profile whose person is an author of none of its own publications."""
    warnings: list[BuildWarning] = []
    for profile in corpus.profiles:
        own = slugs[normalize_name(profile.name)]
        authors = [(i, j, a) for i, p in enumerate(profile.publications) for j, a in enumerate(p.authors)
                   if not a.is_elision]
        if not authors or any(slugs.get(normalize_name(a.name)) == own for _, _, a in authors):
            continue
        family = normalize_name(profile.family_name or profile.name).split()[-1:]
        likely = [f"'{a.name}' (publications[{i}].authors[{j}])" for i, j, a in authors
                  if normalize_name(a.name).split()[-1:] == family or
                  normalize_name(a.name).split()[:1] == family][:3]
        hint = f"; likely the owner: {', '.join(likely)}" if likely else ""
        count = len(profile.publications)
        warnings.append(BuildWarning(_location(profile.origin, "name"), (
            f"{profile.name!r} is an author of none of the profile's {count} publication{'s' if count > 1 else ''} "
            f"(no author is written {profile.name!r} or pinned with same_as: {own}), so the person's page lists "
            f"none of them{hint}. Write the owner's entry in each author list as "
            f"{{name: <as written>, same_as: {own}}}")))
    return warnings


def resolve(corpus: Corpus) -> Resolution:
    """Resolve every mention in the corpus to one identity; unknown references are source errors.

    An organisation named in a profile but not in the reference data gets a node minted from its name, with a
    warning; a reference that looks like an id and is unknown stays an error (a typo must not become a node).
    """
    org_lookup, venue_index = Lookup("organisation"), VenueIndex.of(corpus.venues)
    venue_lookup = venue_index.lookup
    for org in corpus.organizations:
        org_lookup.add(org.id, org.name, *org.aliases, *org.names.values())
    organizations = {o.id: o for o in corpus.organizations}
    unlisted = _check_references(corpus, org_lookup, venue_lookup, organizations)
    slugs, names = _people(corpus)
    warnings = tuple(unlisted.warnings) + tuple(_owner_warnings(corpus, slugs))
    return Resolution(organizations, {v.id: v for v in corpus.venues}, org_lookup, venue_lookup, slugs, names,
                      _candidates(slugs), _works(corpus), unlisted.names, unlisted.keys,
                      tuple(sorted(warnings, key=lambda w: (str(w.location.path), w.location.line or 0))), venue_index)
