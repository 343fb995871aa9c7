"""Publication lists: numbered, bulleted, under year headings, multi-line or one-line, in any field order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .citation import NOTE, PubParts, is_venue, parse_citation, take_awards, take_links, take_notes, venue_first
from .dates import last_year
from .entries import BULLET
from .names import is_author_line, split_authors
from .records import Item, Line
from .venues import Reference

YEAR_HEADING = re.compile(r"^#*\s*((?:19|20)\d\d)\s*:?$")
SUBHEADING = re.compile(r"^#*\s*(?:selected\s+|recent\s+)?(conference|journal|workshop|preprints?|refereed|"
                        r"peer[- ]reviewed|book chapters?|theses|thesis|patents?|technical reports?|under review|"
                        r"in submission|working papers?|manuscripts?|posters?|demos?|arxiv)"
                        r"(?:\s+(?:papers?|publications|articles|proceedings|and [\w ]+))*\s*:?$", re.I)
_PRESTATUS = re.compile(r"preprint|under review|in submission|working paper|manuscript|arxiv", re.I)
_PROSE_START = re.compile(r"^(?:view|see|click|visit|here|please|below|for (?:a|the) (?:full|complete)|"
                          r"a (?:full|complete) list|(?:my|his|her|our) (?:work|papers|research))\b", re.I)
_PRONOUN = re.compile(r"\b(?:[Ii]|my|me|we|our|he|his|she|her|they|their|here|see|view|visit|click|please)\b"
                      r"|\bI\b|'s work|’s work|has been cited", re.I)
TITLE, AUTHORS, VENUE, CITATION, LINKS, AWARD, NOTE_KIND = "title", "authors", "venue", "citation", "links", \
    "award", "note"


def is_prose(text: str) -> bool:
    """Whether a line is running text about the list rather than an entry ('See the full list at ...')."""
    if BULLET.match(text) or len(text.split()) < 5:
        return False
    if _PROSE_START.match(text):
        return True
    words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", text) if len(w) > 3]
    capitalised = sum(1 for w in words if w[0].isupper()) / max(1, len(words))
    return bool(_PRONOUN.search(text)) and capitalised < 0.5 and len(text.split()) >= 8


@dataclass
class _Block:
    lines: list[Line] = field(default_factory=list)
    year: int | None = None
    status: str | None = None
    marked: bool = False


@dataclass
class _Classified:
    kind: str
    text: str
    links: list[str]
    awards: list[str]
    notes: list[str]
    venue: str | None


def blocks_of(lines: list[Line]) -> tuple[list[_Block], list[Line], set[int]]:
    """Publication blocks (between blank lines, bullets and year headings), prose lines, consumed headings."""
    blocks: list[_Block] = []
    prose: list[Line] = []
    used: set[int] = set()
    year: int | None = None
    status: str | None = None
    current: _Block | None = None
    for line in lines:
        text = line.text
        if not text:
            current = None
            continue
        heading = YEAR_HEADING.match(text)
        if heading or SUBHEADING.match(text):
            if heading:
                year = int(heading.group(1))
            else:
                status = "preprint" if _PRESTATUS.search(text) else None
            used.add(line.index)
            current = None
            continue
        if is_prose(text):
            prose.append(line)
            current = None
            continue
        marked = BULLET.match(text) is not None
        first = current.lines[0] if current else None
        deeper_seen = current is not None and any(x.indent > first.indent for x in current.lines)  # type: ignore
        if current is None or marked or (first is not None and line.indent <= first.indent and
                                         (deeper_seen or current.marked)):
            current = _Block(year=year, status=status, marked=marked)
            blocks.append(current)
        current.lines.append(line)
    return blocks, prose, used


def _classify(text: str, ref: Reference, keys: set[str], first: bool) -> _Classified:
    body = BULLET.sub("", text, count=1).strip()
    body, links = take_links(body)
    if not body and links:
        return _Classified(LINKS, "", links, [], [], None)
    body, awards = take_awards(body)
    if awards and not body.strip(" .,;:|"):
        return _Classified(AWARD, "", links, awards, [], None)
    if NOTE.match(body.strip(" .")):
        return _Classified(NOTE_KIND, "", links, awards, [body.strip(" .")], None)
    venue, body = venue_first(body, ref)
    body, notes = take_notes(body)
    body = body.strip()
    if is_author_line(body, keys):
        kind = AUTHORS
    elif parse_citation(body, ref, keys) is not None:
        kind = CITATION
    elif is_venue(body, ref) and not (first and venue is None and last_year(body) is None and
                                      ref.venue(body).id is None):
        kind = VENUE
    else:
        kind = TITLE
    return _Classified(kind, body, links, awards, notes, venue)


def entries_of(block: _Block, ref: Reference, keys: set[str]) -> list[PubParts]:
    """Split a block into publications by the order of title, author and venue lines."""
    out: list[PubParts] = []
    cur = PubParts()
    previous = None
    for pos, line in enumerate(block.lines):
        c = _classify(line.text, ref, keys, pos == 0 or previous in (LINKS, AWARD, NOTE_KIND))
        filled = {TITLE: cur.title, AUTHORS: cur.authors, VENUE: cur.venue}
        continues = (c.kind == TITLE and previous == TITLE and cur.authors is None and cur.venue is None) or \
                    (c.kind == AUTHORS and previous == AUTHORS and line.text.rstrip().endswith(","))
        starts = c.kind == CITATION and (cur.title or cur.authors or cur.venue)
        if starts or (c.kind in filled and filled[c.kind] and not continues):
            out.append(cur)
            cur = PubParts()
        cur.lines.append(line.no)
        cur.links += c.links
        cur.awards += c.awards
        cur.notes += c.notes
        if c.venue and not cur.venue:
            cur.venue = c.venue
        if c.kind == CITATION:
            parsed = parse_citation(c.text, ref, keys)
            assert parsed is not None
            cur.title, cur.authors, cur.year = parsed.title, parsed.authors, parsed.year
            cur.venue = cur.venue or parsed.venue
            if c.venue and parsed.venue:
                cur.notes.append(parsed.venue)
        elif c.kind == TITLE:
            cur.title = f"{cur.title} {c.text}" if continues and cur.title else c.text
        elif c.kind == AUTHORS:
            found = split_authors(c.text) or []
            cur.authors = (cur.authors or []) + found if continues else found
        elif c.kind == VENUE:
            cur.venue = c.text
        previous = c.kind
    out.append(cur)
    for parts in out:
        if parts.year is None and parts.venue is None and block.year is not None:
            parts.year = block.year
    return [p for p in out if p.title or p.authors or p.venue]


def _legend_strip(legend: str) -> set[str]:
    """Marks that a legend says are not equal contribution ('† corresponding author')."""
    strip = set()
    for mark in "*†‡":
        match = re.search(re.escape(mark) + r"\s*(?:=|:|denotes|indicates|marks)?\s*([A-Za-z -]+)", legend)
        if match and not re.search(r"equal|co-first|joint first|shared first", match.group(1), re.I):
            strip.add(mark)
    return strip


def _title(text: str) -> str:
    text = text.strip().strip("*_").strip()
    if len(text) > 2 and text[0] in "\"“'" and text[-1] in "\"”'":
        text = text[1:-1]
    return text.rstrip(".").strip()


def finish(parts: PubParts, block: _Block, ref: Reference, legend: str,
           urls: dict[str, str]) -> tuple[dict[str, Any] | None, Item]:
    """The YAML mapping of one publication, or None with the reason when kg build could not take it."""
    item = Item(None, list(parts.lines))
    match = ref.venue(parts.venue) if parts.venue else None
    year = parts.year or (match.year if match else None) or block.year
    title = _title(parts.title or "")
    authors = list(parts.authors or [])
    for mark in _legend_strip(legend):
        if any(mark in a for a in authors):
            authors = [a.replace(mark, "").strip() for a in authors]
            item.reviews.append(f"'{mark}' marks something other than equal contribution on this page "
                                f"({legend.strip()}); removed")
    missing = [what for what, value in (("title", title), ("author list", authors), ("year", year)) if not value]
    if missing:
        item.value = {"title": title or None, "authors": authors or None, "venue_as_written": parts.venue}
        item.reviews.append(f"no {' or '.join(missing)} recognised; kg build needs one, so this entry is left out")
        return None, item
    pub: dict[str, Any] = {"title": title, "authors": authors}
    if match and match.id:
        pub["venue"] = match.id
    if parts.venue and not re.fullmatch(r"[\s(]*(?:19|20)\d\d[\s).,]*", parts.venue):
        pub["venue_as_written"] = parts.venue
    pub["year"] = year
    status = block.status or (match.status if match else "published")
    pub["status"] = status
    if parts.notes:
        pub["notes"] = parts.notes
    if parts.awards:
        pub["awards"] = list(dict.fromkeys(parts.awards))
    if parts.links:
        pub["links"] = [{"label": label, "url": urls.get(label.lower())} for label in dict.fromkeys(parts.links)]
    if match and match.id is None and match.label and not re.fullmatch(r"(?i)preprint|under review|"
                                                                        r"under submission|in submission|"
                                                                        r"submitted|manuscript|", match.label):
        item.reviews.append(f"venue '{match.label}' is not in data/venues.yaml; add it there and set venue: "
                            "to link it")
    if parts.year is None and (match is None or match.year is None):
        item.notes.append(f"year from the heading '{block.year}'")
    item.value = pub
    return pub, item


def parse_publications(lines: list[Line], ref: Reference, keys: set[str], legend: str
                       ) -> tuple[list[Item], list[Item], list[Line], set[int]]:
    """Publications written, entries left out, prose lines, and the indexes of the lines used."""
    blocks, prose, used = blocks_of(lines)
    legend_lines = [p for p in prose if re.search(r"[*†‡]\s*(?:=|:|denotes|indicates)", p.text)]
    legend = " ".join([legend] + [p.text for p in legend_lines])
    written: list[Item] = []
    left_out: list[Item] = []
    for block in blocks:
        urls = {label.lower().strip("[] "): href for line in block.lines for label, href in line.links
                if href.startswith(("http://", "https://"))}
        for parts in entries_of(block, ref, keys):
            pub, item = finish(parts, block, ref, legend, urls)
            (written if pub else left_out).append(item)
        used.update(line.index for line in block.lines)
    return written, left_out, prose, used
