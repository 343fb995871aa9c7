"""Layout and lexical features of the lines of a publication list, for the line labeller."""

from __future__ import annotations

import re

from ..citation import AWARD, NOTE, is_venue, parse_citation, take_links
from ..dates import last_year
from ..entries import BULLET
from ..names import is_author_line, is_person, split_authors
from ..pubs import YEAR_HEADING, is_legend, is_prose, is_subheading
from ..records import Line
from ..venues import PREPRINT, VENUE_WORDS, Reference

Features = dict[str, float]

_NUMBERED = re.compile(r"^[\[(]?\d{1,3}[\].)]")
_LABELLED = re.compile(r"^[\[(]\s*[A-Za-z][\w&/ .-]{0,30}?\s*(?:['’]\s?\d{2}|\d{4}|\d{1,3})\s*[\])]")
_TAIL_VENUE = re.compile(r"\(\s*[A-Z][\w&-]*\s*(?:['’]\s?\d{2}|\d{4})\b[^()]*\)\s*$")
_GLUED_VENUE = re.compile(r"\b[A-Z][A-Za-z]{1,9}\s?(?:['’]\d{2}|\d{4})(?=[A-Z][a-z])")
_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b", re.I)
_URL = re.compile(r"https?://|www\.|doi\.org|\b10\.\d{4,9}/")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_NEWS = re.compile(r"^[\[(]?\s*(?:(?:19|20)\d\d[./-]\d{1,2}|\w{3,9}\.?\s+(?:19|20)\d\d)\s*[\])]?\s*[:\-–]?\s|"
                   r"\b(?:accepted|will appear|to appear|got|congrat|we will|our paper|is out|released)\b", re.I)
_STOP = {"a", "an", "the", "of", "for", "and", "in", "on", "to", "with", "via", "by", "at", "from", "is", "as"}


def _bucket(n: int, edges: tuple[int, ...]) -> str:
    """The first edge a count does not exceed ('<=3'), or '>' the last."""
    for edge in edges:
        if n <= edge:
            return f"<={edge}"
    return f">{edges[-1]}"


def _shape(text: str) -> str:
    """The shape of a line's first character: letter case, digit, bracket or other."""
    ch = text[:1]
    if ch.isupper():
        return "X"
    if ch.isalpha():
        return "x"
    if ch.isdigit():
        return "9"
    return ch if ch in "[(\"“*•-" else "."


_SEEN: dict[tuple[str, int, frozenset[str]], tuple[Reference, Features]] = {}
_SEEN_CHARS = 0  # characters of the lines remembered in _SEEN
SEEN_CHARS_AT_MOST = 8_000_000  # and at most 50,000 lines: bounded by the text it holds too (a line is its key)
# Characters: no publication entry is this long, so no rule is run on such a line
# (a 4.8 MB line of "a, a, ..." made them the bulk of an import).
LONG_LINE = 20_000


def own_features(text: str, ref: Reference, keys: set[str]) -> Features:
    """Features of one line's text alone (remembered: a page's lines are read by several stages; do not change
    the mapping returned)."""
    key = (text, id(ref), frozenset(keys))
    seen = _SEEN.get(key)
    if seen is not None and seen[0] is ref:
        return seen[1]
    global _SEEN_CHARS
    if len(_SEEN) >= 50_000 or _SEEN_CHARS + len(text) > SEEN_CHARS_AT_MOST:
        _SEEN.clear()
        _SEEN_CHARS = 0
    found = _own_features(text, ref, keys)
    _SEEN[key] = (ref, found)
    _SEEN_CHARS += len(text)
    return found


def _own_features(text: str, ref: Reference, keys: set[str]) -> Features:
    """Features of one line's text alone."""
    if len(text) > LONG_LINE:
        return {"long_line": 1.0}
    f: Features = {}
    words = text.split()
    letters = [w for w in _WORD.findall(text) if w.lower() not in _STOP]
    capital = sum(1 for w in letters if w[:1].isupper()) / max(1, len(letters))
    f["words" + _bucket(len(words), (1, 2, 4, 7, 12, 20, 35))] = 1.0
    f["capital" + _bucket(int(capital * 10), (2, 5, 7, 9))] = 1.0
    f["commas" + _bucket(text.count(","), (0, 1, 3, 6))] = 1.0
    f["first=" + _shape(text)] = 1.0
    tokens = [t.strip(".,;:()[]\"“”'") for t in words[:2]]
    if tokens and tokens[0] and len(tokens[0]) <= 12 and not tokens[0].isdigit():
        f["w0=" + tokens[0].lower()] = 1.0
    if len(tokens) > 1 and tokens[1] and len(tokens[1]) <= 12 and not tokens[1].isdigit():
        f["w1=" + tokens[1].lower()] = 1.0
    f["last=" + (text[-1:] if text[-1:] in ".,:;)]!?" else "w")] = 1.0
    flags = {
        "bullet": BULLET.match(text) is not None, "numbered": _NUMBERED.match(text) is not None,
        "labelled": _LABELLED.match(text) is not None, "year": last_year(text) is not None,
        "year_end": re.search(r"(?:19|20)\d\d[a-z]?\W{0,3}$", text) is not None,
        "short_year": re.search(r"['’]\d{2}\b", text) is not None, "and": " and " in text or " & " in text,
        "marks": re.search(r"\w[*†‡#§✉]|[*†‡]\s*,", text) is not None,
        "venue_words": VENUE_WORDS.search(text) is not None,
        "preprint": PREPRINT.search(text) is not None or "arxiv" in text.lower(),
        "url": _URL.search(text) is not None, "cjk": _CJK.search(text) is not None,
        "quoted": text[:1] in "\"“'‘", "colon": ":" in text, "tail_venue": _TAIL_VENUE.search(text) is not None,
        "glued_venue": _GLUED_VENUE.search(text) is not None, "month": _MONTH.search(text) is not None,
        "news": _NEWS.search(text) is not None, "subheading": is_subheading(text),
        "year_heading": YEAR_HEADING.match(text) is not None, "legend": is_legend(text), "prose": is_prose(text),
        "note": NOTE.match(text.strip(" .()")) is not None, "award": AWARD.search(text) is not None,
        "pages": re.search(r"\bpp?\.\s*\d|\d+\s*[-–]\s*\d+\b|\bvol\.|\bno\.", text, re.I) is not None,
        "proc": re.match(r"^(?:in\b|proc|proceedings|to appear|accepted|appeared|published)", text, re.I) is not None,
    }
    rest, labels = take_links(text)
    flags["links_only"] = bool(labels) and not rest
    flags["links"] = bool(labels)
    authors = split_authors(text)
    if authors is not None:
        named = [a for a in authors if a != "..."]
        f["authors" + _bucket(len(named), (1, 2, 4, 8))] = 1.0
        flags["owner"] = any(is_person(a, keys) for a in named)
        flags["author_line"] = is_author_line(text, keys)
    match = ref.venue(text) if len(words) <= 30 else None
    flags["venue_known"] = match is not None and match.id is not None
    flags["venue"] = is_venue(text, ref)
    flags["citation"] = len(words) >= 6 and parse_citation(text, ref, keys) is not None
    f.update({name: 1.0 for name, on in flags.items() if on})
    return f


def section_features(lines: list[Line]) -> Features:
    """Features of the whole list: how often a line is followed by a blank line."""
    texts = [line for line in lines if line.text]
    gaps = sum(1 for a, b in zip(lines, lines[1:], strict=False) if a.text and not b.text)
    ratio = gaps / max(1, len(texts))
    return {"gappy" + _bucket(int(ratio * 10), (1, 4, 7)): 1.0}


_CONTEXT = ("author_line", "venue", "venue_known", "year", "links_only", "citation", "award", "subheading",
            "year_heading", "bullet", "numbered", "labelled", "words<=4", "words<=7", "words<=12", "words<=20",
            "quoted", "prose", "news", "first=X", "last=.", "last=,")


def sequence_features(lines: list[Line], ref: Reference, keys: set[str]) -> tuple[list[Line], list[Features]]:
    """The non-blank lines of a list and the features of each, with its neighbours' and the gaps around it."""
    kept = [(i, line) for i, line in enumerate(lines) if line.text]
    own = [own_features(line.text, ref, keys) for _, line in kept]
    whole = section_features(lines)
    out: list[Features] = []
    for n, (i, line) in enumerate(kept):
        f = dict(own[n])
        f.update(whole)
        before = i - kept[n - 1][0] - 1 if n else -1
        after = kept[n + 1][0] - i - 1 if n + 1 < len(kept) else -1
        f["gap_before=" + ("start" if before < 0 else str(min(before, 2)))] = 1.0
        f["gap_after=" + ("end" if after < 0 else str(min(after, 2)))] = 1.0
        if n:
            previous = kept[n - 1][1]
            f["indent=" + ("in" if line.indent > previous.indent else "out" if line.indent < previous.indent
                           else "same")] = 1.0
        f["heading"] = 1.0 if line.heading else 0.0
        for offset in (-2, -1, 1, 2):
            if 0 <= n + offset < len(kept):
                f.update({f"{offset}:{name}": 1.0 for name in _CONTEXT if name in own[n + offset]})
            else:
                f[f"{offset}:none"] = 1.0
        out.append(f)
    return [line for _, line in kept], out
