"""Safety checks on uploaded RDF documents, made by one cheap linear scan before any parser sees the bytes.

* **Entities.** An RDF/XML body whose DOCTYPE declares entities (``<!ENTITY``) is refused: expanding nested
  entities ("billion laughs") turns a 1 KB body into gigabytes. Nothing is expanded to decide.
* **Nesting.** Turtle/TriG brackets (``[``, ``(``, ``{``, ``<<``), JSON-LD objects and arrays and RDF/XML
  elements may nest at most ``MAX_DEPTH`` deep: parsing, validating and writing out deeper documents costs
  time and stack out of all proportion to their size. Strings, IRIs and comments are skipped.

>>> nesting_error(b'<s> <p> [ <p> [ <p> "]]]" ] ] .', Format.TURTLE, limit=2) is None
True
>>> nesting_error(b'<s> <p> [ <p> [ <p> [ <p> 1 ] ] ] .', Format.TURTLE, limit=2)
'nests brackets more than 2 deep (line 1, column 21); write the inner nodes as separate statements'
"""

from __future__ import annotations

import re

from ...errors import BadQuery
from ...formats import Format

MAX_DEPTH = 64
TURTLE_OPENERS, TURTLE_CLOSERS = "([{<", ")]}>"  # "<" and ">" outside IRIs: RDF 1.2 "<<" ">>"
# Possessive quantifiers (*+) and optional closing quotes: a token never fails once started and nothing is
# rescanned, so every scan is linear even on unterminated strings. Names may hold backslash escapes ("\\#").
_TURTLE = re.compile(r"""
    \#[^\r\n]*+
  | '''(?:[^'\\]|\\.|'(?!''))*+(?:'''|\Z)
  | \"\"\"(?:[^"\\]|\\.|"(?!""))*+(?:\"\"\"|\Z)
  | '(?:[^'\\\r\n]|\\.)*+'?
  | "(?:[^"\\\r\n]|\\.)*+"?
  | <(?:[^<>"{}|^`\\\x00-\x20]|\\.)*+>
  | (?P<bracket>[][(){}<>])
  | (?:[^][(){}<>\s'"\#\\]|\\.)++
  | \\
    """, re.VERBOSE | re.DOTALL)
_JSON = re.compile(r'"(?:[^"\\]|\\.)*+"?|[\[\]{}]', re.DOTALL)
# Tags never hold a literal "<" (not even in attribute values), so no match runs past the next "<": linear.
_XML = re.compile(r"""
    <!--.*?(?:-->|\Z)
  | <!\[CDATA\[.*?(?:\]\]>|\Z)
  | <\?.*?(?:\?>|\Z)
  | <!ENTITY
  | <!(?:[^<>"'\[]|"[^"<]*"|'[^'<]*')*+\[?
  | </[^<>]*>
  | <(?:[^<>"']|"[^"<]*"|'[^'<]*')*+>
    """, re.VERBOSE | re.DOTALL)


def _where(text: str, offset: int) -> tuple[int, int]:
    """Line and column (1-based) of an offset."""
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _turtle_depth(text: str, limit: int) -> int | None:
    """The offset of the first Turtle/TriG bracket nested deeper than limit, or None."""
    depth = 0
    for match in _TURTLE.finditer(text):
        char = match.group("bracket")
        if char is None:
            continue
        if char in TURTLE_OPENERS:
            depth += 1
            if depth > limit:
                return match.start()
        elif char in TURTLE_CLOSERS:
            depth = max(0, depth - 1)
    return None


def _json_depth(text: str, limit: int) -> int | None:
    """The offset of the first JSON object or array nested deeper than limit, or None."""
    depth = 0
    for match in _JSON.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif char in "]}":
            depth = max(0, depth - 1)
    return None


def _xml_scan(text: str, limit: int) -> tuple[str, int] | None:
    """("entity", offset) of the first entity declaration or ("depth", offset) of the first element nested
    deeper than limit, or None."""
    depth = 0
    for match in _XML.finditer(text):
        tag = match.group()
        if tag == "<!ENTITY":
            return "entity", match.start()
        if tag.startswith(("<!", "<?")):
            continue
        if tag.startswith("</"):
            depth = max(0, depth - 1)
        elif not tag.endswith("/>"):
            depth += 1
            if depth > limit:
                return "depth", match.start()
    return None


def nesting_error(data: bytes, fmt: Format, limit: int = MAX_DEPTH) -> str | None:
    """A message naming the place where a document nests deeper than limit, or declares XML entities, or
    None; formats without nesting (N-Triples, N-Quads) always pass."""
    text = data.decode("utf-8", "replace")
    if fmt in (Format.TURTLE, Format.TRIG):
        offset, what = _turtle_depth(text, limit), "brackets"
    elif fmt is Format.JSON_LD:
        offset, what = _json_depth(text, limit), "objects and arrays"
    elif fmt is Format.RDF_XML:
        found = _xml_scan(text, limit)
        if found and found[0] == "entity":
            return f"declares entities (<!ENTITY> at line {_where(text, found[1])[0]})"
        offset, what = (found[1] if found else None), "elements"
    else:
        return None
    if offset is None:
        return None
    line, column = _where(text, offset)
    return (f"nests {what} more than {limit} deep (line {line}, column {column}); "
            "write the inner nodes as separate statements")


def check_body(data: bytes, fmt: Format, what: str) -> None:
    """Raise BadQuery (400) if a document is unsafe to parse: NUL bytes in RDF/XML (UTF-16 or UTF-32, which the
    scan cannot read), entity declarations, or nesting deeper than MAX_DEPTH."""
    if fmt is Format.RDF_XML and b"\x00" in data:
        raise BadQuery(f"{what} holds NUL bytes; send RDF/XML as UTF-8")
    problem = nesting_error(data, fmt)
    if problem and problem.startswith("declares entities"):
        where = problem[problem.index("(") + 1:problem.index(")")]
        suffix = "" if what == "the request body" else f" in {what}"
        raise BadQuery(f"RDF/XML bodies may not declare entities ({where}{suffix}); expand them before sending")
    if problem:
        raise BadQuery(f"{what} {problem}")
