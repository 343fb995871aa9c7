"""Person names: name lines, names in other scripts, author lists with marks, advisors in prose."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..resolution import normalize_name

HONORIFICS = ("Professor", "Prof.", "Prof", "Dr.", "Dr", "Mr.", "Ms.", "Mrs.")
PARTICLES = {"van", "von", "der", "den", "de", "da", "di", "del", "della", "la", "le", "du", "dos", "das", "bin",
             "al", "el", "ter", "ten", "zu", "y", "e"}
STOPWORDS = {"of", "for", "the", "on", "with", "in", "to", "a", "an", "via", "using", "from", "at", "by", "is", "are",
             "and", "or", "towards", "toward", "through", "into", "over", "under", "without", "vs", "as", "we", "our",
             "my", "i", "what", "how", "why", "when", "not", "can", "do", "all", "you", "need", "its", "your"}
MARKS = "*†‡§¶#✉"
CO_FIRST = "(co-first author)"
ELISIONS = {"...", "…", "et al.", "et al", "others", "and others"}
_MARK_TAIL = re.compile(r"^(.*?)((?:\s*(?:\(co-first author\)|\(equal contribution\)|[*†‡§¶#✉]|\^\S+))*)$", re.I)
_INITIAL = re.compile(r"^(?:[A-Z]\.?)(?:-?[A-Z]\.?)*$")
_SCRIPTS = (("ko", "HANGUL"), ("ja", "HIRAGANA"), ("ja", "KATAKANA"), ("zh", "CJK"), ("ar", "ARABIC"),
            ("he", "HEBREW"), ("el", "GREEK"), ("ru", "CYRILLIC"), ("hi", "DEVANAGARI"), ("th", "THAI"))


def split_marks(text: str) -> tuple[str, str]:
    """('Ziheng Jiang', '*') from 'Ziheng Jiang*'; marks are '*', '†', '(co-first author)' and the like."""
    match = _MARK_TAIL.match(text.strip())
    assert match is not None
    return match.group(1).strip(), match.group(2).strip()


@lru_cache(maxsize=8192)
def script_lang(text: str) -> str | None:
    """The BCP 47 tag of a name written wholly in one non-Latin script ('肖文聪' -> 'zh').

    >>> script_lang("肖文聪"), script_lang("박민지"), script_lang("Wencong")
    ('zh', 'ko', None)
    """
    if text.isascii():
        return None  # ASCII letters are all Latin
    letters = [ch for ch in text if ch.isalpha()]
    if not letters or len(letters) > 40:
        return None
    names = [unicodedata.name(ch, "") for ch in letters]
    if any(n.startswith("LATIN") for n in names):
        return None
    for lang, prefix in _SCRIPTS:
        if lang == "zh" and any(n.startswith(("HIRAGANA", "KATAKANA")) for n in names):
            continue
        if any(n.startswith(prefix) for n in names):
            return lang
    return None


def _token_ok(token: str, first: bool) -> bool:
    if _INITIAL.match(token):
        return True
    if token.lower() in PARTICLES and not first:
        return True
    if token.lower() in STOPWORDS:
        return False
    core = token.replace("-", "").replace("'", "").replace("’", "").rstrip(".")
    if not core or not all(ch.isalpha() for ch in core):
        return False
    if script_lang(core):
        return True
    if not core[0].isupper():
        return False
    return not (len(core) > 2 and core.isupper())


@lru_cache(maxsize=8192)
def is_name(text: str, min_tokens: int = 2, max_tokens: int = 5) -> bool:
    """Whether a text (marks removed) looks like a person's name: capitalised words or initials.

    >>> is_name("Cesar A. Stuardo"), is_name("B Wan"), is_name("Deep Learning for Graphs")
    (True, True, False)
    """
    name, _ = split_marks(text)
    tokens = name.split()
    if script_lang(name) and 2 <= len(name.replace(" ", "")) <= 12:
        return True
    if not min_tokens <= len(tokens) <= max_tokens:
        return False
    if all(_INITIAL.match(t) for t in tokens):
        return False
    if any(t.endswith(".") and not _INITIAL.match(t) and t.lower() not in ("st.", "jr.", "sr.") for t in tokens[:-1]):
        return False  # 'Li Na. Elastic Pipelines': a sentence ends inside
    return all(_token_ok(t, i == 0) for i, t in enumerate(tokens))


def title_case(name: str) -> str:
    """'SOFIA LINDQVIST' -> 'Sofia Lindqvist' (only for names written in capitals)."""
    return " ".join("-".join(p[:1] + p[1:].lower() for p in t.split("-")) for t in name.split())


def strip_honorific(text: str) -> tuple[str, str | None]:
    """('Wei Li', 'Prof.') from 'Prof. Wei Li'."""
    for title in HONORIFICS:
        if text.startswith(title + " "):
            return text[len(title):].strip(), (title if title.endswith(".") else title + "." if title in
                                               ("Prof", "Dr") else title)
    return text, None


def person_keys(name: str) -> set[str]:
    """Comparison keys under which a person's name may appear in author lists ('W Xiao', 'Xiao, Wencong')."""
    tokens = normalize_name(name).split()
    if not tokens:
        return set()
    keys = {" ".join(tokens)}
    if len(tokens) >= 2:
        given, family = tokens[:-1], tokens[-1]
        keys.add(" ".join([t[0] for t in given] + [family]))
        keys.add(" ".join([family] + given))
        keys.add(" ".join([family] + [t[0] for t in given]))
    return keys


def is_person(text: str, keys: set[str]) -> bool:
    """Whether an author entry names the person whose keys are given."""
    name, _ = split_marks(text)
    return normalize_name(name) in keys


def _reorder(last_first: str) -> str:
    """'Xiao, Wencong*' -> 'Wencong Xiao*'."""
    name, marks = split_marks(last_first)
    parts = [p.strip() for p in name.split(",") if p.strip()]
    if len(parts) == 2:
        name = f"{parts[1]} {parts[0]}"
    elif len(parts) == 3:
        name = f"{parts[2]} {parts[0]} {parts[1]}"
    return f"{name}{_join_marks(marks)}"


def _join_marks(marks: str) -> str:
    if not marks:
        return ""
    return f" {marks}" if marks.startswith("(") else marks


def _clean(part: str) -> str:
    part = part.strip().strip("*_").strip() if part.strip().startswith(("**", "__")) else part.strip()
    part = re.sub(r"\*\*|__", "", part)
    return " ".join(part.split())


def _elision(part: str) -> bool:
    return part.strip().rstrip(",").lower() in ELISIONS


def _pairs(parts: list[str]) -> list[str] | None:
    """APA-style 'Lindqvist, S., Weber, M.' split into surname and initials parts, paired up."""
    names = [p for p in parts if not _elision(p)]
    if len(names) < 2 or len(names) % 2:
        return None
    for surname, given in zip(names[::2], names[1::2], strict=True):
        if len([t for t in surname.split() if t.lower() not in PARTICLES]) > 2 or \
                not _INITIAL.match(split_marks(given)[0].replace(" ", "")):
            return None
    out, i = [], 0
    while i < len(parts):
        if _elision(parts[i]):
            out.append("...")
            i += 1
            continue
        given, marks = split_marks(parts[i + 1])
        surname, marks0 = split_marks(parts[i])
        out.append(f"{given} {surname}{_join_marks(marks0 or marks)}")
        i += 2
    return out


def _mla(parts: list[str]) -> bool:
    """MLA order: the first author inverted, the others not ('Ellwood, Marcus, Ryo Sato, and Lidong Zhou')."""
    if len(parts) < 3 or any(len(p.split()) != 1 or _INITIAL.match(split_marks(p)[0]) or script_lang(p)
                             for p in parts[:2]):
        return False
    rest = [p for p in parts[2:] if not _elision(p)]
    return bool(rest) and all(len(split_marks(p)[0].split()) >= 2 for p in rest)


def split_authors(text: str) -> list[str] | None:
    """An author list as entries in order, or None when the text is not one.

    >>> split_authors("P. Raman, T. Okafor, and D. Kowalczyk")
    ['P. Raman', 'T. Okafor', 'D. Kowalczyk']
    >>> split_authors("Novák, Tomáš; Weng, Qizhen")
    ['Tomáš Novák', 'Qizhen Weng']
    >>> split_authors("Lindqvist, S., Weber, M., & Zhou, L.")
    ['S. Lindqvist', 'M. Weber', 'L. Zhou']
    >>> split_authors("Li, Yong, Marcus Ellwood, …, and Wei Lin.")
    ['Yong Li', 'Marcus Ellwood', '...', 'Wei Lin']
    >>> split_authors("Arsha Nagrani, Sachit Menon, Ahmet Iscen , and 9 more authors")
    ['Arsha Nagrani', 'Sachit Menon', 'Ahmet Iscen', '...']
    """
    text = " ".join(text.replace("\u00a0", " ").split()).strip().rstrip(":").rstrip()
    text = re.sub(r",?\s*(?:and\s+)?\d{1,4}\s+(?:more|other)\s+authors?\.?$", ", ...", text)  # al-folio's cut list
    if not text or re.search(r"\d{2}|https?:|[:!?“”\"]", text):
        return None
    if text.endswith(".") and not re.search(r"(?:^|[\s.])[A-Z]\.$", text) and not text.endswith("..."):
        text = text[:-1].rstrip()
    text = re.sub(r",?\s+et\s+al\.?$", ", ...", text)
    if ";" in text:
        parts = [p.strip() for p in text.split(";") if p.strip()]
        parts = [_reorder(p) if "," in p else p for p in parts]
    else:
        unified = re.sub(r",?\s+(?:and|&)\s+", ", ", text)
        parts = [p.strip() for p in unified.split(",") if p.strip()]
        paired = _pairs(parts)
        if paired is not None:
            parts = paired
        elif len(parts) == 2 and all(len(p.split()) == 1 and not _INITIAL.match(p) and not script_lang(p)
                                     for p in parts):
            parts = [_reorder(f"{parts[0]}, {parts[1]}")]
        elif _mla(parts):
            parts = [_reorder(f"{parts[0]}, {parts[1]}")] + parts[2:]
    parts = ["..." if _elision(p) else _clean(p) for p in parts]
    named = [p for p in parts if p != "..."]
    if not named or sum(1 for p in named if is_name(p)) < max(1, round(0.8 * len(named) + 0.01)):
        return None
    if len(named) != len([p for p in parts if p != "..."]) or any(not is_name(p) for p in named):
        return None
    return parts


def is_author_line(text: str, keys: set[str]) -> bool:
    """Whether a line is an author list: two or more names, or the person's own name, or a marked name."""
    parts = split_authors(text)
    if parts is None:
        return False
    named = [p for p in parts if p != "..."]
    if len(named) >= 2:
        return True
    return any(is_person(p, keys) or split_marks(p)[1] for p in named) or len(parts) > len(named)


@dataclass(frozen=True)
class Mention:
    """A person named in prose: name, honorific and the affiliation written after it."""

    name: str
    honorific: str | None
    affiliation: str | None


def parse_people(text: str) -> list[Mention]:
    """Names listed in prose, in order, stopping at the first piece that is not a name.

    >>> [m.name for m in parse_people("Prof. Wei Li, Lidong Zhou (MSR) and others")]
    ['Wei Li', 'Lidong Zhou']
    """
    text = re.sub(r",?\s+(?:and|&)\s+", ", ", " ".join(text.split()))
    people: list[Mention] = []
    for raw in text.split(","):
        piece = raw.strip().rstrip(".;")
        affiliation = None
        match = re.match(r"^(.*?)\s*\(([^()]+)\)$", piece)
        if match:
            piece, affiliation = match.group(1).strip(), match.group(2).strip()
        piece, honorific = strip_honorific(piece)
        words = piece.split()
        cut = len(words)
        while cut >= 2 and not is_name(" ".join(words[:cut])):
            cut -= 1
        if cut < 2 or not is_name(" ".join(words[:cut])):
            break
        people.append(Mention(" ".join(words[:cut]), honorific, affiliation))
        if cut < len(words):
            break
    return people
