"""The faults real clients met (issue 32, item 4): authors out of order in the embedded JSON-LD, a preflight that
refused the Graph Store's PUT and DELETE, WWW-Authenticate hidden from scripts, /context.jsonld without an ETag,
and predeclared prefixes nobody was told about."""

from __future__ import annotations

import json
import re

from flask.testing import FlaskClient

from kg.namespaces import PREFIXES

ORIGIN = "https://app.example"
WORK = "/page/work/characterizing-structural-regularities-of-labeled-data-in"


def test_the_embedded_json_ld_lists_the_authors_in_author_order(client: FlaskClient) -> None:
    page = client.get(WORK).get_data(as_text=True)
    (block,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    authors = [a["name"] for a in json.loads(block)["author"]]
    assert authors == ["Ziheng Jiang", "Chiyuan Zhang", "Kunal Talwar", "Michael C. Mozer"]


def test_a_preflight_allows_every_method_the_graph_store_allows(client: FlaskClient) -> None:
    response = client.options("/store?default", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "PUT",
                                                         "Access-Control-Request-Headers": "Authorization"})
    allowed = {m.strip() for m in response.headers["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"} <= allowed
    assert allowed == {m.strip() for m in response.headers["Allow"].split(",")}
    assert response.headers["Access-Control-Allow-Headers"] == "Authorization"


def test_scripts_may_read_why_a_write_was_refused(client: FlaskClient) -> None:
    response = client.put("/store?default", data="<a:b> <a:c> <a:d> .", content_type="application/n-triples",
                          headers={"Origin": ORIGIN})
    exposed = {h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"WWW-Authenticate", "Retry-After", "Location", "ETag"} <= exposed


def test_the_context_has_an_etag_and_answers_304(client: FlaskClient) -> None:
    first = client.get("/context.jsonld")
    assert first.status_code == 200 and first.headers["ETag"]
    again = client.get("/context.jsonld", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""


def test_the_query_page_lists_the_predeclared_prefixes(client: FlaskClient) -> None:
    page = client.get("/sparql", headers={"Accept": "text/html"}).get_data(as_text=True)
    block = page.split('id="predeclared-prefixes"', 1)[1].split("</details>", 1)[0]
    assert "other endpoints" in block
    for name, iri in PREFIXES.items():
        assert f"PREFIX {name}: &lt;{iri}&gt;" in block
