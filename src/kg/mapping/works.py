"""Publications to RDF: ordered authors three ways, venues and editions; no I/O."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS

from ..iris import Minter
from ..model import Link, Origin, Publication
from ..namespaces import BIBO, BIBO_STATUS, KG, RDF, RDFS, SDO, XSD
from ..resolution import Resolution


def year_literal(year: int) -> Literal:
    """An xsd:gYear literal."""
    return Literal(f"{year:04d}", datatype=XSD.gYear)


def link_triples(graph: Graph, owner: URIRef, links: Iterable[Link]) -> None:
    """Each link as one rdfs:seeAlso node, a schema:WebPage holding its label (schema:name) and address (schema:url)."""
    for link in links:
        key = hashlib.sha256(f"{owner}\n{link.label}\n{link.url or ''}".encode()).hexdigest()[:16]
        node = BNode(f"link-{key}")
        graph.add((owner, RDFS.seeAlso, node))
        graph.add((node, RDF.type, SDO.WebPage))
        graph.add((node, SDO.name, Literal(link.label)))
        if link.url:
            graph.add((node, SDO.url, URIRef(link.url)))


def person_node(graph: Graph, minter: Minter, resolution: Resolution, name: str) -> URIRef:
    """The person node for a name, typed and named, with candidate links for initial-only forms."""
    slug = resolution.person(name)
    node = minter.person(slug)
    graph.add((node, RDF.type, SDO.Person))
    graph.add((node, SDO.name, Literal(resolution.person_names[slug])))
    for candidate in resolution.possible_same_as.get(slug, ()):
        other = minter.person(candidate)
        graph.add((node, KG.possibleSameAs, other))
        graph.add((other, RDF.type, SDO.Person))
        graph.add((other, SDO.name, Literal(resolution.person_names[candidate])))
    return node


def _venue_link(graph: Graph, minter: Minter, resolution: Resolution, work: URIRef, pub: Publication,
                origins: dict[URIRef, Origin]) -> None:
    if pub.venue is None:
        return
    venue = resolution.venues[resolution.venue(pub.venue)]
    series = minter.venue(venue.id)
    if venue.type in ("conference", "workshop") and pub.year is not None:
        edition = minter.edition(venue.id, pub.year)
        graph.add((edition, RDF.type, BIBO.Conference))
        graph.add((edition, RDF.type, SDO.Event))
        graph.add((edition, SDO.name, Literal(f"{venue.acronym or venue.name} {pub.year}")))
        graph.add((edition, SDO.superEvent, series))
        graph.add((edition, SDO.startDate, year_literal(pub.year)))
        graph.add((work, BIBO.presentedAt, edition))
        origins.setdefault(edition, pub.origin.at("venue"))
    else:  # a journal or repository, or a conference series when the year (and so the edition) is unknown
        graph.add((work, SDO.isPartOf, series))


def _authors(graph: Graph, minter: Minter, resolution: Resolution, work: URIRef, slug: str,
             pub: Publication, origins: dict[URIRef, Origin]) -> None:
    named = [(i, a) for i, a in enumerate(pub.authors) if not a.is_elision]
    cells = [BNode(f"authors-{slug}-{i}") for i in range(len(named))]
    graph.add((work, BIBO.authorList, cells[0]))
    for rank, ((index, author), cell) in enumerate(zip(named, cells, strict=False), start=1):
        person = person_node(graph, minter, resolution, author.name)
        graph.add((work, SDO.author, person))
        graph.add((cell, RDF.first, person))
        graph.add((cell, RDF.rest, cells[rank] if rank < len(cells) else RDF.nil))
        authorship = minter.authorship(slug, rank)
        origins[authorship] = pub.origin.at("authors", index)
        origins.setdefault(person, pub.origin.at("authors", index))
        graph.add((authorship, RDF.type, KG.Authorship))
        graph.add((work, KG.authorship, authorship))
        graph.add((authorship, KG.agent, person))
        graph.add((authorship, KG.rank, Literal(rank)))
        graph.add((authorship, KG.nameAsWritten, Literal(author.name)))
        graph.add((authorship, KG.equalContribution, Literal(author.equal_contribution)))
        if index > 0 and pub.authors[index - 1].is_elision:
            graph.add((authorship, KG.precededByElision, Literal(True)))
    graph.add((work, KG.authorListComplete, Literal(not any(a.is_elision for a in pub.authors))))


def publication_triples(graph: Graph, minter: Minter, resolution: Resolution, pub: Publication,
                        origins: dict[URIRef, Origin]) -> URIRef:
    """Add one publication with its authors and venue; return the work IRI."""
    slug = resolution.work(pub.title)
    work = minter.work(slug)
    origins.setdefault(work, pub.origin)
    graph.add((work, RDF.type, SDO.ScholarlyArticle))
    graph.add((work, RDF.type, BIBO.AcademicArticle))
    graph.add((work, SDO.name, Literal(pub.title)))
    graph.add((work, DCTERMS.title, Literal(pub.title)))
    if pub.year is not None:
        graph.add((work, SDO.datePublished, year_literal(pub.year)))
    is_preprint = pub.status == "preprint"
    graph.add((work, SDO.creativeWorkStatus, Literal("Preprint" if is_preprint else "Published")))
    graph.add((work, BIBO.status, BIBO_STATUS.nonPeerReviewed if is_preprint else BIBO_STATUS.peerReviewed))
    if pub.venue_as_written:
        graph.add((work, KG.venueAsWritten, Literal(pub.venue_as_written)))
    for award in pub.awards:
        graph.add((work, SDO.award, Literal(award)))
    for note in pub.notes:
        graph.add((work, KG.note, Literal(note)))
    link_triples(graph, work, pub.links)
    doi_iri = minter.external("doi", pub.doi) if pub.doi else None
    if pub.doi:
        graph.add((work, BIBO.doi, Literal(pub.doi)))
    for iri in ([doi_iri] if doi_iri else []) + [URIRef(i) for i in pub.same_as]:
        graph.add((work, SDO.sameAs, iri))
    _venue_link(graph, minter, resolution, work, pub, origins)
    _authors(graph, minter, resolution, work, slug, pub, origins)
    return work
