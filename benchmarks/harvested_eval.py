"""Strict publication F1 of `kg import` on theme renderings of the harvested repositories (scripts/render_pages.py).

Each repository of a split is rendered in its own theme (seed 0), as copied text and as HTML, imported with
`kg.importers.import_file` and scored against what the rendering shows, with the real-world evaluation's
normalisation (benchmarks/facts_eval.py): title, authors in order, venue and year, and all four together.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from collections.abc import Hashable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

from facts_eval import FACT_FIELDS, Matcher, draft_facts, expected_facts  # noqa: E402
from render_pages import Rendering, Site, load_sites, render, themes_for  # noqa: E402

from kg.errors import KgError  # noqa: E402
from kg.importers import import_file  # noqa: E402
from kg.importers.venues import Reference  # noqa: E402
from kg.importers.writer import data_of  # noqa: E402

PUB_FIELDS = FACT_FIELDS[:5]
Totals = dict[str, list[int]]


def facts_of(rendering: Rendering) -> dict[str, object]:
    """A rendering's truth as a facts.yaml mapping."""
    return {"publications": [{"title": s.title, "authors": list(s.authors), "venue": s.venue, "year": s.year}
                             for s in rendering.shown]}


def score_page(rendering: Rendering, suffix: str, matcher: Matcher, data: Path, totals: Totals) -> bool:
    """Import one rendering (.txt or .html) and add its counts to the totals; False when the import failed."""
    expected = expected_facts(facts_of(rendering), matcher)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / f"page{suffix}"
        page.write_text(rendering.text if suffix == ".txt" else rendering.html, encoding="utf-8")
        try:
            actual = draft_facts(data_of(import_file(page, data=data).draft), matcher, expected)
        except KgError:
            ok = False
            actual = {f: Counter() for f in FACT_FIELDS}
    for f in PUB_FIELDS:
        got: Counter[Hashable] = actual[f]
        want: Counter[Hashable] = expected[f]
        totals[f][0] += sum((got & want).values())
        totals[f][1] += sum(got.values())
        totals[f][2] += sum(want.values())
    return ok


def f1(tp: int, n_actual: int, n_expected: int) -> float:
    """F1 of one field's counts."""
    return 2 * tp / (n_actual + n_expected) if n_actual + n_expected else 1.0


def harvested(split: str = "heldout", data: Path = ROOT / "data", sites: list[Site] | None = None
              ) -> dict[str, tuple[Totals, int, int]]:
    """Per rendering (txt, html): the per-field counts, the pages scored and the pages the importer rejected."""
    matcher = Matcher(Reference.load(data))
    out: dict[str, tuple[Totals, int, int]] = {}
    chosen = [s for s in (sites if sites is not None else load_sites()) if s.split == split and s.pubs]
    for suffix in (".txt", ".html"):
        totals: Totals = {f: [0, 0, 0] for f in PUB_FIELDS}
        failed = 0
        for site in chosen:
            rendering = render(site, themes_for(site, 0, 1)[0], 0)
            failed += not score_page(rendering, suffix, matcher, data, totals)
        out[suffix[1:]] = (totals, len(chosen), failed)
    return out


def harvested_markdown(results: dict[str, tuple[Totals, int, int]], split: str) -> str:
    """The harvested figures as Markdown."""
    lines = ["", f"# kg import on theme renderings of the harvested {split} repositories", ""]
    for label, (totals, pages, failed) in results.items():
        lines += [f"## {label}: {pages} pages, {failed} rejected", "",
                  "| field | precision | recall | F1 | matched | imported | expected |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for f, (tp, n_a, n_e) in totals.items():
            p = tp / n_a if n_a else 0.0
            r = tp / n_e if n_e else 0.0
            lines.append(f"| {f} | {p:.3f} | {r:.3f} | {f1(tp, n_a, n_e):.3f} | {tp} | {n_a} | {n_e} |")
        lines.append("")
    return "\n".join(lines) + "\n"
