"""Labelled entries for the field model: the GROBID/AnyStyle references re-tokenised with per-author labels, split
into dev and held-out by a hash of the string, and char-labelled lines turned into labelled tokens.

The labels are the field model's (kg.importers.pipeline.fields.LABELS): the references' title, author, container,
date, volume/issue/pages, doi/url and note map onto title, B-/I-author, venue, year, volume, links and note;
editor, publisher and location go to note; the rest is other.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kg.importers.pipeline.tokens import TOKEN

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = ROOT / "training" / "references" / "references.jsonl.gz"
REFERENCE_LABELS = {"title": "title", "author": "author", "container": "venue", "date": "year", "volume": "volume",
                    "issue": "volume", "pages": "volume", "doi": "links", "url": "links", "note": "note",
                    "editor": "note", "publisher": "note", "location": "note", "other": "other"}
SEPARATORS = {",", ";", "and", "&", "und", "y", "et"}
_INITIALS = re.compile(r"(?:[A-Z]\.?-?){1,3}\.?|-")


@dataclass
class Labelled:
    """One entry's lines, each line's tokens and their labels, and where the entry came from."""

    lines: list[str]
    labels: list[str]
    source: str
    owner: str = ""


def split_of_text(text: str) -> str:
    """'heldout' for 3 of 16 values of the first hex digit of the string's sha256, else 'dev' (fixed before
    training)."""
    return "heldout" if hashlib.sha256(text.encode()).hexdigest()[0] in "012" else "dev"


def _is_initials(word: str) -> bool:
    return bool(_INITIALS.fullmatch(word))


def author_starts(words: list[str]) -> list[int]:
    """Where each author begins in one run of author tokens ('Lee , J. , Kim , S.' -> [0, 4])."""
    semicolons = ";" in words
    segments: list[list[int]] = [[]]
    k = 0
    while k < len(words):
        w = words[k]
        if w.lower() == "et" and k + 1 < len(words) and words[k + 1].lower().startswith("al"):
            segments += [[k, k + 1], []]
            k += 2
            continue
        separator = w in (";", "and", "&", "und") if semicolons else w.lower() in SEPARATORS - {"et"}
        if separator or w.endswith(";") or (not semicolons and w.endswith(",") and len(w) > 1):
            if not separator:
                segments[-1].append(k)
            segments.append([])
        elif w not in ".":
            segments[-1].append(k)
        k += 1
    segments = [s for s in segments if s]
    if not semicolons and len(segments) >= 2:
        shapes = ["initials" if all(_is_initials(words[i].rstrip(",")) for i in s) else
                  "single" if len(s) == 1 else "full" for s in segments]
        if shapes[0] == "single" and shapes[1] in ("initials", "single"):
            merged: list[list[int]] = []
            k = 0
            while k < len(segments):
                if shapes[k] == "single" and k + 1 < len(segments) and shapes[k + 1] in ("initials", "single"):
                    merged.append(segments[k] + segments[k + 1])
                    k += 2
                else:
                    merged.append(segments[k])
                    k += 1
            segments = merged
    return [s[0] for s in segments] or [0]


def _retokenised(pairs: list[list[str]]) -> tuple[list[str], list[str]]:
    """The references' tokens split by the model's tokenizer, each piece keeping its token's label."""
    words: list[str] = []
    labels: list[str] = []
    for text, label in pairs:
        for piece in TOKEN.findall(text):
            words.append(piece)
            labels.append(REFERENCE_LABELS.get(label, "other"))
    return words, labels


def with_authors(words: list[str], labels: list[str]) -> list[str]:
    """The labels with each run of `author` split into B-author/I-author, one B per author."""
    out = list(labels)
    k = 0
    while k < len(labels):
        if labels[k] != "author":
            k += 1
            continue
        end = k
        while end < len(labels) and labels[end] == "author":
            end += 1
        starts = {k + s for s in author_starts(words[k:end])}
        for j in range(k, end):
            out[j] = "B-author" if j in starts else "I-author"
        k = end
    return out


def references(path: Path = REFERENCES) -> Iterator[tuple[str, Labelled]]:
    """Each labelled reference as one single-line entry, with its split."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for row in handle:
            record = json.loads(row)
            words, labels = _retokenised(record["tokens"])
            if not words:
                continue
            line = " ".join(words)
            yield split_of_text(" ".join(t for t, _ in record["tokens"])), Labelled([line], with_authors(words, labels),
                                                                                     record["source"])


def from_chars(lines: list[tuple[str, list[str | None]]], fallback: str = "other") -> tuple[list[str], list[str]]:
    """Lines with a label per character -> the lines and one label per token (its first character's label)."""
    texts: list[str] = []
    labels: list[str] = []
    for text, chars in lines:
        texts.append(text)
        for match in TOKEN.finditer(text):
            labels.append(chars[match.start()] or fallback)
    return texts, labels
