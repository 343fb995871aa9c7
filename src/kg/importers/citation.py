"""One publication's text: link labels, awards and notes, venue-first prefixes, and one-line citations."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from .dates import last_year
from .names import is_author_line, is_name, split_authors
from .venues import PREPRINT, VENUE_WORDS, Reference

LINK_WORDS = ["project page", "paper", "pdf", "code", "slides", "video", "talk", "poster", "dataset", "data", "arxiv",
              "project", "website", "bibtex", "bib", "doi", "demo", "blog", "github", "artifact", "abstract",
              "supplementary", "supplement", "appendix", "url", "html", "recording", "media", "press", "openreview",
              "acm dl", "ieee xplore", "extended version", "full version", "tech report", "preprint", "benchmark",
              "model", "models", "weights", "colab", "notebook", "docs", "youtube", "cite", "supp", "supplemental",
              "abs", "source", "source document", "presentation", "talk video", "summary", "ris", "endnote"]
_LINK = "|".join(re.escape(w) for w in sorted(LINK_WORDS, key=len, reverse=True))
_EMOJI = r"[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B50\u2B06\u2197]\uFE0F?"
BRACKETED = re.compile(rf"\[\s*({_LINK})\s*\]", re.I)
EMOJI_LINK = re.compile(rf"{_EMOJI}\s*({_LINK})\b", re.I)
_SOON = r"(?:\s*\((?:coming soon|soon|tbd)\))?"
_LINK_WORD = re.compile(rf"(?<!\w)({_LINK}){_SOON}(?!\w)", re.I)
_LINK_RUN = re.compile(rf"(?:(?:{_LINK}){_SOON}\s+)+(?:{_LINK}){_SOON}", re.I)
_TAIL_LINK = re.compile(r"(?<=[.!?])\s+(link|pdf|paper|url|here)\.?$", re.I)  # 'Title. Venue. link'
_SEP = re.compile(r"\s*(?:[|·•/,]|\s{2,})\s*")
AWARD = re.compile(r"(?:🏆\s*)?(?:[\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]+\s*)?"  # a CJK name of the award
                   r"\b((?:(?:[A-Z]{2,}|ACM|IEEE|USENIX)\s+)?(?:Best|Distinguished|Outstanding)\s+"
                   r"(?:[\w-]+\s+){0,3}?(?:Award|Paper|Prize|Mention|Artifact)(?:\s+(?:Award|Prize|Honou?rable\s+"
                   r"Mention|Runner[- ]up|Finalist|Nominee|Candidate))?|Honou?rable\s+Mention)")
NOTE = re.compile(r"^(?:(?:Long|Short|Full|Contributed)\s+)?(?:Oral|Spotlight|Poster|Highlight)(?:\s+presentation)?"
                  r"(?:\s*\([^)]*\))?$|^Oral presentation$|^Invited (?:paper|talk)$|^Acceptance rate[^)]*$", re.I)
_VENUE_FIRST = re.compile(r"^[\[(]\s*([A-Za-z][\w&/ .-]{1,30}?\s*(?:['’]\s?\d{2}|\d{4}))\s*[\])][\s|·]*(?=\S)")
# GB/T 7714 document type codes: "Title[J]. Venue", "Title[C]//Proceedings"
_DOC_TYPE = re.compile(r"\s*\[(?:J|C|M|D|A|R|P|S|N|Z|EB/OL|J/OL|C/OL|DB/OL)\]\s*(?://)?\s*[.,]?\s*")
_QUOTED = re.compile(r"[“\"](.+?)[,.]?[”\"]")
_APA = re.compile(r"^(?P<authors>.+?)\s*\((?P<year>(?:19|20)\d\d)[a-z]?\)\.?\s*(?P<rest>.+)$")
_NO_SPLIT = (r"(?:\b[A-Z]|\bProc|\bConf|\bInt|\bIntl|\bVol|\bNo|\bpp|\bvs|\bet|\bSymp|\bTrans|\bJ|\bSt|"
             r"\bJr|\bDr|\bProf)")


_DOI = re.compile(r"[,.;]?\s*\b(?:doi\s*:\s*|https?://(?:dx\.)?doi\.org/)(10\.\d{4,9}/[^\s,;]+?)\.?(?=\s|$)", re.I)
_URL = re.compile(r"[,.;]?\s*\b(?:URL\s*:?\s*)?(https?://[^\s<>\"]+?)[.,;]?(?=\s|$)", re.I)
_SURNAME_INITIALS = r"[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?\s[A-Z]{1,3}"
_VANCOUVER = re.compile(rf"^(?P<authors>{_SURNAME_INITIALS}(?:,\s{_SURNAME_INITIALS})*(?:,?\s(?:and\s)?"
                        rf"{_SURNAME_INITIALS})?(?:,?\set al)?)\.\s+(?P<rest>\S.+)$")
_COLON = re.compile(r"^(?P<authors>[^:\"“]+?)\s*:\s+(?P<rest>.+)$")
_LNCS = re.compile(r"^(?P<authors>.+?(?:\b[A-Z]\.|\bet al\.?))\s*:\s+(?P<rest>.+)$")


def take_addresses(text: str) -> tuple[str, dict[str, str]]:
    """A citation without its DOI and web addresses, and those as links ({'DOI': 'https://doi.org/...'})."""
    found: dict[str, str] = {}
    doi = _DOI.search(text)
    if doi:
        found["DOI"] = "https://doi.org/" + doi.group(1)
        text = text[: doi.start()] + text[doi.end():]
    for url in _URL.finditer(text):
        found.setdefault("URL", url.group(1))
    text = _URL.sub("", text)
    return " ".join(text.split()).strip(), found


@dataclass
class PubParts:
    """What one publication's text says, before it becomes a YAML entry."""

    title: str | None = None
    authors: list[str] | None = None
    venue: str | None = None
    year: int | None = None
    awards: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    reviews: list[str] = field(default_factory=list)
    urls: dict[str, str] = field(default_factory=dict)
    label: str | None = None


def take_links(text: str) -> tuple[str, list[str]]:
    """Link labels written as '[PDF]', '📄 Paper', or a line of labels ('PDF | Code'); returns the rest."""
    tail = _TAIL_LINK.search(text)
    if tail:
        rest, labels = take_links(text[: tail.start() + 1])
        return rest, labels + [tail.group(1)]
    labels = [m.group(1) for m in BRACKETED.finditer(text)] + [m.group(1) for m in EMOJI_LINK.finditer(text)]
    rest = EMOJI_LINK.sub(" ", BRACKETED.sub(" ", text))
    rest = re.sub(_EMOJI, " ", rest) if labels else rest
    pieces = [p for p in _SEP.split(rest.strip()) if p]
    if pieces and all(re.fullmatch(_LINK, p, re.I) for p in pieces):
        labels += pieces
        rest = ""
    elif _LINK_RUN.fullmatch(rest.strip()):
        labels += [m.group(1) for m in _LINK_WORD.finditer(rest)]
        rest = ""
    rest = re.sub(r"(?:\s*[|·•]\s*)+$", "", " ".join(rest.split())).strip()
    return rest, labels


def take_awards(text: str) -> tuple[str, list[str]]:
    """Award phrases ('🏆 Distinguished Paper Award', '(Best Paper Award)') and the text without them."""
    awards = [m.group(1).strip() for m in AWARD.finditer(text)]
    rest = re.sub(r"[\[(]\s*" + AWARD.pattern + r"\s*[\])]", " ", text)
    rest = AWARD.sub(" ", rest)
    rest = re.sub(r"\s+([.,;])", r"\1", " ".join(rest.split())).strip()
    if awards:
        rest = re.sub(r"\.\s+\.$", ".", rest).strip()
    return rest, awards


def take_notes(text: str) -> tuple[str, list[str]]:
    """Presentation notes in parentheses ('(Oral)', '(Spotlight)') and the text without them."""
    notes = []
    for m in re.finditer(r"\(([^()]+)\)", text):
        if NOTE.match(m.group(1).strip()):
            notes.append(m.group(1).strip())
    rest = text
    for note in notes:
        rest = rest.replace(f"({note})", " ")
    return " ".join(rest.split()), notes


def venue_first(text: str, ref: Reference) -> tuple[str | None, str]:
    """A leading '[OSDI'24]' or '(MobiCom 2025)' and the rest of the line."""
    match = _VENUE_FIRST.match(text)
    if match is None:
        return None, text
    return match.group(1).strip(), text[match.end():].strip(" |·")


def is_venue(text: str, ref: Reference) -> bool:
    """Whether a line or segment reads as a venue: a known venue, venue words, a year, or a preprint status."""
    stripped = strip_pages(text.strip()).rstrip(".")
    stripped = re.sub(r"\barXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?", "arXiv", stripped, flags=re.I)
    if not stripped or len(stripped.split()) > 25:
        return False
    if re.match(r"^(?:in|proc\.?|proceedings|to appear|accepted|appeared|arxiv|corr)\b", stripped, re.I):
        return True
    if PREPRINT.match(stripped) or re.fullmatch(r"(?:19|20)\d\d", stripped):
        return True
    match = ref.venue(stripped)
    has_year = last_year(stripped) is not None
    if has_year and (match.id or VENUE_WORDS.search(stripped) or len(stripped.split()) <= 8) and ":" not in stripped:
        return True
    if VENUE_WORDS.search(stripped) and ":" not in stripped:
        return True
    return match.id is not None and ref.venues.find(match.label) is not None


def strip_pages(text: str) -> str:
    """A venue without page numbers ('NSDI 2023: 45-60', 'pp. 1–14')."""
    text = re.sub(r"[:,]\s*(?:pp?\.\s*)?\d+\s*[-–]\s*\d+\s*\.?$", "", text.strip())
    return re.sub(r",?\s*pp?\.\s*\d+\s*[-–]\s*\d+", "", text).strip()


def segments(text: str) -> list[str]:
    """Split a one-line citation at sentence ends, not after initials or abbreviations."""
    protected = re.sub(rf"({_NO_SPLIT})\.(?=\s)", lambda m: m.group(1) + "\x00", text)
    parts = re.split(r"(?<=[.?!])\s+(?=\S)", protected)
    return [p.replace("\x00", ".").strip() for p in parts if p.strip()]


def parse_citation(text: str, ref: Reference, keys: set[str]) -> PubParts | None:
    """A one-line citation in any common order: authors, title and venue ('A, B. Title. NSDI 2024.'); each text is
    read once per page (the readings of a page ask for the same lines several times), callers get their own copy."""
    key = (text, frozenset(keys))
    if key not in ref.citations:
        ref.citations[key] = _parse_citation(text, ref, keys)
    return copy.deepcopy(ref.citations[key])


def _parse_citation(text: str, ref: Reference, keys: set[str]) -> PubParts | None:
    text = _DOC_TYPE.sub(". ", text).replace(". . ", ". ")
    spaced = [p.strip() for p in text.split(" , ")]
    if len(spaced) >= 3 and split_authors(spaced[0]):
        return PubParts(title=spaced[1].rstrip("."), authors=split_authors(spaced[0]),
                        venue=", ".join(spaced[2:]).strip(" .") or None)
    parts = PubParts()
    quoted = _QUOTED.search(text)
    before = text[: quoted.start()].strip().rstrip(",") if quoted else ""
    dated = re.search(r"[.,]?\s*\(?((?:19|20)\d\d)[a-z]?\)?\.?$", before)
    if dated and split_authors(before[: dated.start()]):
        parts.year, before = int(dated.group(1)), before[: dated.start()]
    if quoted and split_authors(before):
        parts.title = quoted.group(1).strip().rstrip(",")
        parts.authors = split_authors(before)
        venue = text[quoted.end():].strip(" ,")
        parts.venue = venue or None
        return parts
    vancouver = _VANCOUVER.match(text)
    if vancouver and split_authors(vancouver.group("authors")):
        rest = segments(vancouver.group("rest"))
        parts.authors = split_authors(vancouver.group("authors"))
        parts.title = rest[0].rstrip(".")
        parts.venue = " ".join(rest[1:]) or None
        return parts
    lncs = _LNCS.match(text) or _COLON.match(text)
    if lncs and is_author_line(lncs.group("authors"), keys):
        rest = segments(lncs.group("rest"))
        parts.authors = split_authors(lncs.group("authors"))
        parts.title = rest[0].rstrip(".")
        parts.venue = re.sub(r"^In:\s*", "", " ".join(rest[1:])) or None
        return parts
    apa = _APA.match(text)
    if apa and split_authors(apa.group("authors")):
        parts.authors = split_authors(apa.group("authors"))
        parts.year = int(apa.group("year"))
        rest = segments(apa.group("rest"))
        if rest:
            parts.title = rest[0].rstrip(".")
            parts.venue = " ".join(rest[1:]) or None
        return parts
    segs = segments(text)
    if len(segs) < 2:
        return _comma_citation(text, ref)
    kinds = []
    for seg in segs:
        if parts.authors is None and is_author_line(seg, keys):
            kinds.append("authors")
        elif kinds == ["authors"] and re.fullmatch(r"\(?((?:19|20)\d\d)[a-z]?\)?\.?", seg):
            parts.year = int(seg.strip("().")[:4])
            kinds.append("year")
            continue
        elif is_venue(seg, ref) and parts.title is not None or re.fullmatch(r"(?:19|20)\d\d\.?", seg):
            kinds.append("venue")
        else:
            kinds.append("title")
        if kinds[-1] == "authors":
            parts.authors = split_authors(seg)
        elif kinds[-1] == "title" and parts.title is None:
            parts.title = seg.rstrip(".")
        elif kinds[-1] == "title":
            kinds[-1] = "venue"
    if parts.authors is None or parts.title is None:
        return _comma_citation(text, ref)
    venue_segs = [s for s, k in zip(segs, kinds, strict=True) if k == "venue"]
    parts.venue = " ".join(venue_segs) or None
    return parts


def _comma_citation(text: str, ref: Reference) -> PubParts | None:
    """A citation whose parts are all separated by commas: 'A Author, B Author, Title of It, VENUE 2024'."""
    segs = [s.strip() for s in re.split(r",\s+", text.strip().rstrip("."))]
    names = 0
    while names < len(segs) and is_name(re.sub(r"^and\s+", "", segs[names])):
        names += 1
    end = len(segs)
    while end > names + 1 and (is_venue(segs[end - 1], ref) or re.fullmatch(r"(?:pp?\.\s*)?\d+(?:\s*[-–]\s*\d+)?",
                                                                          segs[end - 1])):
        end -= 1
    if names == 0:
        return _title_first_commas(segs, ref)
    if end == len(segs) or end <= names:
        return None
    authors = split_authors(", ".join(segs[:names]))
    if not authors:
        return None
    venue = ", ".join(segs[end:])
    return PubParts(title=", ".join(segs[names:end]), authors=authors, venue=venue, year=last_year(venue))


_BADGE = re.compile(r"^(?P<venue>(?:Sub\.? to |Submitted to |Accepted (?:to|at|by) )?"
                    r"[A-Z][\w&.-]*(?: [A-Z][\w&.-]*){0,3} (?:19|20)\d\d)\s+(?P<title>[A-Z].*)$")


def _title_first_commas(segs: list[str], ref: Reference) -> PubParts | None:
    """'[VENUE YEAR] Title, A Author, B Author': a title (after an optional venue badge) and then only names."""
    start = len(segs)  # the first of the names that run to the end (one pass from the end: linear in the segments)
    while start > 1 and (is_name(re.sub(r"^and\s+", "", segs[start - 1]))
                         or re.fullmatch(r"\.\.\.|…|et al\.?", segs[start - 1])):
        start -= 1
    if len(segs) - start < 2:
        return None
    authors = split_authors(", ".join(segs[start:]))
    if not authors:
        return None
    title = ", ".join(segs[:start])
    badge = _BADGE.match(title)
    venue = None
    if badge and (is_venue(badge.group("venue"), ref) or ref.venue(badge.group("venue")).id):
        venue, title = badge.group("venue"), badge.group("title")
    return PubParts(title=title, authors=authors, venue=venue, year=last_year(venue or ""))
