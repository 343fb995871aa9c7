"""The SPARQL 1.1 Protocol endpoint /sparql: queries, the service description, and updates.

GET or POST (form-encoded or application/sparql-query) runs a query; a GET without a query answers the
service description (Turtle by default, an HTML form for browsers). Updates (POST, update= or
application/sparql-update) go to kg.server.sparql.updates (bearer token, validation, atomic commit). Results are
content-negotiated (Accept, or format= which wins) and carry ``Vary: Accept``.
"""

from __future__ import annotations

import json

import pyoxigraph as ox
from flask import Blueprint, Response, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from ...errors import BadQuery, KgError
from ...exports import compact_jsonld, load_context
from ...formats import GRAPH_FORMATS, Format
from ...negotiation import negotiate
from ...query.results import serialize_rdf
from ...query.wire import QueryJob
from ...search.matches import uses_matches
from ...store import triple_counts
from ..floor.caches import mark, not_modified
from ..floor.cors import add_cors_headers
from ..floor.graphs import ox_triples
from ..floor.handle import get_config, get_store, handle
from ..floor.searching import matching_iris
from .answers import NOT_KEPT, RAISED, answer_formats, answer_tag, checked_query, query_job
from .operation import Operation, read_operation
from .query_page import render_results_html
from .service import SD_PREFIXES, query_page, service_description
from .updates import answer_update

bp = Blueprint("sparql", __name__)
DESCRIPTION_FORMATS: tuple[Format, ...] = GRAPH_FORMATS + (Format.HTML,)


@bp.before_request
def raise_early_error() -> None:
    """Raise the error the query fast path met on this request, so that it is answered as any other error."""
    error = request.environ.pop(RAISED, None)
    if error is not None:
        raise error


@bp.after_request
def cors(response: Response) -> Response:
    """CORS on every /sparql response, including OPTIONS preflights and errors."""
    return add_cors_headers(response, request, get_config().cors_origins)


def endpoint_url() -> str:
    """The absolute URL of the endpoint (also the base IRI for relative IRIs in queries)."""
    return url_for("sparql.endpoint", _external=True)


def negotiated(body: bytes | str, fmt: Format) -> Response:
    """A response in a negotiated format."""
    response = Response(body, content_type=fmt.content_type)
    response.vary.add("Accept")
    return response


@bp.route("/sparql", methods=["GET", "POST"], strict_slashes=False)
def endpoint() -> BaseResponse:
    """Answer one SPARQL Protocol request."""
    config = get_config()
    operation = read_operation(request, config.max_request_bytes)
    if operation.kind is None:
        if request.method == "POST":
            raise BadQuery("a POST needs a query (query= or application/sparql-query) or an update")
        return describe(operation)
    if operation.kind == "update":
        return answer_update(operation, endpoint_url())  # writes: kg.server.sparql.updates (token, validation, commit)
    return answer_query(operation)


def prefers_html() -> bool:
    """Whether the client (a browser) prefers an HTML page over SPARQL results."""
    return request.accept_mimetypes.best_match(["application/sparql-results+json", "text/html"]) == "text/html"


def answer_query(operation: Operation) -> BaseResponse:
    """Check the query and learn its form, negotiate the format, then answer it (cache, worker or in-process).

    A browser (text/html preferred) gets the query page with the first html_rows results as a table (the
    worker stops evaluating there), or the error in place.
    """
    config = get_config()
    try:
        checked = checked_query(operation.text)
    except BadQuery as error:
        if operation.format is None and prefers_html():
            page = negotiated(render_results_html(operation.text, error=str(error)), Format.HTML)
            page.status_code = error.status
            return page
        raise
    fmt = negotiate(request.headers.get("Accept"), answer_formats(checked.form), operation.format)
    job = query_job(config, operation, endpoint_url(), fmt, checked.volatile,
                    matching_iris(handle()) if uses_matches(operation.text) else None)
    tag = answer_tag(job, handle().version()) if request.method == "GET" and not job.volatile else None
    if tag is not None:
        early = not_modified(tag, vary=True)
        if early is not None:
            return early
    response = answer_job(operation, job, fmt)
    if job.volatile:
        response.headers["Cache-Control"] = NOT_KEPT
    elif tag is not None and response.status_code == 200:
        mark(response, tag, vary=True)
    return response


def answer_job(operation: Operation, job: QueryJob, fmt: Format) -> Response:
    """The response to a checked query's job in its negotiated format (HTML: the query page with a preview)."""
    config = get_config()
    if fmt is Format.JSON_LD:  # compacted with the project's context, as the dumps are
        triples = list(ox.parse(handle().execute(job), format=ox.RdfFormat.N_TRIPLES))
        return negotiated(compact_jsonld(triples, load_context(config)), fmt)
    if fmt is not Format.HTML:
        return negotiated(handle().execute(job), fmt)
    try:
        body = json.loads(handle().execute(job))
    except KgError as error:
        page = negotiated(render_results_html(operation.text, error=str(error)), fmt)
        page.status_code = error.status
        return page
    if "turtle" in body:
        return negotiated(render_results_html(operation.text, graph_text=body["turtle"],
                                              truncated=body["truncated"]), fmt)
    return negotiated(render_results_html(operation.text, results_json=body["results"],
                                          truncated=body["truncated"]), fmt)


def describe(operation: Operation) -> Response:
    """The service description as RDF, or the HTML query form for browsers."""
    fmt = negotiate(request.headers.get("Accept"), DESCRIPTION_FORMATS, operation.format)
    if fmt is Format.HTML:
        return negotiated(query_page(endpoint_url()), fmt)
    store = get_store()
    graph = service_description(endpoint_url(), triple_counts(store), get_config().max_results)
    return negotiated(serialize_rdf(ox_triples(graph), fmt, SD_PREFIXES), fmt)

