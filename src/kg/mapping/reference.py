"""Reference data (organisations, venues) to RDF; no I/O."""

from __future__ import annotations

from rdflib import Graph, Literal, URIRef

from ..iris import Minter
from ..model import Organization, Origin, Venue
from ..namespaces import RDF, SDO, bind_prefixes

ORG_TYPES = {
    "university": (SDO.Organization, SDO.CollegeOrUniversity),
    "research-lab": (SDO.Organization, SDO.ResearchOrganization),
    "lab": (SDO.Organization, SDO.ResearchOrganization),
    "company": (SDO.Organization, SDO.Corporation),
}
VENUE_TYPES = {
    "conference": (SDO.EventSeries,),
    "workshop": (SDO.EventSeries,),
    "journal": (SDO.Periodical,),
    "repository": (SDO.Collection,),
}


def organization_triples(graph: Graph, minter: Minter, org: Organization) -> URIRef:
    """Add one organisation to a graph and return its IRI."""
    node = minter.organization(org.id)
    for rdf_type in ORG_TYPES.get(org.type, (SDO.Organization,)):
        graph.add((node, RDF.type, rdf_type))
    graph.add((node, SDO.name, Literal(org.name)))
    for alias in org.aliases:
        graph.add((node, SDO.alternateName, Literal(alias)))
    for lang, name in org.names.items():
        graph.add((node, SDO.alternateName, Literal(name, lang=lang)))
    if org.parent:
        graph.add((node, SDO.parentOrganization, minter.organization(org.parent)))
    for iri in org.same_as:
        graph.add((node, SDO.sameAs, URIRef(iri)))
    if org.url:
        graph.add((node, SDO.url, URIRef(org.url)))
    return node


def venue_triples(graph: Graph, minter: Minter, venue: Venue) -> URIRef:
    """Add one venue series to a graph and return its IRI."""
    node = minter.venue(venue.id)
    for rdf_type in VENUE_TYPES[venue.type]:
        graph.add((node, RDF.type, rdf_type))
    graph.add((node, SDO.name, Literal(venue.name)))
    if venue.acronym:
        graph.add((node, SDO.alternateName, Literal(venue.acronym)))
    for alias in venue.aliases:
        graph.add((node, SDO.alternateName, Literal(alias)))
    for iri in venue.same_as:
        graph.add((node, SDO.sameAs, URIRef(iri)))
    return node


def reference_graph(minter: Minter, organizations: list[Organization], venues: list[Venue],
                    origins: dict[URIRef, Origin]) -> Graph:
    """The shared reference graph: every organisation and venue, recording where each came from."""
    graph = bind_prefixes(Graph())
    for org in organizations:
        origins[organization_triples(graph, minter, org)] = org.origin
    for venue in venues:
        origins[venue_triples(graph, minter, venue)] = venue.origin
    return graph
