"""What the index holds per entity: its names, titles, topics and context, read from a store version.

One document per person, work, organisation, venue and project (a minted IRI ``{base}/id/{kind}/{slug}`` with a
name). Its text comes from the entity's own statements and the nodes it links to (an organisation, a role and the
role's organisation, a venue edition and its series), so a document depends on its entity and on nodes at most
two links away: ``affected`` follows those links backwards from changed subjects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from ..namespaces import BIBO_IRIS as B
from ..namespaces import SCHEMA_IRIS as S

KINDS = ("person", "work", "organization", "venue", "project")
NAMES = (S.name, S.alternateName)
TOPICS = (S.knowsAbout,)
OWN_CONTEXT = (S.jobTitle, S.roleName)
ORG_LINKS = (S.worksFor, S.affiliation, S.memberOf, S.alumniOf, S.parentOrganization)
VENUE_LINKS = (B.presentedAt, S.isPartOf, S.superEvent)
LINKS = ORG_LINKS + VENUE_LINKS
YEAR = S.datePublished
PREDICATES = NAMES + TOPICS + OWN_CONTEXT + LINKS + (YEAR,)
_DEFAULT = ox.DefaultGraph()


@dataclass(frozen=True)
class Document:
    """One entity as indexed: the four weighted texts, what a hit shows, and its facets."""

    iri: str
    kind: str
    path: str
    label: str
    name: str  # names and other names (people, organisations, venues, projects)
    title: str  # a work's titles
    topics: str  # research areas (schema:knowsAbout)
    context: str  # job titles, roles, organisations and venues linked to
    detail: str
    year: int | None
    orgs: tuple[str, ...]  # organisation IRIs: linked to directly or through a role; an organisation's own


class Facts:
    """The statements documents are made of, for every subject (scanned by predicate) or for subjects on demand."""

    def __init__(self, store: ox.Store, complete: bool = False) -> None:
        self.store = store
        self.by_subject: dict[Any, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
        self.complete = complete
        if complete:
            for predicate in PREDICATES:
                for quad in store.quads_for_pattern(None, ox.NamedNode(predicate), None, _DEFAULT):
                    self.by_subject[quad.subject][predicate].append(quad.object)

    def values(self, subject: Any, predicate: str) -> list[Any]:
        """The objects of a subject's statements with a predicate (loaded once per subject when not complete)."""
        if not self.complete and subject not in self.by_subject:
            facts = self.by_subject[subject]
            for quad in self.store.quads_for_pattern(subject, None, None, _DEFAULT):
                if quad.predicate.value in PREDICATES:
                    facts[quad.predicate.value].append(quad.object)
        found = self.by_subject.get(subject)
        return found.get(predicate, []) if found is not None else []

    def texts(self, subject: Any, predicates: Iterable[str]) -> list[str]:
        """The literal values of a subject's statements with these predicates."""
        return [o.value for p in predicates for o in self.values(subject, p) if isinstance(o, ox.Literal)]

    def subjects(self) -> Iterator[ox.NamedNode]:
        """Every named subject that has a name (complete facts only)."""
        for subject, facts in self.by_subject.items():
            if isinstance(subject, ox.NamedNode) and facts.get(S.name):
                yield subject


def entity_path(iri: str, id_space: str) -> str | None:
    """``kind/slug`` of an IRI minted for an indexed kind of entity, else None.

    >>> entity_path("https://x.org/id/person/ada", "https://x.org/id/"), entity_path("https://x.org/id/role/a", "https://x.org/id/")
    ('person/ada', None)
    """
    if not iri.startswith(id_space):
        return None
    path = iri[len(id_space):]
    kind, _, slug = path.partition("/")
    return path if kind in KINDS and slug and "/" not in slug else None


def _is_org(iri: str, id_space: str) -> bool:
    return (entity_path(iri, id_space) or "").startswith("organization/")


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v.strip() for v in values if v.strip()))


def document(facts: Facts, subject: ox.NamedNode, id_space: str) -> Document | None:
    """The document of one entity, or None when it is not an indexed kind or has no name."""
    path = entity_path(subject.value, id_space)
    names = sorted(facts.texts(subject, (S.name,)))
    if path is None or not names:
        return None
    kind = path.split("/", 1)[0]
    all_names = _unique(names + sorted(facts.texts(subject, (S.alternateName,))))
    topics = _unique(facts.texts(subject, TOPICS) + [n for o in facts.values(subject, S.knowsAbout)
                                                     if not isinstance(o, ox.Literal)
                                                     for n in facts.texts(o, (S.name,))])
    context, orgs, venues = list(facts.texts(subject, OWN_CONTEXT)), set(), []
    for predicate in LINKS:
        for node in facts.values(subject, predicate):
            if isinstance(node, ox.Literal):
                continue
            linked_names = facts.texts(node, NAMES)
            context += linked_names + facts.texts(node, (S.roleName,))
            if predicate in ORG_LINKS:
                if linked_names and _is_org(node.value, id_space):
                    orgs.add(node.value)
                for target in (t for p in ORG_LINKS for t in facts.values(node, p) if not isinstance(t, ox.Literal)):
                    context += facts.texts(target, NAMES)
                    if _is_org(target.value, id_space):
                        orgs.add(target.value)
            else:
                venues += facts.texts(node, (S.name,))
                for series in facts.values(node, S.superEvent):
                    if not isinstance(series, ox.Literal):
                        context += facts.texts(series, NAMES)
    if kind == "organization":
        orgs.add(subject.value)
    years = [o.value[:4] for o in facts.values(subject, YEAR) if isinstance(o, ox.Literal) and o.value[:4].isdigit()]
    year = int(min(years)) if years else None
    details = facts.texts(subject, (S.jobTitle,)) if kind == "person" else _unique(
        ([str(year)] if year else []) + venues[:1])
    return Document(subject.value, kind, path, names[0], "\n".join(all_names) if kind != "work" else "",
                    "\n".join(all_names) if kind == "work" else "", "\n".join(topics), "\n".join(_unique(context)),
                    " · ".join(details[:2]), year, tuple(sorted(orgs)))


def all_documents(store: ox.Store, id_space: str) -> Iterator[Document]:
    """The documents of every indexed entity of a store version."""
    facts = Facts(store, complete=True)
    for subject in list(facts.subjects()):
        found = document(facts, subject, id_space)
        if found is not None:
            yield found


def affected(store: ox.Store, subjects: Iterable[Any], id_space: str) -> set[str]:
    """The entity IRIs whose documents may change when these subjects' statements change: the subjects and the
    entities linking to them within two links (a person through a role to a renamed organisation)."""
    frontier = {s for s in subjects if isinstance(s, (ox.NamedNode, ox.BlankNode))}
    found = set(frontier)
    for _ in range(2):
        step: set[Any] = set()
        for node in frontier:
            for predicate in LINKS + TOPICS:
                for quad in store.quads_for_pattern(None, ox.NamedNode(predicate), node, _DEFAULT):
                    if quad.subject not in found:
                        step.add(quad.subject)
        found |= step
        frontier = step
    return {s.value for s in found if isinstance(s, ox.NamedNode) and entity_path(s.value, id_space) is not None}
