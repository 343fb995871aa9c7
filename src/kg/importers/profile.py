"""The person a page is about: name line, other-script names, title, affiliation, email and profile links."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import Location, SourceError
from ..resolution import normalize_name
from .contact import read_contact
from .entries import ROLE_WORDS, Piece, pieces
from .menu import is_menu_word
from .name_guess import frequent_author, introduced_name
from .names import is_name, script_lang, strip_honorific, title_case
from .orgs import SUBUNIT
from .prose import EMAIL, find_metrics, is_sentence
from .records import Draft, Item, Line
from .sections import heading_kind
from .venues import Reference, is_org_like

_OTHER = re.compile(r"^(.*?)\s*[(（]\s*([^()（）]+?)\s*[)）]$")
_TRAILING_OTHER = re.compile(r"^([A-Za-zÀ-ÿ.' -]+?)\s+(\S+)$")
_EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]")
_GREETING = re.compile(r"^(?:(?:hi|hello|hey|welcome)(?: there| all| everyone)?\s*[,!.]*\s*)?"
                       r"(?:i['’]m|i am|my name is|this is)\s+", re.I)
# 'Curriculum Vitae — Daniel K. Osei', 'Daniel Osei: Homepage'
_TITLED = re.compile(r"^(?:(?:curriculum vitae|vita|cv|r[ée]sum[ée]|homepage|home page|home)\s*[—–:|-]\s*"
                     r"(?P<name>.+)|(?P<first>.+?)\s*[—–:|-]\s*(?:curriculum vitae|vita|cv|r[ée]sum[ée]|homepage|"
                     r"home page|personal (?:homepage|website))\s*)$", re.I)
_PRONOUNS = re.compile(r"\s*[(（]\s*(?:she|he|they|ze|xe)\s*/\s*\w+(?:\s*/\s*\w+)?\s*[)）]", re.I)
_PAIR = re.compile(r"\s+[|/]\s+|\s*[｜／·]\s*")
# words of a page's or document's title, never of a person's name ('CURRICULUM VITAE', 'Personal Homepage')
_DOCUMENT_WORDS = {"curriculum", "vitae", "vita", "resume", "résumé", "cv", "homepage", "home", "page", "website",
                   "welcome", "about", "contact", "publications", "biography", "bio", "profile", "personal",
                   "academic", "official", "site", "blog", "portfolio", "research", "news", "teaching", "menu"}
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
    guessed: str | None = None


def name_line(text: str) -> tuple[str, str | None, bool] | None:
    """(name, other-script name, was in capitals) when a line is just a person's name.

    A name paired with its other-script form across '|' or '/' counts too ('胡佳欣 | Jiaxin Hu').
    """
    text = re.sub(r"^#+\s*", "", text).strip().strip("*_ ")
    text = _GREETING.sub("", _PRONOUNS.sub("", _EMOJI.sub("", text))).strip().rstrip("!.").strip()
    titled = _TITLED.match(text)
    if titled:
        text = (titled.group("name") or titled.group("first")).strip()
    halves = _PAIR.split(text)
    if len(halves) == 2:
        langs = [script_lang(h) if len(h.replace(" ", "")) <= 12 else None for h in halves]
        if bool(langs[0]) != bool(langs[1]):
            latin, other = (halves[1], halves[0]) if langs[0] else (halves[0], halves[1])
            found = name_line(latin)
            return (found[0], other.strip(), found[2]) if found and found[1] is None else None
    honorific: str | None = "-"
    while honorific:
        text, honorific = strip_honorific(text)
    text = _DEGREE_SUFFIX.sub("", text)
    other = None
    match = _OTHER.match(text) or _TRAILING_OTHER.match(text)
    if match and script_lang(match.group(2)):
        text, other = match.group(1).strip(), match.group(2).strip()
    elif match and script_lang(match.group(1)) and not script_lang(match.group(2)):
        text, other = match.group(2).strip(), match.group(1).strip()  # '山田 太郎 (Taro Yamada)'
    if re.search(r"[\d@/:|,]", text) or ROLE_WORDS.search(text):
        return None
    if any(re.sub(r"['’]s$", "", word.lower().strip(".")) in _DOCUMENT_WORDS for word in text.split()):
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
            if heading_kind(line) not in (None, "other") or (line.nav and is_menu_word(line.text)):
                continue
            parsed = name_line(line.raw or line.text)
            if parsed:
                person = Person(parsed[0], line, parsed[1], script_lang(parsed[1]) if parsed[1] else None,
                                line if parsed[1] else None, parsed[2])
                break
        guess = (introduced_name(lines) or frequent_author(lines)) if person is None else None
        if guess is not None:
            person = Person(guess[0], None, guessed=guess[2])
        if person is None:
            raise SourceError(Location(source, content[0].no if content else None),
                              "no recognisable person: no line near the top reads as a name; "
                              "pass --name \"Full Name\"")
    assert person is not None
    if person.line is not None and person.line.nav:  # the site title in the menu bar; the page names them again
        again = next((line for line in content if not line.nav and line.no > person.line.no and
                      normalize_name(line.text) == normalize_name(person.line.text)), None)
        person = replace(person, line=again) if again else person
    if person.other_lang == "zh" and any(re.search(r"[\u3040-\u30ff]", line.raw or line.text) for line in lines):
        person = replace(person, other_lang="ja")  # kanji only, on a page written in Japanese
    if person.other is None and person.line is not None:
        after = [line for line in content if line.no >= person.line.no and line is not person.line][:3]
        for line in after:
            lang = script_lang(line.text)
            if lang == "zh" and any(re.search(r"[\u3040-\u30ff]", x.raw or x.text) for x in lines):
                lang = "ja"
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
    if person.guessed:
        review = person.guessed
    draft.set("name", person.name, lines, review)
    tokens = person.name.split()
    middle = len(tokens) == 3 and re.fullmatch(r"[A-Z]\.", tokens[1]) is not None
    if (len(tokens) == 2 or middle) and not script_lang(person.name):
        draft.set("given_name", tokens[0])
        draft.set("family_name", tokens[-1])
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


_INLINE_AREAS = re.compile(r"^(?:research\s+)?(?:interests?|areas|topics|keywords|focus)\s*[:：]\s*(.+)$", re.I)


def affiliation_org(orgs: list[Piece]) -> Piece:
    """The organisation to name as affiliation: a known one first; else not a bare 'Department of ...' that
    only makes sense with the institution after it."""
    known = [o for o in orgs if o.org]
    if known:
        return known[0]
    whole = [o for o in orgs if not SUBUNIT.search(o.text)]
    return whole[0] if whole else orgs[0]


def header_line(draft: Draft, line: Line, ref: Reference) -> bool:
    """Read one header line (email, links, metrics, title and affiliation); True when it was understood."""
    text = line.text
    areas = _INLINE_AREAS.match(text)
    if areas:
        for part in re.split(r"\s*[;,·•|]\s*", areas.group(1)):
            if part.strip(" ."):
                draft.add("research_areas", part.strip(" ."), [line.no])
        return True
    contact = read_contact(text, {label.lower(): href for label, href in line.links}, ref.org_like)
    mailto = next((href[7:].split("?")[0] for _, href in line.links if href.lower().startswith("mailto:")), None)
    if mailto and EMAIL.fullmatch(mailto) and not contact.email:
        contact.email = mailto
        contact.rest = [r for r in contact.rest if r.strip().lower() not in ("email", "e-mail", "mail", "contact")]
    if contact.email and "email" not in draft.fields:
        review = f"decoded from the obfuscated form '{text.strip()}'" if contact.obfuscated else None
        draft.set("email", contact.email, [line.no], review)
    for label, url in contact.links:
        add_link(draft, label, url, line)
    if contact.homepage:
        draft.set("homepage", contact.homepage, [line.no])
    if contact.orcid and not draft.items("same_as"):
        draft.add("same_as", contact.orcid, [line.no])
    for place in contact.places:
        draft.unparsed.append(Item(f"place (not imported): {place}", [line.no]))
    rest = " · ".join(contact.rest)
    if not rest or is_sentence(rest) or (find_metrics(rest) and len(rest.split()) <= 14):
        return contact.found()
    found = pieces(rest, ref, education=False)
    roles = [p for p in found if p.kind == "role"]
    orgs = [p for p in found if p.kind == "org"]
    after = re.search(r"\s(?:at|@)\s+([A-Z][^,·|()]*?)\s*(?:[,·|(]|$)", rest)
    if roles and not orgs and after and len(after.group(1).split()) <= 6 and not ROLE_WORDS.search(after.group(1)):
        orgs = [Piece(after.group(1).strip(), "org")]  # 'Senior Applied Scientist at Amazon Web Services
    if not roles and not orgs:
        return contact.found()
    if roles and "title" not in draft.fields:
        draft.set("title", roles[0].text, [line.no])
    current = draft.fields.get("affiliation")
    if current is not None and current.reviews and SUBUNIT.search(str(current.value)) and orgs:
        del draft.fields["affiliation"]  # 'Department of Computer Science' on the line above its institution
    if orgs and "affiliation" not in draft.fields:
        org = affiliation_org(orgs)
        review = None if org.org else ref.unknown_org(org.text)
        draft.set("affiliation", org.org or org.text, [line.no], review)
    return True
