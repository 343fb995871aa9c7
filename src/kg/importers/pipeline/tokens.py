"""The tokens of a publication entry and their features for the field model (exact rules as features only)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..names import MARKS, PARTICLES, STOPWORDS, split_authors
from ..venues import Reference

Features = dict[str, str | float]

TOKEN = re.compile(r"https?://\S+|www\.\S+|10\.\d{4,9}/\S+|[\w'’]+(?:[-–./:@&+][\w'’]+)*\.?|\.{3}|\S")
_YEAR = re.compile(r"(?:19|20)\d\d[a-z]?")
_YEAR_IN = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_MONTH = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?", re.I)
_INITIALS = re.compile(r"(?:[A-Z]\.?-?){1,3}\.?")
_PAGES = re.compile(r"\d+\s*[-–]\s*\d+|\d+\(\d+\)(?::\d+(?:[-–]\d+)?)?|\d+:\d+(?:[-–]\d+)?")
_ACRONYM = re.compile(r"[A-Z][A-Za-z]*[A-Z][A-Za-z&-]*(?:['’]\d{2})?")
_ARXIV = re.compile(r"(?:arxiv:)?\d{4}\.\d{4,5}(?:v\d+)?", re.I)
LINK_WORDS = {"pdf", "code", "slides", "video", "poster", "project", "website", "bibtex", "bib", "abs", "html",
              "paper", "talk", "data", "dataset", "demo", "blog", "github", "url", "link", "doi", "supp", "abstract",
              "supplementary", "preprint", "arxiv", "cite", "award", "selected"}
STATUS_WORDS = {"submitted", "prep", "preparation", "review", "appear", "accepted", "revision", "press", "forthcoming",
                "submission", "progress", "revise", "resubmit", "minor", "major", "conditionally"}
AWARD_WORDS = {"award", "best", "prize", "honorable", "mention", "winner", "finalist", "nominee", "nomination",
               "distinguished", "outstanding"}
NOTE_WORDS = {"oral", "spotlight", "poster", "highlight", "invited", "contributed", "equal", "contribution",
              "co-first", "corresponding", "acceptance", "rate", "ccf-a", "ccf-b", "ccf-c", "core", "q1", "sci"}
VENUE_WORDS = {"proceedings", "proc", "conference", "conf", "journal", "transactions", "trans", "symposium",
               "workshop", "letters", "review", "magazine", "annual", "international", "intl", "int", "meeting",
               "arxiv", "preprint", "biorxiv", "medrxiv", "ssrn", "press", "university", "ieee", "acm", "springer",
               "elsevier", "nature", "science", "physical", "chemistry", "society"}


@dataclass(frozen=True)
class Token:
    """One token of an entry: its text, the line it is on, and whether it starts or ends that line."""

    text: str
    line: int
    first: bool
    last: bool
    start: int = 0
    end: int = 0


def tokenize(lines: list[str]) -> list[Token]:
    """The tokens of an entry's lines in order ('Lee, J. (2024).' -> Lee , J. ( 2024 ) .)."""
    out: list[Token] = []
    for number, line in enumerate(lines):
        found = list(TOKEN.finditer(line))
        out += [Token(m.group(0), number, k == 0, k == len(found) - 1, m.start(), m.end()) for k, m in enumerate(found)]
    return out


def _shape(text: str) -> str:
    shape = re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", text)))
    return re.sub(r"(.)\1{2,}", r"\1\1", shape)


def _bracket_depths(tokens: list[Token]) -> list[tuple[int, int]]:
    """How deep each token sits inside parentheses/brackets and inside quotes (counted in the entry)."""
    depth, quoted, out = 0, 0, []
    for token in tokens:
        t = token.text
        if t in ")]）":
            depth = max(0, depth - 1)
        if t in "”’" or (t == '"' and quoted):
            quoted = 0
            out.append((depth, 1))
            continue
        out.append((depth, quoted))
        if t in "([（":
            depth += 1
        if t in "“‘" or (t == '"' and not quoted):
            quoted = 1
    return out


def own_features(token: Token, ref: Reference, own: set[str]) -> Features:
    """The features a token has on its own: word, shape, affixes and the exact patterns it matches."""
    t = token.text
    low = t.lower().strip(".,;:")
    word = low.strip("'’")
    f: Features = {"w": low[:24], "shape": _shape(t)[:10], "p2": low[:2], "p3": low[:3], "s2": low[-2:],
                   "s3": low[-3:], "len": str(min(len(t), 12))}
    flags = {
        "year": bool(_YEAR.fullmatch(t)), "num": t.isdigit(), "month": bool(_MONTH.fullmatch(t)),
        "initials": bool(_INITIALS.fullmatch(t)), "cap": t[:1].isupper(), "upper": t.isupper() and len(t) > 1,
        "lower": t[:1].islower(), "punct": not any(c.isalnum() for c in t), "dot_end": t.endswith("."),
        "pages": bool(_PAGES.fullmatch(t)), "acronym": bool(_ACRONYM.fullmatch(t)),
        "url": t.startswith(("http", "www.")), "doi": t.startswith("10.") and "/" in t,
        "arxiv": bool(_ARXIV.fullmatch(t)),
        "mark": any(c in MARKS for c in t), "particle": word in PARTICLES, "stop": word in STOPWORDS,
        "link_word": word in LINK_WORDS, "status_word": word in STATUS_WORDS, "award_word": word in AWARD_WORDS,
        "note_word": word in NOTE_WORDS, "venue_word": word in VENUE_WORDS, "own": bool(word and word in own),
        "bold": "*" in t and len(t) > 1, "emoji": any(ord(c) > 0x2600 and not c.isalnum() for c in t),
        "short_year": bool(re.fullmatch(r"['’]\d{2}", t)), "nonlatin": any(ord(c) > 0x2E80 and c.isalpha() for c in t),
    }
    f.update({k: 1.0 for k, v in flags.items() if v})
    if flags["acronym"] or flags["upper"]:
        if ref.venues.find(re.sub(r"['’]\d{2}$", "", t.strip(".,;:()[]"))):
            f["venue_known"] = 1.0
    return f


def own_words(name: str) -> set[str]:
    """The words of the page owner's name that mark their own entry in an author list (given names and surname)."""
    return {w for w in re.split(r"[\s.,-]+", name.lower()) if len(w) > 1}


def line_features(lines: list[str]) -> list[Features]:
    """What each line of an entry is as a whole: its length, and whether the name rules read it as an author list,
    it has a year, or venue words."""
    out: list[Features] = []
    for text in lines:
        words = TOKEN.findall(text)
        f: Features = {"L:len": str(min(len(words), 6)) if len(words) < 6 else ("long" if len(words) > 14 else "mid")}
        if split_authors(text) is not None:
            f["L:names"] = 1.0
        if _YEAR_IN.search(text):
            f["L:year"] = 1.0
        if any(w.lower().strip(".,") in VENUE_WORDS for w in words):
            f["L:venue_word"] = 1.0
        out.append(f)
    return out


def entry_features(tokens: list[Token], lines: list[str], ref: Reference, owner: set[str]) -> list[Features]:
    """Each token's features with its neighbours' (two either side), its line and its place in the entry; `owner`
    holds the words of the page owner's name, `lines` the entry's lines (for the whole-line features)."""
    own = [own_features(t, ref, owner) for t in tokens]
    per_line = line_features(lines)
    depths = _bracket_depths(tokens)
    count = max((t.line for t in tokens), default=0) + 1
    out: list[Features] = []
    n = len(tokens)
    for k, token in enumerate(tokens):
        f: Features = dict(own[k])
        if token.line < len(per_line):
            f.update(per_line[token.line])
        f["bias"] = 1.0
        f["line"] = str(min(token.line, 4)) + "/" + str(min(count, 5))
        f["pos"] = str(min(k, 3)) if k < 4 else ("end" if n - k <= 2 else f"r{int(5 * k / n)}")
        if token.first:
            f["line_first"] = 1.0
        if token.last:
            f["line_last"] = 1.0
        depth, quoted = depths[k]
        if depth:
            f["in_paren"] = 1.0
        if quoted:
            f["in_quote"] = 1.0
        for d in (-2, -1, 1, 2):
            j = k + d
            if 0 <= j < n:
                other = own[j]
                f[f"{d}:w"] = other["w"]
                f[f"{d}:shape"] = other["shape"]
                for flag in ("year", "initials", "cap", "punct", "venue_word", "link_word", "status_word", "url"):
                    if flag in other:
                        f[f"{d}:{flag}"] = 1.0
                if tokens[j].line != token.line:
                    f[f"{d}:other_line"] = 1.0
            else:
                f[f"{d}:none"] = 1.0
        out.append(f)
    return out
