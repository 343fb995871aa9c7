"""BibTeX written inside a page (a pasted list, a `<pre>` block): read as BibTeX, not as text."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import SourceError
from .records import Item, Line
from .venues import Reference

_ENTRY = re.compile(r"^\s*@(?:article|inproceedings|conference|incollection|inbook|book|misc|phdthesis|"
                    r"mastersthesis|techreport|unpublished|proceedings|online)\s*\{", re.I)


def bibtex_blocks(lines: list[Line]) -> list[list[Line]]:
    """The runs of lines that hold one BibTeX entry each, from '@type{' to its closing brace."""
    blocks: list[list[Line]] = []
    i = 0
    while i < len(lines):
        if not _ENTRY.match(lines[i].text):
            i += 1
            continue
        depth, block = 0, []
        for j in range(i, min(len(lines), i + 80)):
            block.append(lines[j])
            depth += lines[j].text.count("{") - lines[j].text.count("}")
            if depth <= 0:
                break
        blocks.append(block)
        i += len(block)
    return blocks


def embedded_bibtex(lines: list[Line], ref: Reference, person: str, source: Path) -> tuple[list[Item], set[int]]:
    """Publications from the BibTeX entries of a page, with their page line numbers, and the lines used."""
    blocks = bibtex_blocks(lines)
    if not blocks:
        return [], set()
    from .bibtex import parse_bibtex

    flat = [line for block in blocks for line in block]
    try:
        draft = parse_bibtex("\n".join(line.text for line in flat), ref, person, source)
    except SourceError:
        return [], set()
    items = draft.items("publications")
    for item in items:
        item.lines = [flat[n - 1].no for n in item.lines if 0 < n <= len(flat)]
        item.notes.append("read as BibTeX written in the page")
    return items, {line.index for line in flat}
