"""Record files as data: JSON with located syntax errors, XML as a small element tree with lines and no DTDs."""

from __future__ import annotations

import json
import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError


def load_json(text: str, display: str) -> Any:
    """Parsed JSON; a syntax error (a truncated download, ...) names the file, line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        hint = ("the file ends early (a truncated download?); download the record again"
                if error.pos >= len(text.rstrip()) else "the file is not valid JSON; download the record again")
        raise SourceError(Location(Path(display), error.lineno, f"column {error.colno}"),
                          f"{error.msg}: {hint}") from None


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


def load_xml(data: bytes, display: str) -> Element:
    """The root element of an XML document; a DOCTYPE (entity declarations, external entities) is refused."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Element] = []
    roots: list[Element] = []

    def refuse(*_: Any) -> Any:
        raise SourceError(Location(Path(display), parser.CurrentLineNumber),
                          "the XML has a DOCTYPE declaration; kg refuses DTDs and entity declarations (they can read "
                          "local files or expand without bound); remove the <!DOCTYPE …> part")

    def start(name: str, attributes: dict[str, str]) -> None:
        element = Element(_local(name), {_local(k): v for k, v in attributes.items()}, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        if stack:
            stack[-1].content.append(element)
        stack.append(element)

    def end(_: str) -> None:
        stack.pop()

    def characters(text: str) -> None:
        if stack:
            stack[-1].text += text
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
