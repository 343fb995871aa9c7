"""A trained line labeller for publication lists: a CRF over layout and lexical features of each line.

Each non-blank line of a list gets one label: a field (`title`, `authors`, `venue`, `citation` for a
whole one-line citation, `links`, `award`, `note`) with `B-` when it starts a publication or `I-` when it
continues one, or `heading` (a year or group heading) or `other` (prose, a legend, a news item, a
description). The model ships with the package (`lines.crfsuite`); scripts/train_line_model.py makes it
from synthetic renderings and the development pages.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from .. import crf
from ..crf import model_swapped
from ..records import Line
from ..venues import Reference
from .features import Features, sequence_features

MODEL = Path(__file__).with_name("lines.crfsuite")
FIELDS = ("title", "authors", "venue", "citation", "links", "award", "note")
LABELS = tuple(f"{p}-{f}" for f in FIELDS for p in "BI") + ("heading", "other")

__all__ = ["FIELDS", "LABELS", "MODEL", "label_lines", "tag", "using_model"]
_ACTIVE = [MODEL]


def using_model(path: Path) -> AbstractContextManager[None]:
    """Label with another model file while the block runs (for evaluating a model trained without some pages)."""
    return model_swapped(_ACTIVE, path)


def tag(features: list[Features], model: Path | None = None) -> list[str] | None:
    """The most likely label sequence for a list's features, or None when no model is installed."""
    tagger = crf.tagger(model or _ACTIVE[-1])
    if tagger is None or not features:
        return [] if tagger is not None else None
    return list(tagger.tag(features))


def label_lines(lines: list[Line], ref: Reference, keys: set[str], model: Path | None = None
                ) -> list[tuple[Line, str]] | None:
    """Each non-blank line with its label, or None when no model is installed."""
    kept, features = sequence_features(lines, ref, keys)
    labels = tag(features, model)
    if labels is None:
        return None
    return list(zip(kept, labels, strict=True))
