"""Bounds on what one record file (or imported BibTeX file) may ask of kg: field length, authors, parse time.

Nesting depth shares kg.sources.MAX_DEPTH with the YAML profiles, and an integer too long for Python's own
digit limit is refused as the YAML reader refuses it; every refusal is a SourceError naming the place, the
limit and the setting that raises it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..config import Config
from ..errors import Location, SourceError
from ..sources import MAX_DEPTH

FIELD_SETTING = "KG_MAX_FIELD_CHARS"
AUTHORS_SETTING = "KG_MAX_AUTHORS"
SECONDS_SETTING = "KG_MAX_PARSE_SECONDS"
__all__ = ["MAX_DEPTH", "Bounds", "Deadline", "too_deep", "too_long", "too_many_digits", "too_slow"]


@dataclass(frozen=True)
class Bounds:
    """The limits of one read: longest text, most authors per work, seconds per file."""

    field_chars: int
    authors: int
    seconds: float

    @classmethod
    def from_env(cls) -> Bounds:
        """The limits from KG_MAX_FIELD_CHARS, KG_MAX_AUTHORS and KG_MAX_PARSE_SECONDS."""
        config = Config.from_env()
        return cls(config.max_field_chars, config.max_authors, config.max_parse_seconds)

    def elided(self, count: int, what: str = "authors") -> str:
        """The warning for a list cut to the first `authors` of `count` entries."""
        return (f"{count:,} {what}, more than the limit of {self.authors:,}: the first {self.authors:,} are kept "
                f"and the other {count - self.authors:,} left out; raise the limit with the environment "
                f"variable {AUTHORS_SETTING}=COUNT to keep them")


class Deadline:
    """A point in time after which reading one file is refused; check() is cheap enough for inner loops."""

    def __init__(self, file: str, seconds: float) -> None:
        self.file = file
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def check(self, line: int | None = None, field: str = "") -> None:
        """Raise a SourceError naming the file (and the place reached) once the time is up."""
        if time.monotonic() > self.ends:
            raise too_slow(Location(Path(self.file), line, field), self.seconds)


def too_slow(where: Location, seconds: float) -> SourceError:
    """The refusal of a file whose reading ran past KG_MAX_PARSE_SECONDS."""
    stopped = " (stopped here)" if where.line is not None or where.field else ""
    return SourceError(where, f"reading this file took longer than the limit of {seconds:g} seconds{stopped}; split "
                              f"the file, or raise the limit with the environment variable {SECONDS_SETTING}=SECONDS")


def too_deep(where: Location, kind: str) -> SourceError:
    """The refusal of a document nested deeper than MAX_DEPTH."""
    return SourceError(where, f"{kind} nested more than {MAX_DEPTH} levels deep; records nest only a few levels, "
                              "so this is not a record as its API sends it; download it again")


def too_many_digits(where: Location, digits: int) -> SourceError:
    """The refusal of an integer longer than Python reads (sys.get_int_max_str_digits)."""
    return SourceError(where, f"cannot read this value (a number of {digits:,} digits, more than Python reads); "
                              "no record holds such a number: correct it, or download the record again")


def too_long(where: Location, chars: int, limit: int) -> SourceError:
    """The refusal of one text longer than KG_MAX_FIELD_CHARS."""
    return SourceError(where, f"a text of {chars:,} characters, longer than the limit of {limit:,}; shorten it, "
                              f"or raise the limit with the environment variable {FIELD_SETTING}=CHARS")
