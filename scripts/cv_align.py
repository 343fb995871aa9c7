"""Token labels for the experience and education sections of the real-world development pages, from their
annotations: each annotated position or degree is found in the section's lines (role, organisation, degree,
field, institution, years), and the lines from one found entry to the next are that entry. A section is kept only
when every entry annotated for it is found. Held-out pages are never read.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cv_synth import REALWORLD, _split_degree, _year_of  # noqa: E402

from kg.importers.html import html_lines  # noqa: E402
from kg.importers.markup import text_lines  # noqa: E402
from kg.importers.menu import mark_menu  # noqa: E402
from kg.importers.pipeline.career_features import TOKEN  # noqa: E402
from kg.importers.records import Line  # noqa: E402
from kg.importers.sections import EDUCATION, EXPERIENCE, split_sections  # noqa: E402

Labelled = tuple[list[Line], list[str], bool]
_OPEN = re.compile(r"^(?:present|now|current|today|ongoing)$", re.I)


def _occurrences(lines: list[Line], text: str) -> list[tuple[int, int, int]]:
    """(line position, start, end) of each case-insensitive occurrence of a text."""
    needle = " ".join(str(text).split()).lower()
    out = []
    for i, line in enumerate(lines):
        at = line.text.lower().find(needle) if needle else -1
        if at >= 0:
            out.append((i, at, at + len(needle)))
    return out


def _find(lines: list[Line], text: str, near: int, taken: set[int]) -> tuple[int, int, int] | None:
    """The occurrence of a text nearest a line (at or after it first), on a line no other entry took."""
    found = [o for o in _occurrences(lines, text) if o[0] not in taken]
    if not found:
        return None
    return min(found, key=lambda o: (o[0] < near, abs(o[0] - near)))


def _entry_parts(fact: dict[str, Any], education: bool) -> list[tuple[str, str]]:
    """(text, field) pieces of an annotated entry to look for."""
    if education:
        parts = [(t, k) for t, k in _split_degree(str(fact["degree"])) if k]
        return parts + [(str(fact["institution"]), "institution")]
    return [(str(fact["role"]), "role"), (str(fact["organization"]), "organization")]


def label_section(lines: list[Line], facts: list[dict[str, Any]], education: bool) -> Labelled | None:
    """The section's non-blank lines and their token labels, or None when an annotated entry is not found."""
    tags: dict[tuple[int, int], str] = {}
    firsts: list[int] = []
    spans: list[tuple[int, int]] = []
    taken: set[int] = set()
    cursor = 0
    for fact in facts:
        parts = _entry_parts(fact, education)
        anchor = _find(lines, parts[0][0], cursor, taken)
        if anchor is None:
            return None
        found = [(anchor, parts[0][1])] + [(_find(lines, text, anchor[0], taken - {anchor[0]}), kind)
                                           for text, kind in parts[1:]]
        if any(f is None for f, _ in found):
            return None
        cursor = anchor[0] + 1
        rows = [f[0] for f, _ in found if f is not None]
        if sum(1 for line in lines[min(rows): max(rows) + 1] if line.text) > 5:
            return None
        for f, kind in found:
            assert f is not None
            row, start, end = f
            for m in TOKEN.finditer(lines[row].text):
                if start <= m.start() < end:
                    tags[(row, m.start())] = kind
        first, last = min(rows), max(rows)
        years = {_year_of(fact.get("start")), _year_of(fact.get("end"))} - {None}
        full = [i for i, line in enumerate(lines) if line.text]
        at_first, at_last = full.index(first), full.index(last)
        for row in full[max(0, at_first - 1): at_last + 2]:
            toks = list(TOKEN.finditer(lines[row].text))
            hits = [m for m in toks if (m.group(0)[:4].isdigit() and int(m.group(0)[:4]) in years) or
                    ("present" in years and _OPEN.match(m.group(0)))]
            if not hits or (row not in rows and any((row, m.start()) in tags for m in toks)):
                continue
            for n, m in enumerate(toks):
                if hits[0].start() <= m.start() <= hits[-1].start() or (
                        m.start() < hits[0].start() and n + 1 < len(toks) and toks[n + 1] is hits[0] and
                        m.group(0)[:1].isalpha()):
                    tags.setdefault((row, m.start()), "start" if m.start() <= hits[0].start() else "end")
            if row < first:
                first = row
            break
        firsts.append(first)
        spans.append((first, last))
        taken.update(range(first, last + 1))
    order = sorted(firsts)
    if len(set(order)) != len(order):
        return None
    labels: list[str] = []
    full = [i for i, line in enumerate(lines) if line.text]
    end = full[min(len(full) - 1, full.index(max(last for _, last in spans)) + 3)]
    for row, line in enumerate(lines):
        entry_first = max((f for f in order if f <= row), default=None) if row <= end else None
        for n, m in enumerate(TOKEN.finditer(line.text)):
            if entry_first is None:
                labels.append("O")
                continue
            kind = tags.get((row, m.start()), "other")
            labels.append(("B-" if row == entry_first and n == 0 else "I-") + kind)
    return lines, labels, education


def dev_sections() -> list[Labelled]:
    """Labelled experience and education sections of the development pages, text and HTML renderings."""
    out: list[Labelled] = []
    for facts_path in sorted(REALWORLD.glob("*.facts.yaml")):
        facts = yaml.safe_load(facts_path.read_text(encoding="utf-8")) or {}
        stem = facts_path.name.removesuffix(".facts.yaml")
        for suffix in (".txt", ".html"):
            page = REALWORLD / f"{stem}{suffix}"
            if not page.exists():
                continue
            text = page.read_text(encoding="utf-8")
            lines = mark_menu(html_lines(text) if suffix == ".html" else text_lines(text))
            for section in split_sections(lines, set()):
                if section.kind not in (EDUCATION, EXPERIENCE):
                    continue
                education = section.kind == EDUCATION
                wanted = facts.get("degrees" if education else "positions") or []
                content = list(section.lines)
                found = wanted and any(x.text for x in content)
                labelled = label_section(content, wanted, education) if found else None
                if labelled is not None:
                    out.append(labelled)
    return out


if __name__ == "__main__":
    for lines, labels, _ in dev_sections():
        it = iter(labels)
        for line in lines:
            sys.stdout.write(f"{line.text[:70]!r} {' '.join(next(it) for _ in TOKEN.finditer(line.text))}\n")
        sys.stdout.write("---\n")
