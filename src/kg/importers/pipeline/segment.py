"""Entry segmentation: which lines of a page make one publication, and which are headings, talks, news or prose.

A CRF over each non-blank line tags it `B-<field>` (starts a publication), `I-<field>` (continues one), `heading`,
`talk` (a talk or poster), `news` (a news item) or `other` (anything else); the field (title, authors, venue,
citation, links, award, note) is the line's main content, a hint for the field parser. Its features are the
line labeller's layout and lexical features of the line and its neighbours, and for HTML the repeated sibling
elements the line sits in (`Line.dom`). The model ships as `segment.crfsuite`; scripts/train_segment_model.py
makes it from theme renderings of the harvested development repositories (scripts/render_pages.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import crf
from ..labeller.features import Features, sequence_features
from ..records import Line
from ..venues import Reference

MODEL = Path(__file__).with_name("segment.crfsuite")
FIELDS = ("title", "authors", "venue", "citation", "links", "award", "note")
TAGS = tuple(f"{p}-{f}" for f in FIELDS for p in "BI") + ("heading", "talk", "news", "other")
_TALK = re.compile(r"\b(?:invited talk|talk|keynote|seminar|colloquium|poster|presented|presentation|panel|"
                   r"tutorial|lecture)\b", re.I)

__all__ = ["FIELDS", "MODEL", "TAGS", "Entry", "features", "kind_of", "segment", "tag_lines"]


@dataclass(frozen=True)
class Entry:
    """One segment of a page: its lines in order (line breaks kept), its kind (publication, heading, talk,
    news or other) and, for a publication, each line's main field as the segmenter saw it."""

    lines: tuple[Line, ...]
    kind: str
    fields: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The segment's lines joined by line breaks."""
        return "\n".join(line.text for line in self.lines)


def dom_features(line: Line) -> Features:
    """Features of the repeated sibling elements an HTML line sits in."""
    if not line.dom:
        return {"dom=none": 1.0}
    f: Features = {}
    for depth, (shape, size, starts) in enumerate(line.dom[:2]):
        tag = shape.split(".")[0]
        f[f"dom{depth}={tag}"] = 1.0
        f[f"dom{depth}_{size}"] = 1.0
        if starts:
            f[f"dom{depth}_start"] = 1.0
            f[f"dom{depth}_start_{tag}"] = 1.0
    return f


def features(lines: list[Line], ref: Reference, keys: set[str]) -> tuple[list[Line], list[Features]]:
    """The non-blank lines and the features of each: the labeller's features, talk words and DOM groups, with
    the neighbours' DOM starts."""
    kept, feats = sequence_features(lines, ref, keys)
    doms = [dom_features(line) for line in kept]
    for n, (line, f) in enumerate(zip(kept, feats, strict=True)):
        f.update(doms[n])
        if _TALK.search(line.text):
            f["talk_words"] = 1.0
        for offset in (-1, 1):
            if 0 <= n + offset < len(kept):
                f.update({f"{offset}:{name}": 1.0 for name in doms[n + offset] if name.endswith("_start")})
    return kept, feats


def tag_lines(lines: list[Line], ref: Reference, keys: set[str], model: Path = MODEL
              ) -> list[tuple[Line, str]] | None:
    """Each non-blank line with its tag, or None when no model is installed."""
    tagger = crf.tagger(model)
    if tagger is None:
        return None
    kept, feats = features(lines, ref, keys)
    return list(zip(kept, tagger.tag(feats), strict=True)) if kept else []


def kind_of(tag: str) -> str:
    """The segment kind of a tag."""
    return "publication" if tag[:2] in ("B-", "I-") else tag


def segment(lines: list[Line], ref: Reference, keys: set[str], model: Path = MODEL) -> list[Entry] | None:
    """The page's segments in order: one per publication, heading, talk, news item or run of other lines; None
    when no model is installed."""
    tagged = tag_lines(lines, ref, keys, model)
    if tagged is None:
        return None
    out: list[Entry] = []
    run: list[tuple[Line, str]] = []
    for line, tag in tagged:
        if run and (tag.startswith("B-") or tag == "heading" or kind_of(tag) != kind_of(run[-1][1])):
            out.append(_entry(run))
            run = []
        run.append((line, tag))
    if run:
        out.append(_entry(run))
    return out


def _entry(run: list[tuple[Line, str]]) -> Entry:
    """A segment from its tagged lines."""
    kind = kind_of(run[0][1])
    fields = tuple(tag[2:] for _, tag in run) if kind == "publication" else ()
    return Entry(tuple(line for line, _ in run), kind, fields)
