"""Year ranges as pages write them: '2014 – 2019', 'Jan 2021 – Present', '2024.06 – 2024.12', 'Summer 2012'."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

MIN_YEAR, MAX_YEAR = 1900, datetime.date.today().year + 1
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|spring|summer|fall|autumn|winter)\.?")


def _point(name: str) -> str:
    return (rf"(?:{_MONTH}\s+|\d{{1,2}}/)?(?P<{name}>(?:19|20)\d\d)"
            rf"(?:[./-](?:0?[1-9]|1[0-2])(?!\d))?")


_OPEN = r"present|now|current|today|ongoing|date"
_DASH = r"\s*(?:–|—|-|−|~|\bto\b|\buntil\b)\s*"
SPAN = re.compile(rf"(?<![\w/.])(?P<since>since\s+)?{_point('a')}(?:{_DASH}(?:{_point('b')}|(?P<open>{_OPEN})\b))?"
                  rf"(?P<expected>\s*\(expected\))?(?![\w/])", re.I)
_EXPECTED = re.compile(r"\bexpected\s*(?:in\s*)?$", re.I)
DURATION = re.compile(r"\(\s*([^()]*?\d+\+?\s*(?:years?|yrs?|months?|mos?|summers?|weeks?)\b[^()]*?)\s*\)", re.I)
_OPEN_DASH = re.compile(r"\s*(?:–|—|-|−)\s*(?:$|[|,·;:)]|\s{2,})")
_BARE_DURATION = re.compile(r"(?:^|\s*[·•|,;–—]\s*|\s+)(\d+\+?\s*(?:years?|yrs?)(?:,?\s+\d+\s*(?:months?|mos?))?|"
                            r"\d+\s*(?:months?|mos?))\.?\s*$", re.I)
_DANGLING_MONTH = re.compile(rf"(?:^|\s){_MONTH}\s*(?:–|—|-|−|~|\bto\b)\s*$", re.I)
YEAR = re.compile(r"(?<![\w:./-])((?:19|20)\d\d)(?![\w/])")


@dataclass(frozen=True)
class Span:
    """A date range: start and end years, an open end, and where it sat in the text."""

    start: int | None
    end: int | None
    open: bool
    single: bool
    expected: bool
    begin: int
    finish: int


def _valid(year: int | None) -> bool:
    return year is None or MIN_YEAR <= year <= MAX_YEAR


def find_span(text: str) -> Span | None:
    """The first year or year range in a text.

    >>> s = find_span("Research Intern — 2013 – 2019 (5+ years)")
    >>> (s.start, s.end, s.open)
    (2013, 2019, False)
    >>> s = find_span("2026 – Present")
    >>> (s.start, s.end, s.open)
    (2026, None, True)
    """
    for match in SPAN.finditer(text):
        start = int(match.group("a"))
        end = int(match.group("b")) if match.group("b") else None
        is_open = bool(match.group("open")) or bool(match.group("since"))
        if not _valid(start) or not _valid(end) or (end is not None and end < start):
            continue
        if end is None and not is_open and _OPEN_DASH.match(text[match.end():]):
            is_open = True  # '2019 –' with nothing after the dash: still going
        single = end is None and not is_open
        expected = bool(match.group("expected")) or bool(_EXPECTED.search(text[: match.start()]))
        return Span(start, end if end is not None else (start if single else None), is_open, single, expected,
                    match.start(), match.end())
    return None


def without(text: str, span: Span) -> str:
    """The text with a span (and an 'expected' before it) cut out."""
    head = _EXPECTED.sub("", text[: span.begin])
    head = _DANGLING_MONTH.sub(" ", head)
    return (head + " " + text[span.finish:]).strip()


def find_duration(text: str) -> tuple[str | None, str]:
    """A written duration such as '(5+ years)' or a résumé's '· 3 yrs 5 mos' at the end, and the text without it.

    >>> find_duration("· 3 yrs 5 mos")
    ('3 yrs 5 mos', '')
    """
    match = DURATION.search(text) or _BARE_DURATION.search(text)
    if match is None:
        return None, text
    return match.group(1), (text[: match.start()] + text[match.end():]).strip()


def last_year(text: str) -> int | None:
    """The last plausible four-digit year in a text."""
    years = [int(y) for y in YEAR.findall(text) if _valid(int(y))]
    return years[-1] if years else None
