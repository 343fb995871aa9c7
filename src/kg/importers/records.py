"""The draft profile an importer builds: YAML values with their source lines and review notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Line:
    """One line of input text: 1-based source line, stripped text, indentation and HTML hints.

    `raw` is the text before a bilingual line lost its CJK side (empty when unchanged); `nav` marks a line of
    a site's navigation menu; `dom` is, for an HTML line, the repeated sibling elements it sits in (innermost
    first: shape, 'few' or 'many' siblings, whether the line starts it; see kg.importers.pipeline.page).
    """

    index: int
    no: int
    text: str
    indent: int = 0
    heading: bool = False
    links: tuple[tuple[str, str], ...] = ()
    raw: str = ""
    nav: bool = False
    dom: tuple[tuple[str, str, bool], ...] = ()


@dataclass
class Item:
    """One imported value or list entry, with the source lines it came from and what to review."""

    value: Any
    lines: list[int] = field(default_factory=list)
    reviews: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def span(self) -> str:
        """'line 4', 'lines 4-7' or 'lines 4, 9-10' for a comment."""
        numbers = sorted(set(self.lines))
        if not numbers:
            return ""
        runs: list[list[int]] = []
        for no in numbers:
            if runs and no == runs[-1][-1] + 1:
                runs[-1].append(no)
            else:
                runs.append([no])
        text = ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
        return f"line {text}" if len(numbers) == 1 else f"lines {text}"


@dataclass
class Draft:
    """A profile being imported: scalar fields, list fields and end-of-file notes."""

    source: str
    fields: dict[str, Item] = field(default_factory=dict)
    lists: dict[str, list[Item]] = field(default_factory=dict)
    left_out: list[Item] = field(default_factory=list)
    unparsed: list[Item] = field(default_factory=list)
    header: list[str] = field(default_factory=list)

    def set(self, key: str, value: Any, lines: list[int] | None = None, review: str | None = None) -> Item:
        """Set a scalar field (the first value wins)."""
        if key in self.fields:
            return self.fields[key]
        item = Item(value, list(lines or []), [review] if review else [])
        self.fields[key] = item
        return item

    def add(self, key: str, value: Any, lines: list[int] | None = None, review: str | None = None) -> Item:
        """Append an entry to a list field."""
        item = Item(value, list(lines or []), [review] if review else [])
        self.lists.setdefault(key, []).append(item)
        return item

    def value(self, key: str) -> Any:
        """The value of a scalar field, or None."""
        item = self.fields.get(key)
        return None if item is None else item.value

    def items(self, key: str) -> list[Item]:
        """The entries of a list field."""
        return self.lists.get(key, [])
