"""Names compared: the normalised key of a name or title, initials, and written forms of one person's name."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field

from ..iris import ascii_folded

_PUNCTUATION = re.compile(r"[^\w\s]")


@functools.lru_cache(maxsize=1 << 16)
def normalize_name(text: str) -> str:
    """Comparison key for a name or title: NFKC, case-folded, punctuation dropped, spaces collapsed (kept per
    text: a build at 1M triples asks it 477,000 times about some 30,000 names and titles).

    >>> normalize_name("Cesar A. Stuardo")
    'cesar a stuardo'
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_PUNCTUATION.sub(" ", text).split())


def initials_form(name: str) -> tuple[tuple[str, ...], str] | None:
    """(initials, family name) when every given name is a single letter, as in 'B Wan' or 'J. K. Rowling'."""
    tokens = normalize_name(name).split()
    if len(tokens) < 2 or len(tokens[-1]) < 2:
        return None
    given = tokens[:-1]
    if all(len(t) == 1 for t in given):
        return tuple(given), tokens[-1]
    return None


def _folded(name: str) -> list[str]:
    return normalize_name(ascii_folded(name).replace("-", " ")).split()


def same_person_name(a: str, b: str) -> bool:
    """Whether two names can be written forms of one name: accents, punctuation and middle initials aside.

    >>> same_person_name("Ioannis Xénarios", "Ioannis Xenarios"), same_person_name("Ada M. Example", "Ada Example")
    (True, True)
    >>> same_person_name("C. S. Hardtke", "Christian S Hardtke"), same_person_name("Ada Example", "Bo Example")
    (True, False)
    """
    ta, tb = _folded(a), _folded(b)
    if not ta or not tb or ta[-1] != tb[-1]:
        return False
    short, long = sorted((ta[:-1], tb[:-1]), key=len)
    position = 0
    for token in short:
        while position < len(long) and not (long[position] == token or (len(token) == 1 and
                                                                        long[position][0] == token) or
                                             (len(long[position]) == 1 and token[0] == long[position])):
            position += 1
        if position == len(long):
            return False
        position += 1
    return True


@dataclass
class Lookup:
    """Maps ids, names, acronyms and aliases to one id."""

    kind: str
    ids: dict[str, str] = field(default_factory=dict)

    def add(self, ident: str, *names: str | None) -> None:
        """Register an id under itself and its names."""
        self.ids[ident] = ident
        for name in names:
            if name:
                self.ids.setdefault(normalize_name(name), ident)

    def find(self, text: str) -> str | None:
        """The id a text refers to, or None."""
        return self.ids.get(text) or self.ids.get(normalize_name(text))
