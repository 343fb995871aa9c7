"""The page being read, and its experience and education entries: role, organisations, degree, years, advisors."""

from __future__ import annotations

import datetime
import re
from dataclasses import replace
from typing import Any

from ..resolution import normalize_name
from .dates import Span
from .entries import ROLE_WORDS, Block, Piece, advisors_of, block_pieces, context_pieces, degree_parts
from .profile import add_link
from .prose import (
    EMAIL,
    PROFILE_LINKS,
    ProseDegree,
    find_email,
    find_metrics,
    find_projects,
    level,
    prose_degrees,
    prose_links,
    sentences,
)
from .records import Draft, Item, Line
from .venues import Reference


class Page:
    """State shared while one page is read: the draft, the lines used and the degrees stated in prose."""

    def __init__(self, lines: list[Line], ref: Reference, source: str) -> None:
        self.lines, self.ref, self.draft = lines, ref, Draft(source)
        self.used: set[int] = set()
        self.prose_degrees: list[tuple[ProseDegree, int]] = []
        self.keys: set[str] = set()
        self.prose_affiliation: tuple[str, str, int] | None = None

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
        for line in lines:
            mailto = [h[7:].split("?")[0] for _, h in line.links if h.lower().startswith("mailto:")]
            if "email" not in self.draft.fields and mailto and EMAIL.fullmatch(mailto[0]):
                self.draft.set("email", mailto[0], [line.no])
            if "email" not in self.draft.fields:
                email, obfuscated = find_email(line.text)
                if email:
                    self.draft.set("email", email, [line.no], f"decoded from the obfuscated form '{line.text}'"
                                   if obfuscated else None)
            for anchor, href in line.links:
                if PROFILE_LINKS.get(anchor.lower()):
                    add_link(self.draft, PROFILE_LINKS[anchor.lower()], href, line)
        anchors = {label.lower(): href for line in lines for label, href in line.links}
        for line in lines:
            for sentence in sentences(line.text):
                self._affiliation(sentence, line.no)
        for sentence in sentences(text):
            for degree in prose_degrees(sentence, self.ref):
                self.prose_degrees.append((degree, numbers[0]))
            for name in find_projects(sentence):
                if not any(i.value["name"] == name for i in self.draft.items("projects")):
                    self.draft.add("projects", {"name": name, "status": "unknown"}, numbers)
            for link in prose_links(sentence):
                add_link(self.draft, link, anchors.get(link.lower()), lines[0])
        self.metrics(text, numbers)
        self.used.update(line.index for line in lines)
        if label:
            self.draft.unparsed.append(Item(f"{label}: {text}", numbers))


    def _affiliation(self, sentence: str, line_no: int) -> None:
        """'I am a postdoctoral researcher in the Allen School at the University of Washington': the most specific
        organisation of a sentence introducing the person, kept in case the page's header names none."""
        if self.prose_affiliation is not None or not _INTRODUCTION.match(sentence):
            return
        clause = re.split(r",?\s+(?:where|working with|advised|supervised|before|after|and (?:I|my))\b|;", sentence)[0]
        if not ROLE_WORDS.search(clause):
            return
        orgs = self.ref.orgs_in(clause)
        specific = [o for o in orgs if any(p in self.ref.ancestors(o) for p in orgs)]
        if orgs:
            self.prose_affiliation = ((specific or orgs)[0], sentence, line_no)


_INTRODUCTION = re.compile(r"^(?:(?:Hi|Hello)\W+(?:\S+\s+)?)?(?:I am|I'm|I’m|(?:She|He|They) (?:is|are)|"
                           r"[A-Z][\w-]+(?: [A-Z][\w-]+){0,2} is)\s+(?:currently\s+|now\s+)?(?:a|an|the)\b")



def leave_out(page: Page, item: Item, missing: str) -> None:
    """Leave an entry out of the draft, with a review naming what kg build needs and the page did not give."""
    item.reviews.append(f"no {missing} recognised; kg build needs one, so this entry is left out")
    page.draft.left_out.append(item)

def span_fields(span: Span | None, education: bool) -> dict[str, Any]:
    if span is None:
        return {}
    if span.single and education:
        return {"end": span.start}
    out: dict[str, Any] = {"start": span.start}
    out["end"] = "present" if span.open else span.end
    return out


def experience(page: Page, block: Block, heading_role: str | None = None) -> None:
    """One position from an entry's lines; `heading_role` is the role a heading gives entries that name none
    ('Intern' under 'Internships')."""
    found, duration = block_pieces(block, page.ref, education=False)
    roles = [p for p in found if p.kind == "role"]
    orgs = _specific(page.ref, [p for p in found if p.kind == "org"])
    details = [p for p in found if p.kind not in ("role", "org", "place", "advisors")]
    item = Item(None, block.numbers())
    if roles and not orgs and block.context:
        orgs = [replace(p, kind="org") for p in context_pieces(block, page.ref)]
    if roles and not orgs:
        role_lines = {r.line for r in roles}
        named = next((p for p in details if p.line == roles[0].line and _name_like(p.text)), None) or next(
            (p for p in details if p.line == block.lines[0].no and p.line not in role_lines and
             _name_like(p.text)), None)
        if named is not None:
            orgs = [Piece(named.text, "org", None, named.line)]
            details.remove(named)
    first = next((p for p in found if p.kind not in ("role", "place")), None)
    if first is not None and first.kind == "detail" and orgs and orgs[0] in found and _name_like(first.text) and \
            found.index(first) < found.index(orgs[0]) and all(_UNIT.search(o.text) for o in orgs):
        orgs = [Piece(first.text, "org", None, first.line)] + orgs  # 'Tencent, AI Lab': the company, then its unit
        details.remove(first)
    role = roles[0].text if roles else None
    if role is None and heading_role and orgs:
        role = heading_role
        item.notes.append(f"role from the section heading ('{heading_role}')")
    if role is None:
        short = [p for p in details if len(p.text.split()) <= 6]
        if short:
            role = short[0].text
            details.remove(short[0])
            item.reviews.append("role guessed: no job-title word in it")
    value: dict[str, Any] = {"role": role, "organizations": [o.org or o.text for o in orgs]}
    value.update(span_fields(block.span, education=False))
    if duration:
        value["duration_as_written"] = duration
    long = [p.text for p in details if len(p.text.split()) >= 4]
    if long:
        value["description"] = " ".join(long) if all(x.endswith((".", "!", "?")) for x in long) else "; ".join(long)
    item.notes += [f"also on the page: {p.text}" for p in details if len(p.text.split()) < 4]
    item.notes += [f"also on the page: {r.text}" for r in roles[1:]]
    item.notes += [f"place: {p.text}" for p in found if p.kind == "place"]
    item.notes += [f"also on the page: {p.text}" for p in found if p.kind == "advisors"]
    item.reviews += [page.ref.unknown_org(o.text) for o in orgs if not o.org]
    item.value = value
    if not role or not orgs:
        leave_out(page, item, "role" if not role else "organisation")
    else:
        page.draft.lists.setdefault("experience", []).append(item)


def _name_like(text: str) -> bool:
    """A short capitalised name with no digits ('Inria'), taken as an organisation beside a role."""
    words = text.split()
    return 1 <= len(words) <= 5 and words[0][:1].isupper() and not re.search(r"\d|[.!?]$", text)


_UNIT = re.compile(r"\b(?:group|lab|laboratory|team|department|dept|division|center|centre|unit)\b", re.I)


def _specific(ref: Reference, orgs: list[Piece]) -> list[Piece]:
    """Organisations without one that only heads another line's unit ('Alibaba Group' over 'Alibaba Cloud PAI')."""
    return [o for o in orgs if not (o.org and any(p.org and p.line != o.line and o.org in ref.ancestors(p.org)
                                                  for p in orgs))]


def education(page: Page, block: Block) -> None:
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
    if not orgs and block.context:
        orgs = [replace(p, kind="org") for p in context_pieces(block, page.ref)]
    kinds = {o.org: page.ref.org_types.get(o.org or "") for o in orgs}
    institution = next((o for o in orgs if kinds[o.org] == "university"), orgs[0] if orgs else None)
    for org in orgs:
        if org is institution:
            value["institution"] = org.org or org.text
            if not org.org:
                item.reviews.append(page.ref.unknown_org(org.text))
        elif kinds[org.org] in ("department", "lab"):
            value["department" if kinds[org.org] == "department" else "lab"] = org.org
        else:
            item.notes.append(f"also on the page: {org.text}")
    value.update(span_fields(block.span, education=True))
    if block.span is not None:
        value["completed"] = not (block.span.open or block.span.expected or
                                  (value.get("end") or 0) > datetime.date.today().year)
    for piece in found:
        if piece.kind == "advisors":
            label, people = advisors_of(piece)
            value["advisors"] = [advisor_of(page, p, item) for p in people]
            value["advisor_label"] = label
        elif piece.kind == "thesis" or (piece.kind == "detail" and "focus" not in value and
                                        len(piece.text.split()) <= 6 and degrees and piece.line != degrees[0].line):
            value["focus"] = piece.text
        elif piece.kind in ("detail", "role", "place"):
            item.notes.append(f"also on the page: {piece.text}")
    item.value = value
    if "degree" not in value or "institution" not in value:
        leave_out(page, item, "degree" if "degree" not in value else "institution")
        return
    page.draft.lists.setdefault("education", []).append(item)


def advisor_of(page: Page, mention: Any, item: Item) -> dict[str, Any]:
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


def merge_prose_degrees(page: Page) -> None:
    """Fold degrees stated in prose into the education entries, or add them when the page lists none."""
    items = page.draft.lists.setdefault("education", [])
    for degree, line_no in page.prose_degrees:
        institution = degree.institution or degree.institution_text
        match = None
        for item in items:
            same_level = level(item.value["degree"]) == degree.level or item.value["degree"] == degree.written
            same_place = institution is None or normalize_name(str(item.value["institution"])) == normalize_name(
                institution) or page.ref.related(str(item.value["institution"]), institution)
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
                match.reviews.append(page.ref.unknown_org(institution))
            items.append(match)
        else:
            match.lines.append(line_no)
        _fill(page, match, degree)


def _fill(page: Page, item: Item, degree: ProseDegree) -> None:
    value = item.value
    for key in ("department", "partner", "lab"):
        if getattr(degree, key) and key not in value:
            value[key] = getattr(degree, key)
    if degree.end and "end" not in value:
        value["end"] = degree.end
    if degree.completed is not None and "completed" not in value:
        value["completed"] = degree.completed
    if degree.advisors and "advisors" not in value:
        value["advisors"] = [advisor_of(page, a, item) for a in degree.advisors]
        value["advisor_label"] = degree.advisor_label
    elif degree.advisors:
        known = {normalize_name(a["name"]): a for a in value["advisors"]}
        for mention in degree.advisors:
            extra = advisor_of(page, mention, item)
            for key, field_value in extra.items():
                known.get(normalize_name(mention.name), {}).setdefault(key, field_value)
    if degree.worked_with and "worked_with" not in value:
        value["worked_with"] = degree.worked_with
