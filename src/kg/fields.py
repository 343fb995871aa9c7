"""Typed field access over parsed YAML: each wrong value becomes an error naming file, line and field."""

from __future__ import annotations

import datetime
import difflib
import re
from typing import Any

from .errors import SourceError
from .identifiers import SCHEME_LABELS, from_iri, looks_like, normalize
from .sources import FieldPath, YamlDocument

MIN_YEAR, MAX_YEAR = 1900, datetime.date.today().year + 1
PRESENT = "present"


def _type_name(value: Any) -> str:
    return {str: "text", int: "a number", bool: "true/false", list: "a list", dict: "a mapping",
            type(None): "nothing"}.get(type(value), type(value).__name__)


def quote_hint(written: str) -> str:
    """The message for a true/false word where text was expected: YAML reads unquoted yes/no/on/off as booleans."""
    return (f"expected text, got {written}, which YAML reads as {'true' if written.lower() in _TRUE else 'false'} "
            f"when unquoted; quote it (\"{written}\") if it is text")


_TRUE = ("true", "yes", "on", "y")
_DATE = re.compile(r"^\s*(\d{4})-\d{1,2}-\d{1,2}(?:[Tt ].*)?$")


def _year_hint(value: Any) -> str:
    """A fix for a value that is not a year: a date becomes its year, a time or a number written otherwise."""
    if isinstance(value, str):
        date = _DATE.match(value)
        if date:
            return f"; kg records years only: write {date.group(1)}"
        if re.fullmatch(r"\s*\d+:\d+(?::\d+)*\s*", value):
            return "; a value written with ':' is a time, not a year: write the four-digit year"
    return _number_hint(value)


def _number_hint(value: Any) -> str:
    """A fix for a number written in a form kg does not read (1e3, 0x10, 017, 1_000, 3.5)."""
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?[0-9][0-9a-fA-FxXoObB_.:eE+-]*\s*", value):
        return "; write it as plain decimal digits (no exponent, fraction, '_', leading 0 or 0x/0o prefix)"
    return ""


ABSOLUTE_IRI = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")


def _check_iri(value: str, fields: Fields, key: str | tuple[str, int]) -> None:
    if not ABSOLUTE_IRI.match(value):
        where = fields.at(key) if isinstance(key, str) else fields.at(key[0]) + (key[1],)
        raise fields.document.error(where, f"expected an absolute http(s) address such as https://example.org/x, "
                                           f"got {value!r}")


class Fields:
    """One YAML mapping read field by field; finish() rejects keys nobody read."""

    def __init__(self, document: YamlDocument, path: FieldPath, value: Any, what: str) -> None:
        self.document = document
        self.path = path
        if not isinstance(value, dict):
            raise document.error(path, f"expected a mapping of fields for {what}, got {_type_name(value)}")
        self.data: dict[str, Any] = value
        self.read: set[str] = set()

    def error(self, key: str | int | None, message: str) -> SourceError:
        """An error at this mapping's field key."""
        return self.document.error(self.path if key is None else self.path + (key,), message)

    def at(self, key: str) -> FieldPath:
        """Field path of a key of this mapping."""
        return self.path + (key,)

    def shown(self, key: str, value: Any) -> str:
        """A value of a key as the file writes it, for messages."""
        return self.document.shown(self.at(key), value)

    def _quote_hint(self, key: str, value: bool) -> str:
        return quote_hint(self.shown(key, value))

    def raw(self, key: str) -> Any:
        """The value of a key, marking it as read."""
        self.read.add(key)
        return self.data.get(key)

    def text(self, key: str, *, required: bool = False) -> str | None:
        """A non-empty text field."""
        value = self.raw(key)
        if value is None:
            if required:
                raise self.error(None, f"missing required field '{key}'")
            return None
        if isinstance(value, bool):
            raise self.error(key, self._quote_hint(key, value))
        if not isinstance(value, (str, int, float)):
            raise self.error(key, f"expected text, got {_type_name(value)}")
        text = str(value).strip()
        if not text:
            if required:
                raise self.error(key, "must not be empty")
            return None
        return text

    def required_text(self, key: str) -> str:
        """A text field that must be present."""
        value = self.text(key, required=True)
        assert value is not None
        return value

    def boolean(self, key: str, default: bool | None = None) -> bool | None:
        """A true/false field."""
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {self.shown(key, value)}")
        return value

    def integer(self, key: str, *, minimum: int = 0) -> int | None:
        """A whole number at or above minimum."""
        value = self.raw(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected a whole number such as 12, got {self.shown(key, value)}"
                                  f"{_number_hint(value)}")
        if value < minimum:
            raise self.error(key, f"must be at least {minimum}, got {value}")
        return value

    def year(self, key: str, *, allow_present: bool = False) -> int | str | None:
        """A year between 1900 and next year, or 'present' where allowed."""
        value = self.raw(key)
        if value is None:
            return None
        if allow_present and isinstance(value, str) and value.strip().lower() == PRESENT:
            return PRESENT
        if isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value.strip()):
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int):
            hint = " or 'present'" if allow_present else ""
            raise self.error(key, f"expected a year such as 2024{hint}, got {self.shown(key, value)}"
                                  f"{_year_hint(value)}")
        if not MIN_YEAR <= value <= MAX_YEAR:
            raise self.error(key, f"impossible year {value}; expected {MIN_YEAR}–{MAX_YEAR}")
        return value

    def choice(self, key: str, options: tuple[str, ...], default: str) -> str:
        """One of a fixed set of words."""
        value = self.text(key)
        if value is None:
            return default
        if value not in options:
            raise self.error(key, f"expected one of {', '.join(options)}, got {value!r}")
        return value

    def items(self, key: str) -> list[tuple[FieldPath, Any]]:
        """The entries of a list field with their field paths (empty when absent)."""
        value = self.raw(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(key, f"expected a list, got {_type_name(value)}; write '- item' lines")
        return [(self.at(key) + (i,), item) for i, item in enumerate(value)]

    def text_list(self, key: str) -> tuple[str, ...]:
        """A list of non-empty texts."""
        texts = []
        for path, item in self.items(key):
            if isinstance(item, bool):
                raise self.document.error(path, quote_hint(self.document.shown(path, item)))
            if not isinstance(item, (str, int, float)) or not str(item).strip():
                raise self.document.error(path, f"expected text, got {_type_name(item)}")
            texts.append(str(item).strip())
        return tuple(texts)

    def iri(self, key: str) -> str | None:
        """An absolute http(s) IRI such as a homepage or an external identifier."""
        value = self.text(key)
        if value is not None:
            _check_iri(value, self, key)
        return value

    def iri_list(self, key: str) -> tuple[str, ...]:
        """A list of absolute http(s) IRIs."""
        values = self.text_list(key)
        for i, value in enumerate(values):
            _check_iri(value, self, (key, i))
        return values

    def linked_iris(self, key: str) -> tuple[str, ...]:
        """A list of IRIs, where one that claims to be an identifier (ORCID, DOI, dblp, ...) must be a valid one."""
        values = self.iri_list(key)
        for i, value in enumerate(values):
            scheme = looks_like(value)
            if scheme is not None and from_iri(value) is None:
                check = " (its last character is a MOD 11-2 check digit)" if scheme == "orcid" else ""
                raise self.document.error(self.at(key) + (i,), f"{value!r} is not a valid {SCHEME_LABELS[scheme]}"
                                                               f"{check}; copy the identifier again from its source")
        return values

    def identifier(self, key: str, scheme: str) -> str | None:
        """An identifier of a scheme (a DOI, ...) in its normal form; an invalid one is an error."""
        value = self.text(key)
        if value is None:
            return None
        normal = normalize(scheme, value)
        if normal is None:
            example = {"doi": "10.7554/elife.01567"}.get(scheme, "")
            raise self.error(key, f"{value!r} is not a valid {SCHEME_LABELS[scheme]}"
                                  f"{f' such as {example}' if example else ''}; copy it again from its source")
        return normal

    def text_map(self, key: str) -> dict[str, str]:
        """A mapping of short keys to texts, such as names by language tag."""
        value = self.raw(key)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise self.error(key, "expected a mapping such as {zh: 复旦大学}")
        return dict(sorted(value.items()))

    def finish(self) -> None:
        """Reject keys that were not read, suggesting the closest known key."""
        for key in self.data:
            if key not in self.read:
                close = difflib.get_close_matches(key, sorted(self.read), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else f"; known fields: {', '.join(sorted(self.read))}"
                raise self.error(key, f"unknown field '{key}'{hint}")
