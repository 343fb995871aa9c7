"""The write side of the HTTP interface: who may write, SPARQL 1.1 Update on /sparql, and write responses.

* **Who.** Writes need ``Authorization: Bearer <token>`` matching the ``write_token`` setting
  (``KG_WRITE_TOKEN``), compared in constant time. Without a configured token every write answers 403 saying
  how to enable writes; with one, a missing or wrong token answers 401 with ``WWW-Authenticate: Bearer``.
* **What.** ``LOAD`` and ``SERVICE`` are refused (400) unless their IRI is in ``ALLOWED_SOURCES`` (empty:
  kg never reaches the network). The decision is made on SPARQL tokens, as kg.sparql_text does for queries.
* **Dataset.** ``using-graph-uri`` / ``using-named-graph-uri`` become ``USING`` / ``USING NAMED`` clauses of
  every operation with a ``WHERE`` (400 if the update has its own ``USING`` or ``WITH``).
* **Operations.** A request with several operations (``;``) is applied operation by operation to one copy of
  the store, which keeps the default graph the merge of the named graphs between operations; the whole request
  is then validated and committed at once, or not at all (kg.writes).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pyoxigraph as ox
from flask import Response, current_app, jsonify, request
from werkzeug.datastructures import WWWAuthenticate
from werkzeug.exceptions import Unauthorized

from ...errors import BadQuery, ReadOnly, WriteRejected
from ...sparql_text import CLOSERS, OPENERS, keyword_in_token, nesting_error, token_spans
from ..floor.handle import get_config, handle
from .operation import Operation

if TYPE_CHECKING:
    from ...writes import WriteResult
    from ...writes.client import WriteOperations

EXTENSION = "kg-writes"
ALLOWED_SOURCES: frozenset[str] = frozenset()
REFUSED = {"LOAD": "LOAD (fetching data from the network) is not allowed in updates on this endpoint",
           "SERVICE": "federated queries (SERVICE) are not allowed on this endpoint"}
HOW_TO_ENABLE = ("read-only: writes are not enabled on this server; to enable them, set KG_WRITE_TOKEN (or the "
                 "write_token setting) to a secret and send it as 'Authorization: Bearer <token>'")


# --- who may write ----------------------------------------------------------------------------------------

class Challenge(WWWAuthenticate):
    """A WWW-Authenticate challenge whose parameters are quoted strings (realm="kg", RFC 7235 section 2.2)."""

    def to_header(self) -> str:
        """The header value: the scheme, then each parameter as name="value"."""
        quoted = ", ".join(f'{name}="{value}"' for name, value in self.parameters.items())
        return f"{self.type.title()} {quoted}"

    def __str__(self) -> str:
        """The header value (werkzeug writes challenges with str())."""
        return self.to_header()


def authorize() -> None:
    """Let the request write, or raise 403 (writes disabled) / 401 (missing or wrong bearer token)."""
    if handle().fixed:
        raise ReadOnly("read-only: this server serves a store given in code, which cannot be written")
    token = get_config().write_token
    if not token:
        raise ReadOnly(HOW_TO_ENABLE)
    scheme, _, given = request.headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise Unauthorized("writes need 'Authorization: Bearer <token>'",
                           www_authenticate=Challenge("bearer", {"realm": "kg"}))
    if not hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8")):
        raise Unauthorized("the bearer token is not valid for writes",
                           www_authenticate=Challenge("bearer", {"realm": "kg", "error": "invalid_token"}))


def writer() -> WriteOperations:
    """The app's writer (one per app; writes are serialised across processes by the store's write lock): with query
    workers, a client of the write worker process, which applies each write bounded in time and memory and without
    network access; with none (KG_QUERY_WORKERS=0, in-process use and tests), the Writer itself, in this thread.
    The write stack (validation, reasoning) is imported on the first write: a read-only server never loads it."""
    found: WriteOperations | None = current_app.extensions.get(EXTENSION)
    if found is None:
        config = get_config()
        if config.query_workers > 0:
            from ...writes.client import WriteClient

            found = current_app.extensions.setdefault(EXTENSION, WriteClient(config))
        else:
            from ...writes import Writer

            found = current_app.extensions.setdefault(EXTENSION, Writer(config))
    return found


# --- tokens of an update ----------------------------------------------------------------------------------

def _tokens(text: str) -> Iterator[tuple[str, str, int, int, int]]:
    """(kind, text, start, end, depth before the token) for every token; comments are skipped."""
    depth = 0
    for kind, token, start in token_spans(text):
        if kind == "comment":
            continue
        yield kind, token, start, start + len(token), depth
        if kind == "other":
            if token in OPENERS:
                depth += 1
            elif token in CLOSERS:
                depth = max(0, depth - 1)


def _word(kind: str, token: str) -> str | None:
    return token.upper() if kind == "name" and ":" not in token else None


def check_update(text: str) -> None:
    """Raise BadQuery for LOAD or SERVICE (unless its IRI is allow-listed) and for too deep nesting; like queries,
    a keyword glued to the word before it counts (kg.sparql_text.refused_keyword)."""
    problem = nesting_error(text)
    if problem:
        raise BadQuery(problem.replace("query", "update"))
    tokens = list(_tokens(text))
    for index, (kind, token, *_) in enumerate(tokens):
        word = keyword_in_token(kind, token, REFUSED)
        if word is None:
            continue
        following = [t for t in tokens[index + 1:index + 3] if _word(t[0], t[1]) != "SILENT"]
        source = following[0][1][1:-1] if following and following[0][0] == "iri" else None
        if _word(kind, token) != word or source is None or source not in ALLOWED_SOURCES:
            raise BadQuery(REFUSED[word])


def split_operations(text: str) -> list[str]:
    """The operations of an update request, each preceded by the PREFIX and BASE declarations before it.

    >>> split_operations("PREFIX e: <http://e/> CLEAR ALL ; INSERT DATA { e:s e:p 'a;b' } ;")
    ['PREFIX e: <http://e/> CLEAR ALL ', "PREFIX e: <http://e/>  INSERT DATA { e:s e:p 'a;b' } "]
    """
    segments: list[tuple[int, int]] = []
    start = 0
    for kind, token, begin, end, depth in _tokens(text):
        if kind == "other" and token == ";" and depth == 0:
            segments.append((start, begin))
            start = end
    segments.append((start, len(text)))
    operations: list[str] = []
    prologue = ""
    for begin, end in segments:
        segment = text[begin:end]
        declarations, body_start = _prologue(segment)
        if segment[body_start:].strip():
            operations.append(prologue + segment)
        prologue += declarations
    return operations


def _prologue(segment: str) -> tuple[str, int]:
    """The PREFIX/BASE declarations at the start of a segment, and where the operation itself starts."""
    tokens = list(_tokens(segment))
    index, end = 0, 0
    parts: list[str] = []
    while index < len(tokens):
        word = _word(tokens[index][0], tokens[index][1])
        size = 3 if word == "PREFIX" else 2 if word == "BASE" else 0
        if not size or index + size > len(tokens):
            break
        end = tokens[index + size - 1][3]
        parts.append(segment[tokens[index][2]:end])
        index += size
    return "".join(part + " " for part in parts), end


def add_using(operation: str, using: tuple[str, ...], using_named: tuple[str, ...]) -> str:
    """The operation with USING / USING NAMED clauses for the protocol's using-graph-uri / using-named-graph-uri.

    >>> add_using("DELETE WHERE { ?s ?p ?o }", ("http://g",), ())
    'DELETE { ?s ?p ?o } USING <http://g> WHERE { ?s ?p ?o }'
    """
    if not using and not using_named:
        return operation
    clauses = "".join(f"USING <{iri}> " for iri in using) + "".join(f"USING NAMED <{iri}> " for iri in using_named)
    tokens = list(_tokens(operation))
    previous: str | None = None
    for index, (kind, token, begin, _end, depth) in enumerate(tokens):
        word = _word(kind, token) if depth == 0 else None
        if word in ("USING", "WITH"):
            raise BadQuery(f"the update names its own dataset ({word}); do not also send using-graph-uri or "
                           "using-named-graph-uri")
        if word == "WHERE":
            if previous != "DELETE":
                return operation[:begin] + clauses + operation[begin:]
            close = _matching(tokens, index + 1)
            pattern = operation[tokens[index + 1][2]:tokens[close][3]]
            return operation[:begin] + pattern + " " + clauses + operation[begin:]
        previous = word
    return operation


def _matching(tokens: list[tuple[str, str, int, int, int]], opening: int) -> int:
    """The index of the token closing the bracket at index opening."""
    depth = tokens[opening][4]
    for index in range(opening + 1, len(tokens)):
        kind, token, _, _, level = tokens[index]
        if kind == "other" and token in CLOSERS and level == depth + 1:
            return index
    raise BadQuery("unbalanced brackets in the update")


# --- the SPARQL 1.1 Update endpoint -----------------------------------------------------------------------

def answer_update(operation: Operation, base_iri: str) -> Response:
    """Apply one SPARQL 1.1 Protocol update request (POST, form update= or application/sparql-update)."""
    authorize()
    if operation.default_graphs or operation.named_graphs:
        raise BadQuery("default-graph-uri and named-graph-uri are for queries; an update names its dataset with "
                       "using-graph-uri and using-named-graph-uri")
    check_update(operation.text)
    using = tuple(operation.params.get("using-graph-uri", []))
    using_named = tuple(operation.params.get("using-named-graph-uri", []))
    for iri in using + using_named:
        try:
            ox.NamedNode(iri)
        except ValueError:
            raise BadQuery(f"using-graph-uri / using-named-graph-uri {iri!r} is not an absolute IRI") from None
    operations = [add_using(op, using, using_named) for op in split_operations(operation.text)]
    return perform(lambda w: w.update_operations(operations, base_iri, request=operation.text), 200)


# --- responses --------------------------------------------------------------------------------------------

def preferred(*types: str) -> str:
    """The media type among types the client prefers (the first one when it states no preference)."""
    best = request.accept_mimetypes.best_match(types, default=types[0])
    return best or types[0]


def perform(action: Callable[[WriteOperations], WriteResult], status: int,
            respond: Callable[[WriteResult], Response] | None = None) -> Response:
    """Run a write: its summary on success (or respond(result)), the introduced violations (422) if rejected."""
    try:
        result = action(writer())
    except WriteRejected as rejected:
        return rejected_response(rejected)
    handle().invalidate()
    if respond is not None:
        return respond(result)
    return result_response(result, status)


def result_response(result: WriteResult, status: int) -> Response:
    """A write's summary as JSON or text, by Accept."""
    if preferred("text/plain", "application/json") == "application/json":
        response = jsonify(result.as_json())
    else:
        response = Response(result.text(), content_type="text/plain; charset=utf-8")
    response.status_code = status
    response.vary.add("Accept")
    return response


def rejected_response(rejected: WriteRejected) -> Response:
    """422 with the SHACL results the write would introduce: text, JSON or Turtle by Accept."""
    report = rejected.report
    count = len(report.errors)
    message = (f"the write would introduce {count} SHACL violation{'' if count == 1 else 's'}; "
               "nothing was changed")
    kind = preferred("text/plain", "application/json", "text/turtle")
    if kind == "application/json":
        response = jsonify(status=422, error="WriteRejected", message=message, report=report.as_json())
    elif kind == "text/turtle":
        response = Response(report.turtle(), content_type="text/turtle; charset=utf-8")
    else:
        response = Response(f"422 WriteRejected: {message}\n\n{report.text()}\n",
                            content_type="text/plain; charset=utf-8")
    response.status_code = 422
    response.vary.add("Accept")
    return response


def no_content(result: WriteResult) -> Response:
    """204 No Content (Graph Store writes that change an existing graph)."""
    response = Response(status=204)
    response.headers["X-Kg-Version"] = result.version or ""
    return response


__all__: list[str] = ["ALLOWED_SOURCES", "add_using", "answer_update", "authorize", "check_update", "perform",
                      "split_operations", "writer"]
