"""The page's person when no line names them: the name a sentence introduces, or the author on most of the
page's author lists."""

from __future__ import annotations

import re
from collections import Counter

from ..resolution import normalize_name
from .citation import segments
from .names import is_author_line, is_name, split_authors, split_marks
from .records import Line


def frequent_author(lines: list[Line]) -> tuple[str, Line, str] | None:
    """(name as written, the first line it is on, why) of the author on at least 40% of the page's author
    lists and at least two of them; None when no one is."""
    counts: Counter[str] = Counter()
    written: dict[str, tuple[str, Line]] = {}
    lists = 0
    for line in lines:
        for seg in segments(line.text) if len(line.text) < 2000 else []:
            if not is_author_line(seg, set()):
                continue
            names = {normalize_name(split_marks(a)[0]): split_marks(a)[0] for a in split_authors(seg) or []
                     if a != "..."}
            if len(names) < 2:
                continue
            lists += 1
            for key, name in names.items():
                counts[key] += 1
                written.setdefault(key, (name, line))
    if not counts:
        return None
    key, count = counts.most_common(1)[0]
    if count < 2 or count < 0.4 * lists:
        return None
    name, line = written[key]
    return name, line, f"guessed: the author on {count} of the page's {lists} author lists; pass --name to set it"


_INTRODUCED = re.compile(r"\b(?:I am|I'm|I’m|My name is|This is)\s+"
                         r"((?:Dr\.\s+)?[A-Z][\w'’-]+(?:\s+[A-Z][\w'’.-]*){1,3}?)(?=\s*(?:[,.;(（]|\s(?:and|a|an|the|currently|now)\b))")


def introduced_name(lines: list[Line], top: int = 40) -> tuple[str, Line, str] | None:
    """(name, its line, why) from a sentence near the top that introduces the person ('I am Ada Lovelace, a ...')."""
    for line in [x for x in lines if x.text][:top]:
        match = _INTRODUCED.search(line.text)
        if match and is_name(match.group(1).removeprefix("Dr. ")):
            name = match.group(1).removeprefix("Dr. ")
            return name, line, f"from the sentence '{line.text[:60]}'; no line of the page is the name alone"
    return None
