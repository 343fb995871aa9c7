"""Tokens of experience and education lines and their features, for the career model (careers.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..dates import SPAN
from ..entries import BULLET, ROLE_WORDS
from ..prose import DEGREE
from ..records import Line
from ..venues import ORG_WORDS

Features = dict[str, float]
TOKEN = re.compile(r"[^\W_]+(?:[.'’&][^\W_]+|(?<=[^\W\d_])-[^\W\d_][^\W_]*)*\.?|\S")
_MONTH = re.compile(r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$|^(?:spring|summer|fall|"
                    r"autumn|winter)$", re.I)
_OPEN = re.compile(r"^(?:present|now|current|today|ongoing)$", re.I)
_DASHES = {"-", "–", "—", "−", "~", "to", "until"}
_GLUE = {"of", "and", "for", "the", "in", "at", "de", "&", "on"}
_ADVISING = re.compile(r"^(?:advis[oe]rs?|supervis[oe]rs?|mentors?|hosts?|promotor|co-advis\w*|advised|supervised|"
                       r"mentored|hosted)$", re.I)
_NOISE = re.compile(r"^(?:gpa|rank|ranking|thesis|dissertation|courses?|coursework|honou?rs?|award\w*|reviewer|"
                    r"talk|news|accepted|paper|papers|our|we|i|my|selected|program|committee|member)$", re.I)


@dataclass(frozen=True)
class Token:
    """One token of a section's line: its text, the line it is on and where it starts in that line."""

    text: str
    line: int
    start: int
    end: int


def tokens_of(lines: list[Line]) -> list[Token]:
    """The tokens of non-blank lines, in order; `line` is the position of the line in the list."""
    return [Token(m.group(0), i, m.start(), m.end()) for i, line in enumerate(lines)
            for m in TOKEN.finditer(line.text)]


def _shape(word: str) -> str:
    """A short shape: 'Xx' for a capitalised word, 'X.' for an initial, '9999' for a year, ..."""
    shape = re.sub(r"[A-Z]+", "X", re.sub(r"[a-z]+", "x", re.sub(r"\d", "9", word)))
    return shape[:6]


def _marks(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int, str]]:
    """(start, end, group name) of each match of a pattern in a line."""
    return [(m.start(), m.end(), m.lastgroup or "") for m in pattern.finditer(text)]


def _line_features(line: Line, previous: Line | None, blank_before: bool) -> Features:
    """Layout features of a line, given to each of its tokens."""
    text = line.text
    words = len(text.split())
    f: Features = {
        "L:bullet": float(BULLET.match(text) is not None),
        "L:blank_before": float(blank_before),
        "L:heading": float(line.heading),
        "L:words<=3": float(words <= 3), "L:words<=8": float(3 < words <= 8), "L:words>15": float(words > 15),
        "L:span": float(SPAN.search(text) is not None),
        "L:date_first": float(re.match(r"^\W*(?:[A-Za-z]{3,9}\.?\s+)?(?:19|20)\d\d", text) is not None),
        "L:degree": float(DEGREE.search(text) is not None),
        "L:role": float(ROLE_WORDS.search(text) is not None),
        "L:org": float(ORG_WORDS.search(text) is not None),
        "L:ends_stop": float(text.rstrip().endswith(".")),
        "L:first": float(previous is None),
    }
    if previous is not None:
        f["L:indent" + ("+" if line.indent > previous.indent else "-" if line.indent < previous.indent else "=")] = 1.0
        f["L:prev_span"] = float(SPAN.search(previous.text) is not None)
        f["L:prev_degree"] = float(DEGREE.search(previous.text) is not None)
        f["L:prev_role"] = float(ROLE_WORDS.search(previous.text) is not None)
        f["L:prev_long"] = float(len(previous.text.split()) > 5 and SPAN.search(previous.text) is None)
        f["L:prev_date_only"] = float(re.fullmatch(r"\W*(?:[A-Za-z]{3,9}\.?\s+)?(?:19|20)\d\d\S*(?:\s*\S{1,3}\s*"
                                                   r"(?:[A-Za-z]{3,9}\.?\s+)?(?:(?:19|20)\d\d\S*|present|now))?\W*",
                                                   previous.text, re.I) is not None)
    return {k: v for k, v in f.items() if v}


def _closed(word: str) -> bool:
    """Whether a word is one whose identity the model may learn: lower case, punctuation, or a word of the closed
    lists (roles, organisation words, months, glue, advising and noise words); other capitalised words are names,
    known to the model only by their shape and ending, so that it does not learn one page's organisations."""
    bare = word.strip(".")
    return not word[:1].isupper() or any(p.fullmatch(bare) for p in (ROLE_WORDS, ORG_WORDS, _MONTH, _OPEN, _ADVISING,
                                                                         _NOISE)) or DEGREE.fullmatch(word) is not None


def _word_features(word: str, prefix: str) -> Features:
    """Lexical features of one word."""
    low = word.lower()
    f: Features = {f"{prefix}shape={_shape(word)}": 1.0, f"{prefix}end={low[-3:]}": 1.0}
    if _closed(word):
        f[f"{prefix}w={low}"] = 1.0
    if re.fullmatch(r"(?:19|20)\d\d(?:[./]\d{1,2})?", word):
        f[f"{prefix}year"] = 1.0
    if _MONTH.match(word):
        f[f"{prefix}month"] = 1.0
    if _OPEN.match(word):
        f[f"{prefix}open"] = 1.0
    if low in _DASHES:
        f[f"{prefix}dash"] = 1.0
    if low in _GLUE:
        f[f"{prefix}glue"] = 1.0
    if ROLE_WORDS.fullmatch(word.strip(".")):
        f[f"{prefix}roleword"] = 1.0
    if ORG_WORDS.fullmatch(word.strip(".")):
        f[f"{prefix}orgword"] = 1.0
    if _ADVISING.match(word):
        f[f"{prefix}advising"] = 1.0
    if _NOISE.match(word):
        f[f"{prefix}noise"] = 1.0
    return f


def token_features(lines: list[Line], tokens: list[Token], education: bool | None = None) -> list[Features]:
    """Features of each token: its words and its neighbours', the exact rules' readings (a date range, a degree
    word, a role or organisation word), the layout of its line and the section's kind (None: not known)."""
    kind = {True: "S:education", False: "S:experience", None: "S:unknown"}[education]
    blank_before: dict[int, bool] = {}
    kept: list[Line] = []
    gap = True
    for i, line in enumerate(lines):
        if not line.text:
            gap = True
            continue
        blank_before[i] = gap
        gap = False
        kept.append(line)
    layout = {}
    prev: Line | None = None
    for i, line in enumerate(lines):
        if line.text:
            layout[i] = _line_features(line, prev, blank_before[i])
            prev = line
    spans = {i: [(m.start(), m.end(), m.start("a"), (m.start("b") if m.group("b") else m.start("open")
                                                      if m.group("open") else -1))
                 for m in SPAN.finditer(line.text)] for i, line in enumerate(lines)}
    degrees = {i: _marks(line.text, DEGREE) for i, line in enumerate(lines)}
    out: list[Features] = []
    for n, tok in enumerate(tokens):
        f = _word_features(tok.text, "")
        f.update(layout[tok.line])
        f[kind] = 1.0
        text = lines[tok.line].text
        first = n == 0 or tokens[n - 1].line != tok.line
        last = n + 1 == len(tokens) or tokens[n + 1].line != tok.line
        f["line_start" if first else "in_line"] = 1.0
        if last:
            f["line_end"] = 1.0
        f["cap"] = float(tok.text[:1].isupper())
        before = text[: tok.start]
        f["commas_before=" + str(min(before.count(","), 4))] = 1.0
        f["pos=" + str(min(len(before.split()), 8))] = 1.0
        if re.search(r"\s{2,}|\t|\s[|·•]\s*$|\s[—–]\s*$", before[-4:] if before else ""):
            f["after_gap"] = 1.0
        for start, end, a_start, b_start in spans[tok.line]:
            if start <= tok.start < end:
                f["in_span"] = 1.0
                f["span_end_part" if b_start != -1 and tok.start >= b_start else "span_start_part"] = 1.0
                if b_start != -1 and a_start < tok.start < b_start and tok.text.lower() in _DASHES:
                    f["span_dash"] = 1.0
        for start, end, group in degrees[tok.line]:
            if start <= tok.start < end:
                f["in_degree"] = 1.0
                f["degree=" + group] = 1.0
        if "(" in before and ")" not in before[before.rfind("("):]:
            f["in_parens"] = 1.0
        for k in (-2, -1, 1, 2):
            j = n + k
            if 0 <= j < len(tokens) and tokens[j].line == tok.line:
                f.update({f"{k}:{key}": v for key, v in _word_features(tokens[j].text, "").items()
                          if not key.startswith("shape")})
            elif k in (-1, 1):
                f[f"{k}:none"] = 1.0
        out.append(f)
    return out
