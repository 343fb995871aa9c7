"""Experience and education entries read by a trained model: a CRF over the tokens of a section's lines.

Each token gets a field (`role`, `organization`, `unit`, `degree`, `field`, `institution`, `start`, `end`,
`advisor`, `other`) with `B-` on the first token of an entry and `I-` on the others, or `O` when it belongs to
no entry (a stray heading, a news line). The exact rules (date ranges, degree words, role and organisation
words) are features of the tokens, not a second reading. The model ships with the package
(`careers.crfsuite`); scripts/train_career_model.py makes it from synthetic CV renderings, harvested CV facts
and the development pages.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .. import crf
from ..dates import Span, find_duration, find_span
from ..records import Line
from .career_features import Token, token_features, tokens_of

MODEL = Path(__file__).with_name("careers.crfsuite")
FIELDS = ("role", "organization", "unit", "degree", "field", "institution", "start", "end", "advisor", "other")
LABELS = tuple(f"{p}-{f}" for f in FIELDS for p in "BI") + ("O",)
_ACTIVE = [MODEL]
_TRIM = " ,;:|·•–—-[]*"


class Run(NamedTuple):
    """Consecutive tokens of one field on one line: the field, the text they cover and the line's number."""

    kind: str
    text: str
    line: int


@dataclass(frozen=True)
class CareerEntry:
    """One entry: the runs of text of each field in page order, its date range and its source line numbers."""

    runs: tuple[Run, ...]
    span: Span | None
    lines: tuple[int, ...]
    duration: str | None = None

    def first(self, name: str) -> str | None:
        """The first run of a field, or None."""
        return next((run.text for run in self.runs if run.kind == name), None)

    def all(self, name: str) -> list[str]:
        """Every run of a field."""
        return [run.text for run in self.runs if run.kind == name]


@dataclass(frozen=True)
class CareerReading:
    """The entries of a section and the indexes of the lines that belong to none."""

    entries: tuple[CareerEntry, ...]
    outside: tuple[int, ...] = field(default_factory=tuple)


def using_model(path: Path) -> AbstractContextManager[None]:
    """Read with another model file while the block runs (for evaluating a model trained without some pages)."""
    return crf.model_swapped(_ACTIVE, path)


def available() -> bool:
    """Whether a career model is installed."""
    return crf.tagger(_ACTIVE[-1]) is not None


def tag(lines: list[Line], education: bool | None = None) -> tuple[list[Token], list[str]] | None:
    """The tokens of a section's lines and their labels, or None when no model is installed; `education` tells an
    education section from an experience one (None: a timeline outside both)."""
    tagger = crf.tagger(_ACTIVE[-1])
    if tagger is None:
        return None
    tokens = tokens_of(lines)
    if not tokens:
        return [], []
    return tokens, list(tagger.tag(token_features(lines, tokens, education)))


def _runs(lines: list[Line], tokens: list[Token], labels: list[str]) -> list[Run]:
    """Consecutive tokens of one field on one line, as the text they cover (an organisation and a unit with only a
    space between them are one name, 'Example Robotics Lab'); advisors run to the end of their line ('Prof. Wei
    Li, Lidong Zhou (MSR)')."""
    spans: list[tuple[str, int, int, int]] = []
    for tok, label in zip(tokens, labels, strict=True):
        kind = label[2:]
        last = spans[-1] if spans else None
        glued = last is not None and last[1] == tok.line and {last[0], kind} <= {"organization", "unit"} and \
            not lines[tok.line].text[last[3]:tok.start].strip()
        if last is not None and (last[:2] == (kind, tok.line) or glued):
            spans[-1] = ("organization" if glued else kind, tok.line, last[2], tok.end)
        else:
            spans.append((kind, tok.line, tok.start, tok.end))
    return [Run(kind, _clean(lines[line].text[start:len(lines[line].text) if kind == "advisor" else end]),
                lines[line].no) for kind, line, start, end in spans]


def _clean(text: str) -> str:
    """A run without the separators around it, nor a sentence's full stop ('Technology.', not 'Inc.')."""
    text = text.strip(_TRIM)
    if text.count("(") != text.count(")") or text.startswith("(") and text.endswith(")"):
        text = text.strip(_TRIM + "()")
    last = text.split()[-1] if text.split() else ""
    if last.endswith(".") and last.count(".") == 1 and len(last) > 4 and last[:-1].isalpha() and \
            any(ch.islower() for ch in last):
        text = text[:-1]
    return text


def _span(lines: list[Line], dated: list[Token]) -> Span | None:
    """The date range of an entry: the exact rule's reading of its first dated line from the first date token on
    (with a 'since' before it), so that '2014 –' stays open; else of its date tokens joined."""
    text = lines[dated[0].line].text
    head = text[: dated[0].start]
    since = re.search(r"\bsince\s+$", head, re.I)
    span = find_span(text[since.start() if since else dated[0].start:])
    if span is None:
        span = find_span(" – ".join(lines[t.line].text[t.start:t.end] for t in dated if t.text.strip(_TRIM)))
    return span


def _entry(lines: list[Line], tokens: list[Token], labels: list[str]) -> CareerEntry:
    """An entry from its tokens: its runs, the date range its start and end tokens give, its line numbers."""
    runs = [run for run in _runs(lines, tokens, labels) if run.text]
    dated = [t for t, label in zip(tokens, labels, strict=True) if label[2:] in ("start", "end")]
    span = _span(lines, dated) if dated else None
    numbers = tuple(sorted({lines[t.line].no for t in tokens}))
    duration = next((found for found, _ in (find_duration(lines[i].text) for i in sorted({t.line for t in tokens}))
                     if found), None)
    return CareerEntry(tuple(runs), span, numbers, duration)


_ONCE = ("role", "degree", "start")


def _groups(tokens: list[Token], labels: list[str]) -> list[list[int]]:
    """Token positions of each entry: a B- label on the first token of a line starts one (entries are made of whole
    lines), and so does a line that opens with a field an entry holds once (role, degree, start year) when the
    entry being read already has it and some other field."""
    groups: list[list[int]] = []
    seen: set[str] = set()
    for n, label in enumerate(labels):
        if label == "O":
            continue
        kind = label[2:]
        opens_line = n == 0 or tokens[n - 1].line != tokens[n].line
        repeated = opens_line and kind in _ONCE and kind in seen and len(seen - {"other"}) >= 2
        if label.startswith("B-") and opens_line or repeated or not groups:
            groups.append([])
            seen = set()
        groups[-1].append(n)
        seen.add(kind)
    return groups


def read_careers(lines: list[Line], education: bool | None = None) -> CareerReading | None:
    """The entries of an experience or education section's lines (`education` tells which; None for a timeline
    outside both); None when no model is installed."""
    tagged = tag(lines, education)
    if tagged is None:
        return None
    tokens, labels = tagged
    groups = _groups(tokens, labels)
    entries = tuple(_entry(lines, [tokens[i] for i in g], [labels[i] for i in g]) for g in groups)
    inside = {tokens[n].line for g in groups for n in g}
    outside = {tokens[n].line for n, label in enumerate(labels) if label == "O"} - inside
    return CareerReading(entries, tuple(sorted(lines[i].index for i in outside)))
