"""Closed vocabularies used by the mapping, and prefix binding."""

from __future__ import annotations

from rdflib import Graph, Namespace
from rdflib.namespace import DCTERMS, FOAF, OWL, PROV, RDF, RDFS, SH, VOID, XSD, DefinedNamespace
from rdflib.term import URIRef

from .prefixes import ONTOLOGY_IRI, PREFIXES


class SDO(DefinedNamespace):
    """The schema.org terms the project uses, as http://schema.org/ (what schema.org's context expands to)."""

    _fail = True
    _NS = Namespace("http://schema.org/")

    Person: URIRef
    Organization: URIRef
    CollegeOrUniversity: URIRef
    ResearchOrganization: URIRef
    Corporation: URIRef
    Project: URIRef
    CreativeWork: URIRef
    Article: URIRef
    ScholarlyArticle: URIRef
    Collection: URIRef
    Periodical: URIRef
    Event: URIRef
    EventSeries: URIRef
    Role: URIRef
    EmployeeRole: URIRef
    OrganizationRole: URIRef
    EducationalOccupationalCredential: URIRef
    PropertyValue: URIRef
    QuantitativeValue: URIRef
    WebPage: URIRef
    Dataset: URIRef
    SoftwareSourceCode: URIRef
    name: URIRef
    givenName: URIRef
    familyName: URIRef
    alternateName: URIRef
    honorificPrefix: URIRef
    email: URIRef
    url: URIRef
    sameAs: URIRef
    jobTitle: URIRef
    description: URIRef
    disambiguatingDescription: URIRef
    knowsAbout: URIRef
    worksFor: URIRef
    affiliation: URIRef
    alumniOf: URIRef
    memberOf: URIRef
    member: URIRef
    roleName: URIRef
    startDate: URIRef
    endDate: URIRef
    hasCredential: URIRef
    credentialCategory: URIRef
    educationalLevel: URIRef
    recognizedBy: URIRef
    about: URIRef
    parentOrganization: URIRef
    subOrganization: URIRef
    author: URIRef
    datePublished: URIRef
    award: URIRef
    isPartOf: URIRef
    hasPart: URIRef
    superEvent: URIRef
    subEvent: URIRef
    workFeatured: URIRef
    creativeWorkStatus: URIRef
    additionalProperty: URIRef
    propertyID: URIRef
    minValue: URIRef
    value: URIRef
    identifier: URIRef
    subjectOf: URIRef
    mainEntityOfPage: URIRef
    colleague: URIRef
    knows: URIRef
    UpdateAction: URIRef
    AddAction: URIRef
    DeleteAction: URIRef
    object: URIRef


class BIBO(DefinedNamespace):
    """The BIBO terms the project uses."""

    _fail = True
    _NS = Namespace("http://purl.org/ontology/bibo/")

    Document: URIRef
    Article: URIRef
    AcademicArticle: URIRef
    Manuscript: URIRef
    Conference: URIRef
    Collection: URIRef
    Series: URIRef
    authorList: URIRef
    presentedAt: URIRef
    doi: URIRef
    presents: URIRef
    shortTitle: URIRef
    status: URIRef


class BIBO_STATUS(DefinedNamespace):
    """BIBO's document status individuals."""

    _fail = True
    _NS = Namespace("http://purl.org/ontology/bibo/status/")

    peerReviewed: URIRef
    nonPeerReviewed: URIRef
    published: URIRef


class KG(DefinedNamespace):
    """The project ontology: only terms no standard vocabulary offers."""

    _fail = True
    _NS = Namespace(ONTOLOGY_IRI + "#")

    Authorship: URIRef
    UnattributedWork: URIRef
    Metric: URIRef
    advisor: URIRef
    advisee: URIRef
    workedWith: URIRef
    authorship: URIRef
    authorshipOf: URIRef
    agent: URIRef
    rank: URIRef
    nameAsWritten: URIRef
    equalContribution: URIRef
    precededByElision: URIRef
    authorListComplete: URIRef
    possibleSameAs: URIRef
    venueAsWritten: URIRef
    note: URIRef
    valueAsWritten: URIRef
    durationAsWritten: URIRef
    advisorLabel: URIRef
    programPartner: URIRef
    sha256: URIRef
    otherValue: URIRef
    recordFormat: URIRef
    triplesAdded: URIRef
    triplesRemoved: URIRef
    entitiesUnlisted: URIRef
    matches: URIRef




def bind_prefixes(graph: Graph) -> Graph:
    """Bind the project's prefixes on a graph (replacing rdflib's defaults) and return it."""
    for prefix, namespace in PREFIXES.items():
        graph.bind(prefix, namespace, override=True, replace=True)
    return graph


__all__ = ["BIBO", "BIBO_STATUS", "DCTERMS", "FOAF", "KG", "OWL", "PREFIXES", "PROV", "RDF", "RDFS",
           "SDO", "SH", "VOID", "XSD", "bind_prefixes"]


class TermIRIs:
    """A closed vocabulary's terms as plain IRI strings (for pyoxigraph lookups, dict keys and set membership,
    where rdflib's URIRef does not equal its string); an unknown term raises AttributeError as the vocabulary does.

    >>> SCHEMA_IRIS.roleName
    'http://schema.org/roleName'
    """

    def __init__(self, namespace: type[DefinedNamespace]) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> str:
        """The term's IRI, looked up in the vocabulary once and kept as an attribute (a lookup through rdflib's
        DefinedNamespace took about 4 µs; pages read terms thousands of times)."""
        iri = str(getattr(self._namespace, name))
        setattr(self, name, iri)
        return iri


SCHEMA_IRIS, KG_IRIS, BIBO_IRIS, FOAF_IRIS = TermIRIs(SDO), TermIRIs(KG), TermIRIs(BIBO), TermIRIs(FOAF)
