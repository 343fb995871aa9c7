"""Query guards: refuse federated queries (SERVICE) and learn the query form before anything runs.

The decision is made on SPARQL tokens, not on the raw text: strings, IRIs, comments, variables, prefixed
names and language tags are tokens of their own, so only a bare ``SERVICE`` keyword counts.

>>> keywords('SELECT * WHERE { ?s ?p "SERVICE" } # SERVICE')
['SELECT', 'WHERE']
>>> uses_service('SELECT * { SERVICE <http://example.org/sparql> { ?s ?p ?o } }')
True
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from .errors import BadQuery

REFUSED_KEYWORDS = {"SERVICE": "federated queries (SERVICE) are not allowed on this endpoint"}
MAX_NESTING = 100
VOLATILE_FUNCTIONS = frozenset({"RAND", "NOW", "UUID", "STRUUID", "BNODE"})
OPENERS, CLOSERS = "({[", ")}]"

_TOKEN = re.compile(
    r"""
    (?P<comment>\#[^\r\n]*+)
  | (?P<string>'''(?:[^'\\]|\\.|\\\Z|'(?!''))*+(?:'''|\Z)|\"\"\"(?:[^"\\]|\\.|\\\Z|"(?!""))*+(?:\"\"\"|\Z)
      |'(?:[^'\\\r\n]|\\.)*+'?|"(?:[^"\\\r\n]|\\.)*+"?)
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*+>)
  | (?P<var>[?$]\w++)
  | (?P<lang>@[A-Za-z]++(?:-[A-Za-z0-9]++)*+)
  | (?P<name>[^\W\d][\w.\-]*+(?::[\w.\-:%\\]*+)?|:[\w.\-:%\\]*+)
  | (?P<other>\S)
    """,
    re.VERBOSE | re.DOTALL,
)


def token_spans(query: str) -> Iterator[tuple[str, str, int]]:
    """(kind, text, start offset) for every SPARQL token of a query, comments included; whitespace is skipped.
    A run of bare words joined by dots ('true.SERVICE') is matched once, so that scanning stays linear, and
    given back as the tokens it is: each word a name, each dot an 'other'.

    >>> list(token_spans("?s true.SERVICE"))
    [('var', '?s', 0), ('name', 'true', 3), ('other', '.', 7), ('name', 'SERVICE', 8)]
    """
    for match in _TOKEN.finditer(query):
        kind = match.lastgroup or "other"
        text = match.group(kind)
        if kind != "name" or "." not in text or ":" in text:
            yield kind, text, match.start()
            continue
        for part in re.finditer(r"\.|[^.]+", text):
            word = part.group()
            part_kind = "other" if word == "." or word[0].isdigit() or word[0] == "-" else "name"
            yield part_kind, word, match.start() + part.start()


def tokens(query: str) -> Iterator[tuple[str, str]]:
    """(kind, text) for every SPARQL token of a query; whitespace is skipped.

    >>> [kind for kind, _ in tokens('ex:SERVICE "a" <b> ?c @en')]
    ['name', 'string', 'iri', 'var', 'lang']
    """
    for kind, text, _ in token_spans(query):
        yield kind, text


def keywords(query: str) -> list[str]:
    """The bare words of a query (keywords and function names), upper-cased, without prefixed names."""
    return [text.upper() for kind, text in tokens(query) if kind == "name" and ":" not in text]


def uses_service(query: str) -> bool:
    """Whether the query contains a SERVICE clause.

    >>> uses_service('SELECT ?s { ?s <http://ex.org/SERVICE> "SERVICE" } # SERVICE')
    False
    >>> uses_service('SELECT * { ?s ?p true.SERVICE <http://ex.org/sparql> {} }')
    True
    """
    return refused_keyword(query, ("SERVICE",)) is not None


def volatile(query: str) -> bool:
    """Whether the query calls a function whose value changes from one run to the next (RAND, NOW, UUID,
    STRUUID, BNODE), so that its answer must not be kept and served again.

    >>> volatile("SELECT (NOW() AS ?t) {}"), volatile('SELECT ?now { ?now ex:rand "RAND()" }')
    (True, False)
    """
    return not VOLATILE_FUNCTIONS.isdisjoint(keywords(query))


def nesting_error(query: str, limit: int = MAX_NESTING) -> str | None:
    """A message naming line and column where brackets nest deeper than limit, or None.

    >>> nesting_error("ASK { FILTER(" + "(" * 3 + "1" + ")" * 4 + " }", limit=3)
    'the query nests brackets more than 3 deep (line 1, column 15); flatten it'
    """
    depth = 0
    for match in _TOKEN.finditer(query):
        if match.lastgroup != "other":
            continue
        char = match.group()
        if char in OPENERS:
            depth += 1
            if depth > limit:
                return f"the query nests brackets more than {limit} deep ({position(query, match.start())}); flatten it"
        elif char in CLOSERS:
            depth = max(0, depth - 1)
    return None


SELECT, ASK, GRAPH = "select", "ask", "graph"  # the query forms (GRAPH: CONSTRUCT and DESCRIBE)
FORMS = {"SELECT": SELECT, "ASK": ASK, "CONSTRUCT": GRAPH, "DESCRIBE": GRAPH}
UPDATE_KEYWORDS = {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"}


def position(text: str, offset: int) -> str:
    """'line L, column C' (1-based) of an offset in a text.

    >>> position("ASK {\\n  ?x }", 8)
    'line 2, column 3'
    """
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def query_form(query: str) -> str:
    """The query form ("select", "ask" or "graph" for CONSTRUCT/DESCRIBE), read from the tokens after the
    prologue (BASE and PREFIX declarations); nothing is evaluated, and the scan stops at the form keyword.

    >>> query_form("PREFIX ex: <http://e/> # a comment\\nconstruct { ?s ?p ?o } WHERE { ?s ?p ?o }")
    'graph'
    >>> query_form("BASE <http://e/> SELECT * {}")
    'select'
    >>> query_form("INSERT DATA { <a> <b> <c> }")
    Traceback (most recent call last):
    ...
    kg.errors.BadQuery: malformed query: INSERT at line 1, column 1 starts a SPARQL update; send updates ...
    """
    expecting: list[str] = []
    for kind, text, start in token_spans(query):
        if kind == "comment":
            continue
        if expecting:
            wanted = expecting.pop(0)
            if wanted == kind:
                continue
            raise BadQuery(f"malformed query: expected {'an IRI' if wanted == 'iri' else 'a prefix name'} at "
                           f"{position(query, start)}, found {text[:40]!r}")
        word = text.upper() if kind == "name" else ""
        if word == "BASE":
            expecting = ["iri"]
        elif word == "PREFIX":
            expecting = ["name", "iri"]
        elif word in FORMS:
            return FORMS[word]
        elif word in UPDATE_KEYWORDS:
            raise BadQuery(f"malformed query: {text} at {position(query, start)} starts a SPARQL update; "
                           "send updates with POST as update= or application/sparql-update")
        else:
            raise BadQuery(f"malformed query: expected SELECT, ASK, CONSTRUCT or DESCRIBE at "
                           f"{position(query, start)}, found {text[:40]!r}")
    raise BadQuery("malformed query: the query ends before SELECT, ASK, CONSTRUCT or DESCRIBE")


def refused_keyword(text: str, refused: Collection[str]) -> str | None:
    """The first refused keyword found inside a bare word of the text, or None.

    The engine's parser needs no space between a keyword and what comes before it ('trueSERVICE' is read as
    ``true`` then ``SERVICE``, '1e0SERVICE' as a number then ``SERVICE``), so any bare word (not a string, IRI,
    variable, prefixed name or comment) that merely contains the keyword counts; SPARQL has no bare word that
    does so innocently. The query workers cannot reach the network whatever this says (kg.sandbox): this check
    exists to answer the honest spelling with a clear 400.

    >>> refused_keyword('SELECT * { ?s ?p trueSERVICE <http://x/> {} }', {"SERVICE"})
    'SERVICE'
    >>> refused_keyword('SELECT * { ?service <http://x/SERVICE> "SERVICE", ex:service }', {"SERVICE"}) is None
    True
    """
    for kind, token, _ in token_spans(text):
        keyword = keyword_in_token(kind, token, refused)
        if keyword is not None:
            return keyword
    return None


def keyword_in_token(kind: str, token: str, refused: Collection[str]) -> str | None:
    """The first refused keyword inside one bare-word token (see refused_keyword), or None."""
    if kind not in ("name", "other") or ":" in token:
        return None
    upper = token.upper()
    return next((keyword for keyword in refused if keyword in upper), None)


def check_query(query: str) -> None:
    """Raise BadQuery if the query uses a refused feature or nests too deeply for the engine."""
    problem = nesting_error(query)
    if problem:
        raise BadQuery(problem)
    keyword = refused_keyword(query, REFUSED_KEYWORDS)
    if keyword is not None:
        raise BadQuery(REFUSED_KEYWORDS[keyword])
