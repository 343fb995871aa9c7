"""Score `kg import` drafts against the real-world corpus's `<stem>.facts.yaml` annotations.

A publication's fields are compared as the page writes them: the title (case, spacing and punctuation
aside), the authors in order with the marks the profile format records (`*` and `†`, equal contribution; other
marks such as `#` for a corresponding author are not recorded, so they are left out on both sides; "Last,
First" read as "First Last"; an
elision such as "et al." or "others" is left out on both sides, as annotators differ on keeping it), the
venue as written without its year (or the same venue id in data/venues.yaml), and the year. A
publication counts as a whole only when all four match. Positions compare role, organisation, start and
end; degrees compare the degree's level, the institution, start and end. Organisations and venues match
by normalised name or by the id data/ resolves them to.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from kg.importers.entries import degree_parts  # noqa: E402
from kg.importers.venues import Reference  # noqa: E402
from kg.resolution import normalize_name  # noqa: E402
from kg.sources import parse_yaml  # noqa: E402

FACT_FIELDS = ["title", "authors in order", "venue", "year", "publication (all four)", "positions", "degrees"]
MARKS = "*†‡#§✉"
EQUAL = "*†"  # the marks the profile format reads (equal contribution); the others it does not record
_YEARS = re.compile(r"['’]\d{2}\b|\b(?:19|20)\d\d\b")
_LEVELS = (("doctor", r"ph\.?d|dphil|doctor|doctorate|博士"), ("master", r"m\.?s\.?c?|m\.?a|m\.?eng|m\.?tech|mphil|"
                                                                       r"master|msc|mba|diplom\w*|硕士"),
           ("bachelor", r"b\.?s\.?c?|b\.?a|b\.?e(?:ng)?|b\.?tech|s\.?b|bachelor|licen\w*|学士"))
_CITATION_WORDS = re.compile(r"^(?:(?:in|in:|proc|proceedings|of|the|to appear|appear|accepted|at|by|published|"
                             r"\d+(?:st|nd|rd|th))\s+)+")
_TAIL_NUMBERS = re.compile(r"(?:\s+(?:vol|no|pp|p|early access|volume|issue|article|\d+))+$")


def author_key(written: str) -> tuple[str, str]:
    """(normalised name, its marks) of an author as written; 'Last, First' is read as 'First Last'."""
    if re.fullmatch(r"\s*(?:et al\.?|\.\.\.|…|(?:and )?others)\s*", written, re.I):
        return "...", ""
    equal = any(ch in EQUAL for ch in written) or re.search(r"co-first|equal contribution", written, re.I)
    marks = "*" if equal else ""
    name = "".join(ch for ch in written if ch not in MARKS)
    name = re.sub(r"\((?:co-first author|equal contribution)\)", "", name, flags=re.I).strip()
    if name.count(",") == 1:
        family, given = (p.strip() for p in name.split(","))
        name = f"{given} {family}"
    return normalize_name(name), marks


@dataclass
class Matcher:
    """Normalises venues, organisations and degrees through the reference data."""

    ref: Reference

    def venue(self, text: str | None) -> str:
        """A venue's comparison key: its id when data/ knows it, else its normalised name without years."""
        if not text:
            return ""
        found = self.ref.venue(text).id
        if found:
            return f"id:{found}"
        key = normalize_name(_YEARS.sub(" ", text))
        return _TAIL_NUMBERS.sub("", _CITATION_WORDS.sub("", key)).strip()

    def same_venue(self, written: str, expected: str) -> bool:
        """Whether a draft's venue key names the annotated one: equal, or one the other's leading words."""
        if written == expected:
            return True
        short, long_ = sorted((written, expected), key=len)
        return len(short.split()) >= 2 and not short.startswith("id:") and long_.startswith(short + " ")

    def org(self, text: str | None) -> str:
        """An organisation's comparison key: its id when data/ knows it, else its normalised name."""
        if not text:
            return ""
        found = self.ref.org(text)
        return f"id:{found}" if found else normalize_name(text)

    def degree(self, text: str | None) -> str:
        """A degree's level: doctor, master, bachelor, or the normalised short form of anything else."""
        if not text:
            return ""
        short = normalize_name(degree_parts(text)[0]).replace(" ", "")
        for level, pattern in _LEVELS:
            if re.fullmatch(pattern, short):
                return level
        words = normalize_name(text)
        for level, pattern in _LEVELS:
            if re.search(rf"(?:^|\s)(?:{pattern})(?:\s|$)", words) or re.search(rf"(?:^|\s)(?:{pattern})",
                                                                             words.replace(" ", "")[:6]):
                return level
        return short

    def same_org(self, a: str, b: str) -> bool:
        """Whether two organisation keys name the same place: equal, one the other's acronym in parentheses or
        its leading or trailing words ('tsinghua university' in 'department of x tsinghua university')."""
        if a == b:
            return True
        if not a or not b or a.startswith("id:") and b.startswith("id:"):
            return False
        short, long_ = sorted((a.removeprefix("id:"), b.removeprefix("id:")), key=len)
        return len(short) >= 3 and (f" {short} " in f" {long_} ")


def _year(value: Any) -> Any:
    """A start/end value as compared: a year, 'present' or None."""
    if value is None or value == "":
        return None
    text = str(value).strip().lower()
    if text in ("present", "now", "current", "today"):
        return "present"
    found = re.search(r"(?:19|20)\d\d", text)
    return int(found.group(0)) if found else text


def _pub_keys(matcher: Matcher, title: str, authors: list[str], venue: str | None, year: Any
              ) -> dict[str, Hashable]:
    """One publication's comparable values, each keyed by its title."""
    t = normalize_name(title)
    a = tuple(key for key in (author_key(x) for x in authors) if key[0] != "...")
    v = matcher.venue(venue)
    y = _year(year)
    return {"title": t, "authors in order": (t, a), "venue": (t, v), "year": (t, y),
            "publication (all four)": (t, a, v, y)}


def expected_facts(facts: dict[str, Any], matcher: Matcher) -> dict[str, Counter[Hashable]]:
    """The multisets of facts an annotation states."""
    out: dict[str, Counter[Hashable]] = {f: Counter() for f in FACT_FIELDS}
    for pub in facts.get("publications") or []:
        for f, value in _pub_keys(matcher, str(pub["title"]), [str(a) for a in pub.get("authors") or []],
                                  pub.get("venue"), pub.get("year")).items():
            out[f][value] += 1
    for pos in facts.get("positions") or []:
        out["positions"][(normalize_name(str(pos.get("role") or "")), matcher.org(pos.get("organization")),
                          _year(pos.get("start")), _year(pos.get("end")))] += 1
    for deg in facts.get("degrees") or []:
        out["degrees"][(matcher.degree(deg.get("degree")), matcher.org(deg.get("institution")),
                        _year(deg.get("start")), _year(deg.get("end")))] += 1
    return out


def _author_text(author: Any) -> str:
    """An author entry of a draft as written (a pinned `{name: ..., same_as: ...}` gives its name)."""
    return str(author.get("name", "")) if isinstance(author, dict) else str(author)


def draft_facts(draft: dict[str, Any], matcher: Matcher, expected: dict[str, Counter[Hashable]] | None = None
                ) -> dict[str, Counter[Hashable]]:
    """The multisets of facts a draft profile (its YAML mapping) gives; a venue that names the annotated
    venue of the same title (`Matcher.same_venue`) takes the annotation's key."""
    out: dict[str, Counter[Hashable]] = {f: Counter() for f in FACT_FIELDS}
    venues = {key[0]: key[1] for key in (expected or {}).get("venue", Counter())}
    for pub in draft.get("publications") or []:
        venue = pub.get("venue_as_written") or pub.get("venue")
        keys = _pub_keys(matcher, str(pub.get("title") or ""), [_author_text(a) for a in pub.get("authors") or []],
                         venue, pub.get("year"))
        if pub.get("venue") and not pub.get("venue_as_written"):
            keys["venue"] = (keys["title"], f"id:{pub['venue']}")
        title, venue_key = keys["venue"]  # type: ignore[misc]
        if title in venues and matcher.same_venue(venue_key, venues[title]):
            keys["venue"] = (title, venues[title])
            keys["publication (all four)"] = (title, *keys["authors in order"][1:], venues[title],  # type: ignore
                                              keys["year"][1])  # type: ignore[index]
        for f, value in keys.items():
            out[f][value] += 1
    for exp in draft.get("experience") or []:
        orgs = exp.get("organizations") or [None]
        end = "present" if exp.get("current") else exp.get("end")
        out["positions"][(normalize_name(str(exp.get("role") or "")), matcher.org(orgs[0]), _year(exp.get("start")),
                          _year(end))] += 1
    for edu in draft.get("education") or []:
        out["degrees"][(matcher.degree(edu.get("degree")), matcher.org(edu.get("institution")),
                        _year(edu.get("start")), _year(edu.get("end")))] += 1
    if expected is not None:
        for f in ("positions", "degrees"):
            out[f] = soft_align(out[f], expected[f], matcher)
    return out


def soft_align(actual: Counter[Hashable], expected: Counter[Hashable], matcher: Matcher) -> Counter[Hashable]:
    """Positions or degrees of a draft with each one that matches an annotated entry (same role or level, same
    organisation by `Matcher.same_org`, same start and end) written as that entry."""
    free = Counter(expected)
    out: Counter[Hashable] = Counter()
    for key, n in actual.items():
        for _ in range(n):
            hit = next((e for e in free if free[e] > 0 and _same_entry(key, e, matcher)), None)
            if hit is not None:
                free[hit] -= 1
            out[hit if hit is not None else key] += 1
    return out


def _same_entry(a: Hashable, b: Hashable, matcher: Matcher) -> bool:
    """Whether a draft's (role or level, organisation, start, end) names an annotated one."""
    assert isinstance(a, tuple) and isinstance(b, tuple)
    return (a[0] == b[0] or bool(a[0]) and bool(b[0]) and matcher.same_org(a[0], b[0])) and \
        matcher.same_org(a[1], b[1]) and a[2:] == b[2:]


def read_facts(path: Path) -> dict[str, Any]:
    """An annotation file's mapping."""
    data = parse_yaml(path.read_text(encoding="utf-8"), path).data
    return data if isinstance(data, dict) else {}
