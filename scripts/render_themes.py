"""How each theme lays out one publication: al-folio, academicpages, minimal-mistakes, Wowchemy, distill and
hand-written lists. Each layout returns the entry's node and the facts it shows (written in our own code from
the visible layouts)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from render_tree import Node, el, text

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
RANKS = ("CCF-A", "CCF-B", "CORE A*", "Q1", "Oral", "Spotlight", "SCI", "JCR Q1")
AWARDS = ("Best Paper Award", "🏆 Best Paper Award", "Oral Presentation", "Spotlight", "Outstanding Paper Award",
          "Best Student Paper Award", "Oral (top 5%)", "Editor's Choice")
TAGS = ("journal article", "preprint", "conference paper", "bioRxiv", "peer-reviewed", "open access", "book chapter")


@dataclass(frozen=True)
class Pub:
    """One harvested publication."""

    title: str
    authors: tuple[str, ...]
    venue: str
    year: int | None
    type: str
    doi: str


@dataclass(frozen=True)
class Shown:
    """What a rendering shows of a publication: the page's ground truth."""

    title: str
    authors: tuple[str, ...]
    venue: str | None
    year: int | None


@dataclass(frozen=True)
class Style:
    """The per-page choices of a layout (fixed for all entries of a page)."""

    owner: tuple[str, ...]
    max_authors: int | None
    badges: bool
    ranks: bool
    bold: str
    links: tuple[str, ...]
    variant: int
    name_form: str
    awards: bool = False


def stop(value: str, mark: str = ".") -> str:
    """A text ended by a full stop (or `mark`) unless it already ends with punctuation."""
    return value if value[-1:] in ".!?" else value + mark


def first_last(name: str) -> str:
    """'Wen*, Zehao' as 'Zehao Wen*'; names without one comma are kept."""
    if name.count(",") == 1:
        last, first = (p.strip() for p in name.split(","))
        return f"{first} {last}".strip() if first else last
    return name.strip()


def initials(name: str, surname_first: bool) -> str:
    """'Zehao Wen*' as 'Z. Wen*' or 'Wen Z*' (life-sciences style)."""
    parts = first_last(name).split()
    if len(parts) < 2:
        return first_last(name)
    marks = "".join(ch for ch in parts[-1] if ch in "*†‡")
    last = parts[-1].rstrip("*†‡")
    given = [p for p in parts[:-1] if p[:1].isalpha()]
    if surname_first:
        return f"{last} {''.join(p[0].upper() for p in given)}{marks}"
    return " ".join(f"{p[0].upper()}." for p in given) + f" {last}{marks}"


def shown_name(name: str, style: Style) -> str:
    """An author's name in the page's name form ('et al.' and 'others' as written)."""
    if re.fullmatch(r"\s*(?:et\.? al\.?|others|\.\.\.|…)\s*", name, re.I):
        return name.strip()
    if style.name_form == "initials":
        return initials(name, False)
    if style.name_form == "vancouver":
        return initials(name, True)
    if style.name_form == "as-written":
        return name.strip()
    return first_last(name)


def is_owner(name: str, style: Style) -> bool:
    """Whether an author is the page's owner (surname and first initial)."""
    words = re.sub(r"[*†‡.,]", " ", first_last(name)).lower().split()
    return bool(style.owner) and bool(words) and style.owner[-1] in words and any(
        w[:1] == style.owner[0][:1] for w in words if w != style.owner[-1])


def author_nodes(pub: Pub, style: Style, sep: str = ", ", last_sep: str = ", and ") -> tuple[list[Node], list[str]]:
    """The author run (owner emphasised, long lists cut with 'and N more authors') and the names it shows."""
    names = list(pub.authors)
    hidden = 0
    if style.max_authors and len(names) > style.max_authors + 1:
        hidden = len(names) - style.max_authors
        names = names[: style.max_authors]
    shown = [shown_name(n, style) for n in names]
    nodes: list[Node] = []
    for i, name in enumerate(shown):
        if i:
            nodes.append(text(last_sep if i == len(shown) - 1 and not hidden and last_sep else sep))
        nodes.append(el(style.bold, name) if is_owner(names[i], style) and style.bold else text(name))
    if hidden:
        nodes.append(text(f", and {hidden} more authors" if style.variant % 2 else f" and {hidden} more authors"))
        shown.append("...")
    return nodes, shown


def acronym(venue: str, year: int | None, rng: random.Random) -> str:
    """A badge for a venue: its parenthesised acronym or its capitals, sometimes with a short year."""
    found = re.search(r"\(([A-Z][A-Za-z0-9&-]{1,11})(?:[ '’]*\d{2,4})?\)", venue)
    short = found.group(1) if found else "".join(w[0] for w in re.findall(r"\b[A-Z][A-Za-z]+", venue))[:6]
    short = short or "Preprint"
    if year and rng.random() < 0.4:
        return f"{short}'{year % 100:02d}" if rng.random() < 0.5 else f"{short} {year}"
    return short


def link_row(style: Style, cls: str, bracket: bool) -> Node:
    """A row of link buttons ('PDF Code' or '[PDF] [Code]')."""
    labels = [f"[{label}]" if bracket else label for label in style.links]
    row = el("div", cls=cls, fld="links")
    for i, label in enumerate(labels):
        if i:
            row.children.append(text(" "))
        row.children.append(el("a", label, cls="btn", href=f"#{label.strip('[]').lower()}"))
    return row


def alfolio(pub: Pub, style: Style, rng: random.Random) -> tuple[Node, Shown]:
    """al-folio: a badge column, then title, authors, 'Venue, Year' and buttons on lines of their own."""
    names, shown = author_nodes(pub, style)
    body = el("div", el("div", pub.title, cls="title", fld="title"), cls="col-sm-8")
    body.children.append(el("div", *names, cls="author", fld="authors"))
    periodical = el("div", cls="periodical", fld="venue")
    if pub.venue:
        periodical.children.append(el("em", pub.venue))
    if pub.year:
        periodical.children.append(text(f", {pub.year}" if pub.venue else str(pub.year), "year"))
    body.children.append(periodical)
    if style.links:
        body.children.append(link_row(style, "links", False))
    if style.awards and rng.random() < 0.15:
        body.children.append(el("div", rng.choice(AWARDS), cls="award", fld="award"))
    row = el("div", cls="row")
    if style.badges:
        badge = el("div", el("abbr", acronym(pub.venue, pub.year, rng), cls="badge"), cls="col-sm-2 abbr",
                   fld="badge")
        if style.ranks and rng.random() < 0.5:
            badge.children.append(el("abbr", rng.choice(RANKS), cls="badge rank"))
        row.children.append(badge)
    row.children.append(body)
    return el("li", row), Shown(pub.title, tuple(shown), pub.venue or None, pub.year)


def academicpages(pub: Pub, style: Style, rng: random.Random) -> tuple[Node, Shown]:
    """academicpages / minimal-mistakes archive item: title link, 'Published in Venue, date', a citation."""
    item = el("div", el("h2", el("a", pub.title, href="#"), cls="archive__item-title", fld="title"),
              cls="archive__item")
    date = f"{rng.choice(MONTHS)} {rng.randint(1, 28)}, {pub.year}" if pub.year and style.variant % 2 else (
        str(pub.year or ""))
    meta = el("p", cls="page__meta", fld="venue")
    if pub.venue:
        meta.children += [text("Published in "), el("i", pub.venue)]
    if date:
        meta.children.append(text((", " if pub.venue else "Published ") + date, "year"))
    if meta.children:
        item.children.append(meta)
    names, shown = author_nodes(pub, style, ", ", ", ")
    if style.variant % 3 == 0 and names:
        item.children.append(el("p", "Recommended citation: ", *names, text(f". ({pub.year}). "),
                                text(f"\"{stop(pub.title)}\" "), el("i", pub.venue or ""), ".", fld="citation"))
    elif names:
        item.children.insert(1, el("p", *names, cls="authors", fld="authors"))
    return item, Shown(pub.title, tuple(shown), pub.venue or None, pub.year)


def wowchemy(pub: Pub, style: Style, rng: random.Random) -> tuple[Node, Shown]:
    """Wowchemy: a stream item (authors, then date and venue, then title, buttons) or a citation block."""
    names, shown = author_nodes(pub, style, ", ", ", ")
    if style.variant % 2:
        item = el("div", el("span", *names, cls="article-metadata li-cite-author", fld="authors"), cls="pub-list-item")
        if pub.year:
            item.children.append(text(f" ({pub.year}). ", "year"))
        else:
            item.children.append(text(". "))
        item.children += [el("a", pub.title, href="#", fld="title"), text(stop(pub.title, ". ")[len(pub.title):])]
        if pub.venue:
            item.children += [el("em", pub.venue, fld="venue"), text(stop(pub.venue)[len(pub.venue):])]
        item.children.append(link_row(style, "btn-links", False))
        return item, Shown(pub.title, tuple(shown), pub.venue or None, pub.year)
    meta = el("div", el("span", *names, cls="author-highlighted", fld="authors"), cls="article-metadata")
    dated = el("div", cls="article-metadata", fld="venue")
    if pub.year:
        dated.children.append(el("span", f"{rng.choice(MONTHS)}, {pub.year}", cls="article-date", fld="year"))
    if pub.venue:
        dated.children += [text(" "), el("span", el("em", pub.venue), cls="pub-publication")]
    item = el("div", meta, dated, el("h3", el("a", pub.title, href="#"), cls="article-title", fld="title"),
              cls="media stream-item")
    item.children.append(link_row(style, "btn-links", False))
    return item, Shown(pub.title, tuple(shown), pub.venue or None, pub.year)


def distill(pub: Pub, style: Style, rng: random.Random) -> tuple[Node, Shown]:
    """R distill listing: a bold title, the authors, then 'Venue (Year)'."""
    names, shown = author_nodes(pub, style, ", ", " and ")
    item = el("div", el("h3", pub.title, cls="title", fld="title"), el("p", *names, cls="authors", fld="authors"),
              cls="publication")
    line = " ".join(x for x in (pub.venue, f"({pub.year})" if pub.year else "") if x)
    if line:
        item.children.append(el("p", line, cls="venue", fld="venue"))
    return item, Shown(pub.title, tuple(shown), pub.venue or None, pub.year)


def handwritten(pub: Pub, style: Style, rng: random.Random) -> tuple[Node, Shown]:
    """Hand-written lists: one-line citations (badge first, APA, life-sciences) or title / authors / venue."""
    names, shown = author_nodes(pub, style, ", ", ", " if style.variant % 3 else ", and ")
    venue, year = pub.venue, pub.year
    item = el("li", cls="pub")
    form = style.variant % 4
    if style.badges and venue:
        item.children.append(el("b", f"[{acronym(venue, year, rng)}] " if form else f"{acronym(venue, year, rng)} ",
                                fld="badge"))
    if form == 0:
        item.children += [*names, text(". "), el("b", pub.title, fld="title"),
                          text(stop(pub.title, ". ")[len(pub.title):])]
        item.children += [el("i", venue, fld="venue"), text(", ")] if venue else []
        item.children.append(text(f"{year}." if year else "", "year"))
    elif form == 1:
        item.children += [*names, text(f" ({year}). " if year else ". "), text(stop(pub.title) + " ", "title")]
        item.children += [el("i", venue, fld="venue"), text(stop(venue)[len(venue):])] if venue else []
    elif form == 2:
        item.children += [el("b", pub.title, fld="title"), el("br"), *names, el("br")]
        item.children += [el("i", venue, fld="venue")] if venue else []
        item.children.append(text(f", {year}" if venue and year else str(year or ""), "year"))
    else:
        item.children += [*names, text(f". {year}. " if year else ". "), text(stop(pub.title) + " ", "title")]
        item.children += [text(stop(venue), "venue")] if venue else []
    if style.links:
        item.children += [text(" "), *link_row(style, "links", True).children]
    if form == 1 and style.ranks:
        item.children.append(el("div", " · ".join(rng.sample(TAGS, 2)), cls="tags", fld="tags"))
    elif style.awards and rng.random() < 0.15:
        item.children.append(el("div", rng.choice(AWARDS), cls="award", fld="award"))
    return item, Shown(pub.title, tuple(shown), venue or None, year)


LAYOUTS: dict[str, Callable[[Pub, Style, random.Random], tuple[Node, Shown]]] = {
    "al-folio": alfolio, "academicpages": academicpages, "minimal-mistakes": academicpages, "wowchemy": wowchemy,
    "distill": distill, "hand-written": handwritten}
