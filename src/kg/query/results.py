"""Run a query against the store and serialise its results within the row and time limits.

Result-size limit: a result with more than ``max_results`` rows (SELECT) or triples (CONSTRUCT/DESCRIBE)
is an error (``TooManyResults``, 400, "add a LIMIT"), never a silently truncated answer: clients such as
SPARQLWrapper ignore headers, and a truncated COUNT-less result looks complete. A SELECT result is written
directly in the requested format while a bound on its rows is counted in the bytes (exact for TSV and XML,
from above for JSON and CSV, see ROW_MARKS); only when that bound passes the limit is the query run again
and counted exactly in TSV, one row per line, stopping as soon as the limit is passed. Graph results stream
as N-Triples (one triple per line), so an oversized result is never built in full.

Graph results are deduplicated, sorted and their blank nodes canonically labelled (RDFC-1.0), so the same
CONSTRUCT gives the same bytes from every worker and every run.

Time limit: ``query_timeout`` is checked each time pyoxigraph hands over a chunk of serialised results
(``QueryTimeout``, 503). pyoxigraph offers no way to cancel a query, so a query that computes for long
before producing its first chunk is only stopped at that chunk.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, cast

import pyoxigraph as ox

from ..errors import BadQuery, QueryTimeout, TooManyResults
from ..formats import BOOLEAN_FORMATS, GRAPH_FORMATS, RESULTS_FORMATS, Format
from ..prefixes import PREFIXES
from ..sparql_syntax import explain
from ..sparql_text import ASK, GRAPH, SELECT
from .wire import QueryJob

if TYPE_CHECKING:
    from ..store.protocol import DefaultGraphs, NamedGraphs, Queryable, QueryResult

PREVIEW_MAX_BYTES = 2_000_000
# What marks a row in each SELECT results format, the rows it gives beside the marks counted, and whether the
# count is exact: TSV and XML count exactly (a row per line after the header; "<result>" is markup only, text
# escapes "<"); in oxigraph's JSON ",{" opens every row after the first but may also occur inside a string, and
# a quoted CSV value may hold a line break, so those two count from above.
ROW_MARKS: dict[Format, tuple[bytes, int, bool]] = {
    Format.TSV: (b"\n", -1, True), Format.SPARQL_XML: (b"<result>", 0, True), Format.SPARQL_JSON: (b",{", 1, False),
    Format.CSV: (b"\n", -1, False),
}


@dataclass(frozen=True)
class Limits:
    """How many rows or triples a result may have, and for how many seconds a query may run."""

    max_results: int
    timeout: float


class _Counter:
    """A binary sink (write and flush, all pyoxigraph's serialisers call) that counts lines and stops the writer
    past a line or time limit; a plain object, not an io.RawIOBase, whose set-up cost 15 µs a query."""

    def __init__(self, max_lines: int, limits: Limits, unit: str) -> None:
        self.chunks: list[bytes] = []
        self.lines = 0
        self.size = 0
        self.max_lines = max_lines
        self.limits = limits
        self.unit = unit
        self.deadline = time.monotonic() + limits.timeout

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Keep a chunk; raise once the line or time limit is passed."""
        chunk = bytes(data)
        self.chunks.append(chunk)
        self.lines += self.count(chunk)
        self.size += len(chunk)
        self.check_full()
        if time.monotonic() > self.deadline:
            raise QueryTimeout(f"the query ran past the time limit of {self.limits.timeout:g} s; "
                               "narrow it or add a LIMIT")
        return len(chunk)

    def flush(self) -> None:
        """Nothing to flush: chunks are kept as they come."""

    def count(self, chunk: bytes) -> int:
        """The lines a chunk adds."""
        return chunk.count(b"\n")

    def check_full(self) -> None:
        """Raise TooManyResults past the line limit."""
        if self.lines > self.max_lines:
            raise TooManyResults(f"the result has more than {self.limits.max_results} {self.unit}, the most this "
                                 "endpoint returns; add a LIMIT or narrow the query")

    def value(self) -> bytes:
        """Everything written."""
        return b"".join(self.chunks)

    def output(self) -> IO[bytes]:
        """This sink as the binary file pyoxigraph's serialisers take (they call only write and flush)."""
        return cast("IO[bytes]", self)


class RowsUncertain(Exception):
    """Raised while writing a result directly once its bound on rows passes the limit: count it exactly instead."""


class _RowBound(_Counter):
    """A sink for a SELECT result written in its final format, bounding its rows by counting a format's row mark."""

    def __init__(self, fmt: Format, limits: Limits) -> None:
        self.mark, extra, self.exact = ROW_MARKS[fmt]
        super().__init__(limits.max_results - extra, limits, "rows")  # marks + extra > max_results: too many
        self.tail = b""

    def count(self, chunk: bytes) -> int:
        """The row marks a chunk adds, one split across chunks included."""
        joined = self.tail + chunk
        found = joined.count(self.mark) - self.tail.count(self.mark)
        self.tail = joined[-(len(self.mark) - 1):] if len(self.mark) > 1 else b""
        return found

    def check_full(self) -> None:
        """Past the bound: too many rows when the count is exact, else uncertain (RowsUncertain)."""
        if self.lines > self.max_lines and not self.exact:
            raise RowsUncertain
        super().check_full()


class _PreviewFull(Exception):
    """Raised inside a serialiser once a preview has enough lines or bytes."""


class _Preview(_Counter):
    """A sink that keeps the first complete lines of a line-per-row serialisation, up to a line or byte cap."""

    def __init__(self, max_lines: int, limits: Limits) -> None:
        super().__init__(max_lines, limits, "rows")
        self.full = False

    def check_full(self) -> None:
        """Stop the writer once the preview has its lines or bytes (not an error: the page links to the rest)."""
        if self.lines > self.max_lines or self.size > PREVIEW_MAX_BYTES:
            self.full = True
            raise _PreviewFull

    def complete_lines(self) -> bytes:
        """The whole lines kept (a line cut by the stop is dropped), at most max_lines of them."""
        whole = self.value().split(b"\n")[:-1][: self.max_lines]
        return b"".join(line + b"\n" for line in whole)


def preview_result(result: QueryResult, rows: int, limits: Limits) -> bytes:
    """The first rows (or triples) of a result for an HTML page, as JSON: {"truncated": bool} with "results"
    (SPARQL JSON) or "turtle"; evaluation stops once the preview is full."""
    if isinstance(result, ox.QueryBoolean):
        return json.dumps({"truncated": False, "results": json.loads(_bytes(result.serialize(
            format=ox.QueryResultsFormat.JSON)))}).encode("utf-8")
    sink = _Preview(rows + 1 if isinstance(result, ox.QuerySolutions) else rows, limits)
    try:
        if isinstance(result, ox.QuerySolutions):
            result.serialize(sink.output(), format=ox.QueryResultsFormat.TSV)
        else:
            result.serialize(sink.output(), format=ox.RdfFormat.N_TRIPLES)
    except _PreviewFull:
        pass
    kept = sink.complete_lines()
    if isinstance(result, ox.QuerySolutions):
        header = b"\t".join(f"?{v.value}".encode() for v in result.variables)
        table = kept if kept.startswith(header) else header + b"\n" + kept
        out = io.BytesIO()
        solutions = ox.parse_query_results(table, format=ox.QueryResultsFormat.TSV)
        solutions.serialize(out, format=ox.QueryResultsFormat.JSON)
        return json.dumps({"truncated": sink.full, "results": json.loads(out.getvalue())}).encode("utf-8")
    turtle = serialize_rdf(ox.parse(b"".join(canonical_lines(kept)), format=ox.RdfFormat.N_TRIPLES), Format.TURTLE)
    return json.dumps({"truncated": sink.full, "turtle": turtle.decode("utf-8")}).encode("utf-8")


def answer(store: Queryable, job: QueryJob) -> bytes:
    """Run one job against an open store and serialise the result (used in workers and in-process); a result
    whose rows could pass the limit is run again and counted exactly."""
    limits = Limits(job.max_results, job.timeout)
    if job.preview:
        return preview_result(start(store, job), job.preview, limits)
    fmt = Format[job.format]
    try:
        return serialize_result(start(store, job), fmt, limits)
    except RowsUncertain:
        return serialize_counted(start(store, job), fmt, limits)


def start(store: Queryable, job: QueryJob) -> QueryResult:
    """Parse and start a job's query against an open store."""
    return run_query(store, job.text, base_iri=job.base_iri, default_graphs=job.default_graphs,
                     named_graphs=job.named_graphs, dataset=job.dataset)


def result_form(result: QueryResult) -> str:
    """The form of a pyoxigraph query result (SELECT, ASK or GRAPH, as sparql_text names the query forms)."""
    if isinstance(result, ox.QuerySolutions):
        return SELECT
    if isinstance(result, ox.QueryBoolean):
        return ASK
    return GRAPH


def formats_for(form: str) -> Sequence[Format]:
    """The formats a result of this query form can be serialised in, preferred first."""
    return {SELECT: RESULTS_FORMATS, ASK: BOOLEAN_FORMATS, GRAPH: GRAPH_FORMATS}[form]


def run_query(store: Queryable, text: str, *, base_iri: str, default_graphs: Sequence[str] = (),
              named_graphs: Sequence[str] = (), dataset: bool = False) -> QueryResult:
    """Parse and start a query; with dataset, the given graphs replace the query's own dataset.

    Raises:
        BadQuery: a syntax error (with pyoxigraph's position) or an invalid graph IRI.
    """
    default: DefaultGraphs | None = None
    named: NamedGraphs | None = None
    if dataset:
        default = [_graph_node(iri, "default-graph-uri") for iri in default_graphs]
        named = [_graph_node(iri, "named-graph-uri") for iri in named_graphs]
    try:
        return store.query(text, base_iri=base_iri, prefixes=PREFIXES, default_graph=default, named_graphs=named)
    except SyntaxError as error:
        raise BadQuery(f"malformed query: {explain(text, str(error), PREFIXES)}") from None


def _graph_node(iri: str, param: str) -> ox.NamedNode:
    try:
        return ox.NamedNode(iri)
    except ValueError as error:
        raise BadQuery(f"{param} {iri!r} is not an absolute IRI: {error}") from None


def serialize_result(result: QueryResult, fmt: Format, limits: Limits) -> bytes:
    """Serialise a query result in fmt, enforcing the row/triple and time limits.

    Raises:
        RowsUncertain: a SELECT result may have more rows than the limit; serialize_counted on a fresh run of
            the query decides.
    """
    if isinstance(result, ox.QuerySolutions) and fmt in ROW_MARKS:
        sink = _RowBound(fmt, limits)
        result.serialize(sink.output(), format=fmt.ox)
        return sink.value()
    return serialize_counted(result, fmt, limits)


def serialize_counted(result: QueryResult, fmt: Format, limits: Limits) -> bytes:
    """Serialise a query result in fmt, counting its rows or triples exactly on the way (one per line)."""
    if isinstance(result, ox.QueryBoolean):
        return _bytes(result.serialize(format=fmt.ox))
    if isinstance(result, ox.QuerySolutions):
        counter = _Counter(limits.max_results + 1, limits, "rows")  # +1: the TSV header line
        result.serialize(counter.output(), format=ox.QueryResultsFormat.TSV)
        if fmt is Format.TSV:
            return counter.value()
        out = io.BytesIO()
        ox.parse_query_results(counter.value(), format=ox.QueryResultsFormat.TSV).serialize(out, format=fmt.ox)
        return out.getvalue()
    counter = _Counter(limits.max_results, limits, "triples")
    result.serialize(counter.output(), format=ox.RdfFormat.N_TRIPLES)
    lines = canonical_lines(counter.value())
    if fmt is Format.N_TRIPLES:
        return b"".join(lines)
    return serialize_rdf(ox.parse(b"".join(lines), format=ox.RdfFormat.N_TRIPLES), fmt)


def _bytes(serialized: bytes | None) -> bytes:
    """What a serialiser given no output returned (always bytes; None only when it wrote to an output)."""
    return bytes(serialized or b"")


def canonical_lines(ntriples: bytes) -> list[bytes]:
    """Distinct N-Triples lines, sorted; blank nodes relabelled by RDF canonicalization (RDFC-1.0) when there
    are any, since a CONSTRUCT template's blank nodes get fresh random labels on every run."""
    if b"_:" not in ntriples:
        return sorted(set(ntriples.splitlines(keepends=True)))
    dataset = ox.Dataset(ox.parse(ntriples, format=ox.RdfFormat.N_TRIPLES))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return sorted({f"{quad.triple} .\n".encode() for quad in dataset})


def serialize_rdf(statements: Iterable[ox.Triple] | Iterable[ox.Quad], fmt: Format,
                  prefixes: Mapping[str, str] = PREFIXES) -> bytes:
    """Serialise pyoxigraph triples or quads in an RDF format, with prefixes where the format has them."""
    if not fmt.is_rdf:
        raise ValueError(f"{fmt.media_type} is not an RDF format")
    used = dict(prefixes) if fmt in (Format.TURTLE, Format.TRIG, Format.RDF_XML) else None
    out = io.BytesIO()
    ox.serialize(statements, out, format=fmt.ox, prefixes=used)
    return out.getvalue()
