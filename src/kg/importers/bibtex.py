"""BibTeX files (parsed with bibtexparser 2.x) as a draft profile holding the publications."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from ..records.bibtex import bounded_library
from ..records.bounds import Bounds, Deadline
from ..resolution import normalize_name
from .citation import AWARD, NOTE
from .names import _reorder, person_keys
from .records import Draft, Item
from .venues import Reference

VENUE_FIELDS = ("booktitle", "journal", "series", "howpublished", "publisher", "institution", "school")
LINK_FIELDS = {"url": "URL", "pdf": "PDF", "code": "Code", "slides": "Slides", "video": "Video"}
PREPRINT_TYPES = {"unpublished", "misc", "online"}


def _text(value: Any) -> str:
    return " ".join(str(value).replace("{", "").replace("}", "").split()) if value is not None else ""


def _authors(value: Any) -> list[str]:
    names = value if isinstance(value, list) else [value]
    out = []
    for raw in names:
        name = _text(raw)
        if not name:
            continue
        if name.lower() in ("others", "et al.", "et al"):
            out.append("...")
        elif "," in name:
            out.append(_reorder(name))
        else:
            out.append(name)
    return out


def _venue(fields: dict[str, str], entry_type: str, ref: Reference) -> tuple[str | None, str | None, str]:
    """(venue id, venue as written, status) from booktitle/journal/series or an arXiv eprint."""
    written = next((fields[k] for k in VENUE_FIELDS if fields.get(k)), None)
    eprint = fields.get("archiveprefix", "").lower() == "arxiv" or "arxiv" in fields.get("journal", "").lower()
    candidates = [fields[k] for k in VENUE_FIELDS if fields.get(k)]
    ident = next((m.id for m in (ref.venue(c) for c in candidates) if m.id), None)
    if ident is None and eprint:
        ident = ref.venues.find("arXiv")
        written = written or f"arXiv:{fields.get('eprint', '')}".rstrip(":")
    status = "published"
    if eprint or entry_type in PREPRINT_TYPES and not candidates or (ident and ref.venue_types.get(ident) ==
                                                                      "repository"):
        status = "preprint"
    return ident, written, status


def _entry(entry: Any, ref: Reference) -> Item:
    fields = {f.key.lower(): _text(f.value) for f in entry.fields if f.key.lower() != "author"}
    author_field = next((f.value for f in entry.fields if f.key.lower() == "author"), None)
    authors = _authors(author_field) if author_field is not None else []
    start = entry.start_line + 1
    item = Item(None, list(range(start, start + entry.raw.count("\n") + 1)))
    year_text = fields.get("year", "")
    year = int(year_text) if re.fullmatch(r"(?:19|20)\d\d", year_text) else None
    title = fields.get("title", "").rstrip(".")
    missing = [w for w, v in (("title", title), ("author", authors), ("year", year)) if not v]
    if missing:
        item.value = {"title": title or None, "authors": authors or None, "key": entry.key}
        item.reviews.append(f"@{entry.entry_type}{{{entry.key}}} has no {' or '.join(missing)}; kg build needs "
                            "one, so this entry is left out")
        return item
    ident, written, status = _venue(fields, entry.entry_type.lower(), ref)
    pub: dict[str, Any] = {"title": title, "authors": authors}
    if ident:
        pub["venue"] = ident
    if written:
        pub["venue_as_written"] = written
    pub.update({"year": year, "status": status})
    note = fields.get("note", "")
    awards = [m.group(1) for m in AWARD.finditer(note)]
    notes = [n.strip() for n in re.split(r"[;,]\s*", AWARD.sub("", note)) if n.strip(" .")]
    if notes:
        pub["notes"] = notes
    if awards:
        pub["awards"] = awards
    links = [{"label": label, "url": fields[key]} for key, label in LINK_FIELDS.items()
             if fields.get(key, "").startswith(("http://", "https://"))]
    if fields.get("doi"):
        links.append({"label": "DOI", "url": "https://doi.org/" + re.sub(r"^https?://(?:dx\.)?doi\.org/", "",
                                                                         fields["doi"])})
    if links:
        pub["links"] = links
    if written and not ident and status == "published":
        item.reviews.append(ref.unknown_venue(written))
    if notes and any(not NOTE.match(n) for n in notes):
        item.notes.append("notes from the note field")
    item.value = pub
    return item


def _person(items: list[Item], given: str | None, source: Path) -> tuple[str, str | None]:
    """The profile's person: --name, or the author on most entries (at least 60% of them)."""
    if given:
        return " ".join(given.split()), None
    counts: Counter[str] = Counter()
    written: dict[str, str] = {}
    for item in items:
        if isinstance(item.value, dict) and item.value.get("authors"):
            for author in set(item.value["authors"]) - {"..."}:
                key = normalize_name(author.rstrip("*†"))
                counts[key] += 1
                if len(author.split()[0].rstrip(".")) > 1:
                    written.setdefault(key, author.rstrip("*†"))
    full = {k: c for k, c in counts.items() if k in written}
    for key in list(full):
        full[key] += sum(c for k, c in counts.items() if k != key and k in person_keys(written[key]))
    total = len([i for i in items if isinstance(i.value, dict)])
    if full:
        best = max(sorted(full), key=lambda k: full[k])
        if full[best] >= max(2, 0.6 * total) or total == 1:
            return written[best], f"guessed: the author on {full[best]} of {total} entries; pass --name to set it"
    raise SourceError(Location(source), "no recognisable person: no author appears on most entries; "
                                        "pass --name \"Full Name\"")


def parse_bibtex(text: str, ref: Reference, given: str | None, source: Path) -> Draft:
    """Read a BibTeX file into a draft with one publication per entry; unparsable blocks become notes."""
    try:
        import bibtexparser  # noqa: F401
    except ImportError:
        raise SourceError(Location(source), "BibTeX import needs the bibtexparser package (2.x): "
                                            "pip install 'bibtexparser>=2,<3'") from None
    bounds = Bounds.from_env()
    elided: list[tuple[int, str]] = []
    library = bounded_library(text, str(source), bounds, Deadline(str(source), bounds.seconds),
                              lambda line, message: elided.append((line, message)))
    if not library.entries:
        raise SourceError(Location(source), "no BibTeX entries found (expected blocks such as @article{...})")
    items = [_entry(entry, ref) for entry in library.entries]
    for line, message in elided:  # an author list cut to KG_MAX_AUTHORS
        for item in items:
            if item.lines[:1] == [line]:
                item.reviews.append(message)
    draft = Draft(source.name)
    name, review = _person(items, given, source)
    draft.set("name", name, [], review)
    tokens = name.split()
    if len(tokens) == 2:
        draft.set("given_name", tokens[0])
        draft.set("family_name", tokens[1])
    for item in items:
        if isinstance(item.value, dict) and "year" in item.value and item.value.get("status"):
            draft.lists.setdefault("publications", []).append(item)
        else:
            draft.left_out.append(item)
    for block in library.failed_blocks:
        draft.left_out.append(Item({"bibtex": _text(block.raw)[:200]}, [(block.start_line or 0) + 1],
                                   [f"could not parse this block: {block.error}"]))
    for comment in library.comments:
        body = _text(getattr(comment, "comment", ""))
        if body:
            draft.unparsed.append(Item(f"comment: {body}", [(comment.start_line or 0) + 1]))
    return draft
