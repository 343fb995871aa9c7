"""Saved HTML pages as text lines: block elements break lines, list items become bullets, links keep their URLs."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .records import Line

BLOCK = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section", "header", "footer", "article",
         "main", "aside", "nav", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "blockquote", "pre", "hr",
         "address", "figure", "figcaption", "details", "summary", "body", "html"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SKIP = {"script", "style", "head", "noscript", "template", "svg"}
CELLS = {"td", "th"}


class _Collector(HTMLParser):
    """Collects text runs into lines, remembering the source line where each line starts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str, int, bool, tuple[tuple[str, str], ...]]] = []
        self.parts: list[str] = []
        self.start: int | None = None
        self.skip = 0
        self.heading = 0
        self.list_depth = 0
        self.in_item = False
        self.item_first = False
        self.cells = 0
        self.href: str | None = None
        self.anchor: list[str] = []
        self.links: list[tuple[str, str]] = []

    def flush(self) -> None:
        text = " ".join("".join(self.parts).split())
        if text:
            indent = 0
            if self.in_item:
                text = ("• " + text) if self.item_first else text
                indent = 0 if self.item_first else 2
                self.item_first = False
            self.lines.append((self.start or self.getpos()[0], text, indent, self.heading > 0, tuple(self.links)))
        self.parts, self.start, self.links = [], None, []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIP:
            self.skip += 1
            return
        if tag in BLOCK:
            self.flush()
        if tag in HEADINGS:
            self.heading += 1
        if tag == "li":
            self.in_item, self.item_first = True, True
        if tag in CELLS:
            if self.cells:
                self.parts.append(" | ")
            self.cells += 1
        if tag == "a":
            self.href = dict(attrs).get("href")
            self.anchor = []
        if tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._text(f" {alt} ")

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag == "a" and self.href is not None:
            label = " ".join("".join(self.anchor).split()).strip("[]() ")
            if label:
                self.links.append((label, self.href))
            self.href = None
        if tag in BLOCK:
            self.flush()
        if tag in HEADINGS:
            self.heading = max(0, self.heading - 1)
        if tag == "li":
            self.in_item = False
        if tag == "tr":
            self.cells = 0

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "hr", "img"):
            self.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._text(data)

    def _text(self, data: str) -> None:
        if self.start is None and data.strip():
            self.start = self.getpos()[0] + len(data) - len(data.lstrip("\n")) if data.startswith("\n") else \
                self.getpos()[0]
        if self.href is not None:
            self.anchor.append(data)
        self.parts.append(data)


def html_lines(text: str) -> list[Line]:
    """The visible text of an HTML page as lines; each keeps the source line and the links on it."""
    collector = _Collector()
    text = re.sub(r"<sup>\s*([*†‡]+)\s*</sup>", r"\1", text, flags=re.I)
    collector.feed(text)
    collector.close()
    collector.flush()
    return [Line(i, no, body, indent, heading, links)
            for i, (no, body, indent, heading, links) in enumerate(collector.lines)]
