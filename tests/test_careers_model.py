"""The career model (kg.importers.pipeline.careers): experience and education entries read from section lines."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from kg.importers.pipeline.careers import available, read_careers
from kg.importers.records import Line

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

pytestmark = pytest.mark.skipif(not available(), reason="no career model installed")


def _lines(*texts: str) -> list[Line]:
    return [Line(i, i + 1, text) for i, text in enumerate(texts)]


def _facts(*texts: str, education: bool = False) -> list[tuple]:
    reading = read_careers(_lines(*texts), education)
    assert reading is not None
    return [(e.first("role") or e.first("degree"), e.first("organization") or e.first("institution"),
             e.span.start if e.span else None, (e.span.end or ("present" if e.span.open else None)) if e.span else None)
            for e in reading.entries]


def test_positions_with_the_dates_first() -> None:
    reading = read_careers(_lines("Jan 2021 - Present  Research Scientist, Vision Group, Google",
                                  "2018.7 - 2020.12 Software Engineer Tencent"), False)
    assert reading is not None
    found = [(e.first("role"), e.all("organization") + e.all("unit"), e.span) for e in reading.entries]
    assert [(role, "Google" in orgs or "Tencent" in orgs, span.start if span else None, span.open if span else None)
            for role, orgs, span in found] == [("Research Scientist", True, 2021, True),
                                               ("Software Engineer", True, 2018, False)]


def test_a_lab_acronym_is_not_the_institution() -> None:
    found = _facts("Ph.D. 2019. Computer Science, CSAIL, Massachusetts Institute of Technology.", education=True)
    assert [(d, i) for d, i, _, _ in found] == [("Ph.D.", "Massachusetts Institute of Technology")]


def test_two_line_degree_blocks() -> None:
    found = _facts("PhD in Physics, 2019", "University of Oslo", "MSc in Physics, 2014", "Uppsala University",
                   education=True)
    assert [(i, e) for _, i, _, e in found] == [("University of Oslo", 2019), ("Uppsala University", 2014)]


def test_dates_first_degree_lines() -> None:
    found = _facts("2018.9 - 2021.6 M.E Zhejiang University", "2014.9 - 2018.6 B.E Wuhan University", education=True)
    assert found == [("M.E", "Zhejiang University", 2018, 2021), ("B.E", "Wuhan University", 2014, 2018)]


def test_the_synthetic_sections_are_reproducible_and_labelled_per_token() -> None:
    from cv_synth import synth_section

    from kg.importers.pipeline.career_features import tokens_of

    first, second = random.Random(5), random.Random(5)
    one = [synth_section(first, n % 2 == 0, [], []) for n in range(20)]
    two = [synth_section(second, n % 2 == 0, [], []) for n in range(20)]
    assert one == two
    for texts, indents, labels in one:
        lines = [Line(i, i + 1, t, d) for i, (t, d) in enumerate(zip(texts, indents, strict=True))]
        assert len(tokens_of(lines)) == sum(len(row) for row in labels)
        assert any(label.startswith("B-") for row in labels for label in row)


def _import(tmp_path: Path, text: str) -> dict:
    from kg.config import PROJECT_ROOT
    from kg.importers import import_file
    from kg.importers.writer import data_of

    page = tmp_path / "page.txt"
    page.write_text(text, encoding="utf-8")
    return data_of(import_file(page, data=PROJECT_ROOT / "data").draft)


def test_news_and_services_give_no_positions(tmp_path: Path) -> None:
    draft = _import(tmp_path, "Ada Example\nExample Labs\nada@example.org\n\nAbout\nI study systems.\n\n"
                              "News\n2024.05: I joined Example Labs as a Research Scientist.\n"
                              "2023.09: Started as a Visiting Researcher at Example University.\n"
                              "2023.01: Research Intern at Example Corp, 2023.\n\nAcademic Services\n"
                              "2024: Reviewer, Program Committee Member, 2024\n2023: Student Volunteer Chair, 2023\n"
                              "2022: Session Chair, Workshop Organizer, 2022\n")
    assert not draft.get("experience") and not draft.get("education")


def test_a_section_of_degrees_and_positions_gives_each_its_kind(tmp_path: Path) -> None:
    draft = _import(tmp_path, "Ada Example\nExample Labs\nada@example.org\n\nAbout\nI study systems.\n\n"
                              "Education & Experience\n"
                              "2021 - Present  Research Scientist, Example Labs\n"
                              "2016 - 2021  Ph.D. in Computer Science, University of Oslo\n")
    assert [(e["role"], e["start"]) for e in draft["experience"]] == [("Research Scientist", 2021)]
    assert [(e["degree"], e["end"]) for e in draft["education"]] == [("Ph.D.", 2021)]
