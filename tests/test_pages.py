"""Linked-data pages in process: 303 dereferencing, RDF twins, HTML pages of each kind, search, query page."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import quote, urlencode

import pytest
from flask import Flask
from flask.testing import FlaskClient
from rdflib import RDF, RDFS, BNode, Graph, Literal, URIRef

from kg.config import PROJECT_ROOT
from kg.server.sparql.query_page import EXAMPLES, PREFIX_BLOCK, render_results_html
from kg.store import Store

from .conftest import assert_isomorphic

BASE = "https://kg.example.org"
SCHEMA = "http://schema.org/"
ZIHENG = "person/ziheng-jiang"
WENCONG = "person/wencong-xiao"
TVM = "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep"
MEGASCALE = "work/megascale-scaling-large-language-model-training-to-more"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
RESOURCES = [ZIHENG, WENCONG, "person/xinyi-zhang", TVM, f"{TVM}/authorship/3", "organization/bytedance",
             "organization/alibaba-pai", "venue/osdi", "venue/osdi-2018", "venue/arxiv", "project/apache-tvm",
             "role/wencong-xiao-education-1", "role/wencong-xiao-education-1/credential",
             "metric/wencong-xiao-citations"]
RDFLIB_NAMES = {"ttl": "turtle", "jsonld": "json-ld", "nt": "nt", "rdf": "xml"}


class Page(HTMLParser):
    """Collects what the tests look at in an HTML page: links, alternates, JSON-LD, ids, headings, svg titles."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.alternates: list[tuple[str, str]] = []
        self.jsonld: list[str] = []
        self.ids: list[str] = []
        self.h1 = 0
        self.svgs = 0
        self.lang: str | None = None
        self._script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Record the attributes of interest."""
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "link" and a.get("rel") == "alternate":
            self.alternates.append((a["href"], a["type"]))
        elif tag == "script" and a.get("type") == "application/ld+json":
            self._script = True
        elif tag == "h1":
            self.h1 += 1
        elif tag == "svg":
            self.svgs += 1

    def handle_endtag(self, tag: str) -> None:
        """Close a JSON-LD script."""
        if tag == "script":
            self._script = False

    def handle_data(self, data: str) -> None:
        """Keep JSON-LD text."""
        if self._script:
            self.jsonld.append(data)


def expected_description(merged: Graph, iri: str) -> Graph:
    """The CBD of an IRI (rdflib's own), the works naming it schema:author, and schema:name and rdfs:label of every
    IRI it points to and of those works."""
    node = URIRef(iri)
    cbd = merged.cbd(node)
    expected = Graph()
    for triple in cbd:
        expected.add(triple)
    neighbours = {o for _, p, o in cbd if isinstance(o, URIRef) and o != node and p != RDF.type}
    for work in merged.subjects(URIRef(SCHEMA + "author"), node):
        expected.add((work, URIRef(SCHEMA + "author"), node))
        neighbours.add(work)
    for other in neighbours:
        for prop in (URIRef(SCHEMA + "name"), RDFS.label):
            for value in merged.objects(other, prop):
                expected.add((other, prop, value))
    return expected


@pytest.fixture(scope="module")
def merged(store: Store) -> Graph:
    """The store's merged default graph."""
    return store.rdflib_graph()


@pytest.mark.parametrize(("accept", "target"), [
    ("text/html", f"/page/{ZIHENG}"), (BROWSER, f"/page/{ZIHENG}"), ("text/turtle", f"/data/{ZIHENG}.ttl"),
    ("application/ld+json", f"/data/{ZIHENG}.jsonld"), ("application/n-triples", f"/data/{ZIHENG}.nt"),
    ("application/rdf+xml", f"/data/{ZIHENG}.rdf"),
    ("text/turtle;q=0.5, application/ld+json", f"/data/{ZIHENG}.jsonld"),
], ids=["html", "browser", "turtle", "jsonld", "ntriples", "rdfxml", "qvalues"])
def test_id_answers_303_by_accept(client: FlaskClient, accept: str, target: str) -> None:
    response = client.get(f"/id/{ZIHENG}", headers={"Accept": accept})
    assert response.status_code == 303
    assert response.headers["Location"].endswith(target)
    assert "Accept" in response.headers["Vary"]


def test_id_format_parameter_wins(client: FlaskClient) -> None:
    response = client.get(f"/id/{ZIHENG}?format=jsonld", headers={"Accept": "text/html"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/data/{ZIHENG}.jsonld")


def test_id_not_acceptable(client: FlaskClient) -> None:
    assert client.get(f"/id/{ZIHENG}", headers={"Accept": "image/png"}).status_code == 406


@pytest.mark.parametrize("host", ["http://localhost", "http://data.example.net:8080", "https://mirror.example"])
def test_iris_resolve_whatever_the_host(client: FlaskClient, host: str) -> None:
    response = client.get(f"/id/{ZIHENG}", base_url=host, headers={"Accept": "text/turtle"}, follow_redirects=True)
    assert response.status_code == 200
    graph = Graph().parse(data=response.data, format="turtle")
    assert (URIRef(f"{BASE}/id/{ZIHENG}"), URIRef(SCHEMA + "name"), Literal("Ziheng Jiang")) in graph


@pytest.mark.parametrize("path", ["/id/person/nobody", "/page/person/nobody", "/data/person/nobody.ttl",
                                  "/id/work/tvm/authorship/99"])
def test_unknown_iris_are_a_404_page(client: FlaskClient, path: str) -> None:
    response = client.get(path, headers={"Accept": BROWSER})
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "Not found" in response.get_data(as_text=True)
    plain = client.get(path, headers={"Accept": "text/turtle"})
    assert plain.status_code == 404 and plain.mimetype == "text/plain"


@pytest.mark.parametrize("path", RESOURCES)
@pytest.mark.parametrize("ext", ["ttl", "jsonld", "nt", "rdf"])
def test_twin_is_the_cbd_plus_neighbour_labels(client: FlaskClient, merged: Graph, path: str, ext: str) -> None:
    response = client.get(f"/data/{path}.{ext}")
    assert response.status_code == 200
    assert response.mimetype == {"ttl": "text/turtle", "jsonld": "application/ld+json",
                                 "nt": "application/n-triples", "rdf": "application/rdf+xml"}[ext]
    assert f'</page/{path}>; rel="alternate"; type="text/html"' in response.headers["Link"]
    actual = Graph().parse(data=response.data, format=RDFLIB_NAMES[ext])
    assert_isomorphic(actual, expected_description(merged, f"{BASE}/id/{path}"))


@pytest.mark.parametrize(("query", "mimetype"), [
    ("format=ttl", "text/turtle"), ("format=jsonld", "application/ld+json"), ("format=nt", "application/n-triples"),
    ("format=rdf", "application/rdf+xml")])
def test_data_documents_answer_to_format(client: FlaskClient, query: str, mimetype: str) -> None:
    response = client.get(f"/data/{ZIHENG}?{query}")
    assert response.status_code == 200 and response.mimetype == mimetype


def test_data_without_extension_negotiates(client: FlaskClient) -> None:
    response = client.get(f"/data/{ZIHENG}", headers={"Accept": "application/n-triples"})
    assert response.mimetype == "application/n-triples" and "Accept" in response.headers["Vary"]


def test_every_minted_iri_dereferences_to_turtle(client: FlaskClient, store: Store) -> None:
    """`curl -L -H 'Accept: text/turtle'` on any minted IRI returns parseable Turtle about it."""
    from kg.server.pages.resources import minted_iris

    iris = list(minted_iris(store, BASE))
    assert len(iris) > 300
    for iri in iris:
        response = client.get(iri[len(BASE):], headers={"Accept": "text/turtle"}, follow_redirects=True)
        assert response.status_code == 200, iri
        graph = Graph().parse(data=response.data, format="turtle")
        assert any(graph.predicate_objects(URIRef(iri))), iri


@pytest.mark.parametrize("path", RESOURCES)
def test_html_pages_advertise_twins_and_embed_schema_jsonld(client: FlaskClient, merged: Graph, path: str) -> None:
    response = client.get(f"/page/{path}")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = Page(response.get_data(as_text=True))
    header = response.headers["Link"]
    for href, media_type in page.alternates:
        assert f'<{href}>; rel="alternate"; type="{media_type}"' in header
        twin = client.get(href)
        assert twin.status_code == 200 and twin.mimetype == media_type
    citable = {"application/x-bibtex"} if re.fullmatch(r"(person|work)/[^/]+", path) else set()
    assert {t for _, t in page.alternates} == {"text/turtle", "application/ld+json", "application/n-triples",
                                               "application/rdf+xml"} | citable
    assert len(page.jsonld) == 1 and page.h1 == 1 and page.lang == "en"
    assert len(page.ids) == len(set(page.ids)), "duplicate ids"
    document = json.loads(page.jsonld[0])
    assert document["@context"] == {"@vocab": SCHEMA} and document["@id"] == f"{BASE}/id/{path}"
    read = schema_read(document)
    known = {lexical(t) for t in merged}
    for triple in read:
        if not any(isinstance(term, BNode) for term in triple):
            assert lexical(triple) in known, triple
    node = URIRef(f"{BASE}/id/{path}")
    schema_out = {(p, lexical((node, p, o))[2]) for p, o in merged.predicate_objects(node)
                  if str(p).startswith(SCHEMA) and not isinstance(o, BNode)}
    assert {(p, lexical((node, p, o))[2]) for p, o in read.predicate_objects(node) if p != RDF.type} == schema_out
    assert set(read.objects(node, RDF.type)) == {o for o in merged.objects(node, RDF.type) if str(o).startswith(SCHEMA)}


def lexical(triple: tuple[object, object, object]) -> tuple[object, object, object]:
    """A triple with its literal reduced to its lexical form and language (embedded JSON-LD writes plain dates)."""
    s, p, o = triple
    return (s, p, (str(o), o.language) if isinstance(o, Literal) else o)


def schema_read(document: dict[str, object]) -> Graph:
    """Read embedded JSON-LD as a JSON-LD consumer does: its own context says every term is schema.org's."""
    return Graph().parse(data=json.dumps(document), format="json-ld")


def text_of(client: FlaskClient, path: str) -> str:
    response = client.get(path, headers={"Accept": BROWSER})
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def test_person_page(client: FlaskClient) -> None:
    text = text_of(client, f"/page/{WENCONG}")
    assert "<h1>Wencong Xiao</h1>" in text and 'lang="zh">肖文聪</span>' in text
    assert "AI Systems Researcher" in text and 'class="timeline"' in text
    for fact in ("Seed Training Infra Lead", "AI-Infra Engineer", "Research Intern",
                 "Doctor of Philosophy in Computer Science", "Supervisors:", "Lidong Zhou", "4000+", "Google Scholar",
                 "Distinguished Paper Award"):
        assert fact in text, fact
    assert text.count('role="img"') == 2 and "Co-author network of Wencong Xiao" in text
    assert "Publication timeline of Wencong Xiao" in text
    years = [int(y) for y in re.findall(r'<h3 id="pubs-(\d{4})">', text)]
    assert years == sorted(years, reverse=True) and len(years) >= 5
    assert 'href="/page/person/xinyi-zhang"' in text


def test_person_page_marks_equal_contribution_projects_and_inferred(client: FlaskClient) -> None:
    text = text_of(client, f"/page/{ZIHENG}")
    assert re.search(r"<strong>Ziheng Jiang</strong><sup class=\"equal\"", text)
    for fact in ("Apache TVM", "MegaScale", "more than 4000", "Advisors:", "Luis Ceze", "Worked with", "Fudan NLP Lab"):
        assert fact in text, fact
    row = re.search(r'<tr class="inferred">\s*<td><span class="this">this</span></td>\s*<td><code[^>]*>rdf:type</code>'
                    r'</td>\s*<td><span class="iri">foaf:Person</span>', text)
    assert row, "the inferred foaf:Person type is not marked inferred"
    advisor = text_of(client, "/page/person/luis-ceze")
    assert "Advisees" in advisor and 'href="/page/person/ziheng-jiang"' in advisor and "badge inferred" in advisor


def test_publication_page(client: FlaskClient) -> None:
    text = text_of(client, f"/page/{TVM}")
    authors = re.findall(r'<li value="(\d+)"><a href="/page/person/([a-z-]+)"', text)
    assert [int(rank) for rank, _ in authors] == list(range(1, 13))
    assert authors[0][1] == "tianqi-chen" and authors[2][1] == "ziheng-jiang"
    assert 'href="/page/venue/osdi"' in text and 'href="/page/venue/osdi#year-2018"' in text
    assert 'href="/page/venue/osdi-2018"' in text
    marked = text_of(client, f"/page/{MEGASCALE}")
    assert re.search(r'ziheng-jiang">Ziheng Jiang</a><sup class="equal"', marked)
    noted = text_of(client, "/page/work/characterizing-structural-regularities-of-labeled-data-in")
    assert "Long Oral (3%)" in noted
    elided = text_of(client, "/page/work/robust-llm-training-infrastructure-at-bytedance")
    assert "authors left out by the source" in elided


def test_organisation_pages(client: FlaskClient) -> None:
    bytedance = text_of(client, "/page/organization/bytedance")
    assert "Sub-organisations" in bytedance and 'href="/page/organization/bytedance-seed"' in bytedance
    assert 'href="/page/person/ziheng-jiang"' in bytedance
    pai = text_of(client, "/page/organization/alibaba-pai")
    assert "Before" in pai and 'href="/page/person/wencong-xiao"' in pai and "2019" in pai
    seed = text_of(client, "/page/organization/bytedance-seed")
    assert "Part of" in seed and 'href="/page/organization/bytedance"' in seed
    beihang = text_of(client, "/page/organization/beihang-university")
    assert "Studied here" in beihang


def test_venue_pages(client: FlaskClient) -> None:
    osdi = text_of(client, "/page/venue/osdi")
    assert "<abbr>OSDI</abbr>" in osdi and 'id="year-2018"' in osdi and 'id="year-2024"' in osdi
    assert osdi.index('id="year-2025"') < osdi.index('id="year-2018"')
    assert f'href="/page/{TVM}"' in osdi
    edition = text_of(client, "/page/venue/osdi-2018")
    assert "An edition of" in edition and f'href="/page/{TVM}"' in edition
    arxiv = text_of(client, "/page/venue/arxiv")
    assert "Infinite-LLM" in arxiv


def test_home_page(client: FlaskClient, store: Store) -> None:
    response = client.get("/", headers={"Accept": BROWSER})
    text = response.get_data(as_text=True)
    assert response.status_code == 200 and 'rel="alternate"' in response.headers["Link"]
    assert 'action="/search"' in text and 'href="/sparql"' in text
    for ext in ("nq", "ttl", "jsonld"):
        assert f'href="/dump.{ext}"' in text
    for graph, count in store.metadata["triples"].items():
        assert re.search(re.escape(graph) + r"</code></a></td><td class=\"num\">" + str(count), text), graph
    assert re.search(r"schema:Person</code></a></td><td class=\"num\">\d+", text)
    assert store.metadata["built_at"] in text
    document = json.loads(Page(text).jsonld[0])
    assert document["@type"] == "Dataset" and len(document["distribution"]) == 3


def test_search(client: FlaskClient) -> None:
    text = text_of(client, "/search?q=Xiao")
    hits = re.findall(r'<li><a href="/page/([^"]+)">', text)
    assert hits[0] == WENCONG and "person/jianzhe-xiao" in hits
    titles = text_of(client, "/search?q=tvm")
    assert f'href="/page/{TVM}"' in titles and 'href="/page/project/apache-tvm"' in titles
    assert "Nothing in the graph" in text_of(client, "/search?q=zzzzqqq")
    hostile = text_of(client, "/search?q=" + quote("<script>alert(1)</script>"))
    assert "<script>alert(1)" not in hostile and "&lt;script&gt;" in hostile


def test_search_finds_names_in_other_scripts(client: FlaskClient) -> None:
    assert f'href="/page/{WENCONG}"' in text_of(client, "/search?q=" + quote("肖文聪"))


def test_generic_pages_show_their_context(client: FlaskClient) -> None:
    text = text_of(client, f"/page/{TVM}/authorship/3")
    assert "Authorship" in text and "Linked from" in text and f'href="/page/{TVM}"' in text
    assert 'href="/page/person/ziheng-jiang"' in text and "badge inferred" in text


def _readme_examples() -> tuple[str, list[tuple[str, str]]]:
    readme = (PROJECT_ROOT / "docs" / "queries.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sparql\n(.*?)```", readme, flags=re.S)
    titles = re.findall(r"^\d+\. (.*?):\n\n```sparql", readme, flags=re.M)
    return blocks[0], list(zip(titles, blocks[1:], strict=True))


def test_example_queries_equal_the_readme() -> None:
    prefixes, examples = _readme_examples()
    assert PREFIX_BLOCK == prefixes
    assert list(EXAMPLES) == examples


def test_query_page_offers_every_example(client: FlaskClient) -> None:
    response = client.get("/sparql", headers={"Accept": BROWSER})
    text = response.get_data(as_text=True)
    assert response.status_code == 200 and '<form method="post" action="http://localhost/sparql"' in text
    page = Page(text)
    runs = [href for href in page.links if href.startswith("/sparql?query=")]
    for title, body in EXAMPLES:
        assert title.replace("'", "&#39;") in text
        assert "/sparql?" + urlencode({"query": PREFIX_BLOCK + "\n" + body}) in runs
    for fmt in ("json", "xml", "csv", "tsv", "ttl", "jsonld", "nt", "rdf"):
        assert any(f"format={fmt}" in href for href in runs), fmt
    assert 'src="/static/query.js"' in text
    with client.get("/static/query.js") as script:
        assert script.status_code == 200 and script.mimetype in ("text/javascript", "application/javascript")


def test_example_links_answer_in_every_format(client: FlaskClient) -> None:
    title, body = EXAMPLES[0]
    query = PREFIX_BLOCK + "\n" + body
    for fmt, mimetype in (("json", "application/sparql-results+json"), ("csv", "text/csv")):
        response = client.get("/sparql?" + urlencode({"query": query, "format": fmt}))
        assert response.status_code == 200 and response.mimetype == mimetype, title


def test_render_results_html(app: Flask, client: FlaskClient) -> None:
    query = PREFIX_BLOCK + "\n" + EXAMPLES[0][1]
    results = client.get("/sparql?" + urlencode({"query": "SELECT ?p ?n WHERE { ?p <http://schema.org/name> ?n } "
                                                 "ORDER BY ?n LIMIT 3", "format": "json"})).data
    with app.test_request_context("/sparql"):
        text = render_results_html(query, results)
        assert '<table class="results">' in text and text.count("<tr>") == 4
        assert 'href="/page/' in text
        assert "SELECT DISTINCT ?name" in text
        ask = render_results_html("ASK {}", b'{"head": {}, "boolean": true}')
        assert '<p class="boolean">true</p>' in ask
        failed = render_results_html("SELEC", error="malformed query: <oops>")
        assert 'role="alert"' in failed and "malformed query: &lt;oops&gt;" in failed


def test_sparql_html_results(client: FlaskClient) -> None:
    """GET /sparql?query=… with Accept text/html renders the results table; errors are shown in place."""
    query = "SELECT ?n WHERE { ?p <http://schema.org/name> ?n } LIMIT 2"
    response = client.get("/sparql?" + urlencode({"query": query}), headers={"Accept": "text/html"})
    assert response.status_code == 200 and '<table class="results">' in response.get_data(as_text=True)
    construct = "CONSTRUCT { ?p <http://schema.org/name> ?n } WHERE { ?p <http://schema.org/givenName> ?n }"
    response = client.get("/sparql?" + urlencode({"query": construct}), headers={"Accept": "text/html"})
    assert response.status_code == 200 and "Wencong" in response.get_data(as_text=True)
    response = client.get("/sparql?" + urlencode({"query": "SELECT ?x WHERE { ?x ?y }"}),
                          headers={"Accept": "text/html"})
    assert response.status_code == 400 and "malformed query" in response.get_data(as_text=True)
    assert response.content_type.startswith("text/html") and 'role="alert"' in response.get_data(as_text=True)


def test_pages_use_no_outside_resources(client: FlaskClient) -> None:
    for path in ("/", f"/page/{ZIHENG}", f"/page/{TVM}", "/sparql", "/ontology", "/search?q=x"):
        text = text_of(client, path)
        sources = re.findall(r'(?:src|href)="([^"]+)"', text)
        loaded = [s for s in sources if re.search(r"\.(js|css|svg|png|woff2?)$", s)]
        assert loaded and all(s.startswith("/static/") for s in loaded), loaded
        assert "<script src=\"http" not in text
