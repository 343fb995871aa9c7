"""Experience and education blocks: role, organisations, degree, years, advisors, one entry per block."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .dates import Span, find_duration, find_span, without
from .names import parse_people
from .places import city_of, is_place, split_place
from .prose import DEGREE, short_degree
from .records import Line
from .venues import ORG_WORDS, Reference, is_org_like

ROLE_WORDS = re.compile(r"\b(?:professor|lecturer|researcher|scientist|engineer|student|candidate|postdoc|"
                        r"postdoctoral|fellow|director|lead|manager|head|founder|co-founder|cto|ceo|intern|"
                        r"assistant|associate|architect|developer|principal|chair|dean|investigator|analyst|"
                        r"consultant|instructor|officer|staff|visiting|member|scholar|partner|president|"
                        r"specialist|programmer|advisor|reader|tutor|faculty|technician)\b", re.I)
BULLET = re.compile(r"^(?:[-*•·▪◦‣–]|\d{1,3}[.)]|[A-Z]{1,2}\d{1,3}[.)]|\[[A-Za-z]{0,3}\s?\d{1,3}[a-z]?\]|"
                    r"\(\d{1,3}\))\s+")
_STRONG = re.compile(r"\s+[|·•]\s+|\s+—\s+|\s+–\s+(?!\s*(?:present|now|\d))|\t|\s{2,}|;\s+")
ADVISORS = re.compile(r"^(?P<label>(?:co-)?(?:advisors?|supervisors?|advised by|supervised by|mentors?|"
                       r"mentored by|hosted by|thesis advisors?|promotor)):?\s*(?P<names>.+)$", re.I)
_NAME_GLUE = {"of", "and", "for", "the", "in", "at", "de", "des", "du", "di", "del", "für", "&", "y", "e", "und"}
_THESIS = re.compile(r"^(?:thesis|dissertation)\s*:?\s*(.+)$", re.I)


@dataclass
class Piece:
    """A separated part of an entry's text and what it is: role, org, degree, advisors, detail."""

    text: str
    kind: str
    org: str | None = None
    line: int = 0


@dataclass
class Block:
    """The lines of one experience or education entry."""

    lines: list[Line] = field(default_factory=list)
    span: Span | None = None
    context: list[Line] = field(default_factory=list)

    def numbers(self) -> list[int]:
        """Source line numbers (the context's too)."""
        return [line.no for line in self.context + self.lines]


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
    """Group a section's lines into entries: bullets, blank lines after a dated entry, or a new heading line.

    Bullets under an entry that is not itself a bullet (a résumé's achievements under a dated role) stay in it.
    A heading naming no role or date ('Google Brain, Mountain View, CA') over several dated entries is kept as
    each entry's context.
    """
    blocks: list[Block] = []
    current: Block | None = None
    blank = False
    for line in lines:
        text = line.text
        if not text:
            blank = True
            continue
        bulleted = BULLET.match(text) is not None
        kind = _kind_of_line(strip_bullet(text), ref, education)
        span = find_span(text)
        start_new = current is None
        context: list[Line] = []
        if current is not None:
            first = current.lines[0]
            deeper = line.indent > first.indent
            dated = next((x for x in current.lines if find_span(x.text)), None)
            if bulleted:
                body = strip_bullet(text)
                described = kind == "detail" or (body.endswith((".", "!")) and len(body.split()) >= 5 and
                                                 not (span and kind == "head"))
                detail = current.span is not None and described and (deeper or BULLET.match(first.text) is None)
                start_new = not detail
                if start_new and _heading_only(current, ref, education):
                    context = current.lines
                    blocks.pop()
                elif start_new and current.context and BULLET.match(first.text) and line.indent == first.indent:
                    context = current.context
            elif not deeper and any(x.indent > first.indent for x in current.lines):
                start_new = True
            elif blank and not deeper and (current.span is not None or span is not None) and not (
                    span is None and len(current.lines) == 1 and _org_only(text, ref) and
                    not _names_org(current.lines[0].text, ref) and _kind_of_line(
                        strip_bullet(current.lines[0].text), ref, education) == "head"):
                start_new = True
            elif deeper and span is not None and dated is not None and dated is not first and \
                    line.indent == dated.indent:
                start_new = True
                context = current.context or [x for x in current.lines if x.indent == first.indent]
            else:
                only_dates = all(_kind_of_line(strip_bullet(x.text), ref, education) == "date" for x in current.lines)
                fills = span is None and _org_only(text, ref) and not any(_names_org(x.text, ref)
                                                                          for x in current.lines)
                if not deeper and current.span is not None and (kind == "head" and not only_dates and not fills or
                                                                span is not None):
                    start_new = True
        blank = False
        if start_new:
            current = Block(context=list(context))
            blocks.append(current)
        assert current is not None
        current.lines.append(line)
        if current.span is None and span is not None:
            current.span = span
    return blocks


def _names_org(text: str, ref: Reference) -> bool:
    """Whether a line names an organisation somewhere ('PhD in Computer Science, 2019' does not)."""
    parts = re.split(r",|\s[|·—–]\s|\s{2,}|\s(?:at|@)\s", strip_bullet(text))
    return bool(ref.orgs_in(text)) or any(ref.org_like(p.strip()) for p in parts if p.strip())


def _org_only(text: str, ref: Reference) -> bool:
    """A line that is just an organisation ('University of Washington'), with no role or degree."""
    text = strip_bullet(text)
    return ref.org_like(text) and not ROLE_WORDS.search(text) and not DEGREE.search(text) and len(text.split()) <= 8


def _heading_only(block: Block, ref: Reference, education: bool) -> bool:
    """A block that only names where the entries below it were ('Microsoft Research'): no date, role or degree."""
    return block.span is None and all(
        BULLET.match(x.text) is None and not ROLE_WORDS.search(x.text) and not (education and DEGREE.search(x.text))
        for x in block.lines)


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


_ABBREVIATION = re.compile(r"(?:\b(?:Dept|Univ|Inc|Corp|Ltd|Co|Inst|Lab|St|Dr|Prof|Jr|Sr|No|vol|Assoc|Asst|Sci|Eng|"
                           r"Tech|Int|Natl|Nat|Res|Ctr|Mt|Ave|approx|etc)|\b[A-Z])$")


def _sentences(chunk: str) -> list[str]:
    """A chunk cut at sentence ends ('..., France. Thesis: ...'), not after initials or abbreviations."""
    out, start = [], 0
    for match in re.finditer(r"(?<=[a-z)\]])\.\s+(?=[A-Z])", chunk):
        word = chunk[start: match.start()].split()[-1] if chunk[start: match.start()].split() else ""
        if not _ABBREVIATION.search(chunk[start: match.start()]) and "." not in word:
            out.append(chunk[start: match.start()])
            start = match.end()
    return out + [chunk[start:]]


def pieces(text: str, ref: Reference, education: bool) -> list[Piece]:
    """Classify the parts of an entry line: role, org, degree, advisors, thesis, place, detail."""
    out: list[Piece] = []
    for chunk in _STRONG.split(text):
        for sentence in _sentences(chunk):
            out.extend(_chunk_pieces(sentence, ref, education))
    return out


def _chunk_pieces(chunk: str, ref: Reference, education: bool) -> list[Piece]:
    chunk = re.sub(r"\(\s*[,;]?\s*\)|\[\s*\]", " ", chunk).strip(" ,;|:–—-·•")
    if chunk.count("(") != chunk.count(")"):
        chunk = chunk.strip("()").strip()
    if not chunk:
        return []
    if ADVISORS.match(chunk):
        return [Piece(chunk, "advisors")]
    org_like = ref.org_like
    if is_place(chunk, org_like):
        return [Piece(chunk, "place")]
    lead = chunk.split(",")[0]
    chunk, place = split_place(chunk, org_like, lambda t: org_like(t) or (
        t == lead and not ROLE_WORDS.search(t) and not DEGREE.search(t) and t[:1].isupper()))
    out: list[Piece] = []
    if education and DEGREE.match(chunk):
        degree_part, _, rest = chunk.partition(",")
        out.append(Piece(degree_part.strip(), "degree"))
        subs = _split_commas(rest, ref)
        if subs and " in " not in degree_part and not (ref.org(subs[0]) or is_org_like(subs[0])):
            out.append(Piece(subs.pop(0), "field"))
        for sub in subs:
            out.extend(_classify(sub, ref))
    elif ref.org(chunk):
        out.append(Piece(chunk, "org", ref.org(chunk)))
    else:
        for part in re.split(r"\s+(?:at|@)\s+", chunk) if re.search(r"\s(?:at|@)\s", chunk) else [chunk]:
            subs = _split_commas(part, ref)
            for sub in subs if len(part.split()) <= 12 or all(ref.org_like(x) for x in subs) else [part]:
                out.extend(_classify(sub, ref))
    if place:
        city = city_of(place)
        joined = f"{out[-1].text} {city}" if out and city else ""
        if joined and out[-1].kind == "org" and ref.org(joined):
            out[-1] = Piece(joined, "org", ref.org(joined))
        out.append(Piece(place, "place"))
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
    words = text.split()
    if ORG_WORDS.search(text) and len(words) <= 10 and not ROLE_WORDS.search(text) and all(
            w[:1].isupper() or w in _NAME_GLUE for w in words):
        return [Piece(text, "org")]
    if len(words) >= 6:
        return [Piece(text, "detail")]
    if ROLE_WORDS.search(text):
        return [Piece(text, "role")]
    if is_org_like(text):
        return [Piece(text, "org")]
    return [Piece(text, "detail")]


def context_pieces(block: Block, ref: Reference) -> list[Piece]:
    """Organisations (or, when none is recognised, the first name written) of the heading over a block."""
    found = [replace(p, line=line.no) for line in block.context for p in pieces(line.text, ref, False)]
    orgs = [p for p in found if p.kind == "org"]
    named = [p for p in found if p.kind == "detail" and len(p.text.split()) <= 5 and p.text[:1].isupper()]
    return orgs or named[:1]


def block_pieces(block: Block, ref: Reference, education: bool) -> tuple[list[Piece], str | None]:
    """The pieces of all lines of a block (dates and durations cut out) and the duration as written."""
    duration = None
    out: list[Piece] = []
    for line in block.lines:
        text = strip_bullet(line.text)
        span = find_span(text)
        if span is not None and block.span is not None and span.start == block.span.start:
            text = without(text, span).strip(" ,;:|–—-")
        found, text = find_duration(text)
        duration = duration or found
        listed = len(text.split(",")) >= 3 and all(len(p.split()) <= 4 for p in text.split(","))
        if len(text.split()) >= 6 and not listed and not DEGREE.search(text) and not ADVISORS.match(text) and \
                not _STRONG.search(text) and not ROLE_WORDS.search(text.split(",")[0]) and \
                not ref.org(text.split(",")[0]) and not _org_parts(text, ref):
            out.append(Piece(text.strip(), "detail", line=line.no))
            continue
        out.extend(replace(p, line=line.no) for p in pieces(text, ref, education))
    return out, duration


def advisors_of(piece: Piece) -> tuple[str, list]:
    """The label ('Supervisors') and the people of an advisors piece."""
    match = ADVISORS.match(piece.text)
    assert match is not None
    label = match.group("label")
    if label.lower().endswith(" by"):
        label = "supervisors" if label.lower().startswith("super") else "advisors"
    return label, parse_people(match.group("names"))


def degree_parts(written: str) -> tuple[str, str | None, str | None]:
    """(short degree, field, degree_name) from 'Doctor of Philosophy in Computer Science' or 'Ph.D. Computer
    Science'."""
    match = re.match(r"^(.*?)(?:\s+in\s+|\s*,\s*)(.+)$", written)
    head, field_name = (match.group(1), match.group(2)) if match else (written, None)
    short = DEGREE.match(written)
    if match is None and short and re.fullmatch(r"\s+[A-Z][\w&-]*(?:\s+(?:[A-Z][\w&-]*|and|of|&))*",
                                                written[short.end():]):
        head, field_name = short.group(0), written[short.end():].strip()
    degree = short_degree(head)
    spelled = " " in head.strip() and head.strip() != degree
    return degree, field_name, (written if spelled else None)
