"""Publication lists: numbered, bulleted, under year headings, multi-line or one-line, in any field order."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .citation import (
    NOTE,
    PubParts,
    is_venue,
    parse_citation,
    take_addresses,
    take_awards,
    take_links,
    take_notes,
    venue_first,
)
from .dates import last_year
from .entries import BULLET, strip_bullet
from .names import is_author_line, split_authors
from .prose import find_metrics
from .records import Item, Line
from .venues import Reference

Refine = Callable[[list[Line], PubParts], PubParts | None]  # an entry's lines and rule reading -> another reading
YEAR_HEADING = re.compile(r"^#*\s*((?:19|20)\d\d)\s*:?$")
_PUB_KINDS = {"conference", "conferences", "journal", "journals", "workshop", "workshops", "preprint", "preprints",
              "paper", "papers", "publications", "publication", "articles", "article", "proceedings", "chapters",
              "chapter", "book", "books", "theses", "thesis", "dissertation", "reports", "report", "manuscripts",
              "manuscript", "posters", "poster", "demos", "demo", "arxiv", "magazine", "abstracts", "submission",
              "submissions", "review", "letters", "surveys"}
_PUB_MODIFIERS = {"selected", "recent", "other", "refereed", "peer-reviewed", "peer", "reviewed", "non-refereed",
                  "invited", "international", "national", "domestic", "full", "short", "long", "technical", "under",
                  "in", "working", "and", "&", "or", "first-author", "student", "archival", "non-archival",
                  "published", "accepted", "forthcoming", "main", "major", "journal", "papers", "of", "the", "to",
                  "appear", "edited", "as", "co-author", "first", "author", "extended", "tutorial", "featured", "key",
                  "representative", "latest", "highlighted", "my", "all", "list", "complete", "notable", "research"}


def is_subheading(text: str) -> bool:
    """A heading that groups a publication list: 'Conference Papers (refereed)', 'Preprints & workshops'.

    >>> [is_subheading(t) for t in ("Refereed Conference Papers", "Workshop Papers and Preprints", "Invited Talks")]
    [True, True, False]
    """
    text = re.sub(r"^#+\s*", "", text).strip().strip("*_ ").rstrip(":：").strip()
    text = re.sub(r"\s*[(（][^()（）]*[)）]$", "", text)
    words = re.findall(r"[\w&-]+", text.lower())
    if not 1 <= len(words) <= 7 or re.search(r"\d", text):
        return False
    return all(w in _PUB_KINDS or w in _PUB_MODIFIERS for w in words) and any(w in _PUB_KINDS for w in words)


_PRESTATUS = re.compile(r"preprint|under review|in submission|working paper|manuscript|arxiv", re.I)
_PUBLISHED_KINDS = re.compile(r"conference|journal|workshop|proceedings|published|refereed|peer", re.I)
LEGEND = re.compile(r"^[(（]?\s*(?:[*†‡§#✉]|\^)\s*(?:=|:|denotes|indicates|marks|means)?\s*\S", re.I)
_LEGEND_WORDS = re.compile(r"equal|co-first|joint first|shared first|corresponding|contribution|student|intern|"
                           r"mentee|advisee|共同|通讯", re.I)
_FURNITURE = re.compile(r"^(?:page\s+)?\d{1,3}(?:\s*(?:of|/)\s*\d{1,3})?$", re.I)  # a page number
_METRIC_LINE = re.compile(r"\bh-index\b|\bcitations\b|\bcited\b|\bi10-index\b", re.I)
_PROSE_START = re.compile(r"^(?:view|see|click|visit|here|please|below|for (?:a|the) (?:full|complete)|"
                          r"a (?:full|complete) list|(?:my|his|her|our) (?:work|papers|research))\b", re.I)
_PRONOUN = re.compile(r"\b(?:[Ii]|my|me|we|our|he|his|she|her|they|their|here|see|view|visit|click|please)\b"
                      r"|\bI\b|'s work|’s work|has been cited", re.I)
_VENUE_LABEL = re.compile(r"^[\[(]\s*[A-Za-z][\w&/ .-]{1,30}?\s*(?:['’]\s?\d{2}|\d{4})\s*[\])]\s+\S")
TITLE, AUTHORS, VENUE, CITATION, LINKS, AWARD, NOTE_KIND = "title", "authors", "venue", "citation", "links", \
    "award", "note"


def heading_status(text: str) -> str | None:
    """The status a group heading gives its entries: 'preprint' under 'Preprints', else None."""
    return "preprint" if _PRESTATUS.search(text) and not _PUBLISHED_KINDS.search(text) else None


def is_legend(text: str) -> bool:
    """A legend of author marks ('* denotes equal contribution', '(* equal contribution; # corresponding author)')."""
    return LEGEND.match(text) is not None and _LEGEND_WORDS.search(text) is not None and len(text.split()) <= 25


def is_prose(text: str) -> bool:
    """Whether a line is running text about the list rather than an entry ('See the full list at ...')."""
    if is_legend(text) or (_METRIC_LINE.search(text) and find_metrics(text) and len(text.split()) <= 20):
        return True
    if BULLET.match(text) or len(text.split()) < 5:
        return False
    if _PROSE_START.match(text):
        return True
    words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", text) if len(w) > 3]
    capitalised = sum(1 for w in words if w[0].isupper()) / max(1, len(words))
    return bool(_PRONOUN.search(text)) and capitalised < 0.5 and len(text.split()) >= 8


@dataclass
class PubBlock:
    """Lines of a publication list read together, with the year and status their headings give."""

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
    urls: dict[str, str] = field(default_factory=dict)


def _unfinished(text: str) -> bool:
    """A line that breaks off inside a citation (an open quote; a trailing comma, hyphen, 'and', 'Proc.')."""
    text = text.rstrip()
    open_quote = text.count("“") > text.count("”") or text.count('"') % 2 == 1
    return open_quote or re.search(r"(?:[,;:–-]|\b(?:and|in|of|the|on|for|Proc\.|Symp\.|Conf\.|Trans\.|Int\.|"
                                   r"Intl\.|vol\.|no\.|pp\.))$", text) is not None


def _joined(block: PubBlock) -> PubBlock:
    """A block whose lines are one citation wrapped over several lines, as one line."""
    text = ""
    for line in block.lines:
        piece = line.text if not text else strip_bullet(line.text) if BULLET.match(line.text) is None else line.text
        text = text + piece if text.endswith("-") and piece[:1].islower() else f"{text} {piece}".strip()
    first = block.lines[0]
    return replace(block, lines=[Line(first.index, first.no, text, first.indent, first.heading,
                                      tuple(x for line in block.lines for x in line.links))])


def _complete(parts: PubParts) -> bool:
    return bool(parts.title and parts.authors and (parts.year or parts.venue or parts.label))


def blocks_of(lines: list[Line]) -> tuple[list[PubBlock], list[Line], set[int]]:
    """Publication blocks (between blank lines, bullets and year headings), prose lines, consumed headings."""
    blocks: list[PubBlock] = []
    prose: list[Line] = []
    used: set[int] = set()
    year: int | None = None
    status: str | None = None
    current: PubBlock | None = None
    for line in lines:
        text = line.text
        if not text:
            current = None
            continue
        heading = YEAR_HEADING.match(text)
        if heading or (is_subheading(text) and not text.endswith(".") and (
                current is None or line.heading or text.startswith("#"))):
            if heading:
                year = int(heading.group(1))
            else:
                status = heading_status(text)
            used.add(line.index)
            current = None
            continue
        if is_prose(text):
            prose.append(line)
            current = None
            continue
        if _FURNITURE.match(text):
            current = None
            continue
        marked = BULLET.match(text) is not None or _VENUE_LABEL.match(text) is not None
        first = current.lines[0] if current else None
        deeper_seen = current is not None and any(x.indent > first.indent for x in current.lines)  # type: ignore
        if current is None or marked or (first is not None and line.indent <= first.indent and
                                         (deeper_seen or current.marked) and not _unfinished(current.lines[-1].text)):
            current = PubBlock(year=year, status=status, marked=marked)
            blocks.append(current)
        current.lines.append(line)
    return blocks, prose, used


def _classify(text: str, ref: Reference, keys: set[str], first: bool) -> _Classified:
    body = BULLET.sub("", text, count=1).strip()
    body, urls = take_addresses(body)
    body, links = take_links(body)
    links += list(urls)
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
    return _Classified(kind, body, links, awards, notes, venue, urls)


def entries_of(block: PubBlock, ref: Reference, keys: set[str]) -> list[PubParts]:
    """Split a block into publications by the order of title, author and venue lines."""
    out: list[PubParts] = []
    cur = PubParts()
    previous = None
    for pos, line in enumerate(block.lines):
        c = _classify(line.text, ref, keys, pos == 0 or previous in (LINKS, AWARD, NOTE_KIND))
        filled = {TITLE: cur.title, AUTHORS: cur.authors, VENUE: cur.venue}
        continues = (c.kind == TITLE and previous == TITLE and cur.authors is None and cur.venue is None) or \
                    (c.kind == AUTHORS and previous == AUTHORS and line.text.rstrip().endswith(","))
        starts = c.kind == CITATION and (cur.title or cur.authors or cur.venue or cur.label)
        if starts or (c.kind in filled and filled[c.kind] and not continues):
            out.append(cur)
            cur = PubParts()
        cur.lines.append(line.no)
        cur.links += c.links
        cur.urls.update(c.urls)
        cur.awards += c.awards
        cur.notes += c.notes
        if c.venue and not cur.label:
            cur.label = c.venue
        if c.kind == CITATION:
            parsed = parse_citation(c.text, ref, keys)
            assert parsed is not None
            cur.title, cur.authors, cur.year = parsed.title, parsed.authors, parsed.year
            cur.venue = cur.venue or parsed.venue
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
        if parts.year is None and parts.venue is None and parts.label is None and block.year is not None:
            parts.year = block.year
    return [p for p in out if p.title or p.authors or p.venue or p.label]


def _legend_strip(legend: str) -> set[str]:
    """Marks that a legend says are not equal contribution ('† corresponding author')."""
    strip = set()
    for mark in "*†‡#§✉":
        match = re.search(re.escape(mark) + r"\s*(?:=|:|denotes|indicates|marks)?\s*([^*†‡#§✉;；,，()（）]+)", legend)
        if match and not re.search(r"equal|co-first|joint first|shared first|共同第一", match.group(1), re.I):
            strip.add(mark)
    return strip


def _title(text: str) -> str:
    text = text.strip().strip("*_").strip()
    if len(text) > 2 and text[0] in "\"“'" and text[-1] in "\"”'":
        text = text[1:-1]
    return text.rstrip(".").strip()


def finish(parts: PubParts, block: PubBlock, ref: Reference, legend: str,
           urls: dict[str, str]) -> tuple[dict[str, Any] | None, Item]:
    """The YAML mapping of one publication, or None with the reason when kg build could not take it."""
    item = Item(None, list(parts.lines))
    written = parts.venue or parts.label
    match = ref.venue(parts.venue) if parts.venue else None
    if parts.label:
        label = ref.venue(parts.label)
        match = replace(match, id=match.id or label.id, year=match.year or label.year) if match else label
    year = parts.year or (match.year if match else None) or block.year
    title = _title(parts.title or "")
    authors = list(parts.authors or [])
    for mark in _legend_strip(legend):
        if any(mark in a for a in authors):
            authors = [a.replace(mark, "").strip() for a in authors]
            item.reviews.append(f"'{mark}' marks something other than equal contribution on this page "
                                f"({legend.strip()}); removed")
    missing = [what for what, value in (("title", title), ("author list", authors)) if not value]
    if missing:
        item.value = {"title": title or None, "authors": authors or None, "venue_as_written": written}
        item.reviews.append(f"no {' or '.join(missing)} recognised; kg build needs one, so this entry is left out")
        return None, item
    pub: dict[str, Any] = {"title": title, "authors": authors}
    if match and match.id:
        pub["venue"] = match.id
    if written and not re.fullmatch(r"[\s(]*(?:19|20)\d\d[\s).,]*", written):
        pub["venue_as_written"] = re.sub(r"\.\.$", ".", written)
    if year:
        pub["year"] = year
    else:
        item.reviews.append("no year on the page; add 'year' if you know it")
    status = block.status or (match.status if match else "published")
    pub["status"] = status
    if parts.notes:
        pub["notes"] = parts.notes
    if parts.awards:
        pub["awards"] = list(dict.fromkeys(parts.awards))
    if parts.links:
        pub["links"] = [{"label": label, "url": parts.urls.get(label) or urls.get(label.lower())}
                        for label in dict.fromkeys(parts.links)]
    if match and match.id is None and match.label and not re.fullmatch(r"(?i)preprint|under review|"
                                                                        r"under submission|in submission|"
                                                                        r"submitted|manuscript|", match.label):
        item.reviews.append(ref.unknown_venue(match.label))
    if year and parts.year is None and (match is None or match.year is None):
        item.notes.append(f"year from the heading '{block.year}'")
    item.value = pub
    return pub, item


def legend_lines(lines: list[Line]) -> list[Line]:
    """The lines among a list's prose that explain its author marks ('* denotes equal contribution')."""
    return [p for p in lines if is_legend(p.text) or re.search(r"[*†‡]\s*(?:=|:|denotes|indicates)", p.text)]


def link_targets(lines: list[Line]) -> dict[str, str]:
    """The http(s) addresses of the links on some lines, by their label in lower case ('pdf' -> URL)."""
    return {label.lower().strip("[] "): href for line in lines for label, href in line.links
            if href.startswith(("http://", "https://"))}


def parse_publications(lines: list[Line], ref: Reference, keys: set[str], legend: str, refine: Refine | None = None
                       ) -> tuple[list[Item], list[Item], list[Line], set[int]]:
    """Publications written, entries left out, prose lines, and the indexes of the lines used (each entry's fields
    by the rules, or by `refine` where it gives a reading)."""
    blocks, prose, used = blocks_of(lines)
    legends = legend_lines(prose)
    legend = " ".join([legend] + [p.text for p in legends])
    used.update(p.index for p in legends)
    prose = [p for p in prose if p not in legends or re.search(r"https?://|scholar|dblp", p.text, re.I)]
    written: list[Item] = []
    left_out: list[Item] = []
    for block in blocks:
        urls = link_targets(block.lines)
        entries = entries_of(block, ref, keys)
        if len(block.lines) > 1 and not all(_complete(e) for e in entries):
            joined = entries_of(_joined(block), ref, keys)
            if len(joined) == 1 and _complete(joined[0]):
                entries = joined
                entries[0].lines = [line.no for line in block.lines]
        for parts in entries:
            if refine is not None:
                parts = refine([line for line in block.lines if line.no in parts.lines], parts) or parts
            pub, item = finish(parts, block, ref, legend, urls)
            (written if pub else left_out).append(item)
        used.update(line.index for line in block.lines)
    return written, left_out, prose, used
