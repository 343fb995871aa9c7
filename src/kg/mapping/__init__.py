"""Profile model to RDF: one graph per profile, plus the reference graph; no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import FOAF, PROV

from ..iris import Minter, slugify
from ..model import Corpus, Education, Experience, Origin, Profile
from ..namespaces import KG, RDF, SDO, bind_prefixes
from ..records import record_slug
from ..resolution import Linking, Resolution, resolve
from ..resolution import link as link_records
from .records import RecordMapper, record_provenance
from .reference import reference_graph
from .works import link_triples, person_node, publication_triples, year_literal

METRIC_LABELS = {"citations": "Citations", "publications": "Publications", "h-index": "h-index"}


@dataclass
class MappedGraphs:
    """Asserted graphs by graph IRI, and the source of every node minted."""

    graphs: dict[URIRef, Graph] = field(default_factory=dict)
    origins: dict[URIRef, Origin] = field(default_factory=dict)
    sources: dict[URIRef, str] = field(default_factory=dict)


class ProfileMapper:
    """Maps one profile into its own graph."""

    def __init__(self, minter: Minter, resolution: Resolution, profile: Profile,
                 origins: dict[URIRef, Origin]) -> None:
        self.minter, self.resolution, self.profile, self.origins = minter, resolution, profile, origins
        self.graph = bind_prefixes(Graph())
        self.slug = resolution.person(profile.name)
        self.person = minter.person(self.slug)

    def add(self, s: URIRef, p: URIRef, o: URIRef | Literal) -> None:
        """Add one triple."""
        self.graph.add((s, p, o))

    def org(self, text: str, origin: Origin) -> URIRef:
        """IRI of the organisation a text names; one not in the reference data is typed and named here."""
        slug = self.resolution.organization(text)
        node = self.minter.organization(slug)
        name = self.resolution.unlisted_organizations.get(slug)
        if name is not None:
            self.add(node, RDF.type, SDO.Organization)
            self.add(node, SDO.name, Literal(name))
            self.origins.setdefault(node, origin)
        return node

    def other_person(self, name: str, origin: Origin) -> URIRef:
        """Typed, named node for another person mentioned on the profile."""
        node = person_node(self.graph, self.minter, self.resolution, name)
        self.origins.setdefault(node, origin)
        return node

    def run(self) -> Graph:
        """Map the whole profile."""
        self.identity()
        for i, project in enumerate(self.profile.projects):
            self.project(project.name, project.status, self.profile.origin.at("projects", i))
        for i, exp in enumerate(self.profile.experience):
            self.experience(i, exp)
        for i, edu in enumerate(self.profile.education):
            self.education(i, edu)
        for metric in self.profile.metrics:
            node = self.minter.metric(self.slug, metric.kind)
            self.origins[node] = metric.origin
            for rdf_type in (SDO.PropertyValue, SDO.QuantitativeValue, KG.Metric):
                self.add(node, RDF.type, rdf_type)
            self.add(node, SDO.propertyID, Literal(metric.kind))
            self.add(node, SDO.name, Literal(METRIC_LABELS[metric.kind]))
            if metric.min_value is not None:
                self.add(node, SDO.minValue, Literal(metric.min_value))
            if metric.value is not None:
                self.add(node, SDO.value, Literal(metric.value))
            if metric.as_written:
                self.add(node, KG.valueAsWritten, Literal(metric.as_written))
            self.add(self.person, SDO.additionalProperty, node)
        for pub in self.profile.publications:
            publication_triples(self.graph, self.minter, self.resolution, pub, self.origins)
        return self.graph

    def identity(self) -> None:
        """Names, contact, title, interests and links of the person."""
        p, person = self.profile, self.person
        self.origins[person] = p.origin
        self.add(person, RDF.type, SDO.Person)
        self.add(person, SDO.name, Literal(p.name))
        for prop, value in ((SDO.givenName, p.given_name), (SDO.familyName, p.family_name),
                            (SDO.jobTitle, p.title), (SDO.description, p.summary)):
            if value:
                self.add(person, prop, Literal(value))
        for other in p.other_names:
            self.add(person, SDO.alternateName, Literal(other.name, lang=other.lang))
        if p.email:
            self.add(person, SDO.email, Literal(p.email))
            self.add(person, FOAF.mbox, URIRef(f"mailto:{p.email}"))
        if p.homepage:
            self.add(person, SDO.url, URIRef(p.homepage))
            self.add(person, FOAF.homepage, URIRef(p.homepage))
        if p.affiliation:
            self.add(person, SDO.affiliation, self.org(p.affiliation, p.origin.at("affiliation")))
        for iri in p.same_as:
            self.add(person, SDO.sameAs, URIRef(iri))
        for area in p.research_areas:
            self.add(person, SDO.knowsAbout, Literal(area))
        link_triples(self.graph, person, p.links)

    def project(self, name: str, status: str, origin: Origin) -> None:
        """A project node and the person's involvement."""
        node = self.minter.project(slugify(name))
        self.origins.setdefault(node, origin)
        self.add(node, RDF.type, SDO.Project)
        self.add(node, SDO.name, Literal(name))
        self.add(self.person, SDO.memberOf, node)
        if status == "current":
            self.add(self.person, FOAF.currentProject, node)
        elif status == "past":
            self.add(self.person, FOAF.pastProject, node)

    def dated(self, node: URIRef, start: int | None, end: int | None) -> None:
        """Start and end years of a role."""
        if start is not None:
            self.add(node, SDO.startDate, year_literal(start))
        if end is not None:
            self.add(node, SDO.endDate, year_literal(end))

    def experience(self, index: int, exp: Experience) -> None:
        """A dated employment role (schema.org Role pattern)."""
        role = self.minter.role(self.slug, "position", index + 1)
        self.origins[role] = exp.origin
        self.add(role, RDF.type, SDO.EmployeeRole)
        self.add(role, SDO.roleName, Literal(exp.role))
        self.dated(role, exp.start, exp.end)
        if exp.description:
            self.add(role, SDO.description, Literal(exp.description))
        if exp.duration_as_written:
            self.add(role, KG.durationAsWritten, Literal(exp.duration_as_written))
        self.add(self.person, SDO.worksFor, role)
        for i, org_text in enumerate(exp.organizations):
            org = self.org(org_text, exp.origin.at("organizations", i))
            self.add(role, SDO.worksFor, org)
            if exp.current:
                self.add(self.person, SDO.worksFor, org)

    def education(self, index: int, edu: Education) -> None:
        """A study role, the degree when completed, advisors, lab membership and colleagues."""
        role = self.minter.role(self.slug, "education", index + 1)
        self.origins[role] = edu.origin
        self.add(role, RDF.type, SDO.OrganizationRole)
        self.add(role, SDO.roleName, Literal(f"{edu.degree} student"))
        self.dated(role, edu.start, edu.end)
        places = [self.org(edu.institution, edu.origin.at("institution"))] + (
            [self.org(edu.department, edu.origin.at("department"))] if edu.department else [])
        for place in places:
            self.add(role, SDO.alumniOf, place)
            self.add(self.person, SDO.alumniOf, place)
        self.add(self.person, SDO.alumniOf, role)
        if edu.focus:
            self.add(role, SDO.description, Literal(edu.focus))
            self.add(self.person, SDO.knowsAbout, Literal(edu.focus))
        if edu.partner:
            self.add(role, KG.programPartner, self.org(edu.partner, edu.origin.at("partner")))
        if edu.advisor_label:
            self.add(role, KG.advisorLabel, Literal(edu.advisor_label))
        if edu.completed:
            credential = self.minter.credential(self.slug, index + 1)
            self.origins[credential] = edu.origin
            self.add(credential, RDF.type, SDO.EducationalOccupationalCredential)
            self.add(credential, SDO.credentialCategory, Literal("degree"))
            self.add(credential, SDO.name, Literal(edu.degree_name or edu.degree))
            self.add(credential, SDO.educationalLevel, Literal(edu.degree))
            if edu.field:
                self.add(credential, SDO.about, Literal(edu.field))
            self.add(credential, SDO.recognizedBy, self.org(edu.institution, edu.origin.at("institution")))
            self.add(self.person, SDO.hasCredential, credential)
        for i, adv in enumerate(edu.advisors):
            advisor = self.other_person(adv.name, edu.origin.at("advisors", i))
            self.add(self.person, KG.advisor, advisor)
            if adv.honorific:
                self.add(advisor, SDO.honorificPrefix, Literal(adv.honorific))
            if adv.affiliation:
                affiliation = self.org(adv.affiliation, edu.origin.at("advisors", i, "affiliation"))
                self.add(advisor, SDO.affiliation, affiliation)
        if edu.lab:
            membership = self.minter.role(self.slug, "membership", index + 1)
            self.origins[membership] = edu.origin
            lab = self.org(edu.lab, edu.origin.at("lab"))
            self.add(membership, RDF.type, SDO.OrganizationRole)
            self.add(membership, SDO.roleName, Literal("member"))
            self.add(membership, SDO.memberOf, lab)
            self.add(self.person, SDO.memberOf, membership)
            self.add(self.person, SDO.memberOf, lab)
        for i, name in enumerate(edu.worked_with):
            self.add(self.person, KG.workedWith, self.other_person(name, edu.origin.at("worked_with", i)))


def provenance(graph: Graph, minter: Minter, graph_iri: URIRef, source_path: str, sha256: str) -> None:
    """Describe a named graph: the source file it was derived from and that file's hash."""
    source = minter.source(source_path)
    graph.add((graph_iri, RDF.type, PROV.Entity))
    graph.add((graph_iri, PROV.wasDerivedFrom, source))
    graph.add((source, RDF.type, PROV.Entity))
    graph.add((source, SDO.name, Literal(source_path)))
    if sha256:
        graph.add((source, KG.sha256, Literal(sha256)))


def with_reference(corpus: Corpus, minter: Minter, reference_sha256: str) -> MappedGraphs:
    """Mapped graphs holding only the reference graph (organisations and venues), with its provenance."""
    result = MappedGraphs()
    reference = reference_graph(minter, list(corpus.organizations), list(corpus.venues), result.origins)
    ref_iri = minter.graph("reference")
    provenance(reference, minter, ref_iri, "organizations.yaml+venues.yaml", reference_sha256)
    result.graphs[ref_iri] = reference
    result.sources[ref_iri] = "data/organizations.yaml"
    return result


def map_records(corpus: Corpus, minter: Minter, resolution: Resolution, linking: Linking,
                result: MappedGraphs) -> None:
    """Add one graph per downloaded record to mapped graphs."""
    for record in corpus.records:
        graph_iri = minter.record_graph(record_slug(record))
        graph = bind_prefixes(RecordMapper(minter, resolution, linking, record, result.origins).run())
        record_provenance(graph, minter, graph_iri, record, record.name)
        result.graphs[graph_iri] = graph
        result.sources[graph_iri] = record.origin.file


def default_linking(corpus: Corpus, resolution: Resolution) -> Linking:
    """The records' linking under the default source precedence."""
    from ..config import Config

    return link_records(corpus, resolution, Config().precedence)


def map_corpus(corpus: Corpus, minter: Minter, resolution: Resolution | None = None,
               reference_sha256: str = "", linking: Linking | None = None) -> MappedGraphs:
    """Map a whole corpus: the reference graph, one graph per profile and one per downloaded record."""
    resolution = resolution or resolve(corpus)
    result = with_reference(corpus, minter, reference_sha256)
    for profile in corpus.profiles:
        graph_iri = minter.graph(f"profile/{profile.id}")
        graph = ProfileMapper(minter, resolution, profile, result.origins).run()
        provenance(graph, minter, graph_iri, f"profiles/{Path(profile.origin.file).name}", profile.sha256)
        result.graphs[graph_iri] = graph
        result.sources[graph_iri] = profile.origin.file
    map_records(corpus, minter, resolution, linking or default_linking(corpus, resolution), result)
    return result
