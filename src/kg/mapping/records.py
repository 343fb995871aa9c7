"""Downloaded records to RDF: one graph per record file, on the nodes kg.resolution.linking chose; no I/O.

A record's graph states what the record says. Where the record is the preferred source of a merged entity
(kg.resolution.linking), it gives the single-valued properties (title, year, author list, a person's name); where
another source is preferred and this record disagrees, its value is kept in its own graph on the entity as a
`kg:otherValue` (predicate and value) or, for names and titles, as `schema:alternateName`, so the default graph
shows one value and nothing a source said is lost.
"""

from __future__ import annotations

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDFS

from ..iris import SYSTEMS, Minter, slugify
from ..model import ExternalId, Origin, Record, RecordAuthor, RecordPerson, RecordRole, RecordWork
from ..namespaces import BIBO, KG, RDF, SDO
from ..resolution import Linking, Resolution, record_works
from .works import year_literal

ARTICLE_TYPES = (SDO.ScholarlyArticle, BIBO.AcademicArticle)
UNATTRIBUTED_TYPES = (SDO.CreativeWork, BIBO.Document, KG.UnattributedWork)  # no source names an author
WORK_TYPES = {  # a record's work kind (lower-cased) to its classes beyond a scholarly work's
    "dataset": (SDO.Dataset,), "software": (SDO.SoftwareSourceCode,),
}
ROLE_NAMES = {"employment": "employee", "education": "student", "affiliation": "affiliated researcher"}


class RecordMapper:
    """Maps one record file into its own graph."""

    def __init__(self, minter: Minter, resolution: Resolution, linking: Linking, record: Record,
                 origins: dict[URIRef, Origin]) -> None:
        self.minter, self.resolution, self.linking, self.record = minter, resolution, linking, record
        self.origins = origins
        self.graph = Graph()
        self.source = record.name
        self.other = 0

    def add(self, s: URIRef | BNode, p: URIRef, o: URIRef | BNode | Literal) -> None:
        """Add one triple."""
        self.graph.add((s, p, o))

    def run(self) -> Graph:
        """Map the whole record."""
        for index, person in enumerate(self.record.people):
            self.person(index, person)
        for index, work, owner in record_works(self.record):
            self.work(index, work, owner)
        return self.graph

    def same_as(self, node: URIRef, ids: tuple[ExternalId, ...] | list[ExternalId]) -> None:
        """Outward links of a node's identifiers (bibo:doi too, for a DOI)."""
        for ident in ids:
            target = self.minter.external(ident.scheme, ident.value)
            if target is not None:
                self.add(node, SDO.sameAs, target)
            if ident.scheme == "doi":
                self.add(node, BIBO.doi, Literal(ident.value))

    def other_value(self, node: URIRef, predicate: URIRef, value: URIRef | Literal) -> None:
        """This record's value of a single-valued property another source is preferred for."""
        self.other += 1
        cell = BNode(f"other-{slugify(self.source, 40)}-{self.other}")
        self.add(node, KG.otherValue, cell)
        self.add(cell, RDF.predicate, predicate)
        self.add(cell, RDF.value, value)

    def shown_name(self, slug: str, written: str = "") -> str:
        """The name the default graph shows for a person (the preferred source's, or a label such as 'ORCID iD …')."""
        return self.linking.person_names.get(slug) or self.resolution.person_names.get(slug, written)

    def person_node(self, slug: str, written: str, origin: Origin) -> URIRef:
        """A person node: typed; named when this record is its preferred source or writes the shown name."""
        node = self.minter.person(slug)
        self.origins.setdefault(node, origin)
        self.add(node, RDF.type, SDO.Person)
        shown = self.shown_name(slug, written)
        preferred = self.linking.person_preferred.get(slug) == self.source
        if shown and (preferred or written == shown):  # a nameless person (an ORCID iD alone) fails the shapes
            self.add(node, SDO.name, Literal(shown))
        if written and written != shown:
            self.add(node, SDO.alternateName, Literal(written))
        for candidate in self.linking.possible_same_as.get(slug, ()):
            self.add(node, KG.possibleSameAs, self.minter.person(candidate))
        return node

    def person(self, index: int, person: RecordPerson) -> None:
        """The record's own person: names, identifiers, roles and advisors."""
        slug = self.linking.person(self.record, index)
        node = self.person_node(slug, person.name, person.origin)
        if self.linking.person_preferred.get(slug) == self.source:
            for prop, value in ((SDO.givenName, person.given_name), (SDO.familyName, person.family_name)):
                if value:
                    self.add(node, prop, Literal(value))
        for name in person.other_names:
            self.add(node, SDO.alternateName, Literal(name))
        self.same_as(node, person.ids)
        for url in person.urls:
            self.add(node, RDFS.seeAlso, URIRef(url))
        for i, role in enumerate(person.roles):
            self.role(slug, node, i, role)
        for i, advisor in enumerate(person.advisors):
            adv = self.person_node(self.linking.advisor(self.record, index, i), advisor.name, advisor.origin)
            self.same_as(adv, advisor.ids)
            self.add(node, KG.advisor, adv)

    def org(self, org_record: RecordRole) -> URIRef:
        """The organisation of a role (a node of the reference data, or one named here)."""
        org = org_record.organization
        slug = self.linking.organization(org)
        node = self.minter.organization(slug)
        if slug in self.linking.org_names:
            self.add(node, RDF.type, SDO.Organization)
            self.add(node, SDO.name, Literal(self.linking.org_names[slug]))
            self.origins.setdefault(node, org_record.origin)
        self.same_as(node, [i for i in org.ids if i.scheme in ("ror", "wikidata", "grid", "isni")])
        return node

    def role(self, slug: str, person: URIRef, index: int, role: RecordRole) -> None:
        """An employment (schema:EmployeeRole), an education (schema:OrganizationRole) or a plain affiliation."""
        org = self.org(role)
        if role.kind == "affiliation" and role.start is None and role.end is None:
            self.add(person, SDO.affiliation, org)
            return
        node = self.minter.role(slug, f"{self.source}-{role.kind}", index + 1)
        self.origins[node] = role.origin
        name = role.role or ROLE_NAMES.get(role.kind, role.kind)
        if role.kind == "employment":
            self.add(node, RDF.type, SDO.EmployeeRole)
            self.add(node, SDO.roleName, Literal(name))
            self.add(node, SDO.worksFor, org)
            self.add(person, SDO.worksFor, node)
            if role.end is None and role.start is not None:
                self.add(person, SDO.worksFor, org)
        else:
            self.add(node, RDF.type, SDO.OrganizationRole)
            self.add(node, SDO.roleName, Literal(f"{name} student" if role.kind == "education" and role.role
                                                 else name))
            link = SDO.alumniOf if role.kind == "education" else SDO.memberOf
            self.add(node, link, org)
            self.add(person, link, node)
            self.add(person, link, org)
        if role.department:
            self.add(node, SDO.description, Literal(role.department))
        if role.start is not None:
            self.add(node, SDO.startDate, year_literal(role.start))
        if role.end is not None:
            self.add(node, SDO.endDate, year_literal(role.end))

    def work(self, index: int, work: RecordWork, owner: int | None) -> None:
        """A work: identifiers always; title, year, venue and author list when this record is preferred."""
        slug = self.linking.work(self.record, index)
        node = self.minter.work(slug)
        self.origins.setdefault(node, work.origin)
        self.same_as(node, work.ids)
        authors = [(self.linking.author(self.record, index, i), a) for i, a in enumerate(work.authors)]
        if owner is not None and not work.authors_complete:
            owner_slug = self.linking.person(self.record, owner)
            if owner_slug not in {s for s, _ in authors}:
                written = self.record.people[owner].name or self.shown_name(owner_slug)  # 'ORCID iD …' if nameless
                authors.append((owner_slug, RecordAuthor(written, (), work.origin)))
        unattributed = not authors and not self.linking.work_authors.get(slug)  # a reference entry, an editorial
        for rdf_type in (UNATTRIBUTED_TYPES if unattributed else ARTICLE_TYPES) + WORK_TYPES.get(
                (work.kind or "").lower(), ()):
            self.add(node, RDF.type, rdf_type)
        people = [self.person_node(s, a.name, a.origin) for s, a in authors]
        for (_, author), person in zip(authors, people, strict=True):
            self.same_as(person, author.ids)
            if author.person_name and author.person_name != author.name:
                self.add(person, SDO.alternateName, Literal(author.person_name))
        if self.linking.work_preferred.get(slug) == self.source:
            self.preferred_work(slug, node, work, authors, people)
            return
        shown = set(self.linking.work_authors.get(slug, ()))
        for (author_slug, _), person in zip(authors, people, strict=True):
            if author_slug in shown:
                self.add(node, SDO.author, person)
        if work.title:
            self.add(node, SDO.alternateName, Literal(work.title))
        if work.year is not None:
            self.other_value(node, SDO.datePublished, year_literal(work.year))
        if work.venue:
            self.add(node, KG.venueAsWritten, Literal(work.venue))

    def preferred_work(self, slug: str, node: URIRef, work: RecordWork,
                       authors: list[tuple[str, RecordAuthor]], people: list[URIRef]) -> None:
        """Title, year, venue and the ordered author list of a work this record is the preferred source of."""
        if work.title:  # an untitled work fails the shapes and is quarantined
            self.add(node, SDO.name, Literal(work.title))
            self.add(node, DCTERMS.title, Literal(work.title))
        if work.year is not None:
            self.add(node, SDO.datePublished, year_literal(work.year))
        self.add(node, SDO.creativeWorkStatus, Literal("Published"))
        if work.venue:
            self.add(node, KG.venueAsWritten, Literal(work.venue))
            self.add(node, SDO.isPartOf, self.venue(work))
        cells = [BNode(f"authors-{slug}-{i}") for i in range(len(people))]
        if cells:
            self.add(node, BIBO.authorList, cells[0])
        complete = work.authors_complete
        for rank, ((_, author), person, cell) in enumerate(zip(authors, people, cells, strict=True), start=1):
            self.add(node, SDO.author, person)
            self.add(cell, RDF.first, person)
            self.add(cell, RDF.rest, cells[rank] if rank < len(cells) else RDF.nil)
            authorship = self.minter.authorship(slug, rank)
            self.origins[authorship] = author.origin
            self.add(authorship, RDF.type, KG.Authorship)
            self.add(node, KG.authorship, authorship)
            self.add(authorship, KG.agent, person)
            self.add(authorship, KG.rank, Literal(rank))
            self.add(authorship, KG.nameAsWritten, Literal(author.name))
            self.add(authorship, KG.equalContribution, Literal(False))
            if not complete and rank == len(people) and rank > len(work.authors):
                self.add(authorship, KG.precededByElision, Literal(True))
        if people:
            self.add(node, KG.authorListComplete, Literal(complete and bool(work.authors)))

    def venue(self, work: RecordWork) -> URIRef:
        """The venue series a work appeared in: a reference-data venue, or a periodical named here."""
        name = work.venue or ""
        known = self.resolution.venue_lookup.find(name)
        if known is not None:
            return self.minter.venue(known)
        slug = slugify(name, max_length=60)
        if slug in self.resolution.venues:
            slug = f"{slug}-record"
        node = self.minter.venue(slug)
        kind = SDO.Collection if (work.kind or "").lower() in ("dataset", "software") else SDO.Periodical
        self.add(node, RDF.type, kind)
        self.add(node, SDO.name, Literal(name))
        return node


def record_provenance(graph: Graph, minter: Minter, graph_iri: URIRef, record: Record, relative: str) -> None:
    """Describe a record's graph: derived from the file (its SHA-256) and attributed to the record's system."""
    source = minter.source(relative)
    graph.add((graph_iri, RDF.type, PROV.Entity))
    graph.add((graph_iri, PROV.wasDerivedFrom, source))
    graph.add((source, RDF.type, PROV.Entity))
    graph.add((source, SDO.name, Literal(relative)))
    graph.add((source, KG.sha256, Literal(record.sha256)))
    graph.add((source, KG.recordFormat, Literal(record.format)))
    agent = minter.system(record.system)
    graph.add((graph_iri, PROV.wasAttributedTo, agent))
    graph.add((agent, RDF.type, PROV.Agent))
    graph.add((agent, RDFS.label, Literal(SYSTEMS.get(record.system, (record.system, ""))[0])))
