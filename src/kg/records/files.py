"""XML record files as a small element tree with lines: no DTDs, nesting, text length and parse time bounded."""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from .bounds import MAX_DEPTH, Bounds, Deadline, too_deep, too_long


@dataclass
class Element:
    """An XML element: namespace-free local name, attributes (local names), text, children, and its line."""

    name: str
    attributes: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    text: str = ""
    content: list[str | Element] = field(default_factory=list, repr=False)  # text and children in document order

    def find(self, *names: str) -> Element | None:
        """The first descendant reached by a path of child names, or None."""
        node: Element | None = self
        for name in names:
            node = next((c for c in node.children if c.name == name), None) if node else None
        return node

    def findall(self, name: str) -> list[Element]:
        """The children with a name."""
        return [c for c in self.children if c.name == name]

    def text_of(self, *names: str) -> str | None:
        """The stripped text of the element at a path of child names, or None when absent or empty."""
        node = self.find(*names)
        text = " ".join(node.text.split()) if node is not None else ""
        return text or None

    def full_text(self) -> str:
        """All the text inside the element, markup children included in place, whitespace collapsed."""
        return " ".join("".join(p if isinstance(p, str) else p.full_text() for p in self.content).split())

    def iter(self, name: str) -> Iterator[Element]:
        """Every descendant with a name, in document order."""
        for child in self.children:
            if child.name == name:
                yield child
            yield from child.iter(name)


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1].rsplit(":", 1)[-1]


def load_xml(data: bytes, display: str, bounds: Bounds | None = None, deadline: Deadline | None = None) -> Element:
    """The root element of an XML document; a DOCTYPE (entity declarations, external entities) is refused, and so
    is nesting deeper than MAX_DEPTH, an element text or attribute longer than KG_MAX_FIELD_CHARS, or a parse
    longer than KG_MAX_PARSE_SECONDS."""
    bounds = bounds or Bounds.from_env()
    deadline = deadline or Deadline(display, bounds.seconds)
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    stack: list[Element] = []
    sizes: list[int] = []  # characters of text inside each open element
    roots: list[Element] = []

    def here() -> Location:
        return Location(Path(display), parser.CurrentLineNumber)

    def refuse(*_: Any) -> Any:
        raise SourceError(here(), "the XML has a DOCTYPE declaration; kg refuses DTDs and entity declarations (they "
                                  "can read local files or expand without bound); remove the <!DOCTYPE …> part")

    def start(name: str, attributes: dict[str, str]) -> None:
        deadline.check(parser.CurrentLineNumber)
        if len(stack) >= MAX_DEPTH:
            raise too_deep(here(), "XML")
        longest = max(map(len, attributes.values()), default=0)
        if longest > bounds.field_chars:
            raise too_long(here(), longest, bounds.field_chars)
        element = Element(_local(name), {_local(k): v for k, v in attributes.items()}, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        if stack:
            stack[-1].content.append(element)
        stack.append(element)
        sizes.append(0)

    def end(_: str) -> None:
        element = stack.pop()
        sizes.pop()
        element.text = "".join(p for p in element.content if isinstance(p, str))

    def characters(text: str) -> None:
        if stack:
            sizes[-1] += len(text)
            if sizes[-1] > bounds.field_chars:
                raise too_long(Location(Path(display), stack[-1].line, stack[-1].name), sizes[-1],
                               bounds.field_chars)
            stack[-1].content.append(text)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as error:
        message = xml.parsers.expat.ErrorString(error.code)
        raise SourceError(Location(Path(display), error.lineno, f"column {error.offset + 1}"),
                          f"malformed XML ({message}); download the record again") from None
    return roots[0]
