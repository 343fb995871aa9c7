"""Merging downloaded records with the profiles by identifier: one node per real person, work and organisation.

Works are merged by exact normalised identifiers (DOI, OpenAlex, dblp record key, Wikidata, PubMed), then by a
profile publication's `doi`/`same_as`, then by normalised title and year when exactly one candidate exists (two
or more give a review warning and no merge). People are merged by identifiers (ORCID, dblp pid, Wikidata,
OpenAlex, Scholar, ISNI; a profile's `same_as`), and inside one merged work by author position when the author
lists have the same length, or by the same written name when they do not. Then by name (kg.resolution.people):
the profiles' people first, one person per name as written unless identifiers differ; a weaker match of a name is
a kg:possibleSameAs link, never a merge.

The source precedence (Config.source_precedence, curated profiles first) picks the one value each merged entity
shows for single-valued properties (title, year, author list, a person's name); every other value is kept in
its source's graph and listed as a Conflict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from ..errors import Location
from ..identifiers import SCHEME_LABELS, from_iri
from ..iris import slugify
from ..model import Corpus, ExternalId, Record, RecordAuthor, RecordOrg
from .links import Conflict, Key, Linking, org_key, record_works
from .names import normalize_name, same_person_name
from .people import NameMerger, possible_people
from .references import BuildWarning, Resolution
from .union_find import UnionFind

PERSON_SCHEMES = ("orcid", "dblp", "wikidata", "openalex", "scholar", "isni")
WORK_SCHEMES = ("doi", "openalex", "dblp-record", "wikidata", "pmid", "pmcid", "arxiv")
CURATED = "profile"


def _free_slug(preferred: str, taken: set[str]) -> str:
    """The preferred slug, or it with the first free -2, -3, ... suffix; the slug is then taken."""
    slug, n = preferred, 2
    while slug in taken:
        slug, n = f"{preferred}-{n}", n + 1
    taken.add(slug)
    return slug


def _name_from_ids(ids: list[ExternalId]) -> str:
    """A stand-in name for a person a record knows only by identifier ('ORCID iD 0000-…')."""
    return f"{SCHEME_LABELS[ids[0].scheme]} {ids[0].value}" if ids else "unnamed person"



def _source_of(key: Key, records: dict[str, Record]) -> str:
    return CURATED if key[0] in ("pub", "curated") else records[str(key[1])].system


def _file_of(key: Key, records: dict[str, Record], curated_files: dict[Key, str]) -> str:
    if key[0] in ("pub", "curated"):
        return curated_files.get(key, "data/profiles")
    return records[str(key[1])].origin.file


class _Linker:
    """Builds a Linking from a corpus and the profiles' resolution."""

    def __init__(self, corpus: Corpus, resolution: Resolution, precedence: tuple[str, ...]) -> None:
        self.corpus, self.resolution = corpus, resolution
        self.out = Linking(precedence)
        self.records = {r.name: r for r in corpus.records}
        self.works = UnionFind()
        self.people = UnionFind()
        self.work_titles: dict[Key, tuple[str, int | None, list[ExternalId]]] = {}
        self.author_lists: dict[Key, list[Key]] = {}
        self.person_names: dict[Key, str] = {}
        self.ids_of: dict[Key, list[ExternalId]] = defaultdict(list)
        self.curated_files: dict[Key, str] = {}
        self.heads: dict[str, Key] = {}
        self.work_of: dict[Key, list[Key]] = defaultdict(list)  # a person key -> the works it is an author of
        self.reasons: dict[Key, str] = {}  # why a person who shares a name with another stayed apart

    def run(self) -> Linking:
        """Link everything."""
        self._curated()
        self._record_entities()
        self._merge_works_by_id()
        self._merge_works_by_title()
        self._align_authors()
        self._merge_people_by_id()
        self.reasons = NameMerger(self.people, self.works, self.person_names, self.ids_of, self.work_of,
                                  self.resolution.person_slugs, self.resolution.person_names).run()
        self._name_works()
        self._name_people()
        for slug, head in self.heads.items():
            self.out.work_authors[slug] = tuple(self._slug_of(k) for k in self.author_lists[head])
        self._organizations()
        return self.out

    def _curated(self) -> None:
        for profile in self.corpus.profiles:
            owner: Key = ("curated", self.resolution.person(profile.name))
            self.people.add(owner)
            self.person_names[owner] = profile.name
            self.curated_files[owner] = profile.origin.file
            for iri in profile.same_as:
                found = from_iri(iri)
                if found and found[0] in PERSON_SCHEMES:
                    self.ids_of[owner].append(ExternalId(*found))
            for pub in profile.publications:
                slug = self.resolution.work(pub.title)
                key: Key = ("pub", slug)
                self.works.add(key)
                self.curated_files.setdefault(key, profile.origin.file)
                if key in self.work_titles:
                    continue
                ids = [ExternalId("doi", pub.doi)] if pub.doi else []
                ids += [ExternalId(*f) for iri in pub.same_as if (f := from_iri(iri)) and f[0] in WORK_SCHEMES]
                self.work_titles[key] = (pub.title, pub.year, ids)
                authors = []
                for author in pub.authors:
                    if author.is_elision:
                        continue
                    person: Key = ("curated", self.resolution.person(author.name))
                    self.people.add(person)
                    self.person_names.setdefault(person, self.resolution.person_names[str(person[1])])
                    self.curated_files.setdefault(person, profile.origin.file)
                    self.work_of[person].append(key)
                    authors.append(person)
                self.author_lists[key] = authors

    def _record_entities(self) -> None:
        for record in self.corpus.records:
            for p, person in enumerate(record.people):
                key: Key = ("person", record.name, p)
                self.people.add(key)
                self.person_names[key] = person.name
                self.ids_of[key] += [i for i in person.ids if i.scheme in PERSON_SCHEMES]
                for i, advisor in enumerate(person.advisors):
                    akey: Key = ("advisor", record.name, p, i)
                    self.people.add(akey)
                    self.person_names[akey] = advisor.name
                    self.ids_of[akey] += [i for i in advisor.ids if i.scheme in PERSON_SCHEMES]
            for index, work, owner in record_works(record):
                wkey: Key = ("work", record.name, index)
                self.works.add(wkey)
                self.work_titles[wkey] = (work.title, work.year, [i for i in work.ids if i.scheme in WORK_SCHEMES])
                authors = [self._author(record, index, i, a) for i, a in enumerate(work.authors)]
                if owner is not None and not work.authors_complete:
                    owner_key: Key = ("person", record.name, owner)
                    if owner_key not in authors:
                        authors.append(owner_key)
                for author in authors:
                    self.work_of[author].append(wkey)
                self.author_lists[wkey] = authors

    def _author(self, record: Record, index: int, position: int, author: RecordAuthor) -> Key:
        key: Key = ("author", record.name, index, position)
        self.people.add(key)
        self.person_names[key] = author.person_name or author.name
        self.ids_of[key] += [i for i in author.ids if i.scheme in PERSON_SCHEMES]
        return key

    def _merge_works_by_id(self) -> None:
        first: dict[ExternalId, Key] = {}
        for key, (_, _, ids) in self.work_titles.items():
            for ident in ids:
                if ident in first:
                    self.works.union(first[ident], key)
                else:
                    first[ident] = key

    def _group_ids(self, members: list[Key], scheme: str) -> set[str]:
        return {i.value for m in members for i in self.work_titles[m][2] if i.scheme == scheme}

    def _merge_works_by_title(self) -> None:
        groups = self.works.groups()
        position = {root: i for i, root in enumerate(groups)}
        by_title: dict[str, list[Key]] = defaultdict(list)
        for root, members in groups.items():
            for title in sorted({normalize_name(self.work_titles[m][0]) for m in members} - {""}):
                by_title[title].append(root)
        for root, members in groups.items():
            if any(m[0] == "pub" for m in members) or self.works.find(root) != root:
                continue
            years = {self.work_titles[m][1] for m in members} - {None}
            dois = self._group_ids(members, "doi")
            titles = {normalize_name(self.work_titles[m][0]) for m in members} - {""}  # untitled: no title merge
            candidates = []
            for other in sorted({o for t in titles for o in by_title[t] if self.works.find(o) != self.works.find(root)},
                                key=position.__getitem__):
                others = groups[other]
                other_years = {self.work_titles[m][1] for m in others} - {None}
                other_dois = self._group_ids(others, "doi")
                if (years and other_years and not years & other_years) or (dois and other_dois and
                                                                          not dois & other_dois):
                    continue
                candidates.append(other)
            if len(candidates) == 1:
                self.works.union(candidates[0], root)
            elif len(candidates) > 1:
                record = self.records[str(members[0][1])]
                title = self.work_titles[members[0]][0]
                self.out.warnings.append(BuildWarning(Location(Path(record.origin.file)), (
                    f"the work {title!r} has the title of {len(candidates)} other works and no identifier to tell "
                    f"them apart, so it was not merged with any; add its doi to the right profile publication")))

    def _group_author_ids(self, key: Key) -> dict[str, set[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for member in self.people.members(key):
            for ident in self.ids_of[member]:
                found[ident.scheme].add(ident.value)
        return found

    def _compatible(self, a: Key, b: Key) -> bool:
        ids_a, ids_b = self._group_author_ids(a), self._group_author_ids(b)
        return not any(ids_a[s] and ids_b[s] and not ids_a[s] & ids_b[s] for s in ("orcid", "dblp", "wikidata"))

    def _align_authors(self) -> None:
        for _, members in self.works.groups().items():
            if len(members) < 2:
                continue
            ordered = sorted(members, key=lambda m: (self.out.rank(_source_of(m, self.records)), str(m)))
            reference = self.author_lists[ordered[0]]
            for other in ordered[1:]:
                authors = self.author_lists[other]
                if len(authors) == len(reference):
                    pairs = list(zip(reference, authors, strict=True))
                else:
                    names = defaultdict(list)
                    for ref in reference:
                        names[normalize_name(self.person_names[ref])].append(ref)
                    pairs = [(names[n][0], a) for a in authors
                             if len(names[n := normalize_name(self.person_names[a])]) == 1]
                for ref, author in pairs:
                    if self._compatible(ref, author):
                        self.people.union(ref, author)

    def _merge_people_by_id(self) -> None:
        first: dict[ExternalId, Key] = {}
        for key in list(self.people.parent):
            for ident in self.ids_of[key]:
                if ident in first:
                    self.people.union(first[ident], key)
                else:
                    first[ident] = key

    def _values(self, members: list[Key], value_of: dict[Key, object]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        files: dict[str, list[str]] = {}
        for member in members:
            value = value_of.get(member)
            if value is None:
                continue
            place = _file_of(member, self.records, self.curated_files)
            files.setdefault(str(value), [])
            if place not in files[str(value)]:
                files[str(value)].append(place)
        return tuple((v, tuple(f)) for v, f in files.items())

    def _name_works(self) -> None:
        taken = set(self.resolution.work_slugs.values())
        for _, members in self.works.groups().items():
            ordered = sorted(members, key=lambda m: (m[0] != "pub", not self.work_titles[m][0],
                                                     self.out.rank(_source_of(m, self.records)),
                                                     not self._complete(m), str(m)))
            curated = [m for m in members if m[0] == "pub"]
            if curated:
                slug = str(curated[0][1])
            else:
                slug = _free_slug(slugify(self.work_titles[ordered[0]][0] or "untitled", max_length=60), taken)
            for member in members:
                if member[0] == "work":
                    self.out.work_slugs[member] = slug
                    self.out.work_sources[slug].append(str(member[1]))
            head = ordered[0]
            self.heads[slug] = head
            self.out.work_preferred[slug] = CURATED if head[0] == "pub" else str(head[1])
            self._work_conflicts(slug, ordered)

    def _complete(self, key: Key) -> bool:
        if key[0] == "pub":
            return True
        record = self.records[str(key[1])]
        work = next(w for i, w, _ in record_works(record) if i == key[2])
        return work.authors_complete

    def _work_conflicts(self, slug: str, ordered: list[Key]) -> None:
        label = self.work_titles[ordered[0]][0]
        titles = {m: self.work_titles[m][0] for m in ordered if self.work_titles[m][0]}
        if len({normalize_name(t) for t in titles.values()}) > 1:
            self.out.conflicts.append(Conflict("work", slug, label, "title", self._values(ordered, dict(titles))))
        years = {m: self.work_titles[m][1] for m in ordered}
        if len({y for y in years.values() if y is not None}) > 1:
            self.out.conflicts.append(Conflict("work", slug, label, "year", self._values(ordered, dict(years))))
        counts = {m: len(self.author_lists[m]) for m in ordered if self._complete(m)}
        if len(set(counts.values())) > 1:
            self.out.conflicts.append(Conflict("work", slug, label, "number of authors",
                                               self._values(ordered, dict(counts))))

    def _name_people(self) -> None:
        taken = set(self.resolution.person_slugs.values())
        shown: dict[str, str] = {}
        reasons: dict[str, str] = {}
        files: dict[str, tuple[str, ...]] = {}
        for _, members in self.people.groups().items():
            curated = [m for m in members if m[0] == "curated"]
            ordered = sorted(members, key=lambda m: (m[0] != "curated", not self.person_names[m],
                                                     self.out.rank(self._person_source(m)), m[0] != "person", str(m)))
            head = ordered[0]
            name = self.person_names[head] or _name_from_ids(self.ids_of[head])
            if curated:
                slug = str(curated[0][1])
                name = self.resolution.person_names.get(slug, name)
            else:
                slug = _free_slug(slugify(name), taken)
                shown[slug] = name
                files[slug] = tuple(dict.fromkeys(_file_of(m, self.records, self.curated_files) for m in ordered))
                reasons.update((slug, self.reasons[m]) for m in members if m in self.reasons)
            self.out.person_names[slug] = name
            self.out.person_preferred[slug] = CURATED if curated else str(head[1])
            for member in members:
                if member[0] != "curated":
                    self.out.person_slugs[member] = slug
                for ident in self.ids_of[member]:
                    if ident not in self.out.person_ids[slug]:
                        self.out.person_ids[slug].append(ident)
            names = {m: self.person_names[m] for m in ordered if self.person_names[m]}
            if any(not same_person_name(name, n) for n in names.values()):
                self.out.conflicts.append(Conflict("person", slug, name, "name", self._values(ordered, dict(names))))
        self.out.possible_same_as, self.out.kept_apart = possible_people(
            shown, self.out.person_ids, self.resolution.person_slugs, self.resolution.person_names, reasons, files)

    def _slug_of(self, key: Key) -> str:
        return str(key[1]) if key[0] == "curated" else self.out.person_slugs[key]

    def _person_source(self, key: Key) -> str:
        return CURATED if key[0] == "curated" else self.records[str(key[1])].system

    def _organizations(self) -> None:
        known_ids: dict[tuple[str, str], str] = {}
        for known in self.corpus.organizations:
            for iri in known.same_as:
                found = from_iri(iri)
                if found:
                    known_ids[found] = known.id
        taken = set(self.resolution.organizations) | set(self.resolution.unlisted_organizations)
        for record in self.corpus.records:
            for org in _record_orgs(record):
                key = org_key(org)
                if key in self.out.org_slugs:
                    continue
                slug = next((known_ids[(i.scheme, i.value)] for i in org.ids if (i.scheme, i.value) in known_ids),
                            None) or self.resolution.org_lookup.find(org.name)
                if slug is None:
                    slug = _free_slug(slugify(org.name), taken)
                    self.out.org_names[slug] = org.name
                self.out.org_slugs[key] = slug


def _record_orgs(record: Record) -> Iterator[RecordOrg]:
    for person in record.people:
        for role in person.roles:
            yield role.organization
    for _, work, _ in record_works(record):
        for author in work.authors:
            yield from author.affiliations


def _nothing_to_link(corpus: Corpus, resolution: Resolution) -> bool:
    """Whether linking can only give singletons: no records, and no identifier shared by two profile works (then
    no work or person merges, so no conflict, warning or kept-apart person, and the rest of a Linking is read only
    by the records' mapping). A one-profile edit of such a corpus re-links nothing."""
    if corpus.records:
        return False
    owner: dict[ExternalId, str] = {}
    seen: set[str] = set()
    for profile in corpus.profiles:
        for pub in profile.publications:
            slug = resolution.work(pub.title)
            if slug in seen:  # the linker reads a work's identifiers from its first listing only
                continue
            seen.add(slug)
            ids = [ExternalId("doi", pub.doi)] if pub.doi else []
            ids += [ExternalId(*f) for iri in pub.same_as if (f := from_iri(iri)) and f[0] in WORK_SCHEMES]
            for ident in ids:
                if owner.setdefault(ident, slug) != slug:
                    return False
    return True


def link(corpus: Corpus, resolution: Resolution, precedence: tuple[str, ...]) -> Linking:
    """Link a corpus's records to its profiles and to each other (see the module docstring)."""
    if _nothing_to_link(corpus, resolution):
        return Linking(precedence)
    return _Linker(corpus, resolution, precedence).run()
