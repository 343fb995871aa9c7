"""BibTeX twins: a person's publications and one work as entries a reference manager reads back: the page's
authors, year and venue, keys unique, LaTeX specials encoded, capitals braced; 404 for other kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import bibtexparser
import pytest
from flask.testing import FlaskClient

from kg.config import Config
from kg.server import create_app
from kg.server.pages.citations import bibtex, citation_key

from .conftest import REPO_DATA

TVM = "work/tvm-an-automated-end-to-end-optimizing-compiler-for-deep"


@pytest.fixture(scope="module")
def client(built_store_dir: Path) -> FlaskClient:
    """A test client over the repository's data."""
    return create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0)).test_client()


def _entries(client: FlaskClient, path: str) -> list[Any]:
    response = client.get(f"/bib/{path}")
    assert response.status_code == 200 and response.content_type == "application/x-bibtex; charset=utf-8"
    library = bibtexparser.parse_string(response.get_data(as_text=True))
    assert not library.failed_blocks
    return list(library.entries)


def test_a_person_s_bibtex_has_one_entry_per_work_on_the_page(client: FlaskClient) -> None:
    entries = _entries(client, "person/ziheng-jiang")
    page = client.get("/page/person/ziheng-jiang", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert len(entries) == page.count('<li class="publication">') > 5
    assert len({e.key for e in entries}) == len(entries)
    assert all("Ziheng Jiang" in e["author"] and e["title"] and e["year"] for e in entries)
    assert 'href="/bib/person/ziheng-jiang"' in page and 'type="application/x-bibtex"' in page


def test_a_conference_paper_is_inproceedings_with_its_authors_in_order(client: FlaskClient) -> None:
    (entry,) = _entries(client, TVM)
    assert entry.entry_type == "inproceedings" and entry.key == "chen2018tvm"
    assert entry["title"] == "{TVM}: An Automated {End-to-End} Optimizing Compiler for Deep Learning"
    assert entry["author"].split(" and ")[:3] == ["Tianqi Chen", "Thierry Moreau", "Ziheng Jiang"]
    assert entry["year"] == "2018" and "Operating Systems Design and Implementation" in entry["booktitle"]


def test_a_preprint_is_misc_and_says_so(client: FlaskClient) -> None:
    preprints = [e for e in _entries(client, "person/wencong-xiao") if e.entry_type == "misc"]
    assert preprints and all(e["note"] == "Preprint" for e in preprints)


def test_only_people_and_works_have_bibtex_and_it_revalidates(client: FlaskClient) -> None:
    assert client.get("/bib/organization/alibaba-group").status_code == 404
    assert client.get("/bib/work/never-was").status_code == 404
    first = client.get(f"/bib/{TVM}")
    assert client.get(f"/bib/{TVM}", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304


class Bare:
    """A reader that knows nothing beyond the records (no DOI, no URL)."""

    def text(self, *_: Any) -> None:
        """No value."""

    def values(self, *_: Any) -> list[Any]:
        """No values."""
        return []


def _record(title: str, authors: list[str], year: int | None = 2024, **extra: Any) -> dict[str, Any]:
    return {"iri": "https://kg.example.org/id/work/x", "label": title, "year": year, "status": "Published",
            "complete": True, "venue": None, "authors": [{"label": a, "elided_before": False} for a in authors],
            **extra}


def test_specials_are_encoded_and_keys_disambiguated() -> None:
    records = [_record("50% faster & {safe} caching_for $cheap", ["Zoë Müller"]),
               _record("Faster caching", ["Zoë Müller"]), _record("Untitled", [], year=None, complete=False)]
    text = bibtex(Bare(), records)
    assert r"50\% faster \& \{safe\} caching\_for \$cheap" in text and r'Zo\"e M\"uller' in text
    keys = [e.key for e in bibtexparser.parse_string(text).entries]
    assert keys == ["muller2024faster", "muller2024fastera", "anonuntitled"]
    assert "author = {others}" in text  # an incomplete list of no named authors
    assert citation_key(_record("On the Road", ["Ada Lovelace"]), set()) == "lovelace2024road"
