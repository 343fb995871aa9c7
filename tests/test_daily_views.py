"""Issue 17, what pages show: sub-organisations' people, a person's works in the RDF twin, initials-only
co-authors beside their candidates, completed degrees, and embedded JSON-LD as structured-data consumers read
it (extruct). Each is a real request through the app."""

from __future__ import annotations

import json
import re
from typing import Any

import extruct
import pytest
from flask.testing import FlaskClient
from rdflib import Graph, Literal, URIRef

from kg.config import Config

from .repo_data import copy_repo_data

BASE = "https://kg.example.org/id/"
SCHEMA = "http://schema.org/"
PAGES = ["person/wencong-xiao", "person/ziheng-jiang", "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep",
         "organization/bytedance", "venue/osdi-2018", "role/wencong-xiao-education-1"]
ADA = """name: Ada Example
education:
  - degree: Ph.D.
    institution: fudan-university
    end: 2015
    completed: true
publications:
  - title: "A Paper By Ada"
    authors: [Ada Example, Haoran Wei]
    year: 2020
    status: published
  - title: "Another Paper By Ada"
    authors: [Ada Example, H Wei, B Wan]
    year: 2021
    status: published
"""


@pytest.fixture(scope="module")
def ada_client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    """An app over the repository's data plus a profile with a completed Ph.D. known only by its end year and
    co-authors written both in full (Haoran Wei) and by initials (H Wei)."""
    from kg.pipeline import build
    from kg.server import create_app

    root = tmp_path_factory.mktemp("ada")
    data = copy_repo_data(root / "data", edits=False)
    (data / "profiles" / "ada-example.yaml").write_text(ADA, encoding="utf-8")
    build(Config(data=data, store=root / "store"))
    app = create_app(Config(data=data, store=root / "store", query_workers=0))
    return app.test_client()


def people_section(text: str) -> str:
    """The People section of an organisation page."""
    start = text.index('id="people"')
    return text[start:text.index("</section>", start)]


def test_organisation_page_lists_people_of_sub_organisations(client: FlaskClient) -> None:
    """ByteDance lists Wencong Xiao, who works at ByteDance Seed, marked as being there."""
    people = people_section(client.get("/page/organization/bytedance").get_data(as_text=True))
    assert 'href="/page/person/ziheng-jiang"' in people
    row = re.search(r'<tr><td><a href="/page/person/wencong-xiao">Wencong Xiao</a> <span class="meta sub-unit">at '
                    r'<a href="/page/organization/bytedance-seed">ByteDance Seed</a></span>', people)
    assert row, people
    own = people_section(client.get("/page/organization/bytedance-seed").get_data(as_text=True))
    assert "sub-unit" not in own and "Wencong Xiao" in own


def test_person_twin_carries_the_works_and_titles(client: FlaskClient) -> None:
    """The Turtle twin has every work the page lists, with its title."""
    page = client.get("/page/person/wencong-xiao").get_data(as_text=True)
    listed = set(re.findall(r'<a href="/page/(work/[^"]+)"', page))
    graph = Graph().parse(data=client.get("/data/person/wencong-xiao.ttl").data, format="turtle")
    person = URIRef(BASE + "person/wencong-xiao")
    works = {str(w)[len(BASE):] for w in graph.subjects(URIRef(SCHEMA + "author"), person)}
    assert len(listed) >= 10 and listed <= works
    for work in listed:
        assert graph.value(URIRef(BASE + work), URIRef(SCHEMA + "name")) is not None, work


def network(text: str) -> str:
    """The co-author network picture of a person page."""
    start = text.index('<svg class="picture network"')
    return text[start:text.index("</svg>", start)]


def test_initials_only_coauthor_is_drawn_beside_its_candidate(ada_client: FlaskClient) -> None:
    """H Wei sits next to Haoran Wei, joined by a dashed "may be the same person" line; both say so."""
    svg = network(ada_client.get("/page/person/ada-example").get_data(as_text=True))
    labels = re.findall(r"<text [^>]*>([^<]+)</text>", svg)
    ring = [label.removesuffix(" ?") for label in labels[1:]]
    assert abs(ring.index("H Wei") - ring.index("Haoran Wei")) == 1, ring
    assert re.search(r'<line [^>]*class="possible"><title>(H Wei and Haoran Wei|Haoran Wei and H Wei) may be the '
                     r"same person \(not confirmed\)</title>", svg), svg
    assert re.search(r"<title>H Wei: 1 paper together; possibly the same person as Haoran Wei", svg)
    assert 'class="coauthor uncertain"' in svg and "B Wan</text>" in svg


def test_completed_degree_shows_as_received(ada_client: FlaskClient) -> None:
    """A completed "Ph.D., 2015" shows as the degree in 2015, not as "?–2015 Ph.D. student"."""
    text = ada_client.get("/page/person/ada-example").get_data(as_text=True)
    education = text.split('id="education"', 1)[1].split("</section>", 1)[0]
    assert "student" not in education and "?–" not in education
    assert re.search(r'<time datetime="2015">2015</time></span>\s*<p><strong><a [^>]+>Ph\.D\.</a>', education)


def nodes(value: Any) -> list[dict[str, Any]]:
    """Every JSON object in a JSON-LD value, the value itself included."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


@pytest.mark.parametrize("path", PAGES)
def test_embedded_jsonld_is_what_structured_data_consumers_expect(client: FlaskClient, path: str) -> None:
    """extruct finds one JSON-LD document: schema.org as in the data (http://), plain date strings, and no node
    that is only an @id where the resource has more to say (role nodes come with their properties)."""
    html = client.get(f"/page/{path}").get_data(as_text=True)
    found = extruct.extract(html, base_url=f"http://localhost/page/{path}", syntaxes=["json-ld"], uniform=False)
    documents = found["json-ld"]
    assert len(documents) == 1 and documents[0]["@id"] == BASE + path
    document = documents[0]
    assert document["@context"] == {"@vocab": SCHEMA} and "https://schema.org" not in str(document)
    for node in nodes(document):
        assert "@type" not in node or "@value" not in node, node  # no typed value objects (dates are strings)
        if set(node) == {"@id"}:
            assert not node["@id"].startswith(BASE + "role/"), node
    for key in ("startDate", "endDate", "datePublished"):
        for node in nodes(document):
            if key in node:
                assert isinstance(node[key], str) and re.fullmatch(r"\d{4}(-\d\d(-\d\d)?)?", node[key]), node
    graph = Graph().parse(data=json.dumps(document), format="json-ld")
    assert all(str(p).startswith(SCHEMA) or str(p).endswith("#type") for p in graph.predicates())


def test_embedded_role_nodes_carry_their_properties(client: FlaskClient) -> None:
    """A person's roles are embedded in schema.org's Role pattern: role name, dates and the organisation."""
    html = client.get("/page/person/wencong-xiao").get_data(as_text=True)
    document = extruct.extract(html, syntaxes=["json-ld"])["json-ld"][0]
    roles = [n for n in document["worksFor"] if "roleName" in n]
    seed = next(r for r in roles if r["roleName"] == "Seed Training Infra Lead")
    assert seed["startDate"] == "2026" and seed["worksFor"]["name"] == "ByteDance Seed"
    assert {"minValue": 4000, "propertyID": "citations"}.items() <= next(
        m for m in document["additionalProperty"] if m["propertyID"] == "citations").items()
    graph = Graph().parse(data=json.dumps(document), format="json-ld")
    assert (None, URIRef(SCHEMA + "startDate"), Literal("2026")) in graph
