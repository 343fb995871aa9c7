"""Saved HTML pages as text lines: block elements break lines, list items become bullets, links keep their URLs."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from .markup import latin_side
from .records import Line

BLOCK = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section", "header", "footer", "article",
         "main", "aside", "nav", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "blockquote", "pre", "hr",
         "address", "figure", "figcaption", "details", "summary", "body", "html"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SKIP = {"script", "style", "head", "noscript", "template", "svg"}
CELLS = {"td", "th"}
_ENDS_ENTRY = {"li", "tr", "ul", "ol", "dl", "dd", "table", "h1", "h2", "h3", "h4", "h5", "h6"}
_ENDS_PARAGRAPH = {"p", "div", "blockquote", "section", "article", "header", "footer", "figure", "address"}
# a table row is read as one list item, unless it holds a layout (a nested table, list or heading)
_NOT_A_ROW = {"table", "ul", "ol", "dl", "h1", "h2", "h3", "h4", "h5", "h6"}


class _Collector(HTMLParser):
    """Collects text runs into lines, remembering the source line where each line starts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str, int, bool, tuple[tuple[str, str], ...], bool]] = []
        self.nav = 0
        self.base: str | None = None
        self.homes: list[str] = []
        self.parts: list[str] = []
        self.start: int | None = None
        self.skip = 0
        self.heading = 0
        self.list_depth = 0
        self.in_item = False
        self.item_first = False
        self.row = False
        self.cells = 0
        self.href: str | None = None
        self.anchor: list[str] = []
        self.links: list[tuple[str, str]] = []

    def flush(self) -> None:
        text = " ".join("".join(self.parts).split()).strip(" |")
        if text:
            indent = 0
            if self.in_item:
                text = ("• " + text) if self.item_first else text
                indent = 0 if self.item_first else 2
                self.item_first = False
            self.lines.append((self.start or self.getpos()[0], text, indent, self.heading > 0, tuple(self.links),
                               self.nav > 0))
        self.parts, self.start, self.links = [], None, []

    def blank(self) -> None:
        """A blank line where a paragraph or list entry ends, as plain text has one between paragraphs."""
        if self.lines and self.lines[-1][1]:
            self.lines.append((self.getpos()[0], "", 0, False, (), self.nav > 0))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "base" and attributes.get("href"):
            self.base = self.base or attributes["href"]
        if (tag == "link" and "canonical" in (attributes.get("rel") or "").split()) or (
                tag == "meta" and attributes.get("property") == "og:url"):
            self.base = self.base or attributes.get("href") or attributes.get("content")
        if tag == "nav":
            self.nav += 1
        if tag in SKIP:
            self.skip += 1
            return
        if tag in BLOCK:
            self.flush()
        if tag in HEADINGS:
            self.heading += 1
        if self.row and tag in _NOT_A_ROW:
            self.row = self.in_item = False
        if tag == "li":
            self.in_item, self.item_first = True, True
        if tag == "tr":
            self.in_item, self.item_first, self.row = True, True, True
        if tag in CELLS:
            if self.cells:
                self.parts.append(" | ")
            self.cells += 1
        if tag == "a":
            self.href = attributes.get("href")
            self.anchor = []
            parts = urlsplit(self.href or "")
            if parts.scheme in ("http", "https") and parts.path in ("", "/") and not parts.query:
                self.homes.append(self.href or "")
        if tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._text(f" {alt} ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "nav":
            self.nav = max(0, self.nav - 1)
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
        if tag in _ENDS_ENTRY or (tag in _ENDS_PARAGRAPH and not self.in_item):
            self.blank()
        if tag in HEADINGS:
            self.heading = max(0, self.heading - 1)
        if tag == "li" or (tag == "tr" and self.row):
            self.in_item = self.row = False
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
    """The visible text of an HTML page as lines; each keeps the source line and the links on it.

    Relative links are resolved against the page's address when the page states it: a <base>, a canonical
    link or og:url, or else the first link to a site's root ('https://example.org/', the site title's link).
    """
    collector = _Collector()
    text = re.sub(r"<sup>\s*([*†‡]+)\s*</sup>", r"\1", text, flags=re.I)
    collector.feed(text)
    collector.close()
    collector.flush()
    base = collector.base or (collector.homes[0] if collector.homes else None)
    out = []
    for i, (no, body, indent, heading, links, nav) in enumerate(collector.lines):
        if base:
            links = tuple((label, _absolute(base, href)) for label, href in links)
        latin = latin_side(body)
        out.append(Line(i, no, latin, indent, heading, links, raw=body if latin != body else "", nav=nav))
    return out


def _absolute(base: str, href: str) -> str:
    """A link resolved against the page's own address (its <base>, canonical URL or home link)."""
    if re.match(r"^(?:[a-z][a-z0-9+.-]*:|#)", href, re.I):
        return href
    return urljoin(base, href)
