"""SPARQL syntax errors explained: where (line, column, the offending token, a caret under the query text) and
the usual fix (a missing '.', an undeclared prefix and the PREFIX line to add, an unbalanced bracket).

The parser (pyoxigraph) says "error at LINE:COLUMN: expected ...", its column counted in UTF-8 bytes and often
at the end of the query; the common mistakes are found on the query's tokens instead, and their place is shown.

>>> print(explain("SELECT * WHERE {\\n  ?s ?p ?o\\n  ?s ?q ?z .\\n}", "error at 3:11: expected OPTIONAL", {}))
syntax error at line 3, column 3 (3:3), at '?s'
    2 |   ?s ?p ?o
    3 |   ?s ?q ?z .
      |   ^^
a '.' is probably missing before '?s' (line 3, column 3): end each triple pattern with ' .' before the next
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping

from .sparql_checks import (
    Spot,
    incomplete_pattern,
    line_column,
    missing_dot,
    unclosed_string,
    ungrouped_variable,
    unknown_word,
)
from .sparql_text import CLOSERS, FORMS, OPENERS, UPDATE_KEYWORDS, token_spans

# Namespaces a query is likely to use without declaring them, for the PREFIX line to suggest.
WELL_KNOWN = {
    "dc": "http://purl.org/dc/elements/1.1/", "skos": "http://www.w3.org/2004/02/skos/core#",
    "dbo": "http://dbpedia.org/ontology/", "dbr": "http://dbpedia.org/resource/",
    "wd": "http://www.wikidata.org/entity/", "wdt": "http://www.wikidata.org/prop/direct/",
    "vcard": "http://www.w3.org/2006/vcard/ns#", "org": "http://www.w3.org/ns/org#",
    "geo": "http://www.w3.org/2003/01/geo/wgs84_pos#", "dcat": "http://www.w3.org/ns/dcat#",
    "sdo": "https://schema.org/", "fabio": "http://purl.org/spar/fabio/", "cito": "http://purl.org/spar/cito/",
}
_POSITION = re.compile(r"error at (\d+):(\d+):\s*(.*)", re.S)
def explain(query: str, parser_message: str, prefixes: Mapping[str, str], update: bool = False) -> str:
    """A syntax error as a user can act on it: where, the line with a caret, and the likely fix.

    Args:
        query: the query (or, update True, the update) text.
        parser_message: pyoxigraph's SyntaxError text ("error at 1:34: expected ...").
        prefixes: the prefixes the endpoint declares for every query (they need no PREFIX line).
        update: the text is a SPARQL Update request (its operations, not a query form, are checked).

    Returns:
        Several lines: the place and token, the text's lines with a caret, then the fix (or the parser's words).
    """
    parsed = _POSITION.match(parser_message.strip())
    expected = _expected(parsed.group(3)) if parsed else parser_message.strip()
    parser_spot = _spot(query, _char_offset(query, int(parsed.group(1)), int(parsed.group(2)))) if parsed else None
    form = unknown_operation(query) if update else unknown_form(query)
    checks = (form, unclosed_string(query), unknown_word(query), undeclared_prefix(query, prefixes, update),
              unbalanced(query), None if update else ungrouped_variable(query), incomplete_pattern(query),
              missing_dot(query))
    found = next((f for f in checks if f and (parser_spot is None or f[0].offset <= parser_spot.offset)), None)
    spot, hint = found if found else (parser_spot, None)
    if spot is None:
        return f"syntax error: {expected}"
    line, column = line_column(query, spot.offset)
    where = f"syntax error at line {line}, column {column} ({line}:{column}), " + (
        f"at {spot.token!r}" if spot.token else f"at the end of the {'update' if update else 'query'}")
    lines = [where, *_excerpt(query, spot)]
    said = next((w.strip() for w in expected.removeprefix("one of ").split(",") if " " in w.strip()), "")
    lines.append(hint or (f"the parser says: {said}" if said else f"the parser expected {expected}" if expected
                          else "the parser stopped here"))
    return "\n".join(lines)


def _expected(text: str) -> str:
    """The parser's 'expected ...' list without character classes, shortened."""
    words = [w.strip() for w in re.split(r",\s*(?![^\[]*\])", text.removeprefix("expected one of ").removeprefix(
        "expected ")) if w.strip() and not w.strip().startswith("[") and "Prefix not found" not in w]
    joined = ", ".join(words)
    return ("one of " if len(words) > 1 else "") + (joined[:117] + "..." if len(joined) > 120 else joined)


def _char_offset(query: str, line: int, byte_column: int) -> int:
    """The character offset of a 1-based line and 1-based UTF-8 byte column."""
    starts = [0] + [m.end() for m in re.finditer("\n", query)]
    start = starts[min(max(line, 1), len(starts)) - 1]
    end = query.find("\n", start)
    text = query[start:] if end < 0 else query[start:end]
    prefix = text.encode("utf-8")[:max(byte_column - 1, 0)].decode("utf-8", errors="ignore")
    return start + len(prefix)


def _spot(query: str, offset: int) -> Spot:
    """The token that starts at or covers an offset (the next one after blanks), or the end of the query."""
    for _, text, start in token_spans(query):
        if start + len(text) > offset:
            return Spot(start, text)
    return Spot(len(query.rstrip()), "")


def _excerpt(query: str, spot: Spot) -> list[str]:
    """The line before and the line of the spot, numbered, and a caret line under the token."""
    line, column = line_column(query, spot.offset)
    texts = query.split("\n")
    width = len(str(line))
    shown = [f"  {n:>{width}} | {texts[n - 1]}" for n in (line - 1, line) if 1 <= n <= len(texts)]
    caret = "^" * max(1, min(len(spot.token), 40))
    return shown + [f"  {'':>{width}} | {' ' * (column - 1)}{caret}"]


def _declarations_skipped(text: str) -> Iterator[tuple[str, str, int]]:
    """The tokens of a query or update without comments and without its BASE and PREFIX declarations."""
    expecting = 0
    for kind, token, start in token_spans(text):
        if kind == "comment":
            continue
        if expecting:
            expecting -= 1
            continue
        word = token.upper()
        if kind == "name" and word in ("BASE", "PREFIX"):
            expecting = 1 if word == "BASE" else 2
            continue
        yield kind, token, start


def unknown_form(query: str) -> tuple[Spot, str] | None:
    """A misspelt query form after the prologue (SELEC), and the keyword meant."""
    for kind, text, start in _declarations_skipped(query):
        word = text.upper()
        if word in FORMS or kind != "name":
            return None
        close = difflib.get_close_matches(word, sorted(FORMS), n=1, cutoff=0.6)
        meant = f"did you mean {close[0]}?" if close else "start the query with SELECT, ASK, CONSTRUCT or DESCRIBE"
        return Spot(start, text), f"{text!r} is not a query form: {meant}"
    return None


def unknown_operation(update: str) -> tuple[Spot, str] | None:
    """A misspelt update operation (INSRT) at the start of the request or after a ';', and the keyword meant.

    >>> unknown_operation("INSERT DATA { <a> <b> <c> } ; DELET WHERE { ?s ?p ?o }")[1]
    "'DELET' is not an update operation: did you mean DELETE?"
    """
    depth, starting = 0, True
    for kind, text, start in _declarations_skipped(update):
        word = text.upper() if kind == "name" else text
        if word in OPENERS:
            depth += 1
        elif word in CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0 and word == ";":
            starting = True
        elif starting and depth == 0:
            if kind == "name" and word not in UPDATE_KEYWORDS:
                close = difflib.get_close_matches(word, sorted(UPDATE_KEYWORDS), n=1, cutoff=0.6)
                meant = f"did you mean {close[0]}?" if close else \
                    "start each operation with INSERT, DELETE, LOAD, CLEAR, CREATE, DROP, COPY, MOVE, ADD or WITH"
                return Spot(start, text), f"{text!r} is not an update operation: {meant}"
            starting = False
    return None


def undeclared_prefix(query: str, prefixes: Mapping[str, str], update: bool = False) -> tuple[Spot, str] | None:
    """The first prefixed name whose prefix is neither declared in the query (or update) nor by the endpoint, and
    the fix."""
    declared = set(prefixes)
    pending_prefix = False
    for kind, text, start in token_spans(query):
        if kind == "comment":
            continue
        if pending_prefix:
            declared.add(text.split(":", 1)[0])
            pending_prefix = False
            continue
        if kind == "name" and text.upper() == "PREFIX":
            pending_prefix = True
        elif kind == "name" and ":" in text and not text.startswith("_:"):
            prefix = text.split(":", 1)[0]
            if prefix not in declared:
                return Spot(start, text), _prefix_fix(prefix, declared, update)
    return None


def _prefix_fix(prefix: str, declared: set[str], update: bool) -> str:
    """What to do about an undeclared prefix: the PREFIX line to add (a known namespace's IRI), or a close match."""
    close = difflib.get_close_matches(prefix, sorted(declared), n=1, cutoff=0.75)
    namespace = WELL_KNOWN.get(prefix)
    advice = f"the prefix '{prefix}:' is not declared; add PREFIX {prefix}: <{namespace or 'namespace IRI'}> before " \
             f"the {'update' if update else 'query'}"
    return advice + (f", or did you mean '{close[0]}:'?" if close else "")


def unbalanced(query: str) -> tuple[Spot, str] | None:
    """A closing bracket without its opener, or an opener never closed, and the fix."""
    stack: list[tuple[str, int]] = []
    for kind, text, start in token_spans(query):
        if kind != "other":
            continue
        if text in OPENERS:
            stack.append((text, start))
        elif text in CLOSERS:
            opener = OPENERS[CLOSERS.index(text)]
            if stack and stack[-1][0] != opener:
                open_text, open_start = stack[-1]
                line, column = line_column(query, open_start)
                return Spot(start, text), (f"'{open_text}' at line {line}, column {column} is still open here: add "
                                           f"'{CLOSERS[OPENERS.index(open_text)]}' before {text!r}")
            if not stack:
                return Spot(start, text), f"'{text}' closes nothing here: remove it or add the '{opener}' it closes"
            stack.pop()
    if stack:
        text, start = stack[-1]
        closer = CLOSERS[OPENERS.index(text)]
        return Spot(start, text), f"'{text}' is never closed: add '{closer}' where it ends"
    return None


__all__ = ["Spot", "explain", "missing_dot", "unbalanced", "undeclared_prefix", "unknown_form", "unknown_operation"]
