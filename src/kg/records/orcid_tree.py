"""ORCID's JSON and XML as one tree: a `Node` view that reads both the same way, and the shape of a document.

ORCID's two formats carry the same tree: the JSON wraps text in `{"value": …}` and lists repeated elements;
the XML repeats them and puts `path` and `put-code` in attributes. The element tree keeps no namespaces, so
an XML document's shape is told by the root's local name and its children.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import Origin
from .files import Element
from .reading import RecordReader, clean

FieldPath = tuple[str | int, ...]
SECTIONS = ("employments", "educations", "works")


class Node:
    """One element of an ORCID document, JSON or XML, read the same way."""

    def get(self, *names: str) -> Node | None:
        """The node at a path of child names, or None."""
        raise NotImplementedError

    def all(self, name: str) -> list[Node]:
        """The children with a name (a JSON list's items), in order."""
        raise NotImplementedError

    def text(self, *names: str) -> str | None:
        """The text at a path of child names (this node's own with none), or None."""
        raise NotImplementedError

    def attr(self, name: str) -> str | None:
        """An XML attribute, or the scalar under that key in JSON."""
        raise NotImplementedError

    def origin(self, reader: RecordReader, *names: str) -> Origin:
        """Where this node (or a field of it, in JSON) is in the file."""
        raise NotImplementedError


class JsonNode(Node):
    """A JSON value with its path."""

    def __init__(self, value: Any, path: FieldPath = ()) -> None:
        self.value, self.path = value, path

    def get(self, *names: str) -> Node | None:
        """The node at a path of keys, or None when a key is missing or null."""
        value, path = self.value, self.path
        for name in names:
            value = value.get(name) if isinstance(value, dict) else None
            if value is None:
                return None
            path += (name,)
        return JsonNode(value, path)

    def all(self, name: str) -> list[Node]:
        """The items of the list under a key (a lone object counts as one)."""
        value = self.value.get(name) if isinstance(self.value, dict) else None
        if isinstance(value, list):
            return [JsonNode(v, self.path + (name, i)) for i, v in enumerate(value) if v is not None]
        return [] if value is None else [JsonNode(value, self.path + (name,))]

    def text(self, *names: str) -> str | None:
        """The string (or `{"value": …}`) at a path of keys."""
        node = self.get(*names)
        value = node.value if isinstance(node, JsonNode) else None
        value = value.get("value") if isinstance(value, dict) else value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return clean(value)

    def attr(self, name: str) -> str | None:
        """The scalar under a key."""
        return self.text(name)

    def origin(self, reader: RecordReader, *names: str) -> Origin:
        """The JSON path of this value, or of a field of it."""
        return reader.at(self.path + names)


class XmlNode(Node):
    """An XML element."""

    def __init__(self, element: Element) -> None:
        self.element = element

    def get(self, *names: str) -> Node | None:
        """The descendant at a path of child names, or None."""
        found = self.element.find(*names)
        return XmlNode(found) if found is not None else None

    def all(self, name: str) -> list[Node]:
        """The children with a name."""
        return [XmlNode(child) for child in self.element.findall(name)]

    def text(self, *names: str) -> str | None:
        """The text of the element at a path of child names."""
        return self.element.text_of(*names)

    def attr(self, name: str) -> str | None:
        """An attribute's value."""
        return clean(self.element.attributes.get(name))

    def origin(self, reader: RecordReader, *names: str) -> Origin:
        """The element's line (a field of it is reported at the element's line)."""
        found = self.element.find(*names) if names else self.element
        return reader.at((), (found or self.element).line)


def path_kind(path: str | None) -> str | None:
    """'employment' or 'education' from an ORCID path such as `/0000-…/employment/12`."""
    match = re.search(r"/(employment|education)s?(?:/|$)", path or "")
    return match.group(1) if match else None


def json_kind(document: Any) -> str | None:
    """The ORCID shape of a JSON document, or None."""
    if not isinstance(document, dict):
        return None
    keys, path = set(document), str(document.get("path") or "")
    if "orcid-identifier" in keys and keys & {"person", "activities-summary"}:
        return "record"
    if {"employments", "works"} <= keys or path.endswith("/activities"):
        return "activities"
    if isinstance(document.get("affiliation-group"), list):
        groups = JsonNode(document)
        kind = path_kind(path) or next((k for k in ("employment", "education")
                                         for g in groups.all("affiliation-group") if summaries(g, k)), None)
        return f"{kind}s" if kind else None
    if isinstance(document.get("group"), list) and (path.endswith("/works") or all(
            isinstance(g, dict) and "work-summary" in g for g in document["group"])):
        return "works"
    person_parts = {"other-names", "researcher-urls", "external-identifiers"}
    if (isinstance(document.get("name"), dict) or path.endswith("/person")) and keys & person_parts:
        return "person"
    if "put-code" in keys and isinstance(document.get("title"), dict) and "type" in keys:
        return "work"
    if "put-code" in keys and isinstance(document.get("organization"), dict):
        return path_kind(path) or "affiliation"
    return None


def xml_kind(root: Any) -> str | None:
    """The ORCID shape of an XML root element, or None."""
    if not isinstance(root, Element):
        return None
    children = {child.name for child in root.children}
    name, has_path = root.name, "path" in root.attributes
    checks = {
        "record": "orcid-identifier" in children,
        "person": "name" in children and bool(children & {"other-names", "researcher-urls", "external-identifiers"}),
        "activities-summary": bool(children & set(SECTIONS)) or has_path,
        "employments": "affiliation-group" in children or has_path,
        "educations": "affiliation-group" in children or has_path,
        "works": "group" in children or has_path,
        "employment": "organization" in children,
        "education": "organization" in children,
        "work": "title" in children and ("type" in children or "put-code" in root.attributes),
    }
    if not checks.get(name, False):
        return None
    return "activities" if name == "activities-summary" else name


def summaries(group: Node, kind: str) -> list[Node]:
    """The `<kind>-summary` entries of an affiliation group (XML: children; JSON: under `summaries`)."""
    name = f"{kind}-summary"
    return group.all(name) + [s for wrapper in group.all("summaries") for s in wrapper.all(name)]
