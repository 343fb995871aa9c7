"""Positions and degrees from the CV sources of academic GitHub Pages sites (used by harvest_training.py build).

Sources: al-folio `_data/cv.yml` (sections of `time_table` entries), JSON Resume files (`assets/json/resume.json`,
`_data/cv.json`: `work` and `education`), academicpages Markdown CVs (`_pages/cv*.md`: bullets under Education and
Work headings), Hugo Academic / Wowchemy experience widgets and block pages (`content/home/experience.md`,
`content/_index.md`: items with `company` and `date_start`), and author pages (`content/authors/*/_index.md`
`education.courses`, `data/authors/*.yaml` `education` and `work`).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import tomllib
import unicodedata
from collections.abc import Iterator
from typing import Any

import yaml

CV_PATH = re.compile(r"^_data/cv\.(?:ya?ml|json)$|^assets/json/resume\.json$|^_pages/cv[^/]*\.(?:md|markdown)$|"
                     r"^content/(?:[a-z]{2}(?:-[a-z]{2})?/)?(?:home/experience\.md|_index\.md|authors/[^/]+/_index\.md)$|"
                     r"^data/authors/[^/]+\.ya?ml$")
DEGREE_SECTION = re.compile(r"educat|degree|academic background|ausbildung|formation", re.I)
POSITION_SECTION = re.compile(r"experience|employment|position|appointment|work|career|professional", re.I)
DEGREE_WORDS = re.compile(r"\b(?:ph\.?\s?d|doctor|dphil|m\.?\s?sc|m\.?\s?s\b|m\.?\s?a\b|mba|m\.?\s?eng|m\.?\s?phil|"
                          r"master|b\.?\s?sc|b\.?\s?s\b|b\.?\s?a\b|b\.?\s?eng|b\.?\s?tech|m\.?\s?tech|bachelor|diploma|"
                          r"licen|habilitation|postgraduate|undergraduate|m\.?\s?d\b)", re.I)
ROLE_KEYS = ("position", "role", "title")
DEGREE_KEYS = ("course", "degree", "studyType", "area", "title")
ORG_KEYS = ("company", "company_name", "institution", "organization", "organisation", "school", "university", "name",
            "employer")
START_KEYS = ("startDate", "start_date", "date_start", "start", "from", "begin")
END_KEYS = ("endDate", "end_date", "date_end", "end", "to", "until")
SPAN_KEYS = ("year", "years", "date", "dates", "period", "time", "duration")
YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
# Template placeholders: the example CVs of al-folio (Einstein's), Hugo Academic and academicpages.
PLACEHOLDER = re.compile(r"eidgen[oö]ssische technische|kaiser wilhelm institute|university of zurich|"
                         r"institute for advanced study, princeton|patent office|gencoin|\buniversity x\b|"
                         r"github university|version control theory|academic pages|umbrella corp|lorem ipsum|"
                         r"^(?:ph\.?d|meng|bsc) in artificial intelligence$|^(?:job title|your (?:job|degree))", re.I)


def _text(value: Any) -> str:
    """A scalar as one line of plain text (HTML tags, Markdown emphasis and links removed)."""
    if value is None or isinstance(value, (dict, list, bool)):
        return ""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()[:10]
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", html.unescape(str(value)))
    text = re.sub(r"<[^>]{1,80}>|\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)", "", text).replace("\ufeff", "")
    return " ".join(text.split()).strip(" ,;:-–—")


def _year(text: str) -> int | None:
    """The first four-digit year in a date as written."""
    match = YEAR.search(text)
    return int(match.group(1)) if match else None


def _split_span(text: str) -> tuple[str, str]:
    """A written period ("2015 - 2019", "Sep 2020–present", "2012") as (start, end); a lone date is the end."""
    parts = [part.strip() for part in re.split(r"\s+(?:-|–|—|to|until)\s+|(?<=\d)\s*[-–—]\s*(?=\d|[A-Za-z])|"
                                                r"\s*[–—]\s*", text, maxsplit=1)]
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0], parts[1]
    return "", text.strip()


def record(kind: str, source: str, title: str, organization: str, start: str, end: str) -> dict[str, Any]:
    """One position or degree as its source writes it, with the years read from the dates."""
    return {"kind": kind, "source": source, "title": title, "organization": organization, "start": start,
            "end": end, "start_year": _year(start), "end_year": _year(end)}


def _dates(item: dict[str, Any]) -> tuple[str, str]:
    """(start, end) of a CV item from its start/end keys or from one period key."""
    start = next((_text(item[k]) for k in START_KEYS if _text(item.get(k))), "")
    end = next((_text(item[k]) for k in END_KEYS if _text(item.get(k))), "")
    if not start and not end:
        span = next((_text(item[k]) for k in SPAN_KEYS if _text(item.get(k))), "")
        start, end = _split_span(span) if span else ("", "")
    return start, end


def _item(item: dict[str, Any], section: str, source: str) -> dict[str, Any] | None:
    """A position or a degree from one mapping of a structured CV, or None when it is neither."""
    keys = set(item)
    if keys & {"studyType", "course", "degree"} or (DEGREE_SECTION.search(section) and "institution" in keys):
        title = " ".join(_text(item.get(k)) for k in ("studyType", "area") if _text(item.get(k))) if (
            "studyType" in keys) else next((_text(item[k]) for k in DEGREE_KEYS if _text(item.get(k))), "")
        organization = next((_text(item[k]) for k in ("institution", "school", "university", "organization")
                             if _text(item.get(k))), "")
        kind = "degree"
    elif keys & {"company", "company_name", "position"} or (POSITION_SECTION.search(section) and keys & {
            "institution", "organization", "employer"}):
        title = next((_text(item[k]) for k in ROLE_KEYS if _text(item.get(k))), "")
        organization = next((_text(item[k]) for k in ORG_KEYS if k != "title" and _text(item.get(k))), "")
        kind = "position"
    else:
        return None
    if not title or not organization or title == organization:
        return None
    start, end = _dates(item)
    return record(kind, source, title, organization, start, end)


def _walk(node: Any, section: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every mapping in a parsed CV with the nearest enclosing section name (a key or a `title`)."""
    if isinstance(node, dict):
        yield node, section
        here = _text(node.get("title")) if isinstance(node.get("contents") or node.get("items"), list) else ""
        for key, value in node.items():
            if isinstance(value, (dict, list)):
                yield from _walk(value, here or str(key) if key not in ("contents", "items", "content") else
                                 here or section)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item, section)


def structured(data: Any, source: str) -> list[dict[str, Any]]:
    """The positions and degrees of a parsed YAML, JSON or front-matter CV."""
    out = []
    for item, section in _walk(data, ""):
        found = _item(item, section, source)
        if found:
            out.append(found)
    return out


def markdown_cv(text: str) -> list[dict[str, Any]]:
    """Degrees and positions from the top-level bullets of a Markdown CV's Education and Work sections."""
    out: list[dict[str, Any]] = []
    section, last = "", None
    lines = text.splitlines()
    for number, line in enumerate(lines):
        heading = re.match(r"^#{1,4}\s+(.+)$", line) or (
            re.match(r"^(\S.*)$", line) if number + 1 < len(lines) and re.match(r"^[=-]{3,}\s*$", lines[number + 1])
            else None)
        if heading:
            section, last = heading.group(1), None
            continue
        top = re.match(r"^[*+-]\s+(.+)$", line)
        sub = re.match(r"^\s{2,}[*+-]\s+(.+)$", line)
        if top and DEGREE_SECTION.search(section):
            parts = [part.strip() for part in _text(top.group(1)).split(",")]
            years = [part for part in parts if YEAR.search(part)]
            rest = [part for part in parts if part not in years]
            if len(rest) >= 2 and DEGREE_WORDS.search(rest[0]):
                out.append(record("degree", "markdown-cv", rest[0], ", ".join(rest[1:]), "",
                                  years[-1] if years else ""))
        elif top and POSITION_SECTION.search(section):
            match = re.match(r"^(.*?\d{4}.*?|present.*?)\s*:\s*(.+)$", _text(top.group(1)))
            last = (match.group(1), match.group(2)) if match else None
        elif sub and last:
            start, end = _split_span(last[0])
            out.append(record("position", "markdown-cv", last[1], _text(sub.group(1)), start, end))
            last = None
    return out


def front_matter(text: str) -> Any:
    """A Markdown file's YAML (---) or TOML (+++) front matter, or None."""
    text = text.lstrip("\ufeff")
    for fence, load in (("---", yaml.safe_load), ("+++", tomllib.loads)):
        if text.startswith(fence):
            end = text.find("\n" + fence, len(fence))
            try:
                return load(text[len(fence):end]) if end > 0 else None
            except Exception:  # noqa: BLE001 - an unreadable front matter states no CV
                return None
    return None


def parse_cv(path: str, text: str) -> list[dict[str, Any]]:
    """The positions and degrees a CV source states (kind, source, title, organization, start, end and years)."""
    try:
        if path.endswith(".json"):
            return structured(json.loads(text), "json-resume")
        if path.endswith((".yml", ".yaml")):
            return structured(yaml.safe_load(text), "al-folio" if path.startswith("_data/") else "hugo-author")
    except Exception:  # noqa: BLE001 - a file that does not parse states no CV
        return []
    if path.startswith("_pages/"):
        return markdown_cv(text)
    data = front_matter(text)
    if "/authors/" in path:
        education = data.get("education") if isinstance(data, dict) else None
        return structured({"education": education}, "hugo-author") if education else []
    return structured(data, "wowchemy") if data else []


def person_of(path: str, text: str) -> str:
    """The name of the person a CV source is about, where it says: an author page's title, JSON Resume's
    `basics.name`, an al-folio CV's "Full Name"."""
    try:
        if path.endswith(".json"):
            data = json.loads(text)
            return _text(data.get("basics", {}).get("name")) if isinstance(data, dict) else ""
        if path.endswith((".yml", ".yaml")):
            data = yaml.safe_load(text)
            return next((_text(item.get("value")) for item, _ in _walk(data, "")
                         if _text(item.get("name")).lower() in ("full name", "name")), "") if data else ""
    except Exception:  # noqa: BLE001 - a file that does not parse names nobody
        return ""
    data = front_matter(text) if "/authors/" in path else None
    return _text(data.get("title")) if isinstance(data, dict) else ""


def fold(text: str) -> str:
    """Lower case without accents or punctuation, for comparing entries."""
    text = unicodedata.normalize("NFKD", text.casefold())
    return re.sub(r"[^0-9a-z]+", " ", "".join(ch for ch in text if not unicodedata.combining(ch))).strip()


def is_placeholder(entry: dict[str, Any]) -> bool:
    """True for a template's example position or degree."""
    return bool(PLACEHOLDER.search(entry["title"]) or PLACEHOLDER.search(entry["organization"]))


def cv_key(entry: dict[str, Any]) -> tuple[str, str, str, int | None, int | None]:
    """What makes two entries the same position or degree."""
    return entry["kind"], fold(entry["title"]), fold(entry["organization"]), entry["start_year"], entry["end_year"]
