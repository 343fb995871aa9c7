"""The common SPARQL mistakes found on a query's tokens, each with its place and its fix (used by kg.sparql_syntax).

A check returns the Spot of the mistake and one sentence that says what to change, or None. They run only once the
parser has refused the text, so they may be bold; each is also kept silent on valid queries by the tests.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .sparql_text import token_spans

TERM_KINDS = {"var", "iri", "string", "number"}
HEAD_WORDS = {"SELECT", "ORDER", "GROUP", "HAVING", "LIMIT", "OFFSET"}
RESETS = {".", ";", ",", "{", "}"}
GROUP_WORDS = {"FILTER", "OPTIONAL", "BIND", "MINUS", "UNION", "GRAPH", "SERVICE", "VALUES", "SELECT", "WHERE",
               "CONSTRUCT", "DESCRIBE", "ASK", "FROM", "NAMED", "ORDER", "GROUP", "HAVING", "LIMIT", "OFFSET",
               "PREFIX", "BASE", "BY", "DISTINCT", "REDUCED", "AS", "NOT", "EXISTS", "IN"}
AGGREGATES = {"COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT"}
# Every bare word SPARQL 1.1 (with SPARQL 1.2's triple terms and Oxigraph's extensions) knows: keywords and functions.
SPARQL_WORDS = GROUP_WORDS | AGGREGATES | {
    "ASC", "DESC", "UNDEF", "SILENT", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "TO", "INTO",
    "INSERT", "DELETE", "DATA", "WITH", "USING", "DEFAULT", "ALL", "LATERAL", "SEPARATOR", "TRUE", "FALSE", "STR",
    "LANG", "LANGMATCHES", "DATATYPE", "BOUND", "IRI", "URI", "BNODE", "RAND", "ABS", "CEIL", "FLOOR", "ROUND",
    "CONCAT", "STRLEN", "UCASE", "LCASE", "ENCODE_FOR_URI", "CONTAINS", "STRSTARTS", "STRENDS", "STRBEFORE",
    "STRAFTER", "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS", "TIMEZONE", "TZ", "NOW", "UUID", "STRUUID",
    "MD5", "SHA1", "SHA256", "SHA384", "SHA512", "COALESCE", "IF", "STRLANG", "STRDT", "SAMETERM", "ISIRI", "ISURI",
    "ISBLANK", "ISLITERAL", "ISNUMERIC", "REGEX", "SUBSTR", "REPLACE", "TRIPLE", "SUBJECT", "PREDICATE", "OBJECT",
    "ISTRIPLE", "LANGDIR", "STRLANGDIR", "HASLANG", "HASLANGDIR", "ADJUST", "A"}
KEYWORDS_MEANT = sorted(SPARQL_WORDS - {"A", "TZ", "IF", "IN", "AS", "BY", "TO"})
_NUMBER = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Spot:
    """A place in the query: character offset, and the token there ('' at the end of the query)."""

    offset: int
    token: str


Found = tuple[Spot, str]


def line_column(query: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of a character offset."""
    return query.count("\n", 0, offset) + 1, offset - (query.rfind("\n", 0, offset) + 1) + 1


def spans(query: str) -> list[tuple[str, str, int]]:
    """The query's tokens without comments, a number (1, 4.5, -2e3) as one token of kind 'number'."""
    merged: list[tuple[str, str, int]] = []
    end = -1
    for kind, text, start in token_spans(query):
        if start < end or kind == "comment":
            continue
        number = _NUMBER.match(query, start) if kind == "other" else None
        if number and (text[0].isdigit() or text in "+-." and len(number.group()) > 1):
            merged.append(("number", number.group(), start))
            end = number.end()
            continue
        merged.append((kind, text, start))
    return merged


def unclosed_string(query: str) -> Found | None:
    """A string literal that does not end (a missing closing quote), and the fix."""
    for kind, text, start in spans(query):
        if kind != "string":
            continue
        quote = text[:3] if text[:3] in ('"""', "'''") else text[0]
        body = text[len(quote):]
        escaped = len(body[:-len(quote)]) - len(body[:-len(quote)].rstrip("\\")) if body.endswith(quote) else 0
        if len(body) < len(quote) or not body.endswith(quote) or escaped % 2:
            closer = "the same line" if len(quote) == 1 else "the end of the text"
            return Spot(start, text[:20]), (f"this string is never closed: end it with {quote} on {closer} "
                                             "(a string over several lines needs \"\"\" … \"\"\")")
    return None


def unknown_word(query: str) -> Found | None:
    """A bare word that is no SPARQL keyword or function (WEHRE, SELCT, FITLER), and the keyword meant."""
    for kind, text, start in spans(query):
        if kind != "name" or ":" in text or text.upper() in SPARQL_WORDS or text == "a":
            continue
        close = difflib.get_close_matches(text.upper(), KEYWORDS_MEANT, n=1, cutoff=0.6)
        meant = f"did you mean {close[0]}?" if close else \
            "a name needs a prefix (schema:name), an IRI needs <…>, a variable needs ?"
        return Spot(start, text), f"{text!r} is not a SPARQL keyword: {meant}"
    return None


@dataclass
class _Pattern:
    """How far the triple pattern being read has come: terms since the last '{', '.' or keyword, and what began it."""

    terms: int = 0
    after: str = "{"
    bnode_subject: bool = False


def _pattern_events(query: str) -> Iterator[tuple[str, str, int, _Pattern]]:
    """Walk the groups: ('term', text, start, pattern) after each term, ('end', text, start, pattern) before each
    '.', ';', ',', '}' or keyword that ends a run of terms."""
    tokens = spans(query)
    braces, nested, values_depth = 0, 0, 0
    skip: str | None = None  # "head": a projection or modifier (until a brace); "values": a VALUES block
    pattern, call = _Pattern(), False  # call: the outer '(' opens a call (FILTER(, regex(), not a path or a list
    for index, (kind, text, start) in enumerate(tokens):
        word = text.upper() if kind == "name" and ":" not in text else ""
        if text in "{}":
            if text == "}" and not skip and braces > 0:
                yield "end", text, start, pattern
            braces += 1 if text == "{" else -1
            pattern = _Pattern()
            if skip == "head" or (skip == "values" and text == "}" and braces == values_depth):
                skip = None
            continue
        if skip or braces == 0:
            continue
        if text in "([" or text in ")]":
            nested += 1 if text in "([" else -1
            if text == "[" and nested == 1:
                pattern.bnode_subject = pattern.bnode_subject or pattern.terms == 0
                pattern.terms += 1
            if text == "(" and nested == 1:
                call = _opens_call(tokens, index)
            if text == ")" and nested == 0:
                pattern.terms = 0 if call else pattern.terms + 1  # a path group or a collection is one term
            continue
        if nested:
            continue
        if word in GROUP_WORDS or text in RESETS:
            yield "end", text, start, pattern
            pattern = _Pattern(after=text if text in RESETS else "{")
            skip = "head" if word in HEAD_WORDS else "values" if word == "VALUES" else None
            values_depth = braces
        elif text in ("/", "|"):  # a path joins two predicates into one
            pattern.terms -= 1
        elif kind in TERM_KINDS or (kind == "name" and (":" in text or text == "a" or word in ("TRUE", "FALSE"))):
            if kind != "name" or not _around(tokens, index - 1, "^"):
                pattern.terms += 1
            yield "term", text, start, pattern


def _opens_call(tokens: list[tuple[str, str, int]], index: int) -> bool:
    """Whether the '(' at index calls a keyword or function (FILTER (…), BIND(…), xsd:integer(…))."""
    if index == 0 or tokens[index - 1][0] != "name":
        return False
    _, before, start = tokens[index - 1]
    return before.upper() in SPARQL_WORDS - {"A"} or start + len(before) == tokens[index][2]


def _around(tokens: list[tuple[str, str, int]], index: int, text: str) -> bool:
    """Whether the token before or after position index is the given text (a '^^' datatype marker)."""
    return any(0 <= i < len(tokens) and tokens[i][1] == text for i in (index - 1, index + 1))


def missing_dot(query: str) -> Found | None:
    """A fourth term in a row inside a group (two triple patterns not separated by '.'), and the fix."""
    for event, text, start, pattern in _pattern_events(query):
        if event == "term" and pattern.terms == 4:
            line, column = line_column(query, start)
            return Spot(start, text), (f"a '.' is probably missing before {text!r} (line {line}, column "
                                       f"{column}): end each triple pattern with ' .' before the next")
    return None


def incomplete_pattern(query: str) -> Found | None:
    """A triple pattern that ends before its object (or predicate), as in { ?x ?y }, and the fix."""
    for event, text, start, pattern in _pattern_events(query):
        if event != "end" or pattern.bnode_subject:
            continue
        short = pattern.after in "{." and pattern.terms in (1, 2) or pattern.after == ";" and pattern.terms == 1
        if short:
            missing = "an object" if pattern.terms == 2 or pattern.after == ";" else "a predicate and an object"
            shown = repr(text) if text else "the end"
            return Spot(start, text), (f"the triple pattern before {shown} lacks {missing}: each pattern is subject "
                                       "predicate object (use a variable, e.g. ?o, for the part you look for)")
    return None


def ungrouped_variable(query: str) -> Found | None:
    """A variable selected beside an aggregate (or with GROUP BY) that is not grouped, and the fix."""
    tokens = [(k, t.upper() if k == "name" else t, s) for k, t, s in spans(query)]
    select = next((i for i, (_, t, _) in enumerate(tokens) if t == "SELECT"), None)
    if select is None:
        return None
    projected: list[tuple[str, int]] = []
    aggregate, depth, index = False, 0, select + 1
    while index < len(tokens) and tokens[index][1] not in ("WHERE", "{", "FROM"):
        kind, text, start = tokens[index]
        depth += 1 if text == "(" else -1 if text == ")" else 0
        aggregate = aggregate or text in AGGREGATES
        if kind == "var" and depth == 0:
            projected.append((text, start))
        index += 1
    grouped = _grouped(tokens[index:])
    if not projected or (not aggregate and grouped is None):
        return None
    for var, start in projected:
        if var not in (grouped or set()):
            reason = "beside an aggregate" if aggregate else "with GROUP BY"
            return Spot(start, var), (f"{var} is selected {reason} but is not grouped: add it to GROUP BY, or "
                                      f"select (SAMPLE({var}) AS {var}_any)")
    return None


def _grouped(tokens: list[tuple[str, str, int]]) -> set[str] | None:
    """The variables of the outer GROUP BY (None without one)."""
    braces = 0
    found_vars: set[str] | None = None
    for index, (kind, text, _) in enumerate(tokens):
        braces += 1 if text == "{" else -1 if text == "}" else 0
        if braces == 0 and text == "GROUP" and index + 1 < len(tokens) and tokens[index + 1][1] == "BY":
            found_vars = set()
        elif found_vars is not None and braces == 0 and text in ("HAVING", "ORDER", "LIMIT", "OFFSET", "VALUES"):
            break
        elif found_vars is not None and kind == "var":
            found_vars.add(text)
    return found_vars
