"""The dataset as files: deterministic dumps (cached per store version), VoID, context, ontology; another base."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.namespace import FOAF, RDF, VOID, XSD

from kg.config import Config
from kg.exports import Selection, export, load_context
from kg.store import Store

from .conftest import REPO_DATA, assert_isomorphic

DUMPS = [("nq", "application/n-quads", "nquads"), ("ttl", "text/turtle", "turtle"),
         ("jsonld", "application/ld+json", "json-ld")]


@pytest.mark.parametrize(("ext", "mimetype", "rdflib_name"), DUMPS, ids=[d[0] for d in DUMPS])
@pytest.mark.slow
def test_dump_is_the_export(client: FlaskClient, store: Store, ext: str, mimetype: str, rdflib_name: str) -> None:
    response = client.get(f"/dump.{ext}")
    assert response.status_code == 200 and response.mimetype == mimetype
    name = {"nq": "nq", "ttl": "turtle", "jsonld": "jsonld"}[ext]
    assert response.data == export(store, name, Selection.ALL, context=load_context(Config()))
    if ext == "nq":
        dataset = Dataset()
        dataset.parse(data=response.data, format="nquads")
        for graph_name in store.graph_names():
            assert_isomorphic(dataset.graph(URIRef(graph_name)), store.rdflib_graph(graph_name))
    else:
        assert_isomorphic(Graph().parse(data=response.data, format=rdflib_name), store.rdflib_graph())


def test_dump_is_cached_and_conditional(client: FlaskClient) -> None:
    first = client.get("/dump.ttl")
    etag = first.headers["ETag"]
    assert client.get("/dump.ttl").data == first.data
    again = client.get("/dump.ttl", headers={"If-None-Match": etag})
    assert again.status_code == 304 and not again.data


def test_unknown_dump_is_404(client: FlaskClient) -> None:
    assert client.get("/dump.csv").status_code == 404


@pytest.fixture(scope="module")
def rebuilt_client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    """An app over a second build of the same data, in another directory."""
    from kg.pipeline import build
    from kg.server import create_app

    store_dir: Path = tmp_path_factory.mktemp("rebuilt") / "store"
    config = Config(data=REPO_DATA, store=store_dir)
    build(config)
    return create_app(config).test_client()


@pytest.mark.parametrize("ext", ["nq", "ttl", "jsonld"])
def test_dumps_are_byte_identical_across_rebuilds(client: FlaskClient, rebuilt_client: FlaskClient, ext: str) -> None:
    assert client.get(f"/dump.{ext}").data == rebuilt_client.get(f"/dump.{ext}").data


@pytest.mark.parametrize("path", ["/void", "/.well-known/void"])
def test_void_description(client: FlaskClient, store: Store, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200 and response.mimetype == "text/turtle"
    graph = Graph().parse(data=response.data, format="turtle")
    datasets = [d for d in graph.subjects(RDF.type, VOID.Dataset) if graph.value(d, VOID.sparqlEndpoint)]
    assert len(datasets) == 1
    dataset = datasets[0]
    merged = store.rdflib_graph()
    assert graph.value(dataset, VOID.triples) == Literal(len(merged), datatype=XSD.integer)
    minted = {s for s in merged.subjects() if str(s).startswith("https://kg.example.org/id/")}
    assert graph.value(dataset, VOID.entities).toPython() == len(minted)
    assert graph.value(dataset, VOID.classes).toPython() == len(set(merged.objects(None, RDF.type)))
    assert graph.value(dataset, VOID.properties).toPython() == len(set(merged.predicates()))
    assert str(graph.value(dataset, VOID.sparqlEndpoint)) == "http://localhost/sparql"
    assert graph.value(dataset, VOID.uriSpace) == Literal("https://kg.example.org/id/")
    dumps = sorted(str(d) for d in graph.objects(dataset, VOID.dataDump))
    assert dumps == ["http://localhost/dump.jsonld", "http://localhost/dump.nq", "http://localhost/dump.ttl"]
    for url in dumps:
        assert client.get(url).status_code == 200
    subsets = {str(s): graph.value(s, VOID.triples).toPython() for s in graph.objects(dataset, VOID.subset)}
    assert subsets == {name: len(store.rdflib_graph(name)) for name in store.graph_names()}
    people = [p for p in graph.objects(dataset, VOID.classPartition)
              if graph.value(p, VOID["class"]) == URIRef("http://schema.org/Person")]
    assert len(people) == 1 and graph.value(people[0], VOID.entities).toPython() == len(
        set(merged.subjects(RDF.type, URIRef("http://schema.org/Person"))))
    for example in graph.objects(dataset, VOID.exampleResource):
        assert client.get(str(example)[len("https://kg.example.org"):]).status_code == 303


@pytest.mark.parametrize(("accept", "rdflib_name"), [("application/ld+json", "json-ld"),
                                                     ("application/n-triples", "nt"),
                                                     ("application/rdf+xml", "xml")])
def test_void_negotiates(client: FlaskClient, accept: str, rdflib_name: str) -> None:
    turtle = Graph().parse(data=client.get("/void").data, format="turtle")
    response = client.get("/void", headers={"Accept": accept})
    assert response.mimetype == accept and "Accept" in response.headers["Vary"]
    assert_isomorphic(Graph().parse(data=response.data, format=rdflib_name), turtle)


def test_void_follows_the_request_host(client: FlaskClient) -> None:
    graph = Graph().parse(data=client.get("/void", base_url="https://kg.example.net").data, format="turtle")
    assert URIRef("https://kg.example.net/sparql") in set(graph.objects(None, VOID.sparqlEndpoint))


def test_ontology_negotiates(client: FlaskClient, store: Store) -> None:
    html = client.get("/ontology", headers={"Accept": "text/html"})
    text = html.get_data(as_text=True)
    assert html.mimetype == "text/html" and 'id="rank"' in text and "kg:equalContribution" in text
    assert "owl:equivalentClass" in text and "Accept" in html.headers["Vary"]
    expected = store.rdflib_graph(next(g for g in store.graph_names() if g.endswith("/graph/ontology")))
    for accept, name in (("text/turtle", "turtle"), ("application/ld+json", "json-ld"),
                         ("application/rdf+xml", "xml"), ("application/n-triples", "nt")):
        response = client.get("/ontology", headers={"Accept": accept})
        assert response.mimetype == accept
        assert_isomorphic(Graph().parse(data=response.data, format=name), expected)
    assert client.get("/ontology?format=ttl").mimetype == "text/turtle"


def test_context_is_served(client: FlaskClient) -> None:
    response = client.get("/context.jsonld")
    assert response.mimetype == "application/ld+json"
    assert response.get_json() == {"@context": load_context(Config())}


@pytest.fixture(scope="module")
def other_base_client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    """An app over a store built with another base IRI."""
    from kg.pipeline import build
    from kg.server import create_app

    store_dir: Path = tmp_path_factory.mktemp("other-base") / "store"
    config = Config(data=REPO_DATA, store=store_dir, base="https://data.example.org/kg")
    build(config)
    return create_app(config).test_client()


def test_paths_map_to_the_configured_base(other_base_client: FlaskClient) -> None:
    response = other_base_client.get("/id/person/ziheng-jiang", headers={"Accept": "text/turtle"},
                                     follow_redirects=True)
    graph = Graph().parse(data=response.data, format="turtle")
    subject = URIRef("https://data.example.org/kg/id/person/ziheng-jiang")
    assert (subject, RDF.type, FOAF.Person) in graph
    page = other_base_client.get("/page/person/ziheng-jiang").get_data(as_text=True)
    assert "https://data.example.org/kg/id/person/ziheng-jiang" in page and 'href="/page/person/luis-ceze"' in page
    void = Graph().parse(data=other_base_client.get("/void").data, format="turtle")
    assert Literal("https://data.example.org/kg/id/") in set(void.objects(None, VOID.uriSpace))
