"""The SPARQL 1.1 Service Description of the endpoint, and a minimal HTML query form.

Entailment: queries are answered by simple entailment (``sd:defaultEntailmentRegime
<http://www.w3.org/ns/entailment/Simple>``) over a store into which the build has already materialised
OWL 2 RL consequences (``sd:defaultSupportedEntailmentProfile <http://www.w3.org/ns/owl-profile/RL>``).
Claiming the RDFS or OWL-RDF-Based regime would promise answers the store does not give: the build keeps
only meaningful A-box inferences (no axiomatic triples, no schema closure), so the regime honestly
supported at query time is Simple; an ``rdfs:comment`` on the service says so.
"""

from __future__ import annotations

from collections.abc import Mapping

from rdflib import RDF, RDFS, BNode, Graph, Literal, Namespace, URIRef

from ...formats import GRAPH_FORMATS, RESULTS_FORMATS
from ...namespaces import VOID, XSD

SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
ENTAILMENT_SIMPLE = URIRef("http://www.w3.org/ns/entailment/Simple")
OWL2_RL_PROFILE = URIRef("http://www.w3.org/ns/owl-profile/RL")
SD_PREFIXES = {"sd": str(SD), "void": str(VOID), "rdfs": str(RDFS), "formats": "http://www.w3.org/ns/formats/",
               "xsd": str(XSD)}
ENTAILMENT_NOTE = ("Queries are answered by simple entailment over stored triples, which include the OWL 2 RL "
                   "inferences materialised at build time (A-box only). The default graph is the merge of all "
                   "named graphs.")
EXAMPLE_QUERY = """PREFIX schema: <http://schema.org/>
SELECT ?person ?name WHERE {
  ?person a schema:Person ;
          schema:name ?name .
}
ORDER BY ?name
LIMIT 25"""


def service_description(endpoint: str, graph_triples: Mapping[str, int], max_results: int | None = None) -> Graph:
    """The SD graph: endpoint, language, result formats, features, entailment and the default dataset.

    >>> g = service_description("http://localhost/sparql", {"http://example.org/g": 3})
    >>> (URIRef("http://localhost/sparql#service"), RDF.type, SD.Service) in g
    True
    """
    graph = Graph()
    graph.bind("sd", SD)
    graph.bind("void", VOID)
    service = URIRef(endpoint + "#service")
    graph.add((service, RDF.type, SD.Service))
    graph.add((service, SD.endpoint, URIRef(endpoint)))
    graph.add((service, SD.supportedLanguage, SD.SPARQL11Query))
    graph.add((service, SD.feature, SD.UnionDefaultGraph))
    graph.add((service, SD.defaultEntailmentRegime, ENTAILMENT_SIMPLE))
    graph.add((service, SD.defaultSupportedEntailmentProfile, OWL2_RL_PROFILE))
    graph.add((service, RDFS.comment, Literal(ENTAILMENT_NOTE, lang="en")))
    if max_results is not None:
        note = f"Results with more than {max_results} rows or triples are refused; SERVICE is refused."
        graph.add((service, RDFS.comment, Literal(note, lang="en")))
    for fmt in RESULTS_FORMATS + GRAPH_FORMATS:
        graph.add((service, SD.resultFormat, URIRef(str(fmt.iri))))
    dataset = BNode()
    graph.add((service, SD.defaultDataset, dataset))
    graph.add((dataset, RDF.type, SD.Dataset))
    default = BNode()
    graph.add((dataset, SD.defaultGraph, default))
    graph.add((default, RDF.type, SD.Graph))
    for name, count in sorted(graph_triples.items()):
        named = BNode()
        described = BNode()
        graph.add((dataset, SD.namedGraph, named))
        graph.add((named, RDF.type, SD.NamedGraph))
        graph.add((named, SD.name, URIRef(name)))
        graph.add((named, SD.graph, described))
        graph.add((described, RDF.type, SD.Graph))
        graph.add((described, VOID.triples, Literal(int(count), datatype=XSD.integer)))
    return graph


def query_page(endpoint: str) -> str:
    """The HTML query page: editor, the example queries of docs/queries.md, result format links, results in place."""
    from .query_page import render_query_page

    return render_query_page(endpoint)
