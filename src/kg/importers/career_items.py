"""Draft experience and education items from the career model's entries (pipeline/careers.py)."""

from __future__ import annotations

import datetime
import re
from typing import Any

from .entries import ADVISORS, Piece, advisors_of, degree_parts
from .pipeline.careers import CareerEntry, CareerReading
from .places import city_of, is_place
from .positions import Page, advisor_of, leave_out, span_fields
from .prose import level
from .records import Item
from .venues import Reference


def _resolve(texts: list[str], ref: Reference) -> list[tuple[str, str | None]]:
    """(text, known id) of the organisations named by the runs of an entry, joined when together they name one
    known organisation ('Alibaba Group, PAI Team'), split when one run names several ('X & Y')."""
    if not texts:
        return []
    joined = ", ".join(texts)
    if len(texts) > 1 and ref.org(joined):
        return [(joined, ref.org(joined))]
    out: list[tuple[str, str | None]] = []
    for text in texts:
        parts = [p for p in _split_parts(text) if p]
        if len(parts) > 1 and all(ref.org(p) for p in parts):
            out += [(p, ref.org(p)) for p in parts]
        else:
            out.append((text, ref.org(text)))
    return out


def _split_parts(text: str) -> list[str]:
    """'Microsoft Research Asia & Microsoft Research Redmond' -> both names."""
    for glue in (" & ", " and ", " / ", "; "):
        if glue in text:
            return [p.strip() for p in text.split(glue)]
    return [text]


def _comparable(key: str, value: Any) -> str:
    """A value as compared when merging repeated entries: a degree by its level ('MSc' and "Master's Degree")."""
    return level(str(value)) if key == "degree" else str(value).lower()


def _add(page: Page, key: str, item: Item, same: tuple[str, str]) -> None:
    """Add an entry, or fill in the one the page already listed (a page that gives its degrees twice, once with the
    end years and once with the whole ranges): same values of `same`, years that do not disagree."""
    for other in page.draft.items(key):
        if all(_comparable(k, other.value.get(k)) == _comparable(k, item.value.get(k)) for k in same) and all(
                other.value.get(k) is None or item.value.get(k) is None or other.value.get(k) == item.value.get(k)
                for k in ("end",)):
            for k, v in item.value.items():
                other.value.setdefault(k, v)
            other.lines += item.lines
            other.notes.append(f"listed again at {item.span()}")
            return
    page.draft.lists.setdefault(key, []).append(item)


def section_items(page: Page, reading: CareerReading, education: bool, heading_role: str | None = None) -> None:
    """The entries of an experience or education section. An entry that only names an organisation (no role, degree
    or years) heads the entries below it that name none ('Google Brain, Mountain View, CA' over two internships)."""
    context: CareerEntry | None = None
    for entry in reading.entries:
        named = entry.first("organization") or entry.first("institution") or entry.first("unit")
        if named and entry.span is None and not (entry.first("role") or entry.first("degree")):
            context = entry
            continue
        if context is not None and not named:
            entry = CareerEntry(context.runs + entry.runs, entry.span, context.lines + entry.lines, entry.duration)
        elif named:
            context = None
        if education:
            education_item(page, entry)
        else:
            experience_item(page, entry, heading_role)


def _named(text: str, ref: Reference) -> list[tuple[str, str | None]]:
    """(text, known id) of the organisations a run names: itself; or its parts when each is known ('X & Y'); or its
    comma-separated parts when some are known ('Allen School, University of Washington'), a city joining the one
    before it when together they name a known one ('Microsoft Research, Redmond') and other places left out."""
    known = ref.org(text)
    if known:
        return [(text, known)]
    parts = [p for p in _split_parts(text) if p]
    if len(parts) > 1 and all(ref.org(p) for p in parts):
        return [(p, ref.org(p)) for p in parts]
    out: list[tuple[str, str | None]] = []
    for part in (p.strip() for p in text.split(",")):
        city = city_of(part)
        if out and city and ref.org(f"{out[-1][0]} {city}"):
            out[-1] = (f"{out[-1][0]} {city}", ref.org(f"{out[-1][0]} {city}"))
        elif part and not (out and is_place(part, ref.org_like)):
            out.append((part, ref.org(part)))
    return out if len(out) > 1 and any(k for _, k in out) else [(text, None)]


def _organisations(entry: CareerEntry, ref: Reference) -> list[tuple[str, str | None]]:
    """A position's organisations and units in page order ('Department of Informatics', 'University of Oslo').
    One followed by a place names a known one with its city ('Microsoft Research' and 'Redmond, WA'); one that only
    heads another line's unit is left out ('Alibaba Group' over 'Alibaba PAI'); units count only when no
    organisation is named or they are named on the organisation's line."""
    runs = [r for r in entry.runs if r.kind in ("organization", "unit")]
    if len(runs) > 1 and len({r.line for r in runs}) == 1 and ref.org(", ".join(r.text for r in runs)):
        joined = ", ".join(r.text for r in runs)
        return [(joined, ref.org(joined))]
    found: list[tuple[str, str | None, int]] = []
    org_lines = {r.line for r in runs if r.kind == "organization"}
    for n, run in enumerate(entry.runs):
        known_other = run.kind == "other" and run.line in org_lines and ref.org(run.text) is not None
        if run.kind not in ("organization", "unit") and not known_other:
            continue  # an organisation data/ knows, beside the one read, is one too ('University of Washington')
        if found and not ref.org(run.text) and (is_place(run.text, ref.org_like) or city_of(run.text) == run.text):
            continue  # 'Hangzhou' after 'Alibaba Group'
        named = _named(run.text, ref)
        after = entry.runs[n + 1] if n + 1 < len(entry.runs) else None
        city = city_of(after.text) if after is not None and after.kind == "other" and after.line == run.line else None
        if len(named) == 1 and city and ref.org(f"{run.text} {city}"):
            named = [(f"{run.text} {city}", ref.org(f"{run.text} {city}"))]
        found += [(t, k, run.line) for t, k in named]
    kept = [f for f in found if not org_lines or f[2] in org_lines]
    kept = [f for f in kept if not (f[1] and any(o[1] and o[2] != f[2] and f[1] in ref.ancestors(o[1]) for o in kept))]
    return [(t, k) for t, k, _ in kept]


def experience_item(page: Page, entry: CareerEntry, heading_role: str | None = None) -> None:
    """One position: the role, the organisations (a unit only when data/ knows it or no organisation is named), the
    years."""
    ref = page.ref
    item = Item(None, list(entry.lines))
    role = entry.first("role")
    orgs = _organisations(entry, ref)
    if role is None and heading_role and orgs:
        role = heading_role
        item.notes.append(f"role from the section heading ('{heading_role}')")
    value: dict[str, Any] = {"role": role, "organizations": [o[1] or o[0] for o in orgs]}
    value.update(span_fields(entry.span, education=False))
    if entry.duration:
        value["duration_as_written"] = entry.duration
    item.notes += [f"also on the page: {r}" for r in entry.all("role")[1:]]
    item.reviews += [ref.unknown_org(o[0]) for o in orgs if not o[1]]
    item.value = value
    if not role or not orgs:
        leave_out(page, item, "role" if not role else "organisation")
    else:
        _add(page, "experience", item, ("role", "organizations"))


_LABEL = re.compile(r"(?:co-)?(?:advisors?|supervisors?|advised by|supervised by|mentors?|mentored by|hosted by|"
                    r"hosts?|thesis advisors?|promotor)\W*$", re.I)


def _advisors(page: Page, entry: CareerEntry, value: dict[str, Any], item: Item) -> None:
    """The advisors of a degree, with the label the page gives them ('Supervisors'): a run of advisor names after a
    label first, else any that names people, else a line the model left as other that the advisor rule reads."""
    found: list[tuple[bool, str, list[Any]]] = []
    for n, run in enumerate(entry.runs):
        if run.kind != "advisor":
            continue
        before = entry.runs[n - 1] if n and entry.runs[n - 1].line == run.line else None
        text = before.text if before is not None else ""
        title = re.search(r"\b(Prof|Professor|Dr)\.?\s*$", text)
        label = _LABEL.search(text[: title.start()] if title else text)
        written = label.group(0).strip(" :：") if label else "advisors"
        names = f"{title.group(1)}{'' if title.group(1) == 'Professor' else '.'} {run.text}" if title else run.text
        name, people = advisors_of(Piece(f"{written}: {names}", "advisors"))
        if people:
            found.append((label is not None, name, people))
    for run in entry.runs:
        if run.kind == "other" and ADVISORS.match(run.text):
            name, people = advisors_of(Piece(run.text, "advisors"))
            found += [(True, name, people)] if people else []
    if found:
        _, name, people = max(found, key=lambda f: f[0])
        value["advisors"] = [advisor_of(page, p, item) for p in people]
        value["advisor_label"] = name


def _focus(entry: CareerEntry, ref: Reference) -> str | None:
    """A degree's focus: a short phrase on a line of its own or beside the advisors ('Distributed Systems'), or a
    thesis title."""
    degree_lines = {r.line for r in entry.runs if r.kind in ("degree", "start", "end")}
    degree_lines.add(next((r.line for r in entry.runs if r.kind == "institution"), 0))
    for run in entry.runs:
        thesis = re.match(r"^(?:thesis|dissertation)\s*:?\s*(.+)$", run.text, re.I)
        if thesis and len(thesis.group(1).split()) >= 2:
            return thesis.group(1).strip('"“”')
        if run.kind not in ("other", "field") or run.line in degree_lines:
            continue
        for part in (p.strip() for p in re.split(r"\s[|·•—–]\s|;", run.text)):
            if 1 <= len(part.split()) <= 6 and not _LABEL.search(part) and not re.search(r"\d|[:：()]", part) and \
                    not is_place(part, ref.org_like) and part[:1].isupper():
                return part
    return None


def education_item(page: Page, entry: CareerEntry) -> None:
    """One degree: its level and field, the institution (a lab or department beside it), the years, advisors."""
    ref = page.ref
    item = Item(None, list(entry.lines))
    value: dict[str, Any] = {}
    written = entry.first("degree")
    if written:
        degree, field_name, degree_name = degree_parts(written)
        value["degree"] = degree
        if degree_name:
            value["degree_name"] = degree_name
        if field_name:
            value["field"] = field_name
    if entry.first("field") and "field" not in value:
        value["field"] = entry.first("field")
    places = _resolve(entry.all("institution"), ref) or _resolve(entry.all("organization"), ref)
    units = _resolve(entry.all("unit"), ref)
    if not places:
        places, units = units[:1], units[1:]
    if places:
        value["institution"] = places[0][1] or places[0][0]
        if not places[0][1]:
            item.reviews.append(ref.unknown_org(places[0][0]))
    for text, known in units + places[1:]:
        kind = ref.org_types.get(known or "")
        if kind in ("department", "lab"):
            value.setdefault("department" if kind == "department" else "lab", known)
        else:
            item.notes.append(f"also on the page: {text}")
    value.update(span_fields(entry.span, education=True))
    if entry.span is not None:
        value["completed"] = not (entry.span.open or entry.span.expected or
                                  (value.get("end") or 0) > datetime.date.today().year)
    _advisors(page, entry, value, item)
    focus = _focus(entry, page.ref)
    if focus and "focus" not in value:
        value["focus"] = focus
    item.value = value
    if "degree" not in value or "institution" not in value:
        leave_out(page, item, "degree" if "degree" not in value else "institution")
        return
    _add(page, "education", item, ("degree", "institution"))
