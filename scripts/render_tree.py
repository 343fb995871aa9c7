"""A small page tree for rendered training pages: every node knows its entry and role, so the text a browser
copies and the HTML it shows both carry their truth by construction."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

BLOCK = {"div", "p", "li", "ol", "ul", "h1", "h2", "h3", "h4", "section", "header", "article", "tr", "table", "td",
         "body", "main", "nav", "dl", "dt", "dd", "blockquote"}
GAPPED = {"p", "h1", "h2", "h3", "h4", "ul", "ol", "section", "header"}
ROLES = ("entry", "heading", "talk", "news", "prose", "header", "nav")


@dataclass
class Node:
    """An element (tag, class, children) or a text run (tag '#'); `entry` and `role` mark block roots."""

    tag: str
    children: list[Node] = field(default_factory=list)
    text: str = ""
    cls: str = ""
    href: str = ""
    entry: int | None = None
    role: str = ""
    field: str = ""


def text(value: str, fld: str = "") -> Node:
    """A text run."""
    return Node("#", text=value, field=fld)


def el(tag: str, *children: Node | str, cls: str = "", href: str = "", fld: str = "") -> Node:
    """An element; plain strings become text runs."""
    kids = [text(c) if isinstance(c, str) else c for c in children]
    return Node(tag, kids, cls=cls, href=href, field=fld)


@dataclass(frozen=True)
class TruthLine:
    """One line of the copied text with the entry it belongs to (or None), its role and its fields."""

    text: str
    entry: int | None
    role: str
    fields: tuple[str, ...]


def text_lines(root: Node) -> list[TruthLine]:
    """The page as a browser's select-all copy: one line per block, inline runs joined, with each line's truth."""
    out: list[TruthLine] = []
    parts: list[str] = []
    fields: list[str] = []
    context: list[tuple[int | None, str]] = [(None, "prose")]
    owner: list[tuple[int | None, str]] = [(None, "prose")]

    def flush() -> None:
        line = " ".join("".join(parts).split())
        if line:
            entry, role = owner[0]
            out.append(TruthLine(line, entry, role, tuple(dict.fromkeys(f for f in fields if f))))
        parts.clear()
        fields.clear()

    def walk(node: Node, fld: str) -> None:
        fld = node.field or fld
        if node.tag == "#":
            if not "".join(parts).strip():
                owner[0] = context[-1]
            parts.append(node.text)
            if node.text.strip():
                fields.append(fld)
            return
        block = node.tag in BLOCK or node.tag == "br"
        if block:
            flush()
        if node.role:
            context.append((node.entry, node.role))
        if node.tag == "td":
            parts.append(" ")
        for child in node.children:
            walk(child, fld)
        if node.role:
            if block:
                flush()
            context.pop()
        if block:
            flush()
        if node.tag in GAPPED and out and out[-1].text:
            out.append(TruthLine("", None, "blank", ()))

    walk(root, "")
    flush()
    return out


def to_html(root: Node, title: str) -> str:
    """The page as an HTML document (classes kept, truth left out)."""
    chunks: list[str] = ["<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", html.escape(title),
                         "</title></head>\n"]

    def walk(node: Node, depth: int) -> None:
        if node.tag == "#":
            chunks.append(html.escape(node.text, quote=False))
            return
        attrs = (f' class="{html.escape(node.cls)}"' if node.cls else "") + (
            f' href="{html.escape(node.href)}"' if node.href else "")
        if node.tag == "br":
            chunks.append("<br>")
            return
        block = node.tag in BLOCK
        if block:
            chunks.append("\n" + "  " * depth)
        chunks.append(f"<{node.tag}{attrs}>")
        for child in node.children:
            walk(child, depth + 1)
        chunks.append(f"</{node.tag}>")

    walk(root, 0)
    chunks.append("\n</html>\n")
    return "".join(chunks)
