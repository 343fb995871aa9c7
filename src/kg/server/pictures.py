"""Layouts for the SVG pictures drawn by templates/pictures.html: a co-author network and a publication timeline.

Everything is computed here, deterministically (same data, same picture), and drawn as inline SVG by an
autoescaping template: no script, no web font, nothing fetched.

>>> net = coauthor_network(Mark("Ada", "/a"), [[Mark("Ada", "/a"), Mark("Bob", "/b")]])
>>> [(n.label, n.papers) for n in net.nodes], len(net.edges)
[('Ada', 1), ('Bob', 1)]
>>> t = timeline([Paper("P", "/p", 2019, "Published"), Paper("Q", "/q", 2021, "Preprint")])
>>> [y.year for y in t.years], t.width > 0
([2019, 2020, 2021], True)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_COAUTHORS = 24


@dataclass(frozen=True)
class Mark:
    """A person as drawn: a label and the page it links to (None when it has no page)."""

    label: str
    href: str | None


@dataclass(frozen=True)
class Node:
    """A placed node of the network."""

    label: str
    href: str | None
    x: float
    y: float
    r: float
    papers: int
    centre: bool = False
    anchor: str = "middle"
    label_x: float = 0.0
    label_y: float = 0.0


@dataclass(frozen=True)
class Edge:
    """A line between two placed nodes; weight is the number of shared papers."""

    x1: float
    y1: float
    x2: float
    y2: float
    weight: int
    centre: bool


@dataclass
class Network:
    """A placed co-author network: the person in the centre, the most frequent co-authors on a ring."""

    width: int
    height: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    omitted: int = 0
    total: int = 0


def coauthor_network(person: Mark, author_lists: Sequence[Sequence[Mark]], limit: int = MAX_COAUTHORS,
                     size: int = 640) -> Network:
    """Place the person and their most frequent co-authors; edges join people who wrote a paper together."""
    counts: Counter[Mark] = Counter()
    for authors in author_lists:
        for mark in set(authors):
            if mark != person:
                counts[mark] += 1
    ranked = sorted(counts, key=lambda m: (-counts[m], m.label))
    shown, omitted = ranked[:limit], max(0, len(ranked) - limit)
    height = size if shown else 160
    cx, cy = size / 2, height / 2
    ring = size / 2 - 120
    network = Network(width=size, height=height, omitted=omitted, total=len(ranked))
    places: dict[Mark, tuple[float, float]] = {person: (cx, cy)}
    most = max(counts.values(), default=1)
    for i, mark in enumerate(shown):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(shown))
        x, y = cx + ring * math.cos(angle), cy + ring * math.sin(angle)
        places[mark] = (x, y)
        cos = math.cos(angle)
        anchor = "middle" if abs(cos) < 0.3 else ("start" if cos > 0 else "end")
        radius = 5 + 7 * counts[mark] / most
        network.nodes.append(Node(mark.label, mark.href, round(x, 1), round(y, 1), round(radius, 1), counts[mark],
                                  anchor=anchor, label_x=round(x + (radius + 4) * cos, 1),
                                  label_y=round(y + (radius + 12) * math.sin(angle) + 4, 1)))
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
    papers = sum(1 for authors in author_lists if person in authors)
    network.nodes.insert(0, Node(person.label, person.href, cx, cy, 16, papers, centre=True,
                                 label_x=cx, label_y=cy + 34))
    return network


@dataclass(frozen=True)
class Paper:
    """A publication as drawn on the timeline."""

    title: str
    href: str | None
    year: int
    status: str


@dataclass(frozen=True)
class Dot:
    """A placed publication."""

    title: str
    href: str | None
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
        result.dots.append(Dot(paper.title, paper.href, x, y, paper.status.lower() == "preprint", paper.year))
    return result
