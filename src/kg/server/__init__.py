"""The Flask app factory: the blueprints of both surfaces, the WSGI layers around them, one error handler.

The parts, as a request meets them: ``layers/`` (WSGI before Flask: repeat-GET cache, Host check, gzip, plain
query GETs), then the blueprints of ``sparql/`` (``/sparql``, ``/store``) and ``pages/`` (``/id/``, ``/page/``,
``/data/``, search, dumps, ``/bib/``, ``/changes``, ``/explain``, the sitemap) and ``health`` (``/health``), all
standing on ``floor/`` (the store handle, caches, links, error pages). No blueprint module imports another.

Host: a malformed Host header, or one not in ``KG_PUBLIC_HOSTS`` when that is set, gets 400 before anything
else runs (kg.server.layers.hosts); routing redirects carry a path, not the request's Host.

Logging: control characters are escaped in every log record of the process (kg.server.layers.logsafe). A
linked-data path that cannot name a resource answers before its view runs: 400 when its bytes are not UTF-8,
the normal 404 page when it is not an IRI (a space, a quote, a NUL...), never a 500 with a traceback.
"""

from __future__ import annotations

import logging
import urllib.parse

import pyoxigraph as ox
from flask import Flask, Response, request
from werkzeug.exceptions import BadRequest, HTTPException
from werkzeug.wrappers import Response as BaseResponse

from ..config import Config
from ..errors import KgError
from ..store import Store
from .floor.errorpages import error_response, not_found_response
from .floor.handle import EXTENSION, StoreHandle, get_config
from .floor.links import iri_for
from .health import bp as health_bp
from .layers.compression import Compression
from .layers.fastpath import ResponseCache
from .layers.hosts import HostCheck, PublicHosts, relative_redirects
from .layers.logsafe import install as escape_log_controls
from .layers.querypath import QueryFastPath
from .pages.changes import bp as changes_bp
from .pages.citations import bp as citations_bp
from .pages.dumps import bp as dumps_bp
from .pages.explain import bp as explain_bp
from .pages.linked import bp as pages_bp
from .pages.linked import not_found, split_extension
from .pages.sitemap import bp as sitemap_bp
from .sparql.endpoint import bp as sparql_bp
from .sparql.graphstore import bp as graphstore_bp

BLUEPRINTS = (sparql_bp, graphstore_bp, health_bp, pages_bp, dumps_bp, explain_bp, changes_bp, sitemap_bp,
              citations_bp)
logger = logging.getLogger(__name__)


def create_app(config: Config | None = None, store: Store | None = None) -> Flask:
    """Build the app; with no store given, the configured one is opened on first use (read-only).

    Args:
        config: runtime settings (defaults from Config()).
        store: an already open store to serve instead of config.store (tests, embedding).

    Returns:
        The Flask application.
    """
    config = config or Config()
    escape_log_controls()
    app = Flask(__name__)
    app.config["MAX_FORM_MEMORY_SIZE"] = config.max_request_bytes
    app.extensions[EXTENSION] = StoreHandle(config, store)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    app.before_request(relative_redirects)
    app.before_request(refuse_odd_resource_paths)
    app.register_error_handler(KgError, render_kg_error)
    app.register_error_handler(HTTPException, render_http_error)
    app.register_error_handler(Exception, render_unexpected)
    store_handle = app.extensions[EXTENSION]
    checked = HostCheck(Compression(QueryFastPath(app.wsgi_app, app, store_handle), config.gzip_min_bytes),
                        PublicHosts.parse(config.public_hosts))  # behind the response cache: Host is in its keys
    app.wsgi_app = ResponseCache(checked, store_handle)  # type: ignore[method-assign]
    return app


def refuse_odd_resource_paths() -> BaseResponse | None:
    """For /id/, /page/ and /data/ paths: 400 if the path's bytes are not UTF-8, the 404 page if the path
    cannot be part of an IRI; None (go on) otherwise."""
    path = (request.view_args or {}).get("path")
    if request.blueprint != "pages" or not isinstance(path, str):
        return None
    raw = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI")
    try:
        if raw:
            urllib.parse.unquote_to_bytes(raw.split("?", 1)[0]).decode("utf-8")
        else:  # PEP 3333: PATH_INFO holds the decoded bytes as latin-1
            request.environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8")
    except UnicodeEncodeError:
        pass
    except UnicodeDecodeError:
        raise BadRequest("the path is not valid UTF-8: percent-encode the UTF-8 bytes of each character") from None
    stem = split_extension(path)[0] if request.endpoint == "pages.data" else path
    try:
        ox.NamedNode(iri_for(get_config().base, stem))
    except ValueError:
        return not_found(urllib.parse.quote(stem, safe="/:@!$&'()*+,;=~"))
    return None


def render_kg_error(error: KgError) -> Response:
    """Render a KgError with its own status."""
    title = getattr(error, "kind", type(error).__name__)
    if error.status >= 500:
        logger.warning("%s: %s", title, error)
    if error.status == 404:
        return not_found_response(str(error), title=title)
    response = error_response(error.status, title, str(error))
    retry_after = getattr(error, "retry_after", None)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def render_http_error(error: HTTPException) -> Response:
    """Render a werkzeug HTTP error (404, 405, 413, ...) keeping its headers, such as Allow."""
    status = error.code or 500
    if status == 404:
        return not_found_response()
    response = error_response(status, error.name, error.description or error.name)
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def render_unexpected(error: Exception) -> Response:
    """Log an unexpected exception and answer 500 without details."""
    if isinstance(error, HTTPException):
        return render_http_error(error)
    logger.error("unexpected error on %s %s", request.method, request.path, exc_info=error)
    return error_response(500, "Internal Server Error", "internal error")


__all__ = ["create_app"]
