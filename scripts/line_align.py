"""Line labels for a development page, from its facts.yaml: which line is which publication's title,
authors or venue, which are link labels, awards, headings or other text.

    python scripts/line_align.py tests/data/import_realworld/dev/<stem>.txt   # prints 'label<TAB>line'

The labels come from matching each line of the page's publication sections against the annotated
publications, in page order; the training script reads them the same way. Development pages only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import yaml  # noqa: E402

from kg.importers.citation import AWARD, NOTE, take_links  # noqa: E402
from kg.importers.html import html_lines  # noqa: E402
from kg.importers.markup import text_lines  # noqa: E402
from kg.importers.pubs import YEAR_HEADING, is_subheading  # noqa: E402
from kg.importers.records import Line  # noqa: E402
from kg.importers.sections import PUBLICATIONS, split_sections  # noqa: E402
from kg.resolution import normalize_name  # noqa: E402

Labelled = list[tuple[str, str]]
_DATE_ONLY = re.compile(r"(?:(?:published|date|year)\s*:?\s*)?(?:\w{3,9}\.?\s+)?(?:\d{1,2},?\s+)?(?:19|20)\d\d"
                        r"(?:[./-]\d{1,2})?\.?", re.I)
_YEARS = re.compile(r"['’]\d{2}\b|\b(?:19|20)\d\d\b")


def _family(author: str) -> str:
    """An author's family name, normalised ('Okonkwo, M.' and 'M. Okonkwo' give 'okonkwo')."""
    name = re.sub(r"[*†‡#§✉]", "", author).strip()
    if "," in name:
        return normalize_name(name.split(",")[0]).split()[-1:][0] if normalize_name(name.split(",")[0]) else ""
    tokens = normalize_name(name).split()
    return tokens[-1] if tokens else ""


def _kind(text: str, pub: dict, title_key: str) -> str | None:
    """What part of one publication a line is, or None."""
    key = normalize_name(text)
    if not key:
        return None
    families = [f for f in (_family(str(a)) for a in pub.get("authors") or []) if f]
    words = set(key.split())
    named = sum(1 for f in families if f in words)
    has_title = bool(title_key) and title_key in key
    if has_title and families and named >= max(1, 0.6 * len(families)) and len(key) > len(title_key) + 8:
        return "citation"
    if has_title and len(title_key) >= 0.6 * len(key):
        return "title"
    if families and named >= max(1, 0.6 * len(families)) and not has_title:
        return "authors"
    if _DATE_ONLY.fullmatch(text.strip()) and pub.get("year") and str(pub["year"]) in text:
        return "venue"
    venue = normalize_name(_YEARS.sub(" ", str(pub.get("venue") or "")))
    if venue and venue in normalize_name(_YEARS.sub(" ", text)) and not has_title:
        return "venue"
    return None


def _extra(text: str) -> str | None:
    """A line that belongs to no field but to a publication's furniture: link labels, an award, a note."""
    rest, labels = take_links(text)
    if labels and not rest:
        return "links"
    if AWARD.search(text) and len(text.split()) <= 10:
        return "award"
    if NOTE.match(text.strip(" .()")):
        return "note"
    return None


def align(lines: list[Line], pubs: list[dict]) -> Labelled:
    """Labels for the lines of a publication list, matched against its publications in order."""
    keys = [normalize_name(str(p.get("title") or "")) for p in pubs]
    out: Labelled = []
    current = -1
    filled: set[str] = set()
    for line in lines:
        text = line.text
        if not text:
            out.append(("", ""))
            continue
        if YEAR_HEADING.match(text):
            out.append((text, "heading"))
            continue
        label = "other"
        window = [j for j in [current, *range(current + 1, min(len(pubs), current + 4))] if j >= 0]
        kinds = {j: _kind(text, pubs[j], keys[j]) for j in window}
        titled = [j for j in window if kinds[j] in ("title", "citation") and
                  not (j == current and kinds[j] in filled)]
        chosen = titled[0] if titled else next((j for j in window if kinds[j] is not None and (
            j == current and (kinds[j] not in filled or kinds[j] == "authors") or
            j != current and kinds[j] == "venue")), None)
        for j in [chosen] if chosen is not None else []:
            kind = kinds[j]
            assert kind is not None
            start = j != current
            if start:
                current, filled = j, set()
            filled.add(kind)
            label = ("B-" if start else "I-") + kind
            break
        else:
            extra = _extra(text)
            if YEAR_HEADING.match(text) or (is_subheading(text) and not text.endswith(".")) or line.heading:
                label = "heading"
            elif extra and current >= 0:
                label = "I-" + extra
        out.append((text, label))
    return out


def page_lines(path: Path) -> list[Line]:
    """The importer's lines of a page."""
    text = path.read_text(encoding="utf-8")
    return html_lines(text) if path.suffix in (".html", ".htm") else text_lines(text)


def labelled_sections(path: Path) -> list[Labelled]:
    """Labelled lines of each publication section of a development page (sections holding annotated titles)."""
    facts = yaml.safe_load(path.with_name(path.name.rsplit(".", 1)[0] + ".facts.yaml").read_text(encoding="utf-8"))
    pubs = facts.get("publications") or []
    lines = page_lines(path)
    out = []
    for section in split_sections(lines, set()):
        rows = align(section.lines, pubs)
        starts = sum(1 for _, label in rows if label.startswith("B-"))
        if starts and (section.kind == PUBLICATIONS or starts >= 2):
            out.append(rows)
    return out


def main() -> int:
    """Print the labelled sections of the pages given."""
    for arg in sys.argv[1:]:
        for rows in labelled_sections(Path(arg)):
            for text, label in rows:
                print(f"{label or '-'}\t{text[:110]}")
            print("=" * 40)
    return 0


if __name__ == "__main__":
    sys.exit(main())
