"""Publication facts from one structured source file of an academic GitHub Pages site (used by harvest_training.py).

Parsers for al-folio BibTeX, academicpages and Hugo Academic / Wowchemy front matter, `_data` YAML lists, and the
al-folio rendering settings of `_config.yml`. Each returns plain records; filtering and splitting happen in `build`.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import tomllib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import bibtexparser
import yaml

SETTINGS = ("max_author_limit", "more_authors_animation_delay", "scholar.style", "scholar.last_name",
            "scholar.first_name", "scholar.sort_by", "scholar.order", "scholar.group_by", "scholar.bibliography")
BIB_TYPES = {
    "article": "article", "inproceedings": "conference", "conference": "conference", "proceedings": "conference",
    "book": "book", "incollection": "chapter", "inbook": "chapter", "phdthesis": "thesis",
    "mastersthesis": "thesis", "thesis": "thesis", "techreport": "report", "report": "report", "patent": "patent",
    "unpublished": "preprint", "misc": "other", "online": "other",
}
WOWCHEMY_TYPES = {"1": "conference", "2": "article", "3": "preprint", "4": "report", "5": "book", "6": "chapter",
                  "7": "thesis", "8": "patent", "paper-conference": "conference", "article-journal": "article",
                  "article": "preprint", "report": "report", "book": "book", "chapter": "chapter",
                  "thesis": "thesis", "patent": "patent"}
WORD_TYPES = (("conference", "conference"), ("proceeding", "conference"), ("workshop", "conference"),
              ("journal", "article"), ("article", "article"), ("manuscript", "article"), ("preprint", "preprint"),
              ("book", "book"), ("chapter", "chapter"), ("thesis", "thesis"), ("dissertation", "thesis"),
              ("report", "report"), ("patent", "patent"))
VENUE_KEYS = ("venue", "journal", "booktitle", "conference", "publication", "published_in", "pub", "where",
              "reference", "source", "howpublished", "school", "institution", "publisher", "PublicationInformation",
              "publication_info")
# Given-name initials standing alone after a surname in "Wong, S.L.A., Chen, Y.W." ("P.", "M. A.", "E-J", "L. (*)").
INITIALS = re.compile(r"^(?:[A-Z]{1,2}[a-z]?\.?[\s-]*){1,4}(?:\(\*?\)|\*)?$")
# Link labels that name no venue (the Allan lab template puts the venue in `link.display`).
LINK_LABELS = re.compile(r"^\W*(?:pdf|link|paper|abstract|html|url|doi|web|website|page|project|code|preprint|"
                         r"full text|download|here|arxiv)\W*$", re.I)



@dataclass(frozen=True)
class Source:
    """One input file: the repository, the commit it was read at, its path and its text."""

    repo: str
    commit: str
    path: str
    text: str


def fold(text: str) -> str:
    """Lower case without accents."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(ch))


# ---- parse --------------------------------------------------------------------------------------------------

def detex(text: str) -> str:
    """Plain text of a BibTeX value: LaTeX accents and commands decoded, braces and extra spaces removed."""
    text = str(text).replace("\ufeff", "")
    if "\\" in text or "{" in text or "$" in text:
        try:
            from pylatexenc.latex2text import LatexNodes2Text

            text = LatexNodes2Text(math_mode="verbatim").latex_to_text(text)
        except Exception:  # noqa: BLE001 - any LaTeX it cannot read is kept with only braces removed
            text = text.replace("{", "").replace("}", "")
    return " ".join(text.replace("~", " ").split())


def clean(value: Any) -> str:
    """A scalar front-matter or YAML value as one line of text, Markdown emphasis removed."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    text = re.sub(r"<[^>]{1,80}>", "", html.unescape(str(value))).replace("\ufeff", "").replace("\u200b", "")
    text = re.sub(r"(?<!\w)[*_]{1,2}([^*_]+?)[*_]{1,2}(?!\w)", r"\1", text)
    return " ".join(text.split())


def year_of(value: Any) -> int | None:
    """The four-digit year in a date or year value."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.year
    match = re.search(r"\b(1[89]\d\d|20\d\d)\b", str(value or ""))
    return int(match.group(1)) if match else None


def doi_of(*values: Any) -> str:
    """The first DOI among the values, without a resolver prefix."""
    for value in values:
        match = re.search(r"\b(10\.\d{4,9}/[^\s\"<>]+)", str(value or ""))
        if match:
            return match.group(1).rstrip(".,;)}'\"")
    return ""


def type_from_words(*values: Any) -> str:
    """A publication type from category or section words ("conferences" -> conference)."""
    text = " ".join(fold(str(v)) for v in values if v)
    return next((kind for word, kind in WORD_TYPES if word in text), "other" if text else "")


def authors_list(value: Any) -> list[str]:
    """Author names as written, in order, from a list or an "A, B and C" / "A and B" string."""
    if isinstance(value, list):
        listed = [clean(v if not isinstance(v, dict) else v.get("name", "")) for v in value]
        return [name for name in listed if name]
    text = clean(value)
    if not text:
        return []
    halves = [part.strip() for part in re.split(r"\s+and\s+", text) if part.strip()]
    if len(halves) > 1 and all(half.count(",") == 0 for half in halves):
        return halves
    if len(halves) > 1 and all(half.count(",") == 1 for half in halves):
        return halves
    names: list[str] = []
    for part in re.split(r"\s*(?:,|;|&|\band\b)\s*", text):
        if not part:
            continue
        if names and INITIALS.match(part) and "." not in names[-1] and not INITIALS.match(names[-1]):
            names[-1] = f"{names[-1]}, {part}"
        else:
            names.append(part)
    return names


def front_matter(text: str) -> dict[str, Any]:
    """A Markdown file's YAML (---) or TOML (+++) front matter."""
    text = text.lstrip("\ufeff")
    for fence, load in (("---", yaml.safe_load), ("+++", tomllib.loads)):
        if text.startswith(fence):
            end = text.find("\n" + fence, len(fence))
            if end < 0:
                return {}
            try:
                data = load(text[len(fence):end])
            except Exception:  # noqa: BLE001 - an unreadable front matter is no entry
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def fact(source: Source, kind: str, **values: Any) -> dict[str, Any]:
    """One facts record."""
    return {"repo": source.repo, "commit": source.commit, "path": source.path, "kind": kind,
            "title": values.get("title", ""), "authors": values.get("authors", []), "venue": values.get("venue", ""),
            "year": values.get("year"), "type": values.get("type", ""), "doi": values.get("doi", ""),
            "citation": values.get("citation", "")}


def parse_bib(source: Source) -> list[dict[str, Any]]:
    """The entries of an al-folio BibTeX file."""
    text = re.sub(r"\A\s*---.*?---\s*", "", source.text, flags=re.S)
    try:
        library = bibtexparser.parse_string(text)
    except Exception:  # noqa: BLE001 - a file bibtexparser cannot read gives no entries
        return []
    out = []
    for entry in library.entries:
        fields = {f.key.lower(): f.value for f in entry.fields}
        title = detex(fields.get("title", ""))
        authors = [detex(name) for name in re.split(r"\s+and\s+", str(fields.get("author", ""))) if name.strip()]
        venue = next((detex(fields[key]) for key in VENUE_KEYS if fields.get(key)), "")
        kind = BIB_TYPES.get(entry.entry_type.lower(), "other")
        if kind == "other" and re.search(r"arxiv|biorxiv|medrxiv|preprint", f"{venue} {fields.get('eprint', '')}",
                                         re.I):
            kind = "preprint"
        out.append(fact(source, "al-folio", title=title, authors=authors, venue=venue,
                        year=year_of(fields.get("year") or fields.get("date")), type=kind,
                        doi=doi_of(fields.get("doi"), fields.get("url"), fields.get("html"))))
    return out


def parse_academicpages(source: Source) -> list[dict[str, Any]]:
    """The publication of one academicpages `_publications/*.md` file."""
    meta = front_matter(source.text)
    title = clean(meta.get("title"))
    if not title:
        return []
    return [fact(source, "academicpages", title=title, authors=authors_list(meta.get("authors") or meta.get("author")),
                 venue=clean(meta.get("venue")), year=year_of(meta.get("date") or meta.get("year")),
                 type=type_from_words(meta.get("category"), meta.get("pubtype"), meta.get("type")),
                 doi=doi_of(meta.get("doi"), meta.get("paperurl"), meta.get("citation")),
                 citation=clean(meta.get("citation")))]


def parse_wowchemy(source: Source, people: dict[str, str]) -> list[dict[str, Any]]:
    """The publication of one Hugo Academic / Wowchemy `content/publication/*/index.md` file."""
    meta = front_matter(source.text)
    title = clean(meta.get("title"))
    if not title:
        return []
    authors = [people.get(name, name) for name in authors_list(meta.get("authors"))]
    types = meta.get("publication_types") or meta.get("publication_type") or []
    kind = next((WOWCHEMY_TYPES.get(str(t).strip('"'), "") for t in (types if isinstance(types, list) else [types])),
                "")
    return [fact(source, "wowchemy", title=title, authors=authors,
                 venue=clean(meta.get("publication") or meta.get("publication_short")),
                 year=year_of(meta.get("date") or meta.get("publishDate")), type=kind or "other",
                 doi=doi_of(meta.get("doi"), meta.get("url_pdf")))]


def _records(node: Any, section: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every mapping with a title in a YAML data file, with the nearest enclosing section key."""
    if isinstance(node, dict):
        if isinstance(node.get("title"), str):
            yield node, section
            return
        for key, value in node.items():
            yield from _records(value, str(key))
    elif isinstance(node, list):
        for item in node:
            yield from _records(item, section)


def parse_data_yml(source: Source) -> list[dict[str, Any]]:
    """The publications of a `_data/*pub*.yml` file: every mapping with a title."""
    try:
        data = yaml.safe_load(source.text)
    except Exception:  # noqa: BLE001 - an unreadable data file gives no entries
        return []
    out = []
    for item, section in _records(data, ""):
        venue = next((clean(item[key]) for key in VENUE_KEYS if clean(item.get(key))), "")
        link: dict[str, Any] = item["link"] if isinstance(item.get("link"), dict) else {}
        if not venue and clean(link.get("display")) and not LINK_LABELS.match(clean(link.get("display"))):
            venue = clean(link.get("display"))
        out.append(fact(source, "data-yml", title=clean(item.get("title")),
                        authors=authors_list(item.get("authors") or item.get("author")), venue=venue,
                        year=year_of(item.get("year") or item.get("date") or venue),
                        type=type_from_words(item.get("type"), item.get("category"), section),
                        doi=doi_of(item.get("doi"), item.get("id"), item.get("url"), link.get("url"), item.get("link")),
                        citation=clean(item.get("citation"))))
    return out


def _dig(data: dict[str, Any], dotted: str) -> Any:
    """A nested value by dotted key."""
    value: Any = data
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def settings_of(source: Source) -> list[tuple[str, str]]:
    """The al-folio rendering settings a `_config.yml` states."""
    try:
        data = yaml.safe_load(source.text)
    except Exception:  # noqa: BLE001 - an unreadable config states nothing
        return []
    if not isinstance(data, dict):
        return []
    values = [(key, _dig(data, key)) for key in SETTINGS]
    return [(key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str))
            for key, value in values if value not in (None, "", [])]
