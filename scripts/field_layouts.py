"""Harvested publications as homepages show them, labelled by construction: fields built piece by piece on one or
more lines (title / authors / venue and year lines in several orders, badges, link labels, status, marks, bold own
name, cut author lists, abstract-like lines). Deterministic for a seed.

    from field_layouts import render_layout, renderings
"""

from __future__ import annotations

import random
import re
from typing import Any

from field_data import Labelled, from_chars
from field_render import MARKS, name_parts, render_csl

Piece = tuple[str, str]  # text and the label of its characters ('B-author' marks the first character only)

_RANKS = ("CCF-A", "CCF-B", "CORE A*", "Q1", "SCI", "Top Conference", "Oral")
_LINKS = (("[PDF]", "[Code]"), ("PDF", "Code", "Slides"), ("Paper", "|", "Code", "|", "Video"), ("abs", "bib", "pdf"),
          ("[paper]", "[project page]", "[arXiv]"), ("(PDF)",), ("DOI",), ("[Link]",), ("Preprint", "PDF", "Cite"),
          ("ABS", "ARXIV", "BIB", "HTML", "PDF", "CODE"), ("Abstract", "PDF", "DOI"))
_STATUS = ("(In prep.)", "(Submitted)", "Under review", "(in press)", "Submitted", "In preparation", "Working paper",
           "(accepted)", "Forthcoming")
_AWARDS = ("Best Paper Award", "🏆 Best Paper Honorable Mention", "Best Student Paper", "Outstanding Paper Award")
_NOTES = ("Oral", "(Oral)", "Spotlight", "Oral presentation", "(Spotlight)", "Poster", "Journal article",
          "(* equal contribution)")
_PROSE = ("We study {} and show that a simple method works well in practice …",
          "This paper introduces {}, evaluated on three public data sets.",
          "In this work we examine how {} changes under realistic conditions, and what follows for practice.",
          "Abstract: {} remains hard; we propose a new approach and report its results.")
_MONTHS = ("Jan", "Feb", "March", "April", "May", "June", "Jul", "August", "Sep", "October", "Nov", "December")


def _name(written: str, style: int, own: bool, rng: random.Random) -> str:
    family, given, marks = name_parts(written)
    initials = " ".join(w[0] + "." for w in re.split(r"[\s]+", given) if w[:1].isalpha())
    compact = initials.replace(". ", "")[:-1] if initials else ""
    name = [f"{given} {family}", f"{initials} {family}", f"{family}, {initials}", f"{family} {compact}",
            f"{family} {given}"][style].strip(" ,")
    if rng.random() < 0.1:
        marks += rng.choice(MARKS)
    name += marks
    return f"**{name}**" if own and rng.random() < 0.5 else name


def _authors(pub: dict[str, Any], own: int, rng: random.Random) -> list[Piece]:
    style = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))
    names = pub["authors"]
    rendered = [_name(a, style, k == own, rng) for k, a in enumerate(names)]
    cut: str | None = None
    if len(rendered) > 5 and rng.random() < 0.4:
        cut = rng.choice((f"and {len(rendered) - 3} more authors", "et al.", "…"))
        rendered = rendered[:3]
    sep = ";" if style == 2 and rng.random() < 0.3 else ","
    pieces: list[Piece] = []
    for k, name in enumerate(rendered):
        if k:
            last = k == len(rendered) - 1 and cut is None
            joiner = rng.choice((f"{sep} and ", " and ", f"{sep} & ")) if last and rng.random() < 0.7 else f"{sep} "
            pieces.append((joiner, "I-author"))
        pieces += [(name[:1], "B-author"), (name[1:], "I-author")]
    if cut:
        pieces += [(", " if cut != "et al." or rng.random() < 0.5 else " ", "I-author"), (cut[:1], "B-author"),
                   (cut[1:], "I-author")]
    return pieces


def _badge(venue: str, year: int | None, rng: random.Random) -> str | None:
    found = re.search(r"\(([A-Z][\w&-]{1,12})\)", venue) or re.fullmatch(r"([A-Z][A-Za-z&-]{1,10})", venue)
    if found is None:
        caps = "".join(w[0] for w in venue.split() if w[:1].isupper() and w.lower() not in {"of", "on", "the"})
        if not 2 <= len(caps) <= 6:
            return None
        acronym = caps
    else:
        acronym = found.group(1)
    if year and rng.random() < 0.5:
        return rng.choice((f"{acronym} {year}", f"{acronym}'{str(year)[2:]}", f"{acronym} '{str(year)[2:]}"))
    return acronym


def render_layout(pub: dict[str, Any], rng: random.Random) -> Labelled:
    """One publication as a homepage shows it: its fields on one or more lines in one of several orders."""
    year = pub.get("year")
    title = pub["title"]
    title_pieces: list[Piece] = [(title, "title")]
    quote = rng.random()
    if quote < 0.15:
        title_pieces = [("“", "other"), (title, "title"), ("”", "other")]
    elif quote < 0.4:
        title_pieces = [(title, "title"), (".", "other")]
    venue_pieces: list[Piece] = []
    status = rng.choice(_STATUS) if rng.random() < 0.1 else None
    if status and rng.random() < 0.5 and "appear" not in status:
        venue_pieces.append((status, "status"))
    elif pub.get("venue"):
        if status and rng.random() < 0.5:
            venue_pieces += [(rng.choice(("To appear in", "Accepted at", "Accepted to")), "status"), (" ", "other")]
            status = None
        elif rng.random() < 0.2:
            venue_pieces.append(("In ", "other"))
        venue_pieces.append((pub["venue"], "venue"))
        if rng.random() < 0.15:
            v = rng.randrange(1, 80)
            venue_pieces += [(", ", "other"), (rng.choice((f"{v}({rng.randrange(1, 12)}):{v * 7}–{v * 7 + 12}",
                                                          f"vol. {v}", f"pp. {v * 3}-{v * 3 + 9}")), "volume")]
    if year and not (status and rng.random() < 0.5):
        date = str(year) if rng.random() < 0.8 else f"{rng.choice(_MONTHS)} {year}"
        form = rng.randrange(4)
        venue_pieces += [((", ", " ", " (", ", ")[form] if venue_pieces else ("", "", "(", "")[form], "other"),
                         (date, "year"), (("", "", ")", ".")[form], "other")]
    if status and not any(label == "status" for _, label in venue_pieces):
        venue_pieces += [(" ", "other"), (status, "status")]
    own = rng.randrange(len(pub["authors"]))
    authors = _authors(pub, own, rng)
    extras: list[list[Piece]] = []
    if rng.random() < 0.45:
        links = " ".join(rng.choice(_LINKS))
        extras.append([(links.upper() if rng.random() < 0.3 else links, "links")])
    if rng.random() < 0.05:
        extras.append([(rng.choice(_AWARDS), "award")])
    if rng.random() < 0.08:
        extras.append([(rng.choice(_NOTES), "note")])
    if rng.random() < 0.1:
        words = title.lower().rstrip(".").split()
        rng.shuffle(words)
        extras.insert(0, [(rng.choice(_PROSE).format(" ".join(words[:8])), "note")])
    badge = _badge(pub.get("venue") or "", year, rng) if rng.random() < 0.25 else None
    rank = rng.choice(_RANKS) if badge and rng.random() < 0.4 else None
    badge_pieces: list[Piece] = []
    if badge:
        wrap = rng.choice((("", ""), ("[", "]"), ("(", ")")))
        badge_pieces = [(wrap[0], "other"), (badge, "venue"), (wrap[1], "other")]
        if rank:
            badge_pieces += [(" ", "other"), (rank, "note")]
    order = rng.choice(("title-authors-venue", "title-authors-venue", "authors-title-venue", "authors-venue-title",
                        "venue-title-authors", "one-line", "one-line", "one-line-title-first", "apa"))
    lines: list[list[Piece]]
    if order == "title-authors-venue":
        lines = [title_pieces, authors, venue_pieces]
    elif order == "authors-title-venue":
        lines = [authors, title_pieces, venue_pieces]
    elif order == "authors-venue-title":
        lines = [authors, venue_pieces, title_pieces]
    elif order == "venue-title-authors":
        lines = [venue_pieces, title_pieces, authors]
    elif order == "one-line-title-first":
        lines = [title_pieces + [(". " if title_pieces[-1][0] != "." else " ", "other")] + authors + [
            (". ", "other")] + venue_pieces]
    elif order == "apa" and year:
        lines = [authors + [(" (", "other"), (str(year), "year"), ("). ", "other")] + title_pieces +
                 [(". " if title_pieces[-1][0] != "." else " ", "other")] +
                 [p for p in venue_pieces if p[1] != "year" and p[0] not in (" (", ")")]]
    else:
        lines = [authors + [(". ", "other")] + title_pieces + [(". " if title_pieces[-1][0] != "." else " ", "other")]
                 + venue_pieces]
    lines = [line for line in lines if line]
    if badge_pieces:
        where = rng.randrange(3)
        if where == 0:
            lines.insert(0, badge_pieces)
        elif where == 1:
            lines[0] = badge_pieces + [(" ", "other")] + lines[0]
        else:
            lines[-1] = lines[-1] + [(" ", "other")] + badge_pieces
    for extra in extras:
        if rng.random() < 0.6:
            lines.append(extra)
        else:
            lines[-1] = lines[-1] + [(" ", "other")] + extra
    if rng.random() < 0.2:
        lines[0] = [(rng.choice(("- ", "• ", f"{rng.randrange(1, 60)}. ", f"[{rng.randrange(1, 60)}] ")), "other")] + \
            lines[0]
    char_lines = []
    for line in lines:
        text = "".join(t for t, _ in line)
        chars: list[str | None] = []
        for piece, label in line:
            if not piece:
                continue
            chars += [label] + ["I-author" if label == "B-author" else label] * (len(piece) - 1)
        char_lines.append((text, chars))
    texts, labels = from_chars(char_lines)
    family, given, _ = name_parts(pub["authors"][own])
    return Labelled(texts, labels, f"layout:{order}", f"{given} {family}")


def renderings(pubs: list[dict[str, Any]], styles: list[str], per_style: int, layouts: int, seed: int
               ) -> list[Labelled]:
    """Citeproc renderings of a sample of publications per style, then multi-line layouts; the same for a seed."""
    rng = random.Random(seed)
    out: list[Labelled] = []
    for style in styles:
        out += render_csl(rng.sample(pubs, min(per_style, len(pubs))), style)
    out += [render_layout(rng.choice(pubs), rng) for _ in range(layouts)]
    return out
