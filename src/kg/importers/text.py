"""Import a homepage given as lines of text (plain text or HTML turned into lines) into a draft profile."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from ..resolve import normalize_name
from .dates import Span
from .entries import ROLE_WORDS, Block, advisors_of, block_pieces, degree_parts, split_blocks, strip_bullet
from .names import person_keys
from .profile import add_link, add_person, find_person, header_line
from .prose import ProseDegree, find_metrics, find_projects, level, prose_degrees, prose_links, sentences
from .pubs import parse_publications
from .records import Draft, Item, Line
from .sections import ABOUT, EDUCATION, EXPERIENCE, HEADER, INTERESTS, OTHER, PROJECTS, PUBLICATIONS, split_sections
from .venues import Reference

UNKNOWN_ORG = "unknown organisation '{}': add it to data/organizations.yaml (kg build rejects unknown " \
              "organisation references)"


class _Page:
    """State shared while one page is read: the draft, the lines used and the degrees stated in prose."""

    def __init__(self, lines: list[Line], ref: Reference, source: str) -> None:
        self.lines, self.ref, self.draft = lines, ref, Draft(source)
        self.used: set[int] = set()
        self.prose_degrees: list[tuple[ProseDegree, int]] = []
        self.keys: set[str] = set()

    def metrics(self, text: str, numbers: list[int]) -> bool:
        found = find_metrics(text)
        for metric in found:
            if any(item.value["kind"] == metric.kind for item in self.draft.items("metrics")):
                continue
            value: dict[str, Any] = {"kind": metric.kind}
            value.update({"min_value": metric.min_value} if metric.min_value is not None else {"value": metric.value})
            value["as_written"] = metric.as_written
            self.draft.add("metrics", value, numbers)
        return bool(found)

    def prose(self, lines: list[Line], label: str) -> None:
        """Running text: degrees, metrics, projects and links; the text itself is kept as a note."""
        text = " ".join(line.text for line in lines)
        numbers = [line.no for line in lines]
        for sentence in sentences(text):
            for degree in prose_degrees(sentence, self.ref):
                self.prose_degrees.append((degree, numbers[0]))
            for name in find_projects(sentence):
                if not any(i.value["name"] == name for i in self.draft.items("projects")):
                    self.draft.add("projects", {"name": name, "status": "unknown"}, numbers)
            for link in prose_links(sentence):
                add_link(self.draft, link, None, lines[0])
        self.metrics(text, numbers)
        self.used.update(line.index for line in lines)
        if label:
            self.draft.unparsed.append(Item(f"{label}: {text}", numbers))


def _span_fields(span: Span | None, education: bool) -> dict[str, Any]:
    if span is None:
        return {}
    if span.single and education:
        return {"end": span.start}
    out: dict[str, Any] = {"start": span.start}
    out["end"] = "present" if span.open else span.end
    return out


def _experience(page: _Page, block: Block) -> None:
    found, duration = block_pieces(block, page.ref, education=False)
    roles = [p for p in found if p.kind == "role"]
    orgs = [p for p in found if p.kind == "org"]
    details = [p for p in found if p.kind not in ("role", "org")]
    item = Item(None, block.numbers())
    role = roles[0].text if roles else None
    if role is None:
        short = [p for p in details if len(p.text.split()) <= 6]
        if short:
            role = short[0].text
            details.remove(short[0])
            item.reviews.append("role guessed: no job-title word in it")
    value: dict[str, Any] = {"role": role, "organizations": [o.org or o.text for o in orgs]}
    value.update(_span_fields(block.span, education=False))
    if duration:
        value["duration_as_written"] = duration
    long = [p.text for p in details if len(p.text.split()) >= 4]
    if long:
        value["description"] = "; ".join(long)
    item.notes += [f"also on the page: {p.text}" for p in details if len(p.text.split()) < 4]
    item.notes += [f"also on the page: {r.text}" for r in roles[1:]]
    item.reviews += [UNKNOWN_ORG.format(o.text) for o in orgs if not o.org]
    item.value = value
    if not role or not orgs:
        item.reviews.append(f"no {'role' if not role else 'organisation'} recognised; kg build needs one, so "
                            "this entry is left out")
        page.draft.left_out.append(item)
    else:
        page.draft.lists.setdefault("experience", []).append(item)


def _education(page: _Page, block: Block) -> None:
    found, _ = block_pieces(block, page.ref, education=True)
    item = Item(None, block.numbers())
    value: dict[str, Any] = {}
    degrees = [p for p in found if p.kind == "degree"]
    if degrees:
        degree, field_name, degree_name = degree_parts(degrees[0].text)
        value["degree"] = degree
        if degree_name:
            value["degree_name"] = degree_name
        if field_name:
            value["field"] = field_name
    fields = [p for p in found if p.kind == "field"]
    if fields and "field" not in value:
        value["field"] = fields[0].text
    orgs = [p for p in found if p.kind == "org"]
    kinds = {o.org: page.ref.org_types.get(o.org or "") for o in orgs}
    institution = next((o for o in orgs if kinds[o.org] == "university"), orgs[0] if orgs else None)
    for org in orgs:
        if org is institution:
            value["institution"] = org.org or org.text
            if not org.org:
                item.reviews.append(UNKNOWN_ORG.format(org.text))
        elif kinds[org.org] in ("department", "lab"):
            value["department" if kinds[org.org] == "department" else "lab"] = org.org
        else:
            item.notes.append(f"also on the page: {org.text}")
    value.update(_span_fields(block.span, education=True))
    if block.span is not None:
        value["completed"] = not (block.span.open or block.span.expected or
                                  (value.get("end") or 0) > datetime.date.today().year)
    for piece in found:
        if piece.kind == "advisors":
            label, people = advisors_of(piece)
            value["advisors"] = [_advisor(page, p, item) for p in people]
            value["advisor_label"] = label
        elif piece.kind == "thesis" or (piece.kind == "detail" and "focus" not in value and
                                        len(piece.text.split()) <= 6 and degrees and piece is not degrees[0]):
            value["focus"] = piece.text
        elif piece.kind in ("detail", "role"):
            item.notes.append(f"also on the page: {piece.text}")
    item.value = value
    if "degree" not in value or "institution" not in value:
        missing = "degree" if "degree" not in value else "institution"
        item.reviews.append(f"no {missing} recognised; kg build needs one, so this entry is left out")
        page.draft.left_out.append(item)
        return
    page.draft.lists.setdefault("education", []).append(item)


def _advisor(page: _Page, mention: Any, item: Item) -> dict[str, Any]:
    out: dict[str, Any] = {"name": mention.name}
    if mention.honorific:
        out["honorific"] = mention.honorific
    if mention.affiliation:
        found = page.ref.org(mention.affiliation)
        if found:
            out["affiliation"] = found
        else:
            item.notes.append(f"{mention.name}'s affiliation as written: {mention.affiliation} (not in "
                              "data/organizations.yaml, so not set)")
    return out


def _merge_prose_degrees(page: _Page) -> None:
    """Fold degrees stated in prose into the education entries, or add them when the page lists none."""
    items = page.draft.lists.setdefault("education", [])
    for degree, line_no in page.prose_degrees:
        institution = degree.institution or degree.institution_text
        match = None
        for item in items:
            same_level = level(item.value["degree"]) == degree.level or item.value["degree"] == degree.written
            same_place = institution is None or normalize_name(str(item.value["institution"])) == normalize_name(
                institution)
            if same_level and same_place:
                match = item
                break
        if match is None:
            if institution is None:
                continue
            value: dict[str, Any] = {"degree": degree_parts(degree.written)[0]}
            if value["degree"] != degree.written and " " in degree.written:
                value["degree_name"] = degree.written
            value["institution"] = institution
            match = Item(value, [line_no])
            if degree.institution is None:
                match.reviews.append(UNKNOWN_ORG.format(institution))
            items.append(match)
        else:
            match.lines.append(line_no)
        _fill(page, match, degree)


def _fill(page: _Page, item: Item, degree: ProseDegree) -> None:
    value = item.value
    for key in ("department", "partner", "lab"):
        if getattr(degree, key) and key not in value:
            value[key] = getattr(degree, key)
    if degree.end and "end" not in value:
        value["end"] = degree.end
    if degree.completed is not None and "completed" not in value:
        value["completed"] = degree.completed
    if degree.advisors and "advisors" not in value:
        value["advisors"] = [_advisor(page, a, item) for a in degree.advisors]
        value["advisor_label"] = degree.advisor_label
    elif degree.advisors:
        known = {normalize_name(a["name"]): a for a in value["advisors"]}
        for mention in degree.advisors:
            extra = _advisor(page, mention, item)
            for key, field_value in extra.items():
                known.get(normalize_name(mention.name), {}).setdefault(key, field_value)
    if degree.worked_with and "worked_with" not in value:
        value["worked_with"] = degree.worked_with


def _derive(page: _Page) -> None:
    """A current position from the header when the page lists none; the affiliation from a current position."""
    draft = page.draft
    title, affiliation = draft.fields.get("title"), draft.fields.get("affiliation")
    if not draft.items("experience") and title and affiliation:
        item = draft.add("experience", {"role": title.value, "organizations": [affiliation.value],
                                        "end": "present"}, title.lines + affiliation.lines)
        item.notes.append("from the title and affiliation at the top of the page; no start year stated")
        item.reviews += affiliation.reviews
    if affiliation is None:
        current = next((i for i in draft.items("experience") if i.value.get("end") == "present"), None)
        if current:
            org = current.value["organizations"][0]
            draft.set("affiliation", org, current.lines, "taken from the current position in the experience list")


def _section_lines(lines: list[Line]) -> list[Line]:
    return [line for line in lines if line.text]


def _list_section(page: _Page, lines: list[Line], key: str) -> None:
    for line in _section_lines(lines):
        text = strip_bullet(line.text)
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
    page = _Page(lines, ref, source.name)
    person = find_person(lines, given, source)
    page.used |= add_person(page.draft, person, given)
    page.keys = person_keys(person.name)
    name_index = person.line.index if person.line else -1
    for section in split_sections(lines, page.used, name_index):
        if section.heading is not None and section.kind != OTHER:
            page.used.add(section.heading.index)
        content = [line for line in section.lines if line.text and line.index not in page.used]
        if section.kind == HEADER:
            _header(page, content, name_index)
        elif section.kind == ABOUT:
            _paragraphs(page, section.lines, "about")
        elif section.kind in (EXPERIENCE, EDUCATION):
            for block in split_blocks(content, ref, section.kind == EDUCATION):
                (_education if section.kind == EDUCATION else _experience)(page, block)
                page.used.update(line.index for line in block.lines)
        elif section.kind == PUBLICATIONS:
            written, left_out, prose, used = parse_publications(section.lines, ref, page.keys, section.legend)
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
    _merge_prose_degrees(page)
    _derive(page)
    _unparsed(page)
    return page.draft


def _header(page: _Page, content: list[Line], name_index: int) -> None:
    for pos, line in enumerate(content[:-1]):
        if re.fullmatch(r"\d[\d,]*\+?", line.text) and line.index not in page.used:
            if page.metrics(f"{line.text} {content[pos + 1].text}", [line.no, content[pos + 1].no]):
                page.used.update({line.index, content[pos + 1].index})
    pending: list[Line] = []
    for line in sorted(content, key=lambda x: not ROLE_WORDS.search(x.text)):
        if line.index in page.used or (line.heading and line.index < name_index):
            continue
        if len(line.text.split()) > 14:
            pending.append(line)
            continue
        if header_line(page.draft, line, page.ref) or page.metrics(line.text, [line.no]):
            page.used.add(line.index)
    if pending:
        page.prose(sorted(pending, key=lambda x: x.index), "about")


def _paragraphs(page: _Page, lines: list[Line], label: str) -> None:
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


def _unparsed(page: _Page) -> None:
    group: list[Line] = []
    for line in page.lines + [Line(-1, -1, "", heading=True)]:
        if line.index in page.used or line.heading:
            if group:
                page.draft.unparsed.append(Item("unparsed: " + " / ".join(x.text for x in group),
                                                [x.no for x in group]))
            group = [line] if line.heading and line.index >= 0 and line.index not in page.used else []
            continue
        if line.text:
            group.append(line)
