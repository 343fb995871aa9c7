"""Theme renderings of the harvested publications (scripts/render_pages.py), the entry segmenter
(kg.importers.pipeline) and `kg import` on renderings of the harvested held-out repositories.

The held-out repositories were split off by training/harvest's rule before the renderer or the segmenter were
written; the floors below are what was measured on them, rounded down, and no held-out failure was read.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from kg.config import PROJECT_ROOT
from kg.importers.html import html_lines
from kg.importers.pipeline.page import page_lines
from kg.importers.pipeline.segment import MODEL, segment
from kg.importers.venues import Reference

from .shared import require_shared

# (strict publication F1 text, HTML) of kg import on the held-out repositories' own-theme renderings.
FLOORS = {"txt": 0.72, "html": 0.78}
# entry boundary F1 of the segmenter on the same renderings (text, HTML).
SEGMENT_FLOORS = {"txt": 0.97, "html": 0.94}


@pytest.fixture(scope="module")
def scripts() -> Iterator[dict[str, ModuleType]]:
    require_shared("import-exclusions.txt", reason="../shared/import-exclusions.txt is not beside this checkout")
    for folder in ("scripts", "benchmarks"):
        sys.path.insert(0, str(PROJECT_ROOT / folder))
    try:
        yield {name: importlib.import_module(name)
               for name in ("render_pages", "harvested_eval", "train_segment_model")}
    finally:
        for folder in ("scripts", "benchmarks"):
            sys.path.remove(str(PROJECT_ROOT / folder))


@pytest.fixture(scope="module")
def sites(scripts: dict[str, ModuleType]) -> list:
    return [s for s in scripts["render_pages"].load_sites() if s.pubs]


def test_renderings_are_deterministic_and_carry_their_truth(scripts: dict[str, ModuleType], sites: list) -> None:
    render = scripts["render_pages"].render
    site = next(s for s in sites if s.split == "dev" and len(s.pubs) >= 5)
    for theme in ("al-folio", "academicpages", "wowchemy", "distill", "hand-written"):
        first, again = render(site, theme, 3), render(site, theme, 3)
        assert (first.text, first.html) == (again.text, again.html)
        assert len(first.shown) == len(site.pubs)
        entries = {line.entry for line in first.lines if line.role == "entry"}
        assert entries == set(range(len(site.pubs))), theme
        for n, shown in enumerate(first.shown):  # every title is on a line of its own entry
            assert any(shown.title in line.text for line in first.lines if line.entry == n), (theme, n)
        assert all(line.entry is None for line in first.lines if line.role != "entry")
        visible = " ".join(line.text for line in html_lines(first.html))
        assert all(" ".join(s.title.split()) in visible for s in first.shown), theme


def test_an_html_list_gives_each_line_its_repeated_sibling_group() -> None:
    html = ("<h2>Papers</h2><ul><li><b>One title here</b><br>A. Author, B. Author<br>Venue 2024</li>"
            "<li><b>Two title here</b><br>C. Author<br>Venue 2023</li></ul><p>Contact me.</p>")
    lines = [line for line in page_lines(html, True) if line.text]
    starts = [line.text for line in lines if line.dom and line.dom[0][0] == "li" and line.dom[0][2]]
    assert starts == ["• One title here", "• Two title here"]
    assert not lines[0].dom and not lines[-1].dom


def test_the_segmenter_keeps_entries_and_their_line_breaks() -> None:
    text = ("Jane Doe\n\nPublications\n\n"
            "A Study of Things in Places\nJane Doe, John Roe\nJournal of Things, 2024\n\n"
            "Another Study of More Things\nJohn Roe, Jane Doe, Ann Poe\nConference on Places, 2023\n")
    entries = segment(page_lines(text, False), Reference.load(PROJECT_ROOT / "data"), set())
    assert entries is not None
    found = [e for e in entries if e.kind == "publication"]
    assert [e.text.splitlines()[0] for e in found] == ["A Study of Things in Places", "Another Study of More Things"]
    assert all(len(e.lines) == 3 == len(e.fields) for e in found)


@pytest.fixture(scope="module")
def held_out(scripts: dict[str, ModuleType]) -> dict:
    return scripts["harvested_eval"].harvested("heldout", PROJECT_ROOT / "data")


@pytest.mark.parametrize("label", list(FLOORS))
def test_held_out_renderings_hold_their_floors(scripts: dict[str, ModuleType], held_out: dict, label: str) -> None:
    totals, pages, failed = held_out[label]
    assert pages >= 10 and failed == 0
    f1 = scripts["harvested_eval"].f1(*totals["publication (all four)"])
    assert f1 >= FLOORS[label], f"{label}: strict publication F1 {f1:.3f} < {FLOORS[label]}"


def test_the_segmenter_holds_its_floors_on_held_out_renderings(scripts: dict[str, ModuleType]) -> None:
    figures = scripts["train_segment_model"].evaluate("heldout", MODEL)
    for label, floor in SEGMENT_FLOORS.items():
        assert figures[label][1] >= floor, f"{label}: entry boundary F1 {figures[label][1]:.3f} < {floor}"


def test_model_files_stay_small() -> None:
    assert MODEL.stat().st_size <= 8_000_000
    importers = PROJECT_ROOT / "src" / "kg" / "importers"
    assert sum(p.stat().st_size for p in importers.rglob("*.crfsuite")) <= 20_000_000


def test_the_shipped_segment_model_is_what_its_training_record_names(scripts: dict[str, ModuleType]) -> None:
    module = scripts["train_segment_model"]
    record = json.loads(module.RECORD.read_text(encoding="utf-8"))
    assert hashlib.sha256(MODEL.read_bytes()).hexdigest() == record["model_sha256"], \
        "the model is not the one its record names: retrain with python scripts/train_segment_model.py"
    assert (record["seed"], record["variants"], record["dev_weight"]) == (0, module.VARIANTS, 2)  # the defaults
    sample = module.sample_digest(record["seed"], record["variants"], record["sample_every"])
    assert sample == record["sample_sha256"], \
        "the training data the script makes has changed: retrain with python scripts/train_segment_model.py"


def test_segment_training_is_deterministic(scripts: dict[str, ModuleType], tmp_path: Path) -> None:
    module = scripts["train_segment_model"]
    ref = Reference.load(PROJECT_ROOT / "data")
    items = [item for site in module.dev_sites()[:3] for item in module.site_items(site, ref, 0, 1)]
    module.fit(items, tmp_path / "a.crfsuite")
    module.fit(items, tmp_path / "b.crfsuite")
    assert (tmp_path / "a.crfsuite").read_bytes() == (tmp_path / "b.crfsuite").read_bytes()
    assert (tmp_path / "a.crfsuite").stat().st_size > 1000
