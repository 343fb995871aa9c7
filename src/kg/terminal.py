"""Text for a terminal: display widths (wide CJK characters, combining marks) and aligned result tables."""

from __future__ import annotations

import unicodedata


def display_width(text: str) -> int:
    """Columns a text takes in a terminal: wide (CJK) characters two, combining marks none.

    >>> display_width("肖文聪"), display_width("Xiao"), display_width("e\u0301")
    (6, 4, 1)
    """
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    """The text padded with spaces to width terminal columns."""
    return text + " " * (width - display_width(text))


def text_table(variables: list[str], rows: list[list[str]]) -> str:
    """A result table for a terminal: a header, a rule, one line per row, columns aligned by display width."""
    widths = [max([display_width(v)] + [display_width(r[i]) for r in rows]) for i, v in enumerate(variables)]
    lines = [" | ".join(_pad(v, w) for v, w in zip(variables, widths, strict=True)),
             "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(_pad(c, w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


__all__ = ["display_width", "text_table"]
