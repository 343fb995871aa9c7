"""The field stage: an entry's lines -> title, ordered authors with marks, venue, year, status, volume and pages,
links, awards and notes, read by a token-level CRF (`fields.crfsuite`, made by scripts/train_field_model.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import crf
from ..names import ELISIONS, split_marks
from ..venues import Reference
from .tokens import Token, entry_features, own_words, tokenize

MODEL = Path(__file__).with_name("fields.crfsuite")
LABELS = ("title", "B-author", "I-author", "venue", "year", "status", "volume", "links", "award", "note", "other")
_YEAR = re.compile(r"(?:19|20)\d\d")
_CUT = re.compile(r"^(?:and\s+)?\d+\s+(?:more|other)\s+authors?\.?$|^(?:et\s+al\.?|…|\.\.\.|others)$", re.I)
_SEPARATORS = " ,;:&|/-–—"
_BRIDGED = {"title", "venue", "status", "award", "note"}


@dataclass(frozen=True)
class Author:
    """One author as written, without marks, and the marks written after the name ('*', '†')."""

    name: str
    marks: str = ""
    elision: bool = False


@dataclass(frozen=True)
class Fields:
    """What one publication entry says, field by field."""

    title: str | None = None
    authors: tuple[Author, ...] = ()
    venue: str | None = None
    badge: str | None = None
    year: int | None = None
    status: str | None = None
    volume: str | None = None
    links: tuple[str, ...] = ()
    awards: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    labels: tuple[str, ...] = field(default=(), repr=False, compare=False)


def tag_tokens(tokens: list[Token], lines: list[str], ref: Reference, owner: set[str], model: Path = MODEL
               ) -> list[str] | None:
    """The most likely label of each token (`owner`: the words of the page owner's name), or None when no model is
    installed."""
    tagger = crf.tagger(model)
    if tagger is None:
        return None
    if not tokens:
        return []
    return list(tagger.tag(entry_features(tokens, lines, ref, owner)))


def _text(tokens: list[Token], lines: list[str]) -> str:
    """The text a run of tokens covers, as written on each line, lines joined by a space."""
    parts: list[tuple[int, int, int]] = []
    for token in tokens:
        if parts and parts[-1][0] == token.line:
            parts[-1] = (token.line, parts[-1][1], token.end)
        else:
            parts.append((token.line, token.start, token.end))
    return " ".join(lines[line][start:end] for line, start, end in parts)


def _bridged(tokens: list[Token], labels: list[str]) -> list[str]:
    """Labels where one punctuation token labelled `other` between two tokens of the same field joins that field
    ('GROUNDHOG : Grounding ...' stays one title)."""
    out = list(labels)
    for k in range(1, len(labels) - 1):
        before, after = labels[k - 1], labels[k + 1]
        if labels[k] == "other" and before == after and before in _BRIDGED and not tokens[k].text.isalnum():
            out[k] = before
    return out


def _runs(tokens: list[Token], labels: list[str]) -> list[tuple[str, list[Token]]]:
    """Consecutive tokens of one field (each B-author starts a new run)."""
    labels = _bridged(tokens, labels)
    runs: list[tuple[str, list[Token]]] = []
    for token, label in zip(tokens, labels, strict=True):
        kind = "author" if label.endswith("-author") else label
        if runs and runs[-1][0] == kind and label != "B-author":
            runs[-1][1].append(token)
        else:
            runs.append((kind, [token]))
    return runs


def _author(text: str) -> Author | None:
    """An author from its run's text: separators and bold marks off, 'Last, F.' turned round, marks apart."""
    text = re.sub(r"^(?:and|&)\s+", "", text.replace("**", "").strip(_SEPARATORS)).strip(_SEPARATORS)
    text = re.sub(r"\s+(?:and|&)$", "", text).strip(_SEPARATORS)
    text = re.sub(r"(?<=[^\W\d_]{2})\.$", "", text).strip(_SEPARATORS)
    if not text:
        return None
    if _CUT.match(text) or text.lower() in ELISIONS:
        return Author("...", elision=True)
    name, marks = split_marks(text)
    name = re.sub(r"(?<=[^\W\d_]{2})\.$", "", name.strip(_SEPARATORS)).strip(_SEPARATORS)
    if "," in name:
        family, _, given = name.partition(",")
        name = f"{given.strip()} {family.strip()}".strip()
    return Author(" ".join(name.split()), "".join(marks.split())) if name else None


def _one_author_list(tokens: list[Token], labels: list[str]) -> list[str]:
    """Labels with one author list: the longest stretch of authors stays; a stray name elsewhere joins the title
    that follows it on its line ('Quiet Rivers: Sediment ...' read as a name and a title), else becomes other."""
    spans: list[list[int]] = []  # token ranges of author stretches
    k = 0
    while k < len(labels):
        if labels[k].endswith("-author"):
            begin = k
            while k < len(labels) and labels[k].endswith("-author"):
                k += 1
            if spans and k - 1 >= begin and begin - spans[-1][1] <= 2 and all(
                    labels[j] == "other" for j in range(spans[-1][1], begin)):
                spans[-1][1] = k  # 'X a Y': a word between two names the model left out, still one list
            else:
                spans.append([begin, k])
        else:
            k += 1
    if len(spans) < 2:
        return labels
    keep = max(spans, key=lambda span: sum(labels[j] == "B-author" for j in range(*span)))
    out = list(labels)
    for begin, end in spans:
        if [begin, end] == keep:
            continue
        after = end
        while after < len(out) and out[after] == "other" and not tokens[after].text.isalnum():
            after += 1
        joins = after < len(out) and out[after] == "title" and tokens[after].line == tokens[end - 1].line
        for j in range(begin, after if joins else end):
            out[j] = "title" if joins else "other"
    return out


def _clean(text: str) -> str:
    return text.strip(" ,;:|").strip("“”\"'").strip(" ,;:").rstrip(".").strip()


def read_fields(lines: list[str], ref: Reference, keys: set[str], model: Path = MODEL) -> Fields | None:
    """The fields of one entry (`keys`: the owner's name keys, names.person_keys), or None when no model is
    installed."""
    tokens = tokenize(lines)
    labels = tag_tokens(tokens, lines, ref, {w for key in keys for w in own_words(key)}, model)
    if labels is None:
        return None
    return assemble(tokens, labels, lines)


def assemble(tokens: list[Token], labels: list[str], lines: list[str]) -> Fields:
    """The fields that labelled tokens spell out."""
    runs = [(kind, _text(run, lines)) for kind, run in _runs(tokens, _one_author_list(tokens, labels))]
    by_kind: dict[str, list[str]] = {}
    for kind, text in runs:
        by_kind.setdefault(kind, []).append(text)
    titles = [t for t in (_clean(t) for t in by_kind.get("title", [])) if t]
    venues = sorted((_clean(v) for v in by_kind.get("venue", []) if _clean(v)), key=len, reverse=True)
    authors = tuple(a for a in (_author(t) for t in by_kind.get("author", [])) if a is not None)
    year = next((int(m.group(0)) for t in by_kind.get("year", []) for m in [_YEAR.search(t)] if m), None)
    links = tuple(w for t in by_kind.get("links", []) for w in re.findall(r"[A-Za-z][\w ]*[A-Za-z]|https?://\S+", t))
    return Fields(
        title=max(titles, key=len) if titles else None,
        authors=authors,
        venue=venues[0] if venues else None,
        badge=venues[1] if len(venues) > 1 else None,
        year=year,
        status=_clean(" ".join(by_kind.get("status", []))).strip("()") or None,
        volume=" ".join(_clean(v) for v in by_kind.get("volume", [])) or None,
        links=links,
        awards=tuple(a for a in (_clean(t) for t in by_kind.get("award", [])) if a),
        notes=tuple(n for n in (_clean(t).strip("()") for t in by_kind.get("note", [])) if n),
        labels=tuple(labels),
    )
