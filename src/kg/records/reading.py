"""What every record reader shares: origins by JSON path or XML line, checked identifiers, warnings, dates."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..identifiers import SCHEME_LABELS, normalize
from ..model import ExternalId, Origin, Record, RecordPerson, RecordWarning, RecordWork
from ..sources import FieldPath, format_path
from .bounds import Bounds, Deadline


@dataclass
class RecordReader:
    """Collects the warnings of one file while a reader turns it into typed records."""

    file: str
    warnings: list[RecordWarning] = field(default_factory=list)
    bounds: Bounds = field(default_factory=Bounds.from_env)
    deadline: Deadline = field(init=False)

    def __post_init__(self) -> None:
        self.deadline = Deadline(self.file, self.bounds.seconds)

    def at(self, path: FieldPath = (), line: int | None = None) -> Origin:
        """The origin of a JSON path (or an XML element's line) in this file."""
        return Origin(self.file, path, line)

    def warn(self, origin: Origin, message: str) -> None:
        """Record a problem that does not stop the build."""
        self.warnings.append(RecordWarning(origin, message))

    def first_authors(self, items: Any, origin: Origin) -> tuple[list[Any], bool]:
        """The first KG_MAX_AUTHORS entries of a record's author list (cut before they are read), and whether
        none was left out; a longer list is cut with a warning naming its place."""
        entries = items if isinstance(items, list) else []
        if len(entries) <= self.bounds.authors:
            return entries, True
        where = format_path(origin.path) or (f"line {origin.line}" if origin.line else "")
        self.warn(origin, f"{where + ': ' if where else ''}{self.bounds.elided(len(entries))}")
        return entries[:self.bounds.authors], False

    def tick(self, origin: Origin | None = None) -> None:
        """Refuse the file once reading it has taken longer than KG_MAX_PARSE_SECONDS."""
        self.deadline.check(origin.line if origin else None, format_path(origin.path) if origin else "")

    def identifier(self, scheme: str, raw: Any, origin: Origin) -> ExternalId | None:
        """The identifier in normal form; one that fails its check is not used, with a warning naming its place."""
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        value = normalize(scheme, str(raw))
        if value is None:
            where = format_path(origin.path) or (f"line {origin.line}" if origin.line else "")
            self.warn(origin, f"{raw!r} is not a valid {SCHEME_LABELS.get(scheme, scheme)}"
                              f"{' at ' + where if where else ''}; it is not used to merge records (correct it at "
                              f"the source, or download the record again)")
            return None
        return ExternalId(scheme, value)

    def identifiers(self, pairs: Iterable[tuple[str, Any, Origin]]) -> tuple[ExternalId, ...]:
        """The valid identifiers of (scheme, raw value, origin) triples, each once, in order."""
        found: list[ExternalId] = []
        for scheme, raw, origin in pairs:
            ident = self.identifier(scheme, raw, origin)
            if ident is not None and ident not in found:
                found.append(ident)
        return tuple(found)


def year_of(value: Any) -> int | None:
    """The year of a date as records write it: 2014, '2014-02-11', [[2014, 2, 11]], {'year': '2014'}, '+2014-…'."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1000 <= value <= 2999 else None
    if isinstance(value, list) and value:
        return year_of(value[0])
    if isinstance(value, dict):
        for key in ("date-parts", "year", "value"):
            if key in value:
                return year_of(value[key])
        return None
    if isinstance(value, str):
        match = re.match(r"^\+?(\d{4})(?:\b|-)", value.strip())
        return int(match.group(1)) if match else None
    return None


def clean(text: Any) -> str | None:
    """Text with whitespace collapsed, or None when empty or not text."""
    if not isinstance(text, str):
        return None
    return " ".join(text.split()) or None


Found = tuple[list[RecordPerson], list[RecordWork]]
Shape = tuple[str, str, Callable[[Any], bool], Callable[[Any, RecordReader], Found]]
"""(system, format label, does this parsed document have the shape?, read it into people and works)."""


def record_of(system: str, label: str, people: list[RecordPerson], works: list[RecordWork],
              reader: RecordReader) -> Record:
    """A Record of the people and works a reader found, with its warnings."""
    return Record(system, label, tuple(people), tuple(works), tuple(reader.warnings), reader.at())


def obj(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (records leave fields out or null them)."""
    return value if isinstance(value, dict) else {}
