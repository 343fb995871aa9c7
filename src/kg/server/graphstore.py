"""The read side of the SPARQL 1.1 Graph Store HTTP Protocol: GET/HEAD /store?default and /store?graph=IRI.

Writes (PUT, POST, DELETE) answer 403 like SPARQL updates: the server is read-only. ``?default`` is the
store's default graph, which is the merge of all named graphs. N-Quads and TriG keep the graph name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response, request

from ..errors import BadQuery
from ..formats import GRAPH_FORMATS, negotiate
from .cors import add_cors_headers
from .errors import NotFound, PayloadTooLarge, ReadOnly
from .protocol import parse_params
from .results import serialize_rdf
from .state import get_config, get_store

bp = Blueprint("graphstore", __name__)


@bp.after_request
def cors(response: Response) -> Response:
    """CORS on every /store response."""
    return add_cors_headers(response, request, get_config().cors_origins)


def target_graph() -> str | None:
    """The graph a request names: None for ?default, else the IRI of ?graph= (400 if both or neither)."""
    if len(request.query_string) > get_config().max_request_bytes:
        raise PayloadTooLarge("query string is too large")
    params = parse_params(request.query_string, "the query string")
    graphs = params.get("graph", [])
    if ("default" in params) == bool(graphs) or len(graphs) > 1:
        raise BadQuery("name exactly one graph: ?default or ?graph=IRI")
    if not graphs:
        return None
    try:
        ox.NamedNode(graphs[0])
    except ValueError as error:
        raise BadQuery(f"graph {graphs[0]!r} is not an absolute IRI: {error}") from None
    return graphs[0]


@bp.route("/store", methods=["GET"], strict_slashes=False)
def read_graph() -> Response:
    """One graph of the store, content-negotiated (Turtle by default)."""
    iri = target_graph()
    store = get_store()
    if iri is not None and iri not in store.graph_names():
        raise NotFound(f"no graph named <{iri}> in the store")
    fmt = negotiate(request.headers.get("Accept"), GRAPH_FORMATS, None)
    statements: Iterator[Any]
    if iri is None:
        statements = (ox.Quad(t.subject, t.predicate, t.object) for t in store.default_triples())
    else:
        statements = store.quads(iri)
    if not fmt.supports_datasets:
        statements = (quad.triple for quad in statements)
    response = Response(serialize_rdf(statements, fmt), content_type=fmt.content_type)
    response.vary.add("Accept")
    return response


@bp.route("/store", methods=["PUT", "POST", "DELETE", "PATCH"], strict_slashes=False)
def write_graph() -> Response:
    """Graph Store writes are refused: the server is read-only."""
    target_graph()
    raise ReadOnly()
