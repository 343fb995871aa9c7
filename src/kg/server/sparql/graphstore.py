"""The SPARQL 1.1 Graph Store HTTP Protocol: /store?default, /store?graph=IRI and /store/… (direct).

Read: GET and HEAD (same headers, no body), content-negotiated. N-Quads and TriG keep a named graph's name;
every other format (JSON-LD included) is a plain graph document of its triples.

``?default`` addresses a real graph of its own: ``<base>/graph/edits`` (kg.iris.Minter.default_graph), the
graph where writes that name no graph land (a SPARQL ``INSERT DATA`` without ``GRAPH`` puts its new triples
there too). So PUT, POST, GET and DELETE on ``?default`` round-trip: GET returns exactly what was PUT or
POSTed there (empty when nothing was), DELETE empties it (204, never 404), and ``?graph=<base>/graph/edits``
is the same graph. The other graphs (the profiles, the reference data, the ontology, the inferred graph) are
not part of ``?default``. SPARQL queries without a dataset are unchanged: their default graph is still the
merge of all graphs.

Write (with the bearer token, see kg.server.sparql.updates): PUT replaces a graph, POST merges into it (also as
multipart/form-data, one RDF document per part), DELETE removes it; bodies in Turtle, N-Triples, JSON-LD or
RDF/XML. A POST to ``/store`` itself creates a new graph ``<this server>/store/<id>`` and answers 201 with its
``Location``. Creating a graph answers 201, changing one 204; a write that would introduce SHACL violations
answers 422 and changes nothing. ``/store/<path>`` names the graph whose IRI is the request URL (direct
identification). Every write goes through kg.writes.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
from flask import Blueprint, Response, request, url_for
from werkzeug.formparser import MultiPartParser
from werkzeug.http import parse_options_header

from ...errors import BadQuery, NotFound, PayloadTooLarge, UnsupportedMediaType, WriteForbidden
from ...formats import GRAPH_FORMATS, Format
from ...iris import GraphNames, Minter
from ...negotiation import negotiate
from ...query.results import serialize_rdf
from ...store import log_graph_names_of
from ..floor.cors import add_cors_headers
from ..floor.handle import get_config, get_store
from .bodies import check_body
from .operation import _body, parse_params
from .updates import authorize, no_content, perform

if TYPE_CHECKING:
    from ...writes import WriteResult

bp = Blueprint("graphstore", __name__)
BODY_FORMATS = {"text/turtle": Format.TURTLE, "application/x-turtle": Format.TURTLE,
                "application/n-triples": Format.N_TRIPLES, "application/ld+json": Format.JSON_LD,
                "application/json": Format.JSON_LD, "application/rdf+xml": Format.RDF_XML,
                "application/xml": Format.RDF_XML, "text/xml": Format.RDF_XML}
EXTENSIONS = {"ttl": Format.TURTLE, "nt": Format.N_TRIPLES, "jsonld": Format.JSON_LD, "json": Format.JSON_LD,
              "rdf": Format.RDF_XML, "xml": Format.RDF_XML, "owl": Format.RDF_XML}
MULTIPART = "multipart/form-data"
MAX_PARTS = 100


@bp.after_request
def cors(response: Response) -> Response:
    """CORS on every /store response."""
    return add_cors_headers(response, request, get_config().cors_origins)


def _params() -> dict[str, list[str]]:
    if len(request.query_string) > get_config().max_request_bytes:
        raise PayloadTooLarge("query string is too large")
    return parse_params(request.query_string, "the query string")


def target_graph(allow_none: bool = False) -> str | None:
    """The graph a request names: None for ?default, else the IRI of ?graph= (400 if both or neither;
    with allow_none, neither is allowed and also gives None)."""
    params = _params()
    graphs = params.get("graph", [])
    if len(graphs) > 1 or ("default" in params and graphs) or (not allow_none and "default" not in params
                                                                 and not graphs):
        raise BadQuery("name exactly one graph: ?default or ?graph=IRI")
    if not graphs:
        return None
    try:
        ox.NamedNode(graphs[0])
    except ValueError as error:
        raise BadQuery(f"graph {graphs[0]!r} is not an absolute IRI: {error}") from None
    return graphs[0]


def direct_iri() -> str:
    """The graph IRI of a direct request: the request URL without its query string."""
    iri = request.base_url
    try:
        ox.NamedNode(iri)
    except ValueError as error:
        raise BadQuery(f"{iri!r} is not a valid graph IRI: {error}") from None
    return iri


# --- read -------------------------------------------------------------------------------------------------

def default_graph() -> str:
    """The IRI of the graph ``?default`` addresses (the module docstring)."""
    return GraphNames(Minter(str(get_store().metadata.get("base") or get_config().base)).base).edits


def read(iri: str | None) -> Response:
    """One graph of the store (None: ?default), content-negotiated (Turtle by default); 404 for an unknown
    named graph, while ?default always exists."""
    store = get_store()
    fmt = negotiate(request.headers.get("Accept"), GRAPH_FORMATS, None)
    statements: Iterator[Any]
    if iri is None:
        graph = default_graph()
        found = store.quads(graph) if graph in store.graph_names() else iter(())
        statements = (ox.Quad(q.subject, q.predicate, q.object) for q in found)
    elif iri not in store.graph_names() and iri not in log_graph_names_of(store):
        raise NotFound(f"no graph named <{iri}> in the store")
    else:
        statements = store.quads(iri)
    if fmt not in (Format.N_QUADS, Format.TRIG):
        statements = (quad.triple for quad in statements)
    response = Response(serialize_rdf(statements, fmt), content_type=fmt.content_type)
    response.vary.add("Accept")
    return response


@bp.route("/store", methods=["GET"], strict_slashes=False)
def read_graph() -> Response:
    """GET/HEAD /store?default or /store?graph=IRI."""
    return read(target_graph())


@bp.route("/store/<path:path>", methods=["GET"])
def read_direct(path: str) -> Response:
    """GET/HEAD /store/<path>: the graph named by the request URL."""
    return read(direct_iri())


# --- write ------------------------------------------------------------------------------------------------

@bp.route("/store", methods=["PUT", "POST", "DELETE"], strict_slashes=False)
def write_graph() -> Response:
    """PUT, POST or DELETE on ?default or ?graph=IRI; POST without either creates a new graph."""
    authorize()
    params = _params()
    iri = target_graph(allow_none=request.method == "POST")
    if request.method == "POST" and iri is None and "default" not in params:
        return create_graph()
    return write(iri)


@bp.route("/store/<path:path>", methods=["PUT", "POST", "DELETE"])
def write_direct(path: str) -> Response:
    """PUT, POST or DELETE on the graph named by the request URL."""
    authorize()
    return write(direct_iri())


def write(iri: str | None) -> Response:
    """Apply one Graph Store write to a graph (None: ?default, which always exists: 204, never 201 or 404)."""
    if iri is None:
        graph = default_graph()
        triples = [] if request.method == "DELETE" else read_body(request.base_url)
        if request.method == "POST":
            return perform(lambda w: w.post(graph, triples), 204, no_content)
        return perform(lambda w: w.put(graph, triples), 204, no_content)
    names = GraphNames(Minter(str(get_store().metadata.get("base") or get_config().base)).base)
    if names.managed(iri):
        raise WriteForbidden(f"graph <{iri}> is derived and cannot be written: it is rebuilt after every "
                             "write; write the asserted graphs instead")
    if request.method == "DELETE":
        return perform(lambda w: w.delete(iri), 204, no_content)
    triples = read_body(iri)
    if request.method == "PUT":
        return perform(lambda w: w.put(iri, triples), 204, created_or_no_content)
    return perform(lambda w: w.post(iri, triples), 204, created_or_no_content)


def create_graph() -> Response:
    """POST /store: a new graph with a minted IRI under /store/, answered 201 with its Location."""
    iri = url_for("graphstore.read_direct", path=uuid.uuid4().hex, _external=True)
    triples = read_body(iri)

    def respond(result: WriteResult) -> Response:
        response = Response(f"Created <{iri}>\n", status=201, content_type="text/plain; charset=utf-8")
        response.headers["Location"] = iri
        return response
    return perform(lambda w: w.post(iri, triples), 201, respond)


def created_or_no_content(result: WriteResult) -> Response:
    """201 when the write created the graph, else 204."""
    if result.created:
        response = Response(status=201)
        response.headers["Location"] = request.url
        return response
    return no_content(result)


# --- request bodies ---------------------------------------------------------------------------------------

def read_body(base_iri: str) -> list[ox.Triple]:
    """The triples of the request body: one RDF document, or several as multipart/form-data parts.

    Raises:
        UnsupportedMediaType: no or an unsupported Content-Type, or a charset other than UTF-8.
        PayloadTooLarge: the body is larger than max_request_bytes.
        BadQuery: the body does not parse.
    """
    header = request.headers.get("Content-Type", "")
    if not header:
        raise UnsupportedMediaType(f"a write needs a Content-Type: {supported()}")
    media_type, options = parse_options_header(header)
    media_type = media_type.lower()
    body = _body(request, get_config().max_request_bytes)
    if media_type == MULTIPART:
        return _multipart(body, options.get("boundary", ""), base_iri)
    return parse_document(body, _format(media_type, options), base_iri, "the request body")


def supported() -> str:
    """The accepted body media types, for messages."""
    return ", ".join(sorted(set(BODY_FORMATS) - {"application/json", "application/xml", "text/xml"})) + \
        f" or {MULTIPART}"


def _format(media_type: str, options: dict[str, str]) -> Format:
    charset = options.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise UnsupportedMediaType(f"charset {charset} is not supported; send UTF-8")
    fmt = BODY_FORMATS.get(media_type)
    if fmt is None:
        raise UnsupportedMediaType(f"Content-Type {media_type} is not supported; use {supported()}")
    return fmt


def parse_document(data: bytes, fmt: Format, base_iri: str, what: str) -> list[ox.Triple]:
    """Parse one RDF document (blank nodes renamed apart; no remote JSON-LD contexts are fetched), after the
    safety checks of kg.server.sparql.bodies (no XML entities, nesting at most MAX_DEPTH deep)."""
    check_body(data, fmt, what)
    try:
        return [quad.triple for quad in ox.parse(data, format=fmt.ox, base_iri=base_iri, without_named_graphs=True,
                                                   rename_blank_nodes=True)]
    except (SyntaxError, ValueError) as error:
        raise BadQuery(f"{what} is not valid {fmt.name.replace('_', '-').title()}: {error}") from None


def _multipart(body: bytes, boundary: str, base_iri: str) -> list[ox.Triple]:
    """The triples of every part of a multipart/form-data body (each part an RDF document)."""
    if not boundary:
        raise BadQuery(f"{MULTIPART} needs a boundary parameter")
    parser = MultiPartParser(stream_factory=lambda *args, **kwargs: io.BytesIO(),
                             max_form_memory_size=len(body) + 1, max_form_parts=MAX_PARTS)
    try:
        fields, files = parser.parse(io.BytesIO(body), boundary.encode("ascii", "replace"), len(body))
    except ValueError as error:
        raise BadQuery(f"the {MULTIPART} body cannot be read: {error}") from None
    if fields:
        raise BadQuery(f"every part of a {MULTIPART} body must be a file with a Content-Type "
                       f"(got field {next(iter(fields.keys()))!r})")
    triples: list[ox.Triple] = []
    for name, part in files.items(multi=True):
        media_type, options = parse_options_header(part.content_type or "")
        media_type = media_type.lower()
        if media_type in ("", "application/octet-stream"):
            fmt = EXTENSIONS.get((part.filename or name).rsplit(".", 1)[-1].lower())
            if fmt is None:
                raise UnsupportedMediaType(f"part {name!r} has no RDF Content-Type; use {supported()}")
        else:
            fmt = _format(media_type, options)
        data = part.read()
        part.close()
        triples.extend(parse_document(data, fmt, base_iri, f"part {name!r}"))
    return triples
