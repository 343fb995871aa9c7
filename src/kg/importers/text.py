"""Import a homepage given as lines of text (plain text or HTML turned into lines) into a draft profile."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..iris import slugify
from .career_items import education_item, experience_item, section_items
from .dates import find_span
from .embedded_bib import embedded_bibtex
from .entries import ROLE_WORDS, split_blocks, strip_bullet
from .markup import without_cjk_lead
from .menu import mark_menu
from .names import person_keys
from .pipeline.careers import read_careers
from .pipeline.segment import tag_lines
from .positions import Page, education, experience, merge_prose_degrees
from .profile import add_link, add_person, find_person, header_line
from .prose import DEGREE, PROFILE_LINKS, is_sentence
from .publications import Reading, labelled_reading, read_publications, score_reading, segmented_reading
from .records import Draft, Item, Line
from .sections import (
    ABOUT,
    EDUCATION,
    EXPERIENCE,
    HEADER,
    INTERESTS,
    KEYWORDS,
    OTHER,
    PROJECTS,
    PUBLICATIONS,
    Section,
    split_sections,
)
from .venues import Reference


def _derive(page: Page) -> None:
    """A current position from the header when the page lists none; the affiliation from a current position."""
    draft = page.draft
    title, affiliation = draft.fields.get("title"), draft.fields.get("affiliation")
    if not draft.items("experience") and title and affiliation:
        item = draft.add("experience", {"role": title.value, "organizations": [affiliation.value],
                                        "end": "present"}, title.lines + affiliation.lines)
        item.notes.append("from the title and affiliation at the top of the page; no start year stated")
        item.reviews += affiliation.reviews
    current = next((i for i in draft.items("experience") if i.value.get("end") == "present"), None)
    if affiliation is None and page.prose_affiliation:
        org, sentence, line_no = page.prose_affiliation
        affiliation = draft.set("affiliation", org, [line_no], f"from the sentence '{sentence}'")
    if affiliation is None and current:
        org = current.value["organizations"][0]
        affiliation = draft.set("affiliation", org, current.lines,
                                "taken from the current position in the experience list")
    if title is None and current and affiliation and any(
            o == affiliation.value or page.ref.related(o, str(affiliation.value))
            for o in current.value["organizations"]):
        draft.set("title", current.value["role"], current.lines, "taken from the current position in the "
                                                                 "experience list")


def _section_lines(lines: list[Line]) -> list[Line]:
    return [line for line in lines if line.text]


def _list_section(page: Page, lines: list[Line], key: str) -> None:
    for line in _section_lines(lines):
        text = without_cjk_lead(strip_bullet(line.text))
        if len(text.split()) > 25:
            continue
        parts = [p.strip(" .") for p in re.split(r"\s*[;,]\s*|\s+·\s+", text)] if key == "research_areas" else [
            re.split(r"\s*(?::|\s[–—-]\s)\s*", text)[0].strip()]
        for part in parts:
            if part and len(part.split()) <= 8:
                value: Any = part if key == "research_areas" else {"name": part, "status": "unknown"}
                page.draft.add(key, value, [line.no])
        page.used.add(line.index)


def parse_lines(lines: list[Line], ref: Reference, given: str | None, source: Path) -> Draft:
    """Read a page's lines into a draft profile."""
    lines = mark_menu(lines)
    page = Page(lines, ref, source.name)
    person = find_person(lines, given, source)
    page.used |= add_person(page.draft, person, given)
    page.keys = person_keys(person.name)
    name_index = person.line.index if person.line else -1
    menu = [line for line in lines if line.nav]
    page.used |= {line.index for line in menu}
    if menu:
        page.draft.unparsed.append(Item("navigation menu: " + " / ".join(strip_bullet(x.text) for x in menu),
                                        [x.no for x in menu]))
    starts: set[int] = set()
    bib_items, bib_lines = embedded_bibtex(lines, ref, person.name, source)
    lines = [replace(line, text="") if line.index in bib_lines else line for line in lines]
    page.lines = lines
    tagged = tag_lines(lines, ref, page.keys) or []
    in_entries = frozenset(line.index for line, tag in tagged
                           if tag.startswith("I-") or tag.startswith("B-") and not line.heading)
    sections = split_sections(lines, page.used, name_index, in_entries)
    for section in sections:
        if section.heading is not None:
            starts.add(section.heading.index)
        if section.heading is not None and section.kind != OTHER:
            page.used.add(section.heading.index)
        content = [line for line in section.lines if line.text and line.index not in page.used]
        unused = [line for line in section.lines if line.index not in page.used]
        if section.kind == HEADER:
            _header(page, content, name_index)
        if section.kind == OTHER and _BOTH.search(section.title):
            _timeline(page, content)  # 'Education & Experience': each entry by what it names
        elif section.kind in (ABOUT, OTHER) and not _NOT_CAREERS.search(section.title):
            for run in _timelines(content):
                _timeline(page, run)
            unused = [line for line in section.lines if line.index not in page.used]
        if section.kind == ABOUT:
            _paragraphs(page, unused, "about")
        elif section.kind in (EDUCATION, EXPERIENCE):
            _career_section(page, section, unused)
        elif (reading := _list_reading(page, section)) is not None:
            written, left_out, prose, used = reading
            if section.heading is not None:
                page.used.add(section.heading.index)
            page.draft.lists.setdefault("publications", []).extend(written)
            page.draft.left_out.extend(left_out)
            page.used |= used
            for line in prose:
                before = len(page.draft.items("metrics")) + len(page.draft.items("links"))
                page.prose([line], "")
                if len(page.draft.items("metrics")) + len(page.draft.items("links")) == before:
                    page.used.discard(line.index)
        elif section.kind in (INTERESTS, PROJECTS):
            _list_section(page, section.lines, "research_areas" if section.kind == INTERESTS else "projects")
    if not page.draft.items("publications"):
        _publications_anywhere(page, sections)
    if bib_items:  # BibTeX first: where a paper is also in the formatted list, its BibTeX entry is the one kept
        page.draft.lists["publications"] = bib_items + page.draft.items("publications")
    _merge_repeated(page.draft, "publications", "title")
    _merge_repeated(page.draft, "projects", "name")
    merge_prose_degrees(page)
    for line in (x for x in lines if x.nav):
        for label, href in line.links:
            if PROFILE_LINKS.get(label.lower()):
                add_link(page.draft, PROFILE_LINKS[label.lower()], href, line)
    _derive(page)
    _unparsed(page, starts)
    return page.draft


_NOT_CAREERS = re.compile(r"\b(?:servic\w*|reviewe?r?s?|news|updates?|talks?|presentations?|awards?|hono(?:u)?rs?|"
                          r"teaching|students|mentoring|advising|grants?|funding|activities|media|press)\b", re.I)


_BOTH = re.compile(r"\beducation\b.*\b(?:experience|employment|positions|career)\b|"
                   r"\b(?:experience|employment|positions|career)\b.*\beducation\b", re.I)


def _timeline(page: Page, run: list[Line]) -> None:
    """A run of dated lines naming roles or degrees outside an experience or education section: the career model's
    entries, a degree's as education and a role's as experience (the rules' blocks when no model is installed)."""
    reading = read_careers(run)
    if reading is None:
        for block in split_blocks(run, page.ref, False):
            (education if DEGREE.match(strip_bullet(block.lines[0].text)) else experience)(page, block)
            page.used.update(line.index for line in block.lines)
        return
    for entry in reading.entries:
        if entry.first("degree"):
            education_item(page, entry)
        elif entry.first("role"):
            experience_item(page, entry)
    page.used.update(line.index for line in run if line.index not in reading.outside)


def _career_section(page: Page, section: Section, unused: list[Line]) -> None:
    """An experience or education section, read by the career model (by the rules when none is installed)."""
    heading_role = "Intern" if re.search(r"\bintern(?:ship)?s?\b", section.title, re.I) else None
    reading = read_careers(unused, section.kind == EDUCATION)
    if reading is None:
        for block in split_blocks(unused, page.ref, section.kind == EDUCATION):
            if section.kind == EDUCATION:
                education(page, block)
            else:
                experience(page, block, heading_role)
            page.used.update(line.index for line in block.lines)
        return
    section_items(page, reading, section.kind == EDUCATION, heading_role)
    page.used.update(line.index for line in unused if line.index not in reading.outside)


def _publications_anywhere(page: Page, sections: list[Section]) -> None:
    """When no section gave a publication, the rest of the page (outside experience and education) is read as
    one list, by the line labeller alone and with the segmenter's entries, and the better reading is kept when
    it finds at least two publications."""
    rest = [line for section in sections if section.kind not in (EXPERIENCE, EDUCATION)
            for line in section.lines if line.index not in page.used]
    readings = [r for r in (labelled_reading(rest, page.ref, page.keys, ""),
                            segmented_reading(rest, page.ref, page.keys, "")) if r is not None]
    reading = max(readings, key=score_reading, default=None)
    if reading is None or len(reading[0]) < 2:
        return
    written, left_out, _, used = reading
    for item in written:
        item.notes.append("found outside a publications section")
    page.draft.lists["publications"] = written
    page.draft.left_out.extend(left_out)
    page.used |= used


def _timelines(content: list[Line]) -> list[list[Line]]:
    """Runs of three or more consecutive short dated lines naming a degree or a role: a CV timeline written
    outside an Experience or Education section ('S.B. in Physics; MIT 2013-2017', 'Research Intern; IBM 2022')."""
    runs: list[list[Line]] = []
    run: list[Line] = []
    for line in content + [Line(-1, -1, "")]:
        text = strip_bullet(line.text)
        if text and len(text.split()) <= 20 and find_span(text) and (DEGREE.match(text) or ROLE_WORDS.search(text)):
            run.append(line)
            continue
        if len(run) >= 3:
            runs.append(run)
        run = []
    return runs


def _merge_repeated(draft: Draft, key_of: str, field_name: str) -> None:
    """One entry per name: a page that lists a paper (or project) twice, by year and again by topic, keeps the
    first; names whose graph identifiers would coincide count as the same."""
    kept: dict[str, Item] = {}
    for item in draft.items(key_of):
        key = slugify(str(item.value.get(field_name) or ""))
        if key in kept:
            kept[key].lines += item.lines
            kept[key].notes.append(f"listed again at {item.span()}")
        else:
            kept[key] = item
    if key_of in draft.lists:
        draft.lists[key_of] = list(kept.values())


def _list_reading(page: Page, section: Section) -> Reading | None:
    """The reading of a publications section; or of a section under a heading of no known kind ('Selected Work')
    when it is a publication list all the same: at least two entries, four in five of them complete citations
    (title, authors and year); None for any other section."""
    if section.kind != PUBLICATIONS and (section.kind != OTHER or section.heading is None or
                                         section.title.lower() in KEYWORDS[OTHER]):
        return None
    reading = read_publications(section.lines, page.ref, page.keys, section.legend)
    written, left_out = reading[0], reading[1]
    if section.kind == OTHER and not (len(written) >= 2 and len(written) >= 0.8 * (len(written) + len(left_out))):
        return None
    return reading


def _header(page: Page, content: list[Line], name_index: int) -> None:
    for pos, line in enumerate(content[:-1]):
        if re.fullmatch(r"\d[\d,]*\+?", line.text) and line.index not in page.used:
            if page.metrics(f"{line.text} {content[pos + 1].text}", [line.no, content[pos + 1].no]):
                page.used.update({line.index, content[pos + 1].index})
    pending: list[Line] = []
    for line in sorted(content, key=lambda x: not ROLE_WORDS.search(x.text)):
        if line.index in page.used or (line.heading and line.index < name_index):
            continue
        if is_sentence(line.text):
            pending.append(line)
            continue
        if header_line(page.draft, line, page.ref) or page.metrics(line.text, [line.no]):
            page.used.add(line.index)
    if pending:
        page.prose(sorted(pending, key=lambda x: x.index), "about")


def _paragraphs(page: Page, lines: list[Line], label: str) -> None:
    for pos, line in enumerate(lines[:-1]):
        if re.fullmatch(r"\d[\d,]*\+?", line.text) and lines[pos + 1].text:
            if page.metrics(f"{line.text} {lines[pos + 1].text}", [line.no, lines[pos + 1].no]):
                page.used.update({line.index, lines[pos + 1].index})
    paragraph: list[Line] = []
    for line in lines + [Line(-1, -1, "")]:
        if line.text and line.index not in page.used:
            paragraph.append(line)
        elif paragraph:
            page.prose(paragraph, label)
            paragraph = []


def _unparsed(page: Page, starts: set[int]) -> None:
    """Lines nobody used, one note per run of lines within a section."""
    group: list[Line] = []
    for line in page.lines + [Line(-1, -1, "", heading=True)]:
        if line.index in page.used or line.heading or line.index in starts:
            if group:
                page.draft.unparsed.append(Item("unparsed: " + " / ".join(x.text for x in group),
                                                [x.no for x in group]))
            group = [line] if (line.heading or line.index in starts) and line.index >= 0 and \
                line.index not in page.used else []
            continue
        if line.text:
            group.append(line)
