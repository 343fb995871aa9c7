"""Places written after an organisation: 'Redmond, WA', 'Beijing, China', '(Grenoble, France)', street addresses."""

from __future__ import annotations

import re
from collections.abc import Callable

US_STATES = {"AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
             "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND",
             "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC",
             "ON", "BC", "QC", "AB", "NS", "MB", "NSW", "VIC", "QLD"}
COUNTRIES = {
    "usa", "u.s.a.", "us", "u.s.", "united states", "united states of america", "uk", "u.k.", "united kingdom",
    "england", "scotland", "wales", "canada", "china", "p.r. china", "pr china", "prc", "hong kong", "macau", "taiwan",
    "japan", "korea", "south korea", "republic of korea", "singapore", "india", "israel", "germany", "france",
    "switzerland", "austria", "italy", "spain", "portugal", "netherlands", "the netherlands", "belgium",
    "luxembourg", "denmark", "norway", "sweden", "finland", "iceland", "ireland", "poland", "czech republic",
    "czechia", "slovakia", "greece", "turkey", "türkiye", "russia", "ukraine", "estonia", "latvia", "lithuania",
    "hungary", "romania", "bulgaria", "slovenia", "croatia", "serbia", "australia", "new zealand", "brazil",
    "mexico", "argentina", "chile", "colombia", "peru", "south africa", "egypt", "nigeria", "kenya", "ghana",
    "morocco", "lebanon", "jordan", "uae", "united arab emirates", "saudi arabia", "qatar", "iran", "pakistan",
    "bangladesh", "sri lanka", "nepal", "vietnam", "thailand", "malaysia", "indonesia", "philippines", "cyprus",
    "malta"}
_CITY = re.compile(r"^(?:[A-ZÀ-Þ][\w'’.-]*|de|del|la|le|am|upon|on|sur)(?:\s+(?:[A-ZÀ-Þ][\w'’.-]*|de|del|la|le|am|"
                   r"upon|on|sur)){0,3}$")
_NOT_CITY = re.compile(r"\b(?:university|universit[äéy]|institute|college|school|lab|labs|laboratory|research|"
                       r"department|group|team|center|centre|inc|corp|ltd|gmbh|company|academy|faculty)\b", re.I)
_PAREN = re.compile(r"\s*[(（]([^()（）]+)[)）]\s*$")


def _region(part: str) -> bool:
    """A state code ('WA') or a country ('France', 'USA'), maybe with a postal code."""
    part = re.sub(r"\s*\d[\d -]{2,9}\s*", " ", part).strip().rstrip(".")
    return part in US_STATES or part.lower() in COUNTRIES or part.lower().rstrip(".") + "." in COUNTRIES


def _city(part: str) -> bool:
    part = part.strip()
    return bool(_CITY.match(part)) and not _NOT_CITY.search(part) and len(part) >= 2


def _never(_: str) -> bool:
    return False


def is_place(text: str, org: Callable[[str], bool] = _never) -> bool:
    """Whether a text is only a place: 'Redmond, WA', 'Beijing, China', 'Seattle, WA, USA', 'France'.

    >>> is_place("Redmond, WA"), is_place("Grenoble, France"), is_place("Microsoft Research"), is_place("WA")
    (True, True, False, True)
    """
    parts = [p.strip() for p in text.strip().strip(".").split(",") if p.strip()]
    if not parts or not _region(parts[-1]):
        return False
    cities = [p for p in parts[:-1] if not _region(p)]
    return len(cities) <= 1 and all(_city(p) and not org(p) for p in cities) and len(parts) <= 4


def is_address(text: str, org: Callable[[str], bool] = _never) -> bool:
    """A postal address line: numbers in it and a country or state at the end ('P.O. Box 1080, 0316 Oslo, Norway'),
    naming no organisation."""
    parts = [p.strip() for p in text.strip().rstrip(".").split(",") if p.strip()]
    return len(parts) >= 2 and bool(re.search(r"\d", text)) and _region(parts[-1]) and not re.search(
        r"@|https?:", text) and not any(org(p) for p in parts)


def split_place(text: str, org: Callable[[str], bool] = _never, holder: Callable[[str], bool] | None = None
                ) -> tuple[str, str | None]:
    """The text without a trailing place, and the place: 'Microsoft Research, Redmond, WA' -> ('Microsoft Research',
    'Redmond, WA'); '(Grenoble, France)' endings too. A city is only cut after an organisation (`org`, or
    `holder` when given: what a place may follow).

    >>> split_place("Inria (Grenoble, France)"), split_place("MSR Asia, Beijing, China", lambda t: "MSR" in t)
    (('Inria', 'Grenoble, France'), ('MSR Asia', 'Beijing, China'))
    """
    paren = _PAREN.search(text)
    if paren and text[: paren.start()].strip() and is_place(paren.group(1), org):
        return text[: paren.start()].strip(), paren.group(1).strip()
    parts = [p.strip() for p in text.split(",")]
    if len(parts) < 2 or not _region(parts[-1].rstrip(".")):
        return text, None
    cut = len(parts) - 1
    while cut > 1 and _region(parts[cut - 1]):
        cut -= 1
    if cut > 1 and _city(parts[cut - 1]) and not org(parts[cut - 1]) and (holder or org)(parts[cut - 2]):
        cut -= 1
    rest = ", ".join(parts[:cut]).strip()
    return (rest, ", ".join(parts[cut:]).strip().rstrip(".")) if rest else (text, None)


def city_of(place: str | None) -> str | None:
    """The city of a place ('Redmond' of 'Redmond, WA, USA'), when it names one."""
    if not place:
        return None
    first = place.split(",")[0].strip()
    return first if _city(first) and not _region(first) else None
