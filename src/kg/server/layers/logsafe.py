"""Control characters escaped in every log record of the process, so request data cannot write raw bytes
(NUL, terminal escapes) or forged lines into a log.

``install()`` wraps the logging record factory: every record made afterwards, by any logger (the app's, the
HTTP server's access and error logs, werkzeug's), renders its message with C0 and C1 control characters and
DEL as escapes (``\\x00``, ``\\n``, ``\\x1b``), so one record is one line. A traceback keeps its line breaks
but loses every other control character. The record's msg and args are untouched until it is formatted.

>>> escape("GET /page/\\x00\\x1b[2J\\n")
'GET /page/\\\\x00\\\\x1b[2J\\\\n'
>>> escape("line one\\nline\\ttwo", keep_newlines=True)
'line one\\nline\\\\ttwo'
"""

from __future__ import annotations

import logging
import re
from typing import Any

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
CONTROL_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return NAMED.get(char) or f"\\x{ord(char):02x}"


def escape(text: str, keep_newlines: bool = False) -> str:
    """The text with control characters written as escapes (line feeds kept with keep_newlines)."""
    return (CONTROL_BUT_NEWLINE if keep_newlines else CONTROL).sub(_escaped, text)


class EscapedRecord(logging.LogRecord):
    """A log record whose message, exception text and stack text are escaped when formatted."""

    def getMessage(self) -> str:  # noqa: N802 (the logging API's name)
        """The formatted message, escaped."""
        return escape(super().getMessage())

    @property
    def exc_text(self) -> str | None:
        """The formatted traceback (set by a Formatter), escaped but for its line breaks."""
        return self.__dict__.get("_exc_text")

    @exc_text.setter
    def exc_text(self, value: str | None) -> None:
        self.__dict__["_exc_text"] = escape(value, keep_newlines=True) if value else value


def install() -> None:
    """Make every later log record of this process an EscapedRecord (idempotent)."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "escapes_controls", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if type(record) is logging.LogRecord:
            record.__class__ = EscapedRecord
        if record.stack_info:
            record.stack_info = escape(record.stack_info, keep_newlines=True)
        return record

    factory.escapes_controls = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


__all__ = ["EscapedRecord", "escape", "install"]
