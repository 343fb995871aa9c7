"""JSON record files, bounded: nesting depth, integer digits and text length are checked, duplicate keys warned.

The common case stays in C: a bracket count outside strings (a regular expression and itertools) before
json.loads, and hooks on every object and integer. Only when something is wrong does a Python scan walk the
tokens to name the line and the JSON path of the first offending value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from ..sources import FieldPath, format_path
from .bounds import MAX_DEPTH, Bounds, Deadline, too_deep, too_long, too_many_digits

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1
_TOKEN = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")(\s*:)?|([\[{])|([\]}])|(,)|(-?\d+)|[^\s"\[\]{},]+', re.S)
MAX_DUPLICATE_WARNINGS = 10


class _Found(Exception):
    """A hook's finding (a long text, a long integer) that the token scan then locates."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def _depth(text: str) -> int:
    """How deep brackets nest outside strings (an upper bound when the text is malformed)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


class _Hooks:
    """json.loads hooks: objects with their keys checked, texts measured, integers read within Python's limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.duplicates = 0

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.duplicates += 1
        for key, value in pairs:
            if (isinstance(value, str) and len(value) > self.limit) or len(key) > self.limit or (
                    isinstance(value, list) and any(isinstance(v, str) and len(v) > self.limit for v in value)):
                raise _Found("text")
        return result

    def integer(self, digits: str) -> int:
        try:
            return int(digits)
        except ValueError:
            raise _Found("integer") from None


def _events(text: str, deadline: Deadline) -> Iterator[tuple[str, FieldPath, int, int]]:
    """(kind, JSON path, offset, size) of each opened container ('open', size = depth), key ('duplicate'), text
    ('text', size = characters) and integer ('integer', size = digits) of a JSON text, in order."""
    path: list[str | int | None] = []
    keys: list[set[str] | None] = []
    for match in _TOKEN.finditer(text):
        deadline.check()
        string, colon, opening, closing, comma, integer = match.groups()
        here = tuple(p for p in path if p is not None)
        if string is not None and colon and keys and keys[-1] is not None:
            key = json.loads(string)
            path[-1] = key
            at_key = tuple(p for p in path if p is not None)
            if key in keys[-1]:
                yield "duplicate", at_key, match.start(), 0
            keys[-1].add(key)
            yield "text", at_key, match.start(), len(key)
        elif string is not None:
            yield "text", here, match.start(), len(json.loads(string))
        elif opening:
            yield "open", here, match.start(), len(path) + 1
            path.append(None if opening == "{" else 0)
            keys.append(set() if opening == "{" else None)
        elif closing and path:
            path.pop()
            keys.pop()
        elif comma and path and isinstance(path[-1], int):
            path[-1] += 1
        elif integer is not None:
            yield "integer", here, match.start(), len(integer.lstrip("-"))


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _locate(text: str, display: str, kind: str, bounds: Bounds, deadline: Deadline) -> SourceError | None:
    """The SourceError of the first value of a kind past its bound, or None when the scan finds none."""
    for event, path, offset, size in _events(text, deadline):
        where = Location(Path(display), _line(text, offset), format_path(path))
        if kind == "open" and event == "open" and size > MAX_DEPTH:
            shown = Location(where.path, where.line, format_path(path[:6]) + f"… (level {size})")
            return too_deep(shown, "JSON")
        if kind == "text" and event == "text" and size > bounds.field_chars:
            return too_long(where, size, bounds.field_chars)
        if kind == "integer" and event == "integer":
            try:
                int(text[offset:offset + size + 1])
            except ValueError:
                return too_many_digits(where, size)
    return None


def _syntax(error: json.JSONDecodeError, text: str, display: str) -> SourceError:
    hint = ("the file ends early (a truncated download?); download the record again"
            if error.pos >= len(text.rstrip()) else "the file is not valid JSON; download the record again")
    return SourceError(Location(Path(display), error.lineno, f"column {error.colno}"), f"{error.msg}: {hint}")


def duplicate_keys(text: str, deadline: Deadline) -> list[tuple[FieldPath, int]]:
    """The JSON path and line of each key that repeats a key of the same object, in order."""
    return [(path, _line(text, offset)) for event, path, offset, _ in _events(text, deadline)
            if event == "duplicate"]


def read_json(text: str, display: str, bounds: Bounds | None = None,
              deadline: Deadline | None = None) -> tuple[Any, list[tuple[FieldPath, int]]]:
    """Parsed JSON within the bounds, and the JSON path and line of each repeated key; a syntax error (a truncated
    download, ...) names the file, line and column, and a value past a bound its line, JSON path, limit and fix."""
    bounds = bounds or Bounds.from_env()
    deadline = deadline or Deadline(display, bounds.seconds)
    if _depth(text) > MAX_DEPTH:
        found = _locate(text, display, "open", bounds, deadline)
        if found is not None:
            raise found
    hooks = _Hooks(bounds.field_chars)
    try:
        document = json.loads(text, object_pairs_hook=hooks.pairs, parse_int=hooks.integer)
    except json.JSONDecodeError as error:
        raise _syntax(error, text, display) from None
    except RecursionError:
        raise too_deep(Location(Path(display)), "JSON") from None
    except _Found as found:
        located = _locate(text, display, found.kind, bounds, deadline)
        raise located or SourceError(Location(Path(display)), f"a {found.kind} past its limit") from None
    return document, duplicate_keys(text, deadline) if hooks.duplicates else []


def load_json(text: str, display: str) -> Any:
    """Parsed JSON within the bounds of the environment's settings (repeated keys keep their last value)."""
    return read_json(text, display)[0]


def duplicate_warning(path: FieldPath) -> str:
    """The warning for a repeated key of a JSON object (json keeps the last value)."""
    return (f"the key {format_path(path)} appears more than once in its object; the last value is used and the "
            "others are ignored; remove the repeated key")
