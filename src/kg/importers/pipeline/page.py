"""Page → lines: a page's visible lines, and for HTML the repeated sibling structures of its DOM each line sits in.

A list of publications in HTML is nearly always a run of siblings of one shape (`li`, `div.pub-list-item`,
`tr`, `p`): such a run is a group, each sibling a member. Every line gets the chain of members around it,
innermost first, and whether it is the first line of each (`Line.dom`), so the segmenter sees entry boundaries
from the DOM rather than from the flattened text alone.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser

from ..html import html_lines
from ..markup import text_lines
from ..records import Line

GROUPED = {"li", "div", "p", "tr", "dd", "dt", "article", "section", "ul", "ol", "table", "tbody", "blockquote",
           "h2", "h3", "h4", "h5", "span"}
_SKIP = {"script", "style", "head", "noscript", "template", "svg"}
_VOID = {"br", "hr", "img", "meta", "link", "input", "base", "wbr", "col", "source"}
_SPACE = re.compile(r"\s+")


@dataclass
class _Element:
    """One element: its shape (tag and class), parent and the span of the page's text it holds."""

    shape: str
    parent: int
    start: int = -1
    end: int = -1
    children: list[int] = field(default_factory=list)


class _Tree(HTMLParser):
    """The elements of a page and its visible text without spaces, each text run tagged with its open elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[_Element] = [_Element("#root", -1)]
        self.stack: list[int] = [0]
        self.tags: list[str] = ["#root"]
        self.stream: list[str] = []
        self.length = 0
        self.runs: list[tuple[int, tuple[int, ...]]] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
            return
        if tag in _VOID:
            return
        cls = " ".join(sorted((dict(attrs).get("class") or "").split()))
        index = len(self.elements)
        self.elements.append(_Element(f"{tag}.{cls}" if cls else tag, self.stack[-1]))
        self.elements[self.stack[-1]].children.append(index)
        self.stack.append(index)
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag not in self.tags[1:]:
            return
        while len(self.tags) > 1:
            self.stack.pop()
            if self.tags.pop() == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        squeezed = _SPACE.sub("", data)
        if not squeezed:
            return
        self.runs.append((self.length, tuple(self.stack)))
        for index in self.stack:
            element = self.elements[index]
            if element.start < 0:
                element.start = self.length
            element.end = self.length + len(squeezed)
        self.stream.append(squeezed)
        self.length += len(squeezed)


def _members(tree: _Tree) -> dict[int, int]:
    """Each element that is a member of a repeated sibling group, with the group's size (at least 2)."""
    out: dict[int, int] = {}
    for element in tree.elements:
        shapes: dict[str, list[int]] = {}
        for child in element.children:
            kid = tree.elements[child]
            if kid.start >= 0 and kid.shape.split(".")[0] in GROUPED:
                shapes.setdefault(kid.shape, []).append(child)
        for group in shapes.values():
            if len(group) >= 2:
                out.update({child: len(group) for child in group})
    return out


def _with_dom(lines: list[Line], tree: _Tree) -> list[Line]:
    """The lines with their chain of repeated-sibling members: (shape, group size bucket, starts here)."""
    members = _members(tree)
    stream = "".join(tree.stream)
    starts = [start for start, _ in tree.runs]
    cursor = 0
    out: list[Line] = []
    for line in lines:
        needle = _SPACE.sub("", (line.raw or line.text).removeprefix("• "))
        at = stream.find(needle, cursor) if needle else -1
        if at < 0:
            out.append(line)
            continue
        cursor = at + len(needle)
        run = max(0, bisect.bisect_right(starts, at) - 1)
        chain = [e for e in reversed(tree.runs[run][1]) if e in members][:3]
        dom = tuple((tree.elements[e].shape, "many" if members[e] >= 5 else "few",
                     tree.elements[e].start == at) for e in chain)
        out.append(replace(line, dom=dom))
    return out


def page_lines(text: str, html: bool) -> list[Line]:
    """The visible lines of a page; an HTML page's lines carry their DOM groups."""
    if not html:
        return text_lines(text)
    lines = html_lines(text)
    tree = _Tree()
    tree.feed(re.sub(r"<sup>\s*([*†‡]+)\s*</sup>", r"\1", text, flags=re.I))
    tree.close()
    return _with_dom(lines, tree)
