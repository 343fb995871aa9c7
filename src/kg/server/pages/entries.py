"""What a publication list shows beside each entry: its kind, a plain-text citation, author names as a sentence
("A, B and C"), entries grouped by year, and the co-authors as a text list with counts.

>>> and_list(["Ada", "Bob", "Cy"]), and_list(["Ada", "Bob"]), and_list(["Ada"])
('Ada, Bob and Cy', 'Ada and Bob', 'Ada')
>>> [g["year"] for g in by_year([{"year": 2019}, {"year": None}, {"year": 2024}, {"year": 2019}])]
[2024, 2019, None]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

KINDS = {"inproceedings": "Conference paper", "article": "Journal article", "misc": "Other"}


def entry_kind(record: dict[str, Any]) -> str:
    """The BibTeX entry type of a publication record: a preprint or a work without venue is misc, a paper at an
    edition inproceedings, else article (kg.server.pages.citations uses the same)."""
    venue = record["venue"]
    if record["status"].casefold() == "preprint" or venue is None:
        return "misc"
    return "inproceedings" if venue["edition"] else "article"


def kind_label(record: dict[str, Any]) -> str:
    """What a record is, in words: "Conference paper", "Journal article", "Preprint", "Other"."""
    if record["status"].casefold() == "preprint":
        return "Preprint"
    return KINDS[entry_kind(record)]


def and_list(names: Sequence[str], complete: bool = True) -> str:
    """Names as a sentence: "A, B and C"; an incomplete list ends "A, B, C et al."."""
    if not complete:
        return ", ".join(names) + (" et al." if names else "et al.")
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def citation(record: dict[str, Any]) -> str:
    """A plain-text citation of a record: authors, title, venue, year, DOI or address."""
    complete = record["complete"] and not any(a["elided_before"] for a in record["authors"])
    parts = [and_list([a["label"] for a in record["authors"]], complete), record["label"]]
    venue = record["venue"]
    where = venue["label"] if venue else ""
    if venue and venue["acronym"] and venue["acronym"] != venue["label"]:
        where += f" ({venue['acronym']})"
    when = ", ".join(x for x in (where, str(record["year"] or "")) if x)
    if when:
        parts.append(when)
    if record["status"].casefold() == "preprint":
        parts.append("Preprint")
    text = ". ".join(p.rstrip(".") for p in parts if p) + "."
    address = record["doi"]["url"] if record.get("doi") else record.get("url")
    return f"{text} {address}" if address else text


def by_year(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records grouped by year, newest first; records without a year last (year None)."""
    groups: dict[int | None, list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault(record["year"], []).append(record)
    order = sorted((y for y in groups if y is not None), reverse=True) + ([None] if None in groups else [])
    return [{"year": year, "papers": groups[year]} for year in order]


def coauthor_list(records: Sequence[dict[str, Any]], maybe: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Everyone who wrote a paper with the person, most papers first then by name: label, page, papers together,
    and the full-name candidates an initials-only name may be (maybe, by author IRI)."""
    counts: Counter[tuple[str, str | None, str | None]] = Counter()
    for record in records:
        seen = set()
        for author in record["authors"]:
            key = (author["label"], author["path"], author["iri"])
            if not author["self"] and key not in seen:
                seen.add(key)
                counts[key] += 1
    rows = [{"label": label, "path": path, "iri": iri, "papers": n, "maybe": maybe.get(iri or "", [])}
            for (label, path, iri), n in counts.items()]
    return sorted(rows, key=lambda row: (-row["papers"], row["label"].casefold()))


__all__ = ["KINDS", "and_list", "by_year", "citation", "coauthor_list", "entry_kind", "kind_label"]
