"""The Format table and content negotiation, alone and over HTTP (cases follow oxigraph's get_query_accept_*)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from rdflib import RDF, Dataset, Graph, Literal, Namespace, URIRef

from kg import negotiation
from kg.errors import KgError
from kg.formats import BOOLEAN_FORMATS, GRAPH_FORMATS, RESULTS_FORMATS, Format
from kg.negotiation import NotAcceptable, negotiate
from kg.server import create_app
from kg.store import Store


def parse_rdf(data: bytes, fmt: Format) -> Graph:
    """Parse RDF with rdflib; for dataset formats, the merge of all graphs (rdflib's own warnings muted)."""
    if not fmt.supports_datasets:
        return Graph().parse(data=data, format=fmt.rdflib_name)
    dataset = Dataset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        dataset.parse(data=data, format=fmt.rdflib_name)
    merged = Graph()
    for s, p, o, _ in dataset.quads():
        merged.add((s, p, o))
    return merged


ACCEPT_RESULTS = [
    (None, Format.SPARQL_JSON),
    ("", Format.SPARQL_JSON),
    ("*/*", Format.SPARQL_JSON),
    ("*", Format.SPARQL_JSON),
    ("application/sparql-results+json", Format.SPARQL_JSON),
    ("application/sparql-results+xml", Format.SPARQL_XML),
    ("text/csv", Format.CSV),
    ("text/tab-separated-values", Format.TSV),
    ("application/json", Format.SPARQL_JSON),
    ("application/xml", Format.SPARQL_XML),
    ("APPLICATION/SPARQL-RESULTS+XML", Format.SPARQL_XML),
    ("application/sparql-results+json; charset=utf-8", Format.SPARQL_JSON),
    ("text/*", Format.CSV),
    ("text/*, text/csv;q=0", Format.TSV),
    ("text/csv;q=0.5, application/sparql-results+xml;q=0.9", Format.SPARQL_XML),
    ("text/csv;q=0.9, */*;q=0.1", Format.CSV),
    ("application/sparql-results+json;q=0, */*", Format.SPARQL_XML),
    ("image/png, text/tab-separated-values;q=0.2", Format.TSV),
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", Format.SPARQL_XML),
]
ACCEPT_GRAPHS = [
    (None, Format.TURTLE),
    ("*/*", Format.TURTLE),
    ("text/turtle", Format.TURTLE),
    ("application/x-turtle", Format.TURTLE),
    ("application/n-triples", Format.N_TRIPLES),
    ("application/n-quads", Format.N_QUADS),
    ("application/trig", Format.TRIG),
    ("application/ld+json", Format.JSON_LD),
    ("application/json", Format.JSON_LD),
    ("application/rdf+xml", Format.RDF_XML),
    ("application/*", Format.N_TRIPLES),
    ("application/rdf+xml;q=0.5, application/ld+json;q=0.6", Format.JSON_LD),
    ("text/*;q=0.1, application/n-quads;q=0.2", Format.N_QUADS),
]
NOT_ACCEPTABLE = [
    ("image/png", RESULTS_FORMATS),
    ("text/turtle", RESULTS_FORMATS),
    ("application/sparql-results+json", GRAPH_FORMATS),
    ("*/*;q=0", RESULTS_FORMATS),
    ("text/*", (Format.SPARQL_JSON, Format.SPARQL_XML)),
    ("garbage", GRAPH_FORMATS),
]


@pytest.mark.parametrize(("accept", "expected"), ACCEPT_RESULTS, ids=[str(a) for a, _ in ACCEPT_RESULTS])
def test_negotiate_results(accept: str | None, expected: Format) -> None:
    """The Accept header picks the results format; ties go to the server's order."""
    assert negotiate(accept, RESULTS_FORMATS) is expected


@pytest.mark.parametrize(("accept", "expected"), ACCEPT_GRAPHS, ids=[str(a) for a, _ in ACCEPT_GRAPHS])
def test_negotiate_graphs(accept: str | None, expected: Format) -> None:
    """The Accept header picks the RDF format."""
    assert negotiate(accept, GRAPH_FORMATS) is expected


@pytest.mark.parametrize(("accept", "candidates"), NOT_ACCEPTABLE, ids=[a for a, _ in NOT_ACCEPTABLE])
def test_negotiate_not_acceptable(accept: str, candidates: tuple[Format, ...]) -> None:
    """Nothing acceptable raises NotAcceptable (406) naming every supported type."""
    with pytest.raises(NotAcceptable) as caught:
        negotiate(accept, candidates)
    assert isinstance(caught.value, KgError) and caught.value.status == 406
    for fmt in candidates:
        assert fmt.media_type in str(caught.value)


FORMAT_PARAMS = [
    ("json", RESULTS_FORMATS, Format.SPARQL_JSON),
    ("xml", RESULTS_FORMATS, Format.SPARQL_XML),
    ("csv", RESULTS_FORMATS, Format.CSV),
    ("TSV", RESULTS_FORMATS, Format.TSV),
    ("text/csv", RESULTS_FORMATS, Format.CSV),
    ("json", GRAPH_FORMATS, Format.JSON_LD),
    ("xml", GRAPH_FORMATS, Format.RDF_XML),
    ("ttl", GRAPH_FORMATS, Format.TURTLE),
    ("turtle", GRAPH_FORMATS, Format.TURTLE),
    ("nt", GRAPH_FORMATS, Format.N_TRIPLES),
    ("nq", GRAPH_FORMATS, Format.N_QUADS),
    ("trig", GRAPH_FORMATS, Format.TRIG),
    ("jsonld", GRAPH_FORMATS, Format.JSON_LD),
    ("rdf", GRAPH_FORMATS, Format.RDF_XML),
    ("application/n-triples", GRAPH_FORMATS, Format.N_TRIPLES),
]


@pytest.mark.parametrize(("param", "candidates", "expected"), FORMAT_PARAMS,
                         ids=[f"{p}-{'results' if c is RESULTS_FORMATS else 'graph'}" for p, c, _ in FORMAT_PARAMS])
def test_format_param(param: str, candidates: tuple[Format, ...], expected: Format) -> None:
    """format= resolves aliases among the candidates and wins over Accept."""
    assert negotiate("image/png", candidates, format_param=param) is expected


@pytest.mark.parametrize("param", ["ttl", "png", "html"])
def test_format_param_unsupported(param: str) -> None:
    """A format= naming nothing the resource offers is a 406."""
    with pytest.raises(NotAcceptable, match=f"format={param}"):
        negotiate(None, RESULTS_FORMATS, format_param=param)


def test_negotiate_needs_candidates() -> None:
    """An empty candidate list is a programming error."""
    with pytest.raises(ValueError):
        negotiate("*/*", ())


@pytest.mark.parametrize("fmt", list(Format), ids=[f.name for f in Format])
def test_lookups_round_trip(fmt: Format) -> None:
    """Every format is found again by media type, extension and enum name."""
    assert Format.from_media_type(fmt.media_type.upper() + "; charset=utf-8") is fmt
    assert Format.from_extension(fmt.extension) is fmt
    assert Format.from_name(fmt.name) is fmt


def test_unknown_lookups() -> None:
    """Unknown media types, extensions and names give None."""
    assert Format.from_media_type("image/png") is None
    assert Format.from_extension("png") is None
    assert Format.from_name("png") is None


def test_groups() -> None:
    """Results formats are SPARQL results formats; graph formats are RDF formats with W3C IRIs."""
    assert all(f.is_results and not f.is_rdf for f in RESULTS_FORMATS + BOOLEAN_FORMATS)
    assert all(f.is_rdf and not f.is_results for f in GRAPH_FORMATS)
    assert {f for f in GRAPH_FORMATS if f.supports_datasets} == {Format.N_QUADS, Format.TRIG, Format.JSON_LD}
    assert all(str(f.iri).startswith("http://www.w3.org/ns/formats/") for f in RESULTS_FORMATS + GRAPH_FORMATS)
    assert Format.HTML.ox is None and Format.HTML.iri is None


def test_content_type() -> None:
    """Text types declare UTF-8; application types do not need to."""
    assert Format.CSV.content_type == "text/csv; charset=utf-8"
    assert Format.SPARQL_JSON.content_type == "application/sparql-results+json"


@pytest.mark.parametrize("fmt", GRAPH_FORMATS, ids=[f.name for f in GRAPH_FORMATS])
def test_ox_and_rdflib_names_agree(fmt: Format) -> None:
    """What pyoxigraph writes in a format, rdflib reads back under the format's rdflib name."""
    triple = ox.Triple(ox.NamedNode("http://example.org/ada"), ox.NamedNode("http://schema.org/name"),
                       ox.Literal("Ada"))
    parsed = parse_rdf(ox.serialize([triple], format=fmt.ox), fmt)
    assert set(parsed) == {(URIRef("http://example.org/ada"), URIRef("http://schema.org/name"), Literal("Ada"))}
    assert ox.RdfFormat.from_media_type(fmt.media_type) == fmt.ox


# --- negotiation over HTTP ------------------------------------------------------------------------------

SCHEMA = Namespace("http://schema.org/")
NAMES = "PREFIX schema: <http://schema.org/> SELECT ?n WHERE { ?p a schema:Person ; schema:name ?n }"
PEOPLE = URIRef("https://kg.example.org/graph/profile/ada")


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    """A test client over a one-graph in-memory store."""
    graph = Graph()
    graph.add((URIRef("https://kg.example.org/id/person/ada"), RDF.type, SCHEMA.Person))
    graph.add((URIRef("https://kg.example.org/id/person/ada"), SCHEMA.name, Literal("Ada Lovelace")))
    app = create_app(store=Store.in_memory({PEOPLE: graph}, {"triples": {str(PEOPLE): 2}}))
    app.config["TESTING"] = True
    return app.test_client()


HTTP_MATRIX = [
    ("select-none", "/sparql?query=" + NAMES, None, "application/sparql-results+json"),
    ("select-star", "/sparql?query=" + NAMES, "*/*", "application/sparql-results+json"),
    ("select-substar", "/sparql?query=" + NAMES, "text/*", "text/csv"),
    ("select-exact-xml", "/sparql?query=" + NAMES, "application/sparql-results+xml", "application/sparql-results+xml"),
    ("select-exact-tsv", "/sparql?query=" + NAMES, "text/tab-separated-values", "text/tab-separated-values"),
    ("select-qvalues", "/sparql?query=" + NAMES, "text/csv;q=0.4, application/sparql-results+xml;q=0.8",
     "application/sparql-results+xml"),
    ("select-excluded", "/sparql?query=" + NAMES, "application/sparql-results+json;q=0, */*;q=0.5",
     "application/sparql-results+xml"),
    ("select-browser", "/sparql?query=" + NAMES, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
     "text/html"),
    ("select-plain-json", "/sparql?query=" + NAMES, "application/json", "application/sparql-results+json"),
    ("select-bad", "/sparql?query=" + NAMES, "image/png", None),
    ("select-rdf-type", "/sparql?query=" + NAMES, "text/turtle", None),
    ("construct-star", "/sparql?query=CONSTRUCT WHERE { ?s ?p ?o }", "*/*", "text/turtle"),
    ("construct-jsonld", "/sparql?query=CONSTRUCT WHERE { ?s ?p ?o }", "application/ld+json", "application/ld+json"),
    ("construct-results-type", "/sparql?query=CONSTRUCT WHERE { ?s ?p ?o }", "application/sparql-results+json", None),
    ("ask-xml", "/sparql?query=ASK {}", "application/sparql-results+xml", "application/sparql-results+xml"),
    ("description-none", "/sparql", None, "text/turtle"),
    ("description-html", "/sparql", "text/html", "text/html"),
    ("description-rdfxml", "/sparql", "application/rdf+xml;q=0.9, text/html;q=0.1", "application/rdf+xml"),
    ("description-bad", "/sparql", "application/sparql-results+json", None),
    ("graphstore-substar", "/store?default", "application/*", "application/n-triples"),
    ("graphstore-bad", "/store?default", "text/csv", None),
]


@pytest.mark.parametrize(("path", "accept", "expected"), [case[1:] for case in HTTP_MATRIX],
                         ids=[case[0] for case in HTTP_MATRIX])
def test_accept_over_http(client: FlaskClient, path: str, accept: str | None, expected: str | None) -> None:
    """Each surface negotiates with q-values and wildcards, says Vary: Accept, and 406s naming its types."""
    response = client.get(path, headers={"Accept": accept} if accept is not None else {})
    if expected is None:
        assert response.status_code == 406
        assert response.get_data(as_text=True).count("/") >= 4
    else:
        assert response.status_code == 200 and response.mimetype == expected
        assert "Accept" in response.headers["Vary"]


@pytest.mark.parametrize(("param", "expected"), [
    ("json", "application/sparql-results+json"), ("xml", "application/sparql-results+xml"), ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"), ("text/csv", "text/csv"), ("png", None)])
def test_format_param_over_http(client: FlaskClient, param: str, expected: str | None) -> None:
    """format= (in a POSTed form too) overrides Accept; an unknown value is a 406."""
    response = client.post("/sparql", data={"query": NAMES, "format": param}, headers={"Accept": "image/png"})
    assert response.status_code == (200 if expected else 406)
    if expected:
        assert response.mimetype == expected


NEGOTIATION_ACCEPTS = [None, "", "*/*", "text/*", "text/csv;q=0.5, application/sparql-results+xml",
                       "application/json", "text/turtle;q=0.9, application/ld+json", "image/png",
                       "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]
NEGOTIATION_PARAMS = [None, "", "n3", "csv", "jsonld", "html", "nonsense"]


def _decision(accept: str | None, candidates: tuple[Format, ...], param: str | None,
              decide: Callable[..., Format]) -> object:
    try:
        return decide(accept, candidates, param)
    except NotAcceptable as exc:
        return ("406", str(exc))


def test_negotiation_is_memoised_with_identical_answers() -> None:
    """issue 18: each distinct (Accept, candidates, format=) is decided once; the answers (406s included)
    are those of the uncached decision, the first time and from the cache."""
    negotiation._negotiate_cached.cache_clear()
    grid = [(a, c, p) for a in NEGOTIATION_ACCEPTS for c in (RESULTS_FORMATS, GRAPH_FORMATS, (Format.HTML,))
            for p in NEGOTIATION_PARAMS]
    expected = [_decision(a, c, p, negotiation._negotiate) for a, c, p in grid]
    assert [_decision(a, c, p, negotiate) for a, c, p in grid] == expected
    before = negotiation._negotiate_cached.cache_info()
    assert [_decision(a, list(c), p, negotiate) for a, c, p in grid] == expected  # a list as candidates too
    after = negotiation._negotiate_cached.cache_info()
    answered = sum(1 for e in expected if isinstance(e, Format))
    assert after.hits - before.hits == answered and after.misses - before.misses == len(grid) - answered
    assert after.currsize <= negotiation.NEGOTIATION_CACHE_SIZE


def test_negotiation_cache_is_bounded() -> None:
    negotiation._negotiate_cached.cache_clear()
    for number in range(negotiation.NEGOTIATION_CACHE_SIZE * 2):
        assert negotiate(f"text/turtle;q=0.{number % 9 + 1}, x/y{number}", GRAPH_FORMATS) is Format.TURTLE
    assert negotiation._negotiate_cached.cache_info().currsize == negotiation.NEGOTIATION_CACHE_SIZE
    huge = "text/csv, " + "x/y;q=0.1, " * 400  # oversized keys are decided but not kept
    before = negotiation._negotiate_cached.cache_info()
    assert negotiate(huge, RESULTS_FORMATS) is Format.CSV
    assert negotiation._negotiate_cached.cache_info() == before
