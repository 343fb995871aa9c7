"""Publication records and the SVG pictures drawn from them: a co-author network and a publication timeline.

Layouts are computed here, deterministically (same data, same picture), and drawn as inline SVG by an
autoescaping template (templates/pictures.html): no script, no web font, nothing fetched.

>>> net = coauthor_network(Mark("Ada", "person/ada"), [[Mark("Ada", "person/ada"), Mark("Bob", "person/bob")]])
>>> [(n.label, n.papers) for n in net.nodes], len(net.edges)
([('Ada', 1), ('Bob', 1)], 1)
>>> t = timeline([Paper("P", "work/p", 2019, "Published"), Paper("Q", "work/q", 2021, "Preprint")])
>>> [y.year for y in t.years], t.width > 0
([2019, 2020, 2021], True)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...namespaces import BIBO_IRIS as B
from ...namespaces import KG_IRIS as K
from ...namespaces import SCHEMA_IRIS as S
from .entries import citation, entry_kind, kind_label
from .resources import DISPLAY_LABELS
from .weblinks import best_url, doi, labelled_links, load_links

if TYPE_CHECKING:
    from .resources import Reader

MAX_COAUTHORS = 24
# What publication() reads of a work, an authorship, an author and a venue (edition or series).
WORK = DISPLAY_LABELS + (S.datePublished, S.creativeWorkStatus, K.authorship, K.authorListComplete, B.presentedAt,
                         S.isPartOf, S.award, K.note, B.doi, S.sameAs)
AUTHORSHIP = DISPLAY_LABELS + (K.agent, K.rank, K.equalContribution, K.precededByElision)
# Of an author and of whom they may be, only the name is fetched up front: a label is its first display label
# found (schema:name), the rest are asked only of a node without one.
NAMED = (S.name,)
AGENT = NAMED + (K.possibleSameAs,)
VENUE = DISPLAY_LABELS + (S.superEvent, S.alternateName)


@dataclass(frozen=True)
class Mark:
    """A person as drawn: a label and the path of its page after /page/ (None when it has no page)."""

    label: str
    path: str | None


@dataclass(frozen=True)
class Node:
    """A placed node of the network."""

    label: str
    path: str | None
    x: float
    y: float
    r: float
    papers: int
    centre: bool = False
    anchor: str = "middle"
    label_x: float = 0.0
    label_y: float = 0.0
    rotate: float = 0.0
    maybe: tuple[str, ...] = ()


@dataclass(frozen=True)
class Edge:
    """A line between two placed nodes; weight is the number of shared papers."""

    x1: float
    y1: float
    x2: float
    y2: float
    weight: int
    centre: bool


@dataclass(frozen=True)
class Possible:
    """A dashed line between two drawn people who may be one person (an initials-only name and a full-name
    candidate, kg:possibleSameAs): the identity is not confirmed."""

    x1: float
    y1: float
    x2: float
    y2: float
    a: str
    b: str


@dataclass
class Network:
    """A placed co-author network: the person in the centre, the most frequent co-authors on a ring."""

    width: int
    height: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    possible: list[Possible] = field(default_factory=list)
    omitted: int = 0
    total: int = 0


def beside_candidates(shown: Sequence[Mark], possible: Mapping[Mark, Sequence[Mark]]) -> list[Mark]:
    """The shown marks reordered so that people who may be one person sit next to each other on the ring.

    >>> a, b, c = Mark("Haoran Wei", "p/hw"), Mark("Bo Li", "p/bl"), Mark("H Wei", "p/h")
    >>> [m.label for m in beside_candidates([a, b, c], {c: [a]})]
    ['Haoran Wei', 'H Wei', 'Bo Li']
    """
    links: dict[Mark, list[Mark]] = {}
    for mark, others in possible.items():
        for other in others:
            links.setdefault(mark, []).append(other)
            links.setdefault(other, []).append(mark)
    drawn = set(shown)
    order: list[Mark] = []
    for mark in shown:
        if mark in order:
            continue
        order.append(mark)
        order.extend(m for m in links.get(mark, []) if m in drawn and m not in order)
    return order


def coauthor_network(person: Mark, author_lists: Sequence[Sequence[Mark]], limit: int = MAX_COAUTHORS,
                     size: int = 640, possible: Mapping[Mark, Sequence[Mark]] | None = None) -> Network:
    """Place the person and their most frequent co-authors; edges join people who wrote a paper together.

    Args:
        person: the person in the centre.
        author_lists: the authors of each of the person's papers.
        limit: how many co-authors to draw (the most frequent; ties by name).
        size: width and height of the picture in pixels.
        possible: for a person, the people they may be (kg:possibleSameAs): drawn side by side, joined by a
            dashed line, each node saying whom it may be.

    Returns:
        The placed network; ``omitted`` says how many co-authors were left out.
    """
    possible = possible or {}
    counts: Counter[Mark] = Counter()
    for authors in author_lists:
        for mark in set(authors):
            if mark != person:
                counts[mark] += 1
    ranked = sorted(counts, key=lambda m: (-counts[m], m.label))
    shown, omitted = beside_candidates(ranked[:limit], possible), max(0, len(ranked) - limit)
    height = size if shown else 160
    cx, cy = size / 2, height / 2
    ring = size / 2 - 150
    network = Network(width=size, height=height, omitted=omitted, total=len(ranked))
    places: dict[Mark, tuple[float, float]] = {person: (cx, cy)}
    most = max(counts.values(), default=1)
    for i, mark in enumerate(shown):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(shown))
        cos, sin = math.cos(angle), math.sin(angle)
        x, y = cx + ring * cos, cy + ring * sin
        places[mark] = (x, y)
        radius = 5 + 7 * counts[mark] / most
        degrees = math.degrees(angle)
        left = cos < -1e-9
        network.nodes.append(Node(
            mark.label, mark.path, round(x, 1), round(y, 1), round(radius, 1), counts[mark],
            anchor="end" if left else "start", label_x=round(x + (radius + 5) * cos, 1),
            label_y=round(y + (radius + 5) * sin, 1), rotate=round(degrees + 180 if left else degrees, 1),
            maybe=tuple(sorted({m.label for m in possible.get(mark, ())}))))
    pairs: Counter[tuple[Mark, Mark]] = Counter()
    for authors in author_lists:
        present = sorted({m for m in authors if m in places}, key=lambda m: m.label)
        for a_index, a in enumerate(present):
            for b in present[a_index + 1:]:
                pairs[(a, b)] += 1
    for (a, b), weight in sorted(pairs.items(), key=lambda item: (item[0][0].label, item[0][1].label)):
        (x1, y1), (x2, y2) = places[a], places[b]
        network.edges.append(Edge(round(x1, 1), round(y1, 1), round(x2, 1), round(y2, 1), weight,
                                  person in (a, b)))
    pairs_drawn: set[frozenset[Mark]] = set()
    for mark in shown:
        for other in possible.get(mark, ()):
            pair = frozenset((mark, other))
            if other in places and other != person and pair not in pairs_drawn:
                pairs_drawn.add(pair)
                (x1, y1), (x2, y2) = places[mark], places[other]
                network.possible.append(Possible(round(x1, 1), round(y1, 1), round(x2, 1), round(y2, 1),
                                                 mark.label, other.label))
    papers = sum(1 for authors in author_lists if person in authors)
    network.nodes.insert(0, Node(person.label, person.path, cx, cy, 16, papers, centre=True,
                                 label_x=cx, label_y=cy + 34))
    return network


@dataclass(frozen=True)
class Paper:
    """A publication as drawn on the timeline."""

    title: str
    path: str | None
    year: int
    status: str


@dataclass(frozen=True)
class Dot:
    """A placed publication."""

    title: str
    path: str | None
    x: float
    y: float
    preprint: bool
    year: int


@dataclass(frozen=True)
class YearTick:
    """A year on the axis, with the number of papers in it."""

    year: int
    x: float
    count: int


@dataclass
class Timeline:
    """Publications per year: one column of dots per year on a horizontal axis."""

    width: int
    height: int
    axis_y: float
    dots: list[Dot] = field(default_factory=list)
    years: list[YearTick] = field(default_factory=list)


def timeline(papers: Sequence[Paper], step: int = 44, dot: int = 16) -> Timeline:
    """Place one dot per paper above its year; every year between the first and the last gets a tick."""
    if not papers:
        return Timeline(width=320, height=60, axis_y=40)
    first, last = min(p.year for p in papers), max(p.year for p in papers)
    per_year = Counter(p.year for p in papers)
    tallest = max(per_year.values())
    left = 40
    width = left * 2 + step * (last - first)
    axis_y = 24 + tallest * (dot + 4) + 8
    result = Timeline(width=max(width, 320), height=int(axis_y + 40), axis_y=axis_y)
    for year in range(first, last + 1):
        result.years.append(YearTick(year, left + step * (year - first), per_year.get(year, 0)))
    placed: Counter[int] = Counter()
    for paper in sorted(papers, key=lambda p: (p.year, p.title)):
        x = left + step * (paper.year - first)
        y = axis_y - 12 - placed[paper.year] * (dot + 4)
        placed[paper.year] += 1
        result.dots.append(Dot(paper.title, paper.path, x, y, paper.status.lower() == "preprint", paper.year))
    return result


def _link(reader: Reader, term: Any) -> dict[str, Any]:
    return {"label": reader.label(term), "path": reader.href(term), "iri": term.value}


def authors(reader: Reader, work: Any, person: Any | None = None) -> list[dict[str, Any]]:
    """The ranked authors of a work: name as written, page, equal-contribution mark, elision before."""
    rows = []
    for authorship in reader.values(work, K.authorship):
        agent = reader.first(authorship, K.agent)
        rank = reader.text(authorship, K.rank)
        rows.append({
            "rank": int(rank) if rank else 0,
            "label": reader.label(agent) if agent is not None else reader.label(authorship),
            "as_written": reader.text(authorship, K.nameAsWritten),
            "path": reader.href(agent) if agent is not None else None,
            "iri": agent.value if agent is not None else None,
            "equal": reader.text(authorship, K.equalContribution) == "true",
            "elided_before": reader.text(authorship, K.precededByElision) == "true",
            "self": person is not None and agent == person,
            "authorship": reader.href(authorship),
        })
    return sorted(rows, key=lambda row: row["rank"])


def venue(reader: Reader, work: Any) -> dict[str, Any] | None:
    """The series a work appeared in (through its edition or collection), with the edition if any."""
    edition = reader.first(work, B.presentedAt)
    series = reader.first(edition, S.superEvent) if edition is not None else reader.first(work, S.isPartOf)
    if series is None:
        return None
    found = _link(reader, series)
    found["acronym"] = min(reader.texts(series, S.alternateName), key=len, default=found["label"])
    found["edition"] = _link(reader, edition) if edition is not None else None
    return found


def publication(reader: Reader, work: Any, person: Any | None = None) -> dict[str, Any]:
    """One publication as shown in lists and on its page."""
    year = reader.text(work, S.datePublished)
    record = _link(reader, work)
    record.update({
        "year": int(year) if year and year.isdigit() else None,
        "status": reader.text(work, S.creativeWorkStatus) or "",
        "authors": authors(reader, work, person),
        "complete": reader.text(work, K.authorListComplete) != "false",
        "venue": venue(reader, work),
        "awards": reader.texts(work, S.award),
        "notes": reader.texts(work, K.note),
        "doi": doi(reader, work),
        "links": labelled_links(reader, work),
    })
    record["url"] = best_url(record["links"])
    record["kind"] = entry_kind(record)
    record["kind_label"] = kind_label(record)
    record["citation"] = citation(record)
    return record


def publications(reader: Reader, person: Any) -> list[dict[str, Any]]:
    """A person's publications, newest first (then by title)."""
    # A few queries for all works, not several per work (none when the page was prefetched: kg.server.pages.prefetch).
    works = reader.load(reader.incoming(person, S.author), WORK)
    load_links(reader, works)
    places = reader.load((p for w in works for prop in (B.presentedAt, S.isPartOf) for p in reader.values(w, prop)),
                         VENUE)
    reader.load((s for p in places for s in reader.values(p, S.superEvent)), VENUE)
    agents = reader.load((a for s in reader.load((x for w in works for x in reader.values(w, K.authorship)),
                                                 AUTHORSHIP) for a in reader.values(s, K.agent)), AGENT)
    reader.load((c for a in agents for c in reader.values(a, K.possibleSameAs)), NAMED)
    records = [publication(reader, work, person) for work in works]
    return sorted(records, key=lambda r: (-(r["year"] or 0), r["label"].casefold()))


def pictures(reader: Reader, person: Any, records: Sequence[dict[str, Any]]) -> tuple[Network, Timeline]:
    """The co-author network and publication timeline of a person's publication records."""
    me = Mark(reader.label(person), reader.href(person))
    lists = [[Mark(a["label"], a["path"]) for a in r["authors"]] for r in records]
    possible: dict[Mark, list[Mark]] = {}
    for record in records:
        for author in record["authors"]:
            if author["iri"] is not None and Mark(author["label"], author["path"]) not in possible:
                possible[Mark(author["label"], author["path"])] = [
                    Mark(reader.label(c), reader.href(c)) for c in reader.values(author["iri"], K.possibleSameAs)]
    papers = [Paper(r["label"], r["path"], r["year"], r["status"]) for r in records if r["year"]]
    return coauthor_network(me, lists, possible=possible), timeline(papers)
