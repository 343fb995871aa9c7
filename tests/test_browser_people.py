"""The people directory, a person page and a work page in a real headless Chromium against a real `kg serve`: the
ORCID badge, years, DOI, cite and BibTeX per entry, the co-author list and its legend, links with their labels,
and no sideways scrolling on a 390 px wide phone. Skips like tests/test_browser.py without Chromium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kg.config import Config

from .conftest import REPO_DATA
from .server_process import kg_serve
from .test_browser import Watch, browser, screenshot  # noqa: F401 (browser is a fixture used here)

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)

PROFILE = Path(__file__).parent / "data" / "linked_pages" / "rosa-quint.yaml"
QUILL = "work/quill-checkpointing-large-model-training-without-stalls"


@pytest.fixture(scope="module")
def people_server(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:  # noqa: F811
    """A real `kg serve` over the seed data plus a made-up profile with an ORCID iD, links and a DOI."""
    from kg.pipeline import build

    root = tmp_path_factory.mktemp("browser-people")
    shutil.copytree(REPO_DATA, root / "data", ignore=shutil.ignore_patterns("edits"))
    shutil.copy(PROFILE, root / "data" / "profiles" / PROFILE.name)
    build(Config(data=root / "data", store=root / "kg" / "store"))
    with kg_serve(root / "data", root / "kg" / "store") as url:
        yield url


@pytest.fixture()
def tab(browser: Any, people_server: str) -> Iterator[Any]:  # noqa: F811
    """A page confined to the server whose console errors fail the test."""
    watch = Watch()
    context = browser.new_context(base_url=people_server, viewport={"width": 1280, "height": 900},
                                  service_workers="block")
    context.route("**/*", watch.route)
    page = context.new_page()
    page.on("console", lambda message: watch.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: watch.errors.append(f"page error: {error}"))
    yield page
    context.close()
    watch.check()


def no_sideways_scroll(page: Any) -> bool:
    """Whether the page fits its viewport's width."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_person_page_in_chromium(tab: Any) -> None:
    response = tab.goto("/page/person/rosa-quint")
    assert response is not None and response.status == 200
    assert tab.locator("h1").inner_text() == "Rosa Quint"
    badge = tab.locator("a.orcid-badge")
    assert badge.is_visible() and badge.get_attribute("href") == "https://orcid.org/0000-0002-1825-0097"
    assert badge.locator("svg circle").first.get_attribute("fill") == "#a6ce39"
    assert "0000-0002-1825-0097" in badge.inner_text()
    assert [h.inner_text().split()[0] for h in tab.locator("section.year-group h3").all()] == ["2024", "2022"]
    assert "Name parts" not in tab.locator("main").inner_text()
    assert tab.get_by_text("in Computer Science").is_visible()
    first = tab.locator("li.publication").first
    assert first.locator("span.authors").inner_text() == "Rosa Quint, Ziheng Jiang and Wencong Xiao"
    assert first.get_by_role("link", name="DOI").get_attribute("href") == "https://doi.org/10.5555/quill.2024"
    assert first.get_by_role("link", name="PDF").is_visible() and first.get_by_role("link", name="Code").is_visible()
    citation = first.locator("p.citation")
    assert not citation.is_visible()
    first.get_by_text("Cite", exact=True).click()
    assert citation.is_visible()
    assert citation.inner_text().startswith("Rosa Quint, Ziheng Jiang and Wencong Xiao. Quill")
    bibtex = tab.request.get(first.get_by_role("link", name="BibTeX").get_attribute("href"))
    assert bibtex.ok and bibtex.text().startswith("@inproceedings{quint2024quill,")
    coauthors = tab.locator("ol.coauthor-list > li")
    assert coauthors.count() == 3 and coauthors.first.is_visible()
    links = tab.locator("ul.links-out")
    assert links.get_by_role("link", name="GitHub").get_attribute("href") == "https://github.com/rosa-quint-example"
    assert links.get_by_role("link", name="Homepage").count() == 1
    screenshot(tab, "person-rosa-quint")
    tab.set_viewport_size({"width": 390, "height": 844})
    tab.reload()
    assert no_sideways_scroll(tab) and tab.locator("a.orcid-badge").is_visible()
    screenshot(tab, "person-rosa-quint-390")


def test_home_counts_lead_to_people_and_the_legend(tab: Any) -> None:
    tab.goto("/")
    tab.locator("ul.highlights").get_by_role("link", name="3 with a profile").click()
    tab.wait_for_url("**/people#profiles")
    profiles = tab.locator("#profiles + ul.profiles > li")
    assert profiles.count() == 3
    tab.locator("ul.profiles").get_by_role("link", name="Wencong Xiao", exact=True).click()
    tab.wait_for_url("**/page/person/wencong-xiao")
    legend = tab.locator("#maybe-legend")
    assert legend.is_visible() and "initials only" in legend.inner_text()
    assert tab.locator("ol.coauthor-list .maybe-mark").first.is_visible()
    tab.set_viewport_size({"width": 390, "height": 844})
    for path in ("/people", "/page/person/wencong-xiao", f"/page/{QUILL}", "/"):
        tab.goto(path)
        assert no_sideways_scroll(tab), path


def test_work_page_in_chromium(tab: Any) -> None:
    tab.goto(f"/page/{QUILL}")
    main = tab.locator("main")
    assert main.locator(".type").count() == 0
    assert tab.locator("ol.authors").inner_text().replace("\n", "") == "Rosa Quint, Ziheng Jiang and Wencong Xiao"
    assert tab.locator("ul.links-out").get_by_role("link", name="PDF").is_visible()
    assert tab.get_by_role("link", name="10.5555/quill.2024").get_attribute("href") == (
        "https://doi.org/10.5555/quill.2024")
