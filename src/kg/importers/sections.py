"""Split a page's lines into a header and titled sections (About, Experience, Education, Publications, ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .records import Line

ABOUT, EXPERIENCE, EDUCATION, PUBLICATIONS, INTERESTS, PROJECTS, OTHER, HEADER = (
    "about", "experience", "education", "publications", "interests", "projects", "other", "header")
KEYWORDS = {
    ABOUT: ["about", "about me", "bio", "biography", "short bio", "brief bio", "profile", "introduction", "overview",
            "summary", "who am i", "hello"],
    EXPERIENCE: ["experience", "work experience", "professional experience", "research experience",
                 "industry experience", "employment", "employment history", "positions", "appointments",
                 "academic appointments", "work", "career", "internships", "professional appointments",
                 "positions held", "work history", "experiences", "work experiences", "research experiences",
                 "internship", "internship experience", "professional experiences", "industry experiences",
                 "academic positions", "research positions", "current position", "current positions",
                 "previous positions", "past positions", "professional history", "career history",
                 "academic employment", "research appointments", "internship experiences", "industrial experience",
                 "visiting positions", "professional positions"],
    EDUCATION: ["education", "educations", "educational background", "degrees", "academic background",
                "education and training", "education background", "academic qualifications", "qualifications",
                "education & training", "academic history", "academic degrees"],
    PUBLICATIONS: ["publications", "selected publications", "papers", "selected papers", "recent publications",
                   "publication list", "conference papers", "journal papers", "journal articles", "research papers",
                   "preprints", "all publications", "peer-reviewed publications", "refereed publications",
                   "full publication list", "publication"],
    INTERESTS: ["research interests", "interests", "research areas", "research topics", "areas of interest",
                "research focus"],
    PROJECTS: ["projects", "selected projects", "software", "open source", "open-source projects", "systems"],
    OTHER: ["awards", "honors", "honours", "awards and honors", "honors and awards", "awards & honors", "service",
            "professional service", "academic service", "teaching", "talks", "invited talks", "news", "recent news",
            "updates", "students", "mentoring", "advising", "contact", "misc", "miscellaneous", "media", "press",
            "patents", "grants", "funding", "activities", "skills", "references", "links", "blog", "personal",
            "fellowships", "selected awards", "teaching experience", "community service"],
}
_EMOJI = re.compile(r"^[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F\s]+|[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F\s]+$")
_LIST_NOUN = re.compile(r"\b(?:papers|publications|preprints|articles|proceedings|journals|conferences|workshops|"
                        r"manuscripts|chapters)\b", re.I)
_LOOKUP = {phrase: kind for kind, phrases in KEYWORDS.items() for phrase in phrases}


@dataclass
class Section:
    """A run of lines under one heading."""

    kind: str
    title: str
    heading: Line | None
    lines: list[Line] = field(default_factory=list)
    legend: str = ""


def heading_text(line: Line) -> tuple[str, str]:
    """The heading's words (markdown marks, a trailing colon and a parenthesised legend removed) and the legend."""
    text = re.sub(r"^#+\s*", "", line.text).strip()
    text = _EMOJI.sub("", text).strip("=*_ ").rstrip(":：").strip()
    legend = ""
    ends = text.rstrip()
    opens = ends.find("(")
    if ends.endswith(")") and 0 <= opens < len(ends) - 1:  # 'Title (legend)', found without backtracking
        text, legend = ends[:opens].strip(), ends[opens + 1:-1]
    return text, legend


def heading_kind(line: Line) -> str | None:
    """The section kind a heading line introduces, or None when the line is not a heading."""
    text, _ = heading_text(line)
    if len(text.split()) > 6 or not text:
        return None
    kind = _LOOKUP.get(text.lower().replace("’", "'"))
    if kind:
        return kind
    from .pubs import is_subheading

    if is_subheading(text) and _LIST_NOUN.search(text) and (line.heading or line.text.startswith("#") or
                                                             text.isupper() or len(text.split()) <= 4):
        return PUBLICATIONS
    marked = line.heading or line.text.startswith("#")
    if marked and not re.search(r"\d", text) and len(text.split()) <= 5:
        return OTHER
    return None


def _metric_label(lines: list[Line], i: int) -> bool:
    """'Publications' right under '35+' is a metric's label, not a heading."""
    return i > 0 and re.fullmatch(r"\d[\d,]*\+?", lines[i - 1].text) is not None


def _plain_heading(line: Line, previous: Line | None, following: Line | None) -> bool:
    """A short capitalised line set off by a blank line above it, as plain-text pages write headings."""
    from .entries import ROLE_WORDS
    from .prose import DEGREE
    from .venues import ORG_WORDS

    words = line.text.split()
    if not 1 <= len(words) <= 3 or (previous is not None and previous.text) or following is None or \
            not following.text:
        return False
    if not all(w[0].isupper() and w.isalpha() or w in ("and", "&", "of") for w in words):
        return False
    return not (ROLE_WORDS.search(line.text) or ORG_WORDS.search(line.text) or DEGREE.search(line.text))


def _pub_subheading(line: Line, kind: str) -> bool:
    """'Conference Papers', 'Preprints & workshops' under Publications: a group of the list, not a new section."""
    from .pubs import is_subheading

    text, _ = heading_text(line)
    return kind in (PUBLICATIONS, OTHER) and is_subheading(text)


def split_sections(lines: list[Line], skip: set[int], name_index: int = -1,
                   in_entries: frozenset[int] = frozenset()) -> list[Section]:
    """The header (lines before the first heading) and each section in page order; skip holds consumed indexes.

    Headings of unknown sections above the name line (a site title) or just under it (a role, an organisation)
    stay in the header, and so do lines the segmenter reads as part of a publication (`in_entries`: a lone
    'PDF' button row or a short title set as a heading is not a section), unless they name a known section.
    """
    sections = [Section(HEADER, "", None)]
    content = [line for line in lines if line.text]
    position = {line.index: pos for pos, line in enumerate(content)}
    for i, line in enumerate(lines):
        if not line.text:
            sections[-1].lines.append(line)
            continue
        pos = position[line.index]
        kind = None if line.index in skip or _metric_label(content, pos) else heading_kind(line)
        if kind == OTHER and len(sections) == 1 and (line.index < name_index or name_index in position and
                                                     0 < pos - position[name_index] <= 3):
            kind = None  # a site title above the name, or the role and organisation set as headings under it
        listing = sections[-1].kind in (INTERESTS, PROJECTS) and not any(x.text for x in sections[-1].lines)
        if kind is None and line.index not in skip and len(sections) > 1 and line.indent == 0 and not listing and \
                _plain_heading(line, lines[i - 1] if i else None, lines[i + 1] if i + 1 < len(lines) else None):
            kind = OTHER
        if kind == OTHER and line.index in in_entries and heading_text(line)[0].lower() not in _LOOKUP:
            kind = None
        if kind is None or (sections[-1].kind == PUBLICATIONS and _pub_subheading(line, kind)):
            sections[-1].lines.append(line)
            continue
        title, legend = heading_text(line)
        sections.append(Section(kind, title, line, legend=legend))
    return sections
