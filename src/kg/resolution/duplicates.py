"""One thing described twice: a person in two profiles, a publication written two ways (errors), an author listed
twice in one author list (a warning).

The first two would reach validation as SHACL violations about RDF nodes (a list cell with several rdf:first, a work
with two titles); found here first, each is one error naming both places and the fix.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import Location, SourceError
from ..model import Corpus, Origin, Profile, Publication
from ..sources import format_path
from .names import normalize_name
from .references import BuildWarning, Resolution


def _place(origin: Origin, *parts: str | int) -> Location:
    path = origin.path + parts
    return Location(Path(origin.file), origin.line_of(path), format_path(path))


def _line(origin: Origin, *parts: str | int) -> str:
    line = origin.line_of(origin.path + parts)
    return f"{origin.file}:{line}" if line is not None else origin.file


def _same_people(profiles: tuple[Profile, ...]) -> list[SourceError]:
    """Two profiles of one person: the same name, or the same external identifier in same_as."""
    errors: list[SourceError] = []
    seen: dict[str, Profile] = {}
    for profile in profiles:
        keys = [("name", normalize_name(profile.name))] + [("same_as", iri) for iri in profile.same_as]
        first = next(((kind, key, seen[key]) for kind, key in keys if key in seen), None)
        if first is not None:
            kind, key, other = first
            why = f"both are named {profile.name!r}" if kind == "name" else f"both give same_as {key}"
            here: tuple[str | int, ...] = ("name",) if kind == "name" else ("same_as", profile.same_as.index(key))
            there: tuple[str | int, ...] = ("name",) if kind == "name" else ("same_as", other.same_as.index(key))
            errors.append(SourceError(_place(profile.origin, *here), (
                f"these two files describe the same person ({why}): {_line(other.origin, *there)} and this file; "
                f"merge them into one profile (kg makes one node per person, so two files give it two of "
                f"everything), or, if they are two people, tell them apart by name (a middle initial, say) and pin "
                f"their authorships with {{name: <as written>, same_as: <profile id>}}")))
            continue
        for _, key in keys:
            seen.setdefault(key, profile)
    return errors


def _work_facts(pub: Publication, resolution: Resolution) -> dict[str, object]:
    """What every listing of a work must agree on (each is single-valued in the graph); None where not given."""
    venue = resolution.venue_lookup.find(pub.venue) if pub.venue else None
    return {"title": pub.title, "year": pub.year, "status": pub.status, "venue": venue,
            "authors": tuple("..." if a.is_elision else a.name + ("*" if a.equal_contribution else "")
                             for a in pub.authors)}


def _differences(first: dict[str, object], later: dict[str, object]) -> list[str]:
    found = []
    for key, value in later.items():
        other = first[key]
        if value is None or other is None or value == other:
            continue
        if key == "authors":
            assert isinstance(value, tuple) and isinstance(other, tuple)
            found.append(f"authors [{', '.join(other)}] there, [{', '.join(value)}] here")
        else:
            found.append(f"{key} {other!r} there, {value!r} here")
    return found


def _same_works(profiles: tuple[Profile, ...], resolution: Resolution) -> list[SourceError]:
    """A publication listed in two places (one work, by title) with facts that disagree."""
    errors: list[SourceError] = []
    first: dict[str, tuple[Publication, dict[str, object]]] = {}
    for profile in profiles:
        for pub in profile.publications:
            key, facts = normalize_name(pub.title), _work_facts(pub, resolution)
            if key not in first:
                first[key] = (pub, facts)
                continue
            other, known = first[key]
            differences = _differences(known, facts)
            if differences:
                same_file = other.origin.file == pub.origin.file
                errors.append(SourceError(_place(pub.origin), (
                    f"these two {'entries' if same_file else 'files'} describe the same publication "
                    f"({other.title!r}) differently: {'; '.join(differences)} (there: {_line(other.origin)} "
                    f"{format_path(other.origin.path)}); merge them: keep one entry, or write it the same way in "
                    f"both (title, year, venue, status and every author as written)")))
    return errors


def repeated_authors(corpus: Corpus, resolution: Resolution) -> list[BuildWarning]:
    """The same person twice in one author list (the same name, or two names pinned to one person): a warning, since
    two people may share a written name (two 'J. Liu'), but kg gives both positions to one node."""
    warnings: list[BuildWarning] = []
    for profile in corpus.profiles:
        for pub in profile.publications:
            seen: dict[str, int] = {}
            for index, author in enumerate(pub.authors):
                if author.is_elision:
                    continue
                person = resolution.person_slugs.get(normalize_name(author.name), normalize_name(author.name))
                if person not in seen:
                    seen[person] = index
                    continue
                before = seen[person]
                warnings.append(BuildWarning(_place(pub.origin, "authors", index), (
                    f"the publication {pub.title!r} lists the same author twice: {pub.authors[before].name!r} at "
                    f"authors[{before}] (line {pub.origin.line_of(pub.origin.path + ('authors', before))}, "
                    f"author {before + 1}) and {author.name!r} here (author {index + 1}); remove the repeated entry "
                    f"(kg makes one person of both; if they are two people, write their names in full)")))
    return warnings


def duplicate_errors(corpus: Corpus, resolution: Resolution) -> list[SourceError]:
    """Every person and publication described twice, differently, in the corpus's profiles."""
    return _same_people(corpus.profiles) + _same_works(corpus.profiles, resolution)
