"""Experience and education blocks: role, organisations, degree, years, advisors, one entry per block."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .dates import Span, find_duration, find_span, without
from .names import parse_people
from .prose import DEGREE, short_degree
from .records import Line
from .venues import Reference, is_org_like

ROLE_WORDS = re.compile(r"\b(?:professor|lecturer|researcher|scientist|engineer|student|candidate|postdoc|"
                        r"postdoctoral|fellow|director|lead|manager|head|founder|co-founder|cto|ceo|intern|"
                        r"assistant|associate|architect|developer|principal|chair|dean|investigator|analyst|"
                        r"consultant|instructor|officer|staff|visiting|member|scholar|partner|president|"
                        r"specialist|programmer|advisor|reader|tutor|faculty|technician)\b", re.I)
BULLET = re.compile(r"^(?:[-*•·▪◦‣–]|\d{1,3}[.)]|\[\d{1,3}\]|\(\d{1,3}\))\s+")
_STRONG = re.compile(r"\s+[|·•]\s+|\s+—\s+|\s+–\s+(?!\s*(?:present|now|\d))|\t|\s{2,}")
_ADVISORS = re.compile(r"^(?P<label>(?:co-)?(?:advisors?|supervisors?|advised by|supervised by|mentors?|"
                       r"thesis advisors?|promotor)):?\s*(?P<names>.+)$", re.I)
_THESIS = re.compile(r"^(?:thesis|dissertation)\s*:?\s*(.+)$", re.I)


@dataclass
class Piece:
    """A separated part of an entry's text and what it is: role, org, degree, advisors, detail."""

    text: str
    kind: str
    org: str | None = None


@dataclass
class Block:
    """The lines of one experience or education entry."""

    lines: list[Line] = field(default_factory=list)
    span: Span | None = None

    def numbers(self) -> list[int]:
        """Source line numbers."""
        return [line.no for line in self.lines]


def strip_bullet(text: str) -> str:
    """The text without a leading bullet or list number."""
    return BULLET.sub("", text, count=1).strip()


def _kind_of_line(text: str, ref: Reference, education: bool) -> str:
    if find_span(text) and not without(text, find_span(text)).strip(" ,;:|()–-"):  # type: ignore[arg-type]
        return "date"
    if education and DEGREE.match(text):
        return "head"
    if ref.org(text) or ROLE_WORDS.search(text) and len(text.split()) <= 8:
        return "head"
    if is_org_like(text) and len(text.split()) <= 8:
        return "head"
    return "detail"


def split_blocks(lines: list[Line], ref: Reference, education: bool) -> list[Block]:
    """Group a section's lines into entries: bullets, blank lines after a dated entry, or a new heading line."""
    blocks: list[Block] = []
    current: Block | None = None
    for line in lines:
        text = line.text
        bulleted = BULLET.match(text) is not None
        kind = _kind_of_line(strip_bullet(text), ref, education)
        span = find_span(text)
        start_new = current is None or bulleted
        if current is not None and not bulleted:
            deeper = line.indent > current.lines[0].indent
            only_dates = all(_kind_of_line(strip_bullet(x.text), ref, education) == "date" for x in current.lines)
            if not deeper and current.span is not None and (kind == "head" and not only_dates or
                                                            span is not None):
                start_new = True
        if start_new:
            current = Block()
            blocks.append(current)
        assert current is not None
        current.lines.append(line)
        if current.span is None and span is not None:
            current.span = span
    return blocks


def _split_commas(text: str, ref: Reference) -> list[str]:
    """Comma-separated parts, keeping together runs that name one known organisation ('Alibaba Group, PAI Team')."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    out, i = [], 0
    while i < len(parts):
        for j in range(len(parts), i, -1):
            joined = ", ".join(parts[i:j])
            if j - i > 1 and ref.org(joined):
                out.append(joined)
                i = j
                break
        else:
            out.append(parts[i])
            i += 1
    return out


def _org_parts(text: str, ref: Reference) -> list[str] | None:
    """'Microsoft Research Asia & Microsoft Research Redmond' -> both, when each names an organisation."""
    parts = [p.strip() for p in re.split(r"\s+(?:&|and)\s+|\s*/\s*|\s*;\s*", text) if p.strip()]
    if len(parts) > 1 and all(ref.org(p) or is_org_like(p) for p in parts) and any(ref.org(p) for p in parts):
        return parts
    return None


def pieces(text: str, ref: Reference, education: bool) -> list[Piece]:
    """Classify the parts of an entry line: role, org, degree, advisors, thesis, detail."""
    out: list[Piece] = []
    for chunk in _STRONG.split(text):
        chunk = re.sub(r"\(\s*[,;]?\s*\)|\[\s*\]", " ", chunk).strip(" ,;|:–—-")
        if chunk.count("(") != chunk.count(")"):
            chunk = chunk.strip("()").strip()
        if not chunk:
            continue
        advisors = _ADVISORS.match(chunk)
        if advisors:
            out.append(Piece(chunk, "advisors"))
            continue
        if education and DEGREE.match(chunk):
            degree_part, _, rest = chunk.partition(",")
            out.append(Piece(degree_part.strip(), "degree"))
            subs = _split_commas(rest, ref)
            if subs and " in " not in degree_part and not (ref.org(subs[0]) or is_org_like(subs[0])):
                out.append(Piece(subs.pop(0), "field"))
            for sub in subs:
                out.extend(_classify(sub, ref))
            continue
        if ref.org(chunk):
            out.append(Piece(chunk, "org", ref.org(chunk)))
            continue
        for part in re.split(r"\s+(?:at|@)\s+", chunk) if re.search(r"\s(?:at|@)\s", chunk) else [chunk]:
            for sub in _split_commas(part, ref) if len(part.split()) <= 12 else [part]:
                out.extend(_classify(sub, ref))
    return out


def _classify(text: str, ref: Reference) -> list[Piece]:
    found = ref.org(text)
    if found:
        return [Piece(text, "org", found)]
    several = _org_parts(text, ref)
    if several:
        return [Piece(p, "org", ref.org(p)) for p in several]
    if _THESIS.match(text):
        return [Piece(_THESIS.match(text).group(1), "thesis")]  # type: ignore[union-attr]
    if len(text.split()) >= 6:
        return [Piece(text, "detail")]
    if ROLE_WORDS.search(text):
        return [Piece(text, "role")]
    if is_org_like(text):
        return [Piece(text, "org")]
    return [Piece(text, "detail")]


def block_pieces(block: Block, ref: Reference, education: bool) -> tuple[list[Piece], str | None]:
    """The pieces of all lines of a block (dates and durations cut out) and the duration as written."""
    duration = None
    out: list[Piece] = []
    for line in block.lines:
        text = strip_bullet(line.text)
        span = find_span(text)
        if span is not None and block.span is not None and span.start == block.span.start:
            text = without(text, span)
        found, text = find_duration(text)
        duration = duration or found
        if len(text.split()) >= 6 and not DEGREE.search(text) and not _ADVISORS.match(text) and \
                not _STRONG.search(text) and not ROLE_WORDS.search(text.split(",")[0]) and \
                not ref.org(text.split(",")[0]) and not _org_parts(text, ref):
            out.append(Piece(text.strip(), "detail"))
            continue
        out.extend(pieces(text, ref, education))
    return out, duration


def advisors_of(piece: Piece) -> tuple[str, list]:
    """The label ('Supervisors') and the people of an advisors piece."""
    match = _ADVISORS.match(piece.text)
    assert match is not None
    label = match.group("label")
    if label.lower().endswith(" by"):
        label = "supervisors" if label.lower().startswith("super") else "advisors"
    return label, parse_people(match.group("names"))


def degree_parts(written: str) -> tuple[str, str | None, str | None]:
    """(short degree, field, degree_name) from 'Doctor of Philosophy in Computer Science'."""
    match = re.match(r"^(.*?)(?:\s+in\s+|\s*,\s*)(.+)$", written)
    head, field_name = (match.group(1), match.group(2)) if match else (written, None)
    degree = short_degree(head)
    spelled = " " in head.strip() and head.strip() != degree
    return degree, field_name, (written if spelled else None)
