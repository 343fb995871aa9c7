"""Pages a researcher links to: /people and the home page's counts, person pages (years, DOI, BibTeX and cite per
entry, co-authors, ORCID, degree field), work pages without RDF terms, links once with their labels, organisation
pages listing a student once; and the link nodes that keep a label with its address in the RDF."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from rdflib import RDF, RDFS, BNode, Graph, Literal, URIRef

from kg.config import Config

from .conftest import REPO_DATA, assert_isomorphic

SCHEMA = "http://schema.org/"
BASE = "https://kg.example.org/id/"
ROSA = "person/rosa-quint"
QUILL = "work/quill-checkpointing-large-model-training-without-stalls"
LOOM = "work/loom-weaving-pipeline-stages-across-heterogeneous-gpus"
TVM = "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep"
PROFILE = Path(__file__).parent / "data" / "linked_pages" / "rosa-quint.yaml"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, Any]:
    """The seed data plus a made-up profile with an ORCID iD, links, a DOI and a degree field, built once."""
    from kg.pipeline import build

    root = tmp_path_factory.mktemp("people")
    shutil.copytree(REPO_DATA, root / "data", ignore=shutil.ignore_patterns("edits"))
    shutil.copy(PROFILE, root / "data" / "profiles" / PROFILE.name)
    config = Config(data=root / "data", store=root / "kg" / "store", query_workers=0)
    return config, build(config)


@pytest.fixture()
def rosa(site: tuple[Config, Any]) -> FlaskClient:
    """A test client over that site."""
    from kg.server import create_app

    app = create_app(site[0])
    app.config["TESTING"] = True
    return app.test_client()


def page(client: FlaskClient, path: str) -> str:
    """A page's HTML, which must answer 200."""
    response = client.get(path)
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def section(html: str, start: str, end: str) -> str:
    """The part of a page from one marker to the next."""
    return html[html.index(start):html.index(end, html.index(start))]


def text(html: str) -> str:
    """The visible text of some HTML, whitespace collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def test_people_directory_lists_the_profiles_with_links(client: FlaskClient) -> None:
    html = page(client, "/people")
    profiles = section(html, 'id="profiles"', "</section>")
    for path, name in (("person/ziheng-jiang", "Ziheng Jiang"), ("person/wencong-xiao", "Wencong Xiao")):
        assert f'<a href="/page/{path}"><strong>{name}</strong></a>' in profiles
        assert f'href="/page/{path}#publications">10 publications</a>' in profiles
    everyone = section(html, 'id="everyone"', "</article>")
    assert 'href="#letter-J"' in everyone and 'href="/page/person/luis-ceze">Luis Ceze</a>' in everyone
    assert 'href="/page/organization/beihang-university#people">2</a>' in html


def test_home_and_people_counts_are_the_builds_and_link(site: tuple[Config, Any], rosa: FlaskClient) -> None:
    counts = {kind: by_status["added"] for kind, by_status in site[1].changes.counts.items()}
    home = page(rosa, "/")
    shown = dict((label, (int(n), href)) for href, n, label in re.findall(
        r'<li><a href="([^"]+)"><strong>(\d+)</strong> ([^<]+)</a></li>', home))
    assert shown["with a profile"] == (3, "/people#profiles")
    assert shown["people"] == (counts["person"], "/people#everyone")
    assert shown["organisations"] == (counts["organization"], "/people#organisations")
    assert shown["publications"][0] == counts["work"] and shown["publications"][1].startswith("/sparql?query=")
    assert shown["venues and editions"][0] == counts["venue"]
    assert 'href="/people">All people</a>' in home
    people = page(rosa, "/people")
    assert f'{counts["person"]} people in the graph</a>' in people
    everyone = section(people, 'id="everyone"', "</article>")
    assert len(re.findall(r'<li><a href="/page/person/[^"]+">[^<]+</a> <span class="count"', everyone)) == counts[
        "person"]
    assert len(re.findall(r"<tr><td><a href=\"/page/organization/", people)) == counts["organization"]


def test_person_page_groups_by_year_with_doi_bibtex_and_cite(rosa: FlaskClient) -> None:
    html = page(rosa, f"/page/{ROSA}")
    pubs = section(html, '<section aria-labelledby="publications">', '<section class="statements"')
    assert re.findall(r'<h3 id="pubs-(\d{4})">', pubs) == ["2024", "2022"]
    quill = section(pubs, 'id="pubs-2024"', "</li>")
    assert '<a class="doi" href="https://doi.org/10.5555/quill.2024" rel="external">DOI</a>' in quill
    assert '<a href="https://rosa-quint.example.org/quill.pdf" rel="external">PDF</a>' in quill
    assert '<a href="https://github.com/rosa-quint-example/quill" rel="external">Code</a>' in quill
    assert f'<a class="bibtex" href="/bib/{QUILL}"' in quill
    assert ('<details class="cite"><summary>Cite</summary><p class="citation">Rosa Quint, Ziheng Jiang and Wencong '
            "Xiao. Quill: Checkpointing Large Model Training Without Stalls. USENIX Symposium on Networked Systems "
            "Design and Implementation (NSDI), 2024. https://doi.org/10.5555/quill.2024</p></details>") in quill
    assert text(section(quill, '<span class="authors">', "</span>\n")) == "Rosa Quint, Ziheng Jiang and Wencong Xiao"
    loom = section(pubs, 'id="pubs-2022"', "</li>")
    assert text(section(loom, '<span class="authors">', "</span>\n")) == "Rosa Quint and Haibin Lin"
    assert "DOI" not in loom and f'href="/bib/{LOOM}"' in loom and 'class="cite"' in loom
    assert rosa.get(f"/bib/{QUILL}").get_data(as_text=True).count("doi = {10.5555/quill.2024}") == 1


def test_person_page_orcid_degree_field_coauthors_and_no_name_parts(rosa: FlaskClient) -> None:
    html = page(rosa, f"/page/{ROSA}")
    badge = section(html, '<p class="orcid">', "</p>")
    assert 'href="https://orcid.org/0000-0002-1825-0097"' in badge and "<svg" in badge
    assert text(badge) == "ORCID iD: https://orcid.org/0000-0002-1825-0097"
    assert '<span class="field">, in Computer Science</span>' in html
    assert "Name parts" not in html
    listed = section(html, '<ol class="coauthor-list">', "</ol>")
    assert re.findall(r'<a href="/page/person/([a-z-]+)">[^<]+</a> <span class="count"[^>]*>(\d+)</span>', listed) == [
        ("haibin-lin", "1"), ("wencong-xiao", "1"), ("ziheng-jiang", "1")]


def test_initials_only_coauthors_are_explained_on_the_page(client: FlaskClient) -> None:
    html = page(client, "/page/person/wencong-xiao")
    legend = section(html, '<p class="legend" id="maybe-legend">', "</p>")
    assert "initials only" in legend and "may be one person" in legend
    listed = section(html, '<ol class="coauthor-list">', "</ol>")
    assert listed.count("<li>") > 24  # every co-author, not only the 24 drawn
    marked = re.findall(r'<span class="maybe-mark" title="[^"]+">\?</span> <span class="meta">possibly (.+?)</span>',
                        listed)
    assert marked and all('href="/page/person/' in m for m in marked)


def test_links_are_shown_once_with_their_labels(rosa: FlaskClient) -> None:
    html = page(rosa, f"/page/{ROSA}")
    box = section(html, '<ul class="plain links-out">', "</ul>")
    assert box.count('href="https://rosa-quint.example.org/"') == 1
    assert '<a href="https://rosa-quint.example.org/" rel="external">Homepage</a>' in box
    assert '<a href="https://github.com/rosa-quint-example" rel="external">GitHub</a>' in box
    assert "Google Scholar <span class=\"meta\">(the source gives no address)</span>" in box
    assert box.count("no address") == 1 and "orcid.org" not in box
    work = page(rosa, f"/page/{QUILL}")
    links = section(work, '<ul class="plain links-out">', "</ul>")
    assert '<a href="https://rosa-quint.example.org/quill.pdf" rel="external">PDF</a>' in links
    assert "no address" not in links
    assert "Slides <span class=\"meta\">(the source gives no address)</span>" in page(rosa, f"/page/{LOOM}")


def test_work_page_has_no_rdf_type_chips(client: FlaskClient) -> None:
    html = page(client, f"/page/{TVM}")
    shown = html[:html.index('<section class="statements"')]
    assert 'class="type"' not in shown and "schema:" not in shown and "bibo:" not in shown
    assert "<dt>Types</dt>" not in shown and "<dt>Kind</dt><dd>Conference paper</dd>" in shown
    authors = text(section(shown, '<ol class="authors sentence">', "</ol>"))
    assert authors.endswith("Luis Ceze, Carlos Guestrin and Arvind Krishnamurthy")
    organisation = page(client, "/page/organization/bytedance")
    assert 'class="type"' not in organisation[:organisation.index('<section class="statements"')]


def test_organisation_page_lists_a_student_once(client: FlaskClient, rosa: FlaskClient) -> None:
    for c, people in ((client, ["ziheng-jiang"]), (rosa, ["rosa-quint", "ziheng-jiang"])):
        html = page(c, "/page/organization/university-of-washington")
        studied = section(html, "<caption>Studied here</caption>", "</table>")
        assert sorted(re.findall(r'<tr><td><a href="/page/person/([a-z-]+)"', studied)) == people
        assert studied.count("at <a href=\"/page/organization/paul-g-allen-school\"") == len(people)


def test_a_link_keeps_its_label_with_its_address(rosa: FlaskClient) -> None:
    person, work = URIRef(BASE + ROSA), URIRef(BASE + QUILL)
    actual, expected, described = Graph(), Graph(), Graph()
    for owner, path in ((person, ROSA), (work, QUILL)):
        described.parse(data=rosa.get(f"/data/{path}.nt").get_data(as_text=True), format="nt")
        for node in described.objects(owner, RDFS.seeAlso):
            actual.add((owner, RDFS.seeAlso, node))
            for triple in described.triples((node, None, None)):
                actual.add(triple)
    for owner, links in ((person, [("Homepage", "https://rosa-quint.example.org/"),
                                   ("GitHub", "https://github.com/rosa-quint-example"), ("Google Scholar", None)]),
                         (work, [("PDF", "https://rosa-quint.example.org/quill.pdf"),
                                 ("Code", "https://github.com/rosa-quint-example/quill")])):
        for label, url in links:
            node = BNode()
            expected.add((owner, RDFS.seeAlso, node))
            expected.add((node, RDF.type, URIRef(SCHEMA + "WebPage")))
            expected.add((node, URIRef(SCHEMA + "name"), Literal(label)))
            if url:
                expected.add((node, URIRef(SCHEMA + "url"), URIRef(url)))
    assert_isomorphic(actual, expected)
    assert (work, URIRef("http://purl.org/ontology/bibo/doi"), Literal("10.5555/quill.2024")) in described
    assert (work, URIRef(SCHEMA + "sameAs"), URIRef("https://doi.org/10.5555/quill.2024")) in described
    assert not [t for t in described if str(t[1]).endswith("#linkLabel")]
