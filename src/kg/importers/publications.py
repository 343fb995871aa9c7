"""A publication list read two ways, by the line labeller and by the layout rules, keeping the better reading."""

from __future__ import annotations

from .citation import PubParts
from .labeller import label_lines
from .labeller.assemble import block_of, records_of
from .model_fields import model_parts
from .pipeline.segment import tag_lines
from .pubs import Refine, finish, legend_lines, link_targets, parse_publications
from .records import Item, Line
from .venues import Reference

Reading = tuple[list[Item], list[Item], list[Line], set[int]]


def labelled_reading(lines: list[Line], ref: Reference, keys: set[str], legend: str, refine: Refine | None = None
                     ) -> Reading | None:
    """Publications written, entries left out, prose lines and lines used, as the line labeller reads the list
    (each entry's fields by the rules, or by `refine` where it gives a reading)."""
    labelled = label_lines(lines, ref, keys)
    return None if labelled is None else _reading(labelled, ref, keys, legend, refine)


def segmented_reading(lines: list[Line], ref: Reference, keys: set[str], legend: str, refine: Refine | None = None
                      ) -> Reading | None:
    """The list read from the segmenter's entries, each line with the field the segmenter gives it (each entry's
    fields by the rules, or by `refine` where it gives a reading)."""
    tagged = tag_lines(lines, ref, keys)
    if tagged is None:
        return None
    legends = {line.index for line in legend_lines([line for line, _ in tagged])}  # the exact rule's, whatever the tag
    labelled = [(line, tag if (tag[:2] in ("B-", "I-") or tag == "heading") and line.index not in legends else "other")
                for line, tag in tagged]
    return _reading(labelled, ref, keys, legend, refine)


def _reading(labelled: list[tuple[Line, str]], ref: Reference, keys: set[str], legend: str,
             refine: Refine | None = None) -> Reading:
    """Publications written, entries left out, prose lines and lines used, from labelled lines."""
    records, other, used = records_of(labelled, ref, keys)
    legends = legend_lines(other)
    legend = " ".join([legend] + [line.text for line in legends])
    used.update(line.index for line in legends)
    written: list[Item] = []
    left_out: list[Item] = []
    for record in records:
        parts = (refine(record.lines, record.parts) if refine else None) or record.parts
        pub, item = finish(parts, block_of(record), ref, legend, link_targets(record.lines))
        (written if pub else left_out).append(item)
        used.update(line.index for line in record.lines)
    prose = [line for line in other if line not in legends]
    return written, left_out, prose, used


def _plausible(item: Item) -> bool:
    """Whether a written publication looks like one: a title of 2 to 40 words, names of at most five words, a
    venue or a year, and a venue of at most 40 words (not several entries glued together)."""
    pub = item.value
    title_words = len(str(pub.get("title") or "").split())
    if len(str(pub.get("venue_as_written") or "").split()) > 40:
        return False
    names = [a.get("name", "") if isinstance(a, dict) else str(a) for a in pub.get("authors") or []]
    return 2 <= title_words <= 40 and all(len(n.split()) <= 5 for n in names) and bool(
        pub.get("year") or pub.get("venue") or pub.get("venue_as_written"))


def score_reading(reading: Reading) -> tuple[int, int, int]:
    """How good a reading is: more plausible publications, then more written, then fewer entries left out; with
    none written, more entries found (so that what could not be written is still shown as left out)."""
    written, left_out = len(reading[0]), len(reading[1])
    plausible = sum(1 for item in reading[0] if _plausible(item))
    return (plausible, written, -left_out) if written else (0, 0, left_out - 10**6)


def read_publications(lines: list[Line], ref: Reference, keys: set[str], legend: str) -> Reading:
    """The best reading of a publication list (the segmenter's, the rules' or the line labeller's, in that order on
    a tie), then the same entries with the field model reading those whose fields the rules could not complete,
    kept when that is as good."""
    def refine(entry: list[Line], parts: PubParts) -> PubParts | None:
        return model_parts(entry, parts, ref, keys)

    readers = (segmented_reading, parse_publications, labelled_reading)
    readings = [(reading, reader) for reader in readers
                if (reading := reader(lines, ref, keys, legend)) is not None]
    chosen, reader = max(readings, key=lambda pair: score_reading(pair[0]))
    refined = reader(lines, ref, keys, legend, refine)
    return refined if refined is not None and score_reading(refined) >= score_reading(chosen) else chosen
