"""Synthetic publication lists with known line labels, in the layouts homepages use, for the line labeller.

Publications come from the repository's own data (profiles, the import corpus's expected drafts, the
real-world development pages' annotations) and from recombining their titles, authors and venues; a page
picks one layout (field order, gaps, bullets, venue style, link labels, awards, headings, descriptions)
and keeps it for every entry, as a real page does. Seeded, so a run is reproducible.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

Labelled = list[tuple[str, str]]  # (line text, label); a blank line has the label ""

_WORDS = ("we study how the system behaves under load and show a simple design that keeps latency low while "
          "using fewer machines than earlier approaches this work extends our previous prototype to new settings "
          "and reports results on public traces the project was carried out jointly with colleagues across "
          "several groups and received support from an industry grant a tool built from this research is now "
          "used in production by a large team our analysis shows where the bottleneck lies and how to remove "
          "it").split()
_LINK_SETS = (["PDF"], ["PDF", "Code"], ["Paper", "Slides"], ["paper", "slides", "video"], ["[PDF]", "[Code]"],
              ["[PDF] [Code] [Slides]"], ["PDF | Code | Slides"], ["arXiv", "Code"], ["abs", "bib", "pdf"],
              ["ABS", "BIB", "PDF", "CODE"], ["Cite", "DOI", "PDF"], ["[paper]", "[code]"], ["Project Page"],
              ["📄 Paper", "💻 Code"], ["[Paper] [Code] [Website]"], ["Preprint", "Code", "Dataset"])
_AWARDS = ("Best Paper Award", "🏆 Best Paper Award", "Distinguished Paper Award", "Best Student Paper Award",
           "(Best Paper Award)", "🏆 Distinguished Artifact Award", "Best Paper Honorable Mention",
           "Outstanding Paper Award")
_NOTES = ("Oral", "Spotlight", "(Oral presentation)", "Long Oral (3%)", "Invited paper", "Poster")
_GROUPS = ("Conference Papers", "Journal Articles", "Preprints", "Workshop Papers", "Selected Publications",
           "Conference", "Journal", "Refereed Conference Papers", "First Author", "Co-author", "Under Review",
           "Preprints & Manuscripts", "Peer-reviewed Publications", "Book Chapters", "Theses", "Full Papers",
           "Short Papers and Demos", "At Google Research", "At ByteDance Seed", "During my PhD",
           "Before graduate school", "Systems", "Machine Learning", "Security and Privacy", "Databases")
_LEGENDS = ("* denotes equal contribution", "(* equal contribution, † corresponding author)",
            "*: equal contribution", "* indicates co-first authors; † indicates corresponding author",
            "Names marked with * contributed equally.", "# corresponding author, * equal contribution")
_NEWS_LEAD = ("[2025.05]", "[Jan 2026]", "2024/09:", "Mar 2025 —", "(08/2025)", "[2026-02]", "🔥 [2025.11]")


VENUE_STYLES = {  # how pages write a venue line
    "acronym_year": "{acronym} {year}", "acronym_short": "{acronym}'{short}",
    "long_acronym": "{venue} ({acronym}), {year}", "proc": "In Proceedings of the {venue} ({acronym} '{short})",
    "glued": "{acronym} {year}{venue}", "comma": "{acronym}, {year}", "long_year": "{venue}, {year}.",
    "in_long": "In {venue}, {year}.", "long": "{venue} {year}",
}


@dataclass(frozen=True)
class Pub:
    """One publication's facts."""

    title: str
    authors: tuple[str, ...]
    venue: str
    acronym: str
    year: int | None


def _venue_rows(root: Path) -> list[dict[str, Any]]:
    """The entries of data/venues.yaml."""
    return yaml.safe_load((root / "data" / "venues.yaml").read_text(encoding="utf-8")) or []


def _venues(root: Path) -> list[tuple[str, str]]:
    """(long name, acronym) of each venue in data/venues.yaml."""
    return [(str(v.get("name") or ""), str(v.get("acronym") or v.get("name") or "")) for v in _venue_rows(root)]


def _author_names(value: Any) -> list[str]:
    """Author names of a YAML author list (plain strings or mappings with a name)."""
    out = []
    for a in value or []:
        name = a.get("name") if isinstance(a, dict) else a
        if name and str(name) not in ("...", "…"):
            out.append(str(name))
    return out


def known_pubs(root: Path, extra_facts: list[Path]) -> list[Pub]:
    """Publications stated in the repository's profiles, the import corpus and the given facts files."""
    venues = {str(v["id"]): (str(v.get("name") or ""), str(v.get("acronym") or v.get("name") or ""))
              for v in _venue_rows(root)}
    pubs: list[Pub] = []
    sources = sorted((root / "data" / "profiles").glob("*.yaml")) + \
        sorted((root / "tests" / "data" / "import_corpus").glob("*.expected.yaml"))
    for path in sources + extra_facts:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for p in doc.get("publications") or []:
            authors = _author_names(p.get("authors"))
            if not p.get("title") or not authors:
                continue
            written = str(p.get("venue_as_written") or p.get("venue") or "")
            written = re.sub(r",?\s*'?(?:19|20)?\d\d\.?$", "", written).strip()
            long_name, acronym = venues.get(str(p.get("venue") or ""), (written, written))
            year = p.get("year") if isinstance(p.get("year"), int) else None
            pubs.append(Pub(str(p["title"]), tuple(authors), long_name or written, acronym or written, year))
    return pubs


class Renderer:
    """Renders publication lists in one randomly chosen layout per page."""

    def __init__(self, rng: random.Random, pubs: list[Pub], venues: list[tuple[str, str]]) -> None:
        self.rng = rng
        self.pubs = pubs
        self.venues = [v for v in venues if v[0] and v[1]]
        self.names = sorted({a for p in pubs for a in p.authors})
        self.titles = sorted({p.title for p in pubs})

    def _pub(self) -> Pub:
        """A known publication, or one recombined from known titles, names and venues."""
        if self.rng.random() < 0.5:
            return self.rng.choice(self.pubs)
        long_name, acronym = self.rng.choice(self.venues)
        n = self.rng.choice((1, 2, 3, 3, 4, 4, 5, 6, 8))
        return Pub(self.rng.choice(self.titles), tuple(self.rng.sample(self.names, min(n, len(self.names)))),
                   long_name, acronym, self.rng.randint(2008, 2026))

    def _name(self, name: str, style: str) -> str:
        """An author name in a page's style: as given, initials, or 'Last, F.'."""
        parts = name.split()
        if len(parts) < 2 or style == "full":
            return name
        if style == "initials":
            return " ".join(p[0] + "." for p in parts[:-1]) + " " + parts[-1]
        if style == "initials_nodot":
            return "".join(p[0] for p in parts[:-1]) + " " + parts[-1]
        return f"{parts[-1]}, " + " ".join(p[0] + "." for p in parts[:-1])

    def _authors(self, pub: Pub, layout: dict[str, Any]) -> str:
        """An author line: names in the page's style, some marked, joined with commas and 'and'."""
        names = [self._name(a, layout["names"]) for a in pub.authors]
        if len(names) > 1 and self.rng.random() < layout["mark_rate"]:
            k = self.rng.randint(0, min(1, len(names) - 1))
            names[k] += layout["mark"]
            if k == 0 and len(names) > 1 and self.rng.random() < 0.6:
                names[1] += layout["mark"]
        if layout["et_al"] and len(names) > 4:
            return ", ".join(names[:3]) + ", et al."
        if layout["names"] == "last_first" and len(names) > 1:
            return "; ".join(names) if self.rng.random() < 0.3 else ", ".join(names[:-1]) + ", & " + names[-1]
        if len(names) > 1 and layout["and"]:
            return ", ".join(names[:-1]) + (", and " if len(names) > 2 else " and ") + names[-1]
        return ", ".join(names)

    def _venue(self, pub: Pub, layout: dict[str, Any]) -> str:
        """A venue line in the page's style."""
        year = pub.year or 2024
        return VENUE_STYLES[layout["venue"]].format(venue=pub.venue, acronym=pub.acronym, year=year,
                                                    short=f"{year % 100:02d}")

    def layout(self) -> dict[str, Any]:
        """A page's layout, drawn at random."""
        r = self.rng
        return {
            "order": r.choice(("TAV", "TAV", "TAV", "TVA", "VTA", "ATV", "one_line", "one_line", "TAV_inline")),
            "one_line": r.choice(("A. T. V.", "A. \"T,\" V.", "A (Y). T. V.", "A: T. V", "[V] T. A.", "T. A. V.")),
            "gap": r.choice(("none", "entry", "entry", "field")), "names": r.choice(
                ("full", "full", "full", "initials", "initials_nodot", "last_first")),
            "prefix": r.choice(("", "", "• ", "- ", "num", "bracket_num", "label", "venue_label")),
            "venue": r.choice(tuple(VENUE_STYLES)),
            "links": r.random() < 0.45, "links_inline": r.random() < 0.3, "links_set": r.choice(_LINK_SETS),
            "award_rate": r.choice((0.0, 0.1, 0.25)), "note_rate": r.choice((0.0, 0.0, 0.15)),
            "desc_rate": r.choice((0.0, 0.0, 0.0, 0.4, 1.0)), "groups": r.random() < 0.4, "years": r.random() < 0.25,
            "legend": r.random() < 0.3, "mark_rate": r.choice((0.0, 0.2, 0.4)), "mark": r.choice(("*", "*", "†", "#")),
            "and": r.random() < 0.5, "et_al": r.random() < 0.15, "news": r.random() < 0.25,
            "quote": r.random() < 0.2, "period": r.random() < 0.3, "tail_venue": r.random() < 0.08,
        }

    def _sentence(self, lo: int, hi: int) -> str:
        """A line of made-up prose."""
        n = self.rng.randint(lo, hi)
        start = self.rng.randrange(0, len(_WORDS) - n)
        text = " ".join(_WORDS[start:start + n])
        return text[:1].upper() + text[1:] + "."

    def _one_line(self, pub: Pub, layout: dict[str, Any]) -> str:
        """A whole citation on one line."""
        a, t, v = self._authors(pub, layout), pub.title, self._venue(pub, layout)
        form = layout["one_line"]
        if form == "A. \"T,\" V.":
            return f"{a}. “{t},” {v}"
        if form == "A (Y). T. V.":
            bare = re.sub(r",? (?:19|20)\d\d\.?$", "", v)
            return f"{a} ({pub.year or 2024}). {t}. {bare}."
        if form == "A: T. V":
            return f"{a}: {t}. {v}"
        if form == "[V] T. A.":
            return f"[{pub.acronym}'{(pub.year or 2024) % 100:02d}] {t}. {a}."
        if form == "T. A. V.":
            return f"{t}. {a}. {v}"
        return f"{a}. {t}. {v}"

    def _entry(self, pub: Pub, layout: dict[str, Any], number: int) -> Labelled:
        """The lines of one publication with their labels."""
        prefix = {"num": f"{number}. ", "bracket_num": f"[{number}] ", "label": f"[C{number}] "}.get(
            layout["prefix"], layout["prefix"] if layout["prefix"] in ("• ", "- ") else "")
        if layout["prefix"] == "venue_label":
            prefix = f"[{pub.acronym}'{(pub.year or 2024) % 100:02d}] "
        title = f"“{pub.title}”" if layout["quote"] else pub.title + ("." if layout["period"] else "")
        if layout["tail_venue"]:
            title = f"{pub.title} ({pub.acronym}'{(pub.year or 2024) % 100:02d}, May {pub.year or 2024} – Dec. " \
                    f"{pub.year or 2024})"
        rows: Labelled = []
        if layout["order"] == "one_line":
            rows.append((prefix + self._one_line(pub, layout), "citation"))
        else:
            fields = {"T": (title, "title"), "A": (self._authors(pub, layout), "authors"),
                      "V": (self._venue(pub, layout), "venue")}
            order = "TAV" if layout["order"] == "TAV_inline" else layout["order"]
            if layout["tail_venue"]:
                order = order.replace("V", "")
            rows += [fields[k] for k in order]
            if layout["order"] == "TAV_inline" and len(rows) == 3:
                rows = [rows[0], (f"{rows[1][0]}. {rows[2][0]}", "authors")]
            rows[0] = (prefix + rows[0][0], rows[0][1])
        if layout["links"]:
            links = layout["links_set"]
            if layout["links_inline"]:
                rows[-1] = (rows[-1][0] + " " + " ".join(links), rows[-1][1])
            else:
                rows += [(label, "links") for label in links]
        if self.rng.random() < layout["award_rate"]:
            rows.append((self.rng.choice(_AWARDS), "award"))
        if self.rng.random() < layout["note_rate"]:
            rows.append((self.rng.choice(_NOTES), "note"))
        if self.rng.random() < layout["desc_rate"]:
            rows.append((self._sentence(8, 30), "other"))
        labelled: Labelled = []
        for n, (text, kind) in enumerate(rows):
            label = kind if kind == "other" else ("B-" if n == 0 else "I-") + kind
            if layout["gap"] == "field" and n:
                labelled.append(("", ""))
            labelled.append((text, label))
        return labelled

    def page(self) -> Labelled:
        """One synthetic publication list."""
        layout = self.layout()
        rows: Labelled = []
        if layout["news"]:
            for _ in range(self.rng.randint(1, 4)):
                pub = self._pub()
                rows.append((f"{self.rng.choice(_NEWS_LEAD)} Our paper {pub.title} was accepted to "
                             f"{pub.acronym} {pub.year or 2025}!", "other"))
            rows.append(("", ""))
        if self.rng.random() < 0.3:
            rows += [(self._sentence(6, 20), "other"), ("", "")]
        if layout["legend"]:
            rows += [(self.rng.choice(_LEGENDS), "other"), ("", "")]
        pubs = [self._pub() for _ in range(self.rng.randint(2, 12))]
        if layout["years"]:
            pubs.sort(key=lambda p: -(p.year or 0))
        heading_every = self.rng.randint(2, 5)
        last_year = None
        for n, pub in enumerate(pubs):
            if layout["years"] and pub.year != last_year:
                rows += [("", ""), (str(pub.year or 2024), "heading"), ("", "")]
                last_year = pub.year
            elif layout["groups"] and n % heading_every == 0:
                rows += [("", ""), (self.rng.choice(_GROUPS), "heading"), ("", "")]
            rows += self._entry(pub, layout, len(pubs) - n if self.rng.random() < 0.5 else n + 1)
            if layout["gap"] != "none":
                rows.append(("", ""))
        return rows


def pages(root: Path, count: int, seed: int, extra_facts: list[Path]) -> list[Labelled]:
    """`count` synthetic pages."""
    rng = random.Random(seed)
    renderer = Renderer(rng, known_pubs(root, extra_facts), _venues(root))
    return [renderer.page() for _ in range(count)]
