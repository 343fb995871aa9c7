"""The person a page is about: name line, other-script names, title, affiliation, email and profile links."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import Location, SourceError
from ..resolve import normalize_name
from .entries import ROLE_WORDS, pieces
from .names import is_name, script_lang, strip_honorific, title_case
from .prose import find_email, find_metrics, link_labels
from .records import Draft, Line
from .sections import heading_kind
from .venues import Reference, is_org_like

_OTHER = re.compile(r"^(.*?)\s*[(（]\s*([^()（）]+?)\s*[)）]$")
_DEGREE_SUFFIX = re.compile(r",?\s+(?:Ph\.?\s?D\.?|M\.?D\.?|MSc|M\.S\.)$")


@dataclass(frozen=True)
class Person:
    """The name line found: the name, a name in another script, and where they were."""

    name: str
    line: Line | None
    other: str | None = None
    other_lang: str | None = None
    other_line: Line | None = None
    capitals: bool = False


def name_line(text: str) -> tuple[str, str | None, bool] | None:
    """(name, other-script name, was in capitals) when a line is just a person's name."""
    text = re.sub(r"^#+\s*", "", text).strip().strip("*_ ")
    text, _ = strip_honorific(text)
    text = _DEGREE_SUFFIX.sub("", text)
    other = None
    match = _OTHER.match(text)
    if match and script_lang(match.group(2)):
        text, other = match.group(1).strip(), match.group(2).strip()
    if re.search(r"[\d@/:|,]", text) or ROLE_WORDS.search(text):
        return None
    letters = [ch for ch in text if ch.isalpha()]
    capitals = bool(letters) and all(ch.isupper() for ch in letters) and len(text.split()) >= 2
    candidate = title_case(text) if capitals else text
    if is_org_like(candidate) or not is_name(candidate, 2, 4) or script_lang(candidate):
        return None
    return candidate, other, capitals


def find_person(lines: list[Line], given: str | None, source: Path) -> Person:
    """The page's person: --name if given, else the first name line near the top; SourceError when none."""
    content = [line for line in lines if line.text][:40]
    stop = next((i for i, line in enumerate(content) if heading_kind(line) not in (None, "other")), len(content))
    ordered = [line for line in content[:stop] if line.heading] + content[:stop] + content[stop:]
    person: Person | None
    if given:
        key = normalize_name(given)
        found = next((line for line in content if key and key in normalize_name(line.text)), None)
        person = Person(" ".join(given.split()), found)
    else:
        person = None
        for line in ordered[:25]:
            parsed = name_line(line.text)
            if parsed:
                person = Person(parsed[0], line, parsed[1], script_lang(parsed[1]) if parsed[1] else None,
                                line if parsed[1] else None, parsed[2])
                break
        if person is None:
            raise SourceError(Location(source, content[0].no if content else None),
                              "no recognisable person: no line near the top reads as a name; "
                              "pass --name \"Full Name\"")
    assert person is not None
    if person.other is None and person.line is not None:
        after = [line for line in content if line.no >= person.line.no and line is not person.line][:3]
        for line in after:
            lang = script_lang(line.text)
            if lang and len(line.text) <= 30:
                return Person(person.name, person.line, line.text, lang, line, person.capitals)
    return person


def add_person(draft: Draft, person: Person, given: str | None) -> set[int]:
    """Name, given and family name and other-script names; returns the line indexes used."""
    used: set[int] = set()
    lines = [person.line.no] if person.line else []
    review = None
    if person.capitals:
        review = "written in capitals on the page; check the capitalisation"
    if given and person.line is None:
        review = "from --name; the page does not show this name"
    draft.set("name", person.name, lines, review)
    tokens = person.name.split()
    if len(tokens) == 2 and not script_lang(person.name):
        draft.set("given_name", tokens[0])
        draft.set("family_name", tokens[1])
    if person.line and (not given or normalize_name(person.line.text) == normalize_name(person.name)):
        used.add(person.line.index)
    if person.other and person.other_lang:
        draft.add("other_names", {"name": person.other, "lang": person.other_lang},
                  [person.other_line.no] if person.other_line else lines)
        if person.other_line:
            used.add(person.other_line.index)
    return used


def add_link(draft: Draft, label: str, url: str | None, line: Line) -> None:
    """A profile link, once per label."""
    if any(item.value["label"] == label for item in draft.items("links")):
        return
    if url and not url.startswith(("http://", "https://")):
        url = None
    draft.add("links", {"label": label, "url": url}, [line.no])


def header_line(draft: Draft, line: Line, ref: Reference) -> bool:
    """Read one header line (email, links, metrics, title and affiliation); True when it was understood."""
    text = line.text
    urls = {label.lower(): href for label, href in line.links}
    labels = link_labels(text)
    email, obfuscated = find_email(text)
    understood = False
    if email and "email" not in draft.fields:
        review = f"decoded from the obfuscated form '{text.strip()}'" if obfuscated else None
        draft.set("email", email, [line.no], review)
        understood = True
    if labels:
        for label in labels:
            add_link(draft, label, urls.get(label.lower()) or urls.get("scholar" if label == "Google Scholar"
                                                                       else label.lower()), line)
        return True
    if understood and len(text.split()) <= 8:
        return True
    if find_metrics(text) and len(text.split()) <= 14:
        return False
    if len(text.split()) > 14:
        return False
    found = pieces(text, ref, education=False)
    roles = [p for p in found if p.kind == "role"]
    orgs = [p for p in found if p.kind == "org"]
    if not roles and not orgs:
        return understood
    if roles and "title" not in draft.fields:
        draft.set("title", roles[0].text, [line.no])
    if orgs and "affiliation" not in draft.fields:
        org = orgs[0]
        review = None if org.org else (f"unknown organisation '{org.text}': add it to data/organizations.yaml "
                                       "(kg build rejects unknown organisation references)")
        draft.set("affiliation", org.org or org.text, [line.no], review)
    return True
