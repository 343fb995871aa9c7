"""Scores of the field model on labelled entries: token F1 per label, field F1 and whole-entry exact match."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from field_data import Labelled

from kg.importers.pipeline.fields import MODEL, Fields, assemble, tag_tokens
from kg.importers.pipeline.tokens import own_words, tokenize
from kg.importers.venues import Reference
from kg.resolution import normalize_name

FIELD_NAMES = ("title", "authors", "venue", "year")


@dataclass
class Scores:
    """Counts behind the figures: per label true/false positives and negatives, per field, and exact entries."""

    tokens: dict[str, Counter[str]] = field(default_factory=dict)
    fields: dict[str, Counter[str]] = field(default_factory=dict)
    entries: int = 0
    exact: int = 0
    exact_fields: int = 0

    @staticmethod
    def f1(counts: Counter[str]) -> float:
        """F1 from tp/fp/fn counts."""
        tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
        return 2 * tp / (2 * tp + fp + fn) if tp else 0.0

    def summary(self) -> dict[str, float]:
        """The figures: token micro F1 (fields, not 'other'), each field's F1, exact entries (labels, fields)."""
        micro: Counter[str] = Counter()
        for label, counts in self.tokens.items():
            if label != "other":
                micro.update(counts)
        out = {"token_f1": self.f1(micro)}
        out.update({f"{name}_f1": self.f1(counts) for name, counts in sorted(self.fields.items())})
        out["exact_labels"] = self.exact / max(1, self.entries)
        out["exact_fields"] = self.exact_fields / max(1, self.entries)
        out["entries"] = float(self.entries)
        return out


def _field_values(fields: Fields) -> dict[str, object]:
    return {"title": normalize_name(fields.title or "") or None,
            "authors": tuple(normalize_name(a.name) for a in fields.authors) or None,
            "venue": normalize_name(fields.venue or "") or None, "year": fields.year}


def score(entries: list[Labelled], ref: Reference, model: Path = MODEL) -> Scores:
    """Tag each entry with a model and compare with its labels."""
    scores = Scores()
    for entry in entries:
        tokens = tokenize(entry.lines)
        predicted = tag_tokens(tokens, entry.lines, ref, own_words(entry.owner), model) or []
        gold = entry.labels
        scores.entries += 1
        scores.exact += predicted == gold
        for p, g in zip(predicted, gold, strict=True):
            for label in {p, g}:
                counts = scores.tokens.setdefault(label, Counter())
                counts["tp" if p == g else "fp" if label == p else "fn"] += 1
        want = _field_values(assemble(tokens, gold, entry.lines))
        got = _field_values(assemble(tokens, predicted, entry.lines))
        for name in FIELD_NAMES:
            counts = scores.fields.setdefault(name, Counter())
            if want[name] is not None and got[name] == want[name]:
                counts["tp"] += 1
            else:
                counts["fn"] += want[name] is not None
                counts["fp"] += got[name] is not None
        scores.exact_fields += all(want[n] == got[n] for n in FIELD_NAMES)
    return scores
