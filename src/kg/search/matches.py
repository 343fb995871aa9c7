"""``?x kg:matches "text"`` in a SPARQL query, answered from the search index before the engine runs.

The engine has no full-text index and a filter would scan every literal, so the server rewrites each pattern
``VAR kg:matches "text"`` (or ``VAR <…ontology#matches> "text"``) into ``VALUES VAR { <iri> … }``: the best
matches of the text, best first, at most ``limit``. The pattern must start a triple (its subject a variable, the
text a plain string literal); more predicates may follow after ``;``, as in
``?p kg:matches "ml compilers" ; schema:name ?name``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import BadQuery
from ..prefixes import ONTOLOGY_IRI, PREFIXES
from ..sparql_text import token_spans

MATCHES = ONTOLOGY_IRI + "#matches"
Hits = Callable[[str], list[str]]
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _prefixed(query: str) -> set[str]:
    """The prefixed names that stand for kg:matches in a query (its own PREFIX declarations win)."""
    declared = dict(PREFIXES)
    spans = list(token_spans(query))
    for number, (kind, text, _) in enumerate(spans[:-2]):
        if kind == "name" and text.upper() == "PREFIX" and spans[number + 1][0] == "name":
            name, iri = spans[number + 1][1], spans[number + 2][1]
            if iri.startswith("<") and name.endswith(":"):
                declared[name[:-1]] = iri[1:-1]
    return {f"{prefix}:{MATCHES[len(ns):]}" for prefix, ns in declared.items() if MATCHES.startswith(ns)}


def uses_matches(query: str) -> bool:
    """Whether a query may hold the pattern (a cheap test before tokenising)."""
    return "matches" in query


def _literal(token: str) -> str:
    """The text of a SPARQL string token (single, double or long quotes), its escapes read.

    >>> _literal(r'"ml \"compilers\""')
    'ml "compilers"'
    """
    body = token[3:-3] if token[:3] in ('"""', "'''") else token[1:-1]
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), body)


def expand_matches(query: str, hits: Hits | None) -> str:
    """The query with each ``VAR kg:matches "text"`` replaced by ``VALUES VAR { … }`` of the text's best matches.

    Raises:
        BadQuery: the pattern is not at the start of a triple, its subject is not a variable, its object is not a
            plain string, or no search index serves this store (hits is None).
    """
    if not uses_matches(query):
        return query
    names = _prefixed(query) | {f"<{MATCHES}>"}
    spans = list(token_spans(query))
    pieces, cursor = [], 0
    for number, (kind, text, start) in enumerate(spans):
        if kind not in ("name", "iri") or text not in names:
            continue
        subject = spans[number - 1] if number else ("", "", 0)
        if subject[0] != "var":
            raise BadQuery(f"kg:matches at {start}: the pattern must start a triple with a variable subject, as in "
                           '?x kg:matches "text"')
        if number + 1 >= len(spans) or spans[number + 1][0] != "string":
            raise BadQuery(f"kg:matches at {start}: its object must be a string, as in ?x kg:matches \"text\"")
        if hits is None:
            raise BadQuery("kg:matches needs the search index, which this store version does not have; "
                           "run kg build")
        literal = spans[number + 1]
        end = literal[2] + len(literal[1])
        following = spans[number + 2] if number + 2 < len(spans) else None
        if following is not None and following[0] == "lang":
            raise BadQuery(f"kg:matches at {start}: the text must be a plain string, without a language tag")
        iris = " ".join(f"<{iri}>" for iri in hits(_literal(literal[1])))
        replacement = f"VALUES {subject[1]} {{ {iris} }}"
        if following is not None and following[1] == ";":
            replacement += f" {subject[1]}"
            end = following[2] + 1
        pieces.append(query[cursor:subject[2]] + replacement)
        cursor = end
    return "".join(pieces) + query[cursor:]
