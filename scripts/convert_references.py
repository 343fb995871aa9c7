"""Convert GROBID's and AnyStyle's labelled reference strings to one gzip'd JSON Lines file with one label set.

    python scripts/convert_references.py GROBID_CORPUS_DIR ANYSTYLE_PARSER_DIR [OUT]

GROBID_CORPUS_DIR holds the files of grobid-trainer/resources/dataset/citation/corpus/ (TEI, one <bibl> per
reference); ANYSTYLE_PARSER_DIR holds res/parser/core.xml and gold.xml (one <sequence> per reference). OUT defaults
to training/references/references.jsonl.gz. Each line is {"source", "tokens": [[text, label], ...]}: a segment's
text split at whitespace, each piece labelled with its segment's label; text outside any element is "other".
"""

from __future__ import annotations

import gzip
import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "training" / "references" / "references.jsonl.gz"
LABELS = ("title", "author", "editor", "container", "date", "volume", "issue", "pages", "publisher", "location",
          "doi", "url", "note", "other")

# AnyStyle element name -> our label.
ANYSTYLE = {
    "title": "title", "author": "author", "editor": "editor", "translator": "editor", "director": "editor",
    "producer": "editor", "journal": "container", "container-title": "container", "collection-title": "container",
    "date": "date", "volume": "volume", "pages": "pages", "publisher": "publisher", "location": "location",
    "doi": "doi", "url": "url", "note": "note", "genre": "note", "edition": "note", "isbn": "note", "medium": "note",
    "source": "note", "citation-number": "other",
}
# GROBID TEI element name (with the value of its level/unit/type attribute, when that decides) -> our label.
GROBID = {
    "author": "author", "authors": "author", "editor": "editor", "date": "date",
    "title:a": "title", "title:j": "container", "title:s": "container",
    "biblScope:vol": "volume", "biblScope:volume": "volume", "volumes": "volume",
    "biblScope:issue": "issue",
    "biblScope:pp": "pages", "biblScope:page": "pages", "biblScope:pages": "pages", "page": "pages",
    "biblStruct:page": "pages",
    "pubPlace": "location", "pubplace": "location", "publisher": "publisher", "publishe": "publisher",
    "orgName": "publisher", "orgName:collaboration": "author",
    "idno:doi": "doi", "ptr:web": "url", "note": "note", "notes": "note", "note:report": "note",
}


def _local(tag: str) -> str:
    """An element's name without its namespace."""
    return tag.rsplit("}", 1)[-1]


def grobid_label(element: ET.Element, has_article_title: bool) -> str:
    """Our label for one labelled child of a GROBID <bibl>."""
    name = _local(element.tag)
    kind = next((element.attrib[key] for key in ("level", "unit", "type", "leve") if element.attrib.get(key)), "")
    if name == "title" and kind in ("m", ""):
        return "container" if has_article_title else "title"
    if name == "idno":
        return "doi" if kind.lower() == "doi" else "note"
    return GROBID.get(f"{name}:{kind}") or GROBID.get(name) or "other"


def _tokens(segments: list[tuple[str, str]]) -> list[list[str]]:
    """Whitespace-split pieces of each (text, label) segment, each with its label."""
    return [[piece, label] for text, label in segments for piece in text.split()]


def grobid_references(corpus: Path) -> Iterator[list[list[str]]]:
    """The token lists of every <bibl> in GROBID's citation corpus, files in name order."""
    for path in sorted(corpus.glob("*.xml")):
        root = ET.parse(path).getroot()
        for bibl in root.iter():
            if _local(bibl.tag) != "bibl":
                continue
            has_article_title = any(_local(ch.tag) == "title" and ch.attrib.get("level") == "a" for ch in bibl)
            segments = [(bibl.text or "", "other")]
            for child in bibl:
                label = "other" if _local(child.tag) == "lb" else grobid_label(child, has_article_title)
                segments.append(("".join(child.itertext()), label))
                segments.append((child.tail or "", "other"))
            tokens = _tokens(segments)
            if any(label != "other" for _, label in tokens):
                yield tokens


def anystyle_references(path: Path) -> Iterator[list[list[str]]]:
    """The token lists of every <sequence> in one AnyStyle parser data set."""
    for sequence in ET.parse(path).getroot().iter("sequence"):
        segments = [("".join(child.itertext()), ANYSTYLE.get(child.tag, "other")) for child in sequence]
        tokens = _tokens(segments)
        if tokens:
            yield tokens


def records(grobid: Path, anystyle: Path) -> Iterator[dict[str, object]]:
    """Every converted reference, GROBID first, then AnyStyle's core and gold sets."""
    for tokens in grobid_references(grobid):
        yield {"source": "grobid", "tokens": tokens}
    for name in ("core", "gold"):
        for tokens in anystyle_references(anystyle / f"{name}.xml"):
            yield {"source": f"anystyle-{name}", "tokens": tokens}


def write_jsonl_gz(path: Path, rows: Iterator[dict[str, object]] | list[dict[str, object]]) -> int:
    """Write rows as gzip'd JSON Lines with a fixed timestamp (the same input gives the same bytes); the count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        for row in rows:
            out.write((json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
            count += 1
    return count


def main(argv: list[str]) -> int:
    """Convert both data sets and print the count per source."""
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[2]) if len(argv) == 3 else OUT
    rows = list(records(Path(argv[0]), Path(argv[1])))
    write_jsonl_gz(out, rows)
    counts: dict[str, int] = {}
    for row in rows:
        counts[str(row["source"])] = counts.get(str(row["source"]), 0) + 1
    for source, count in counts.items():
        print(f"{source}\t{count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
