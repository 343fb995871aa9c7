"""Every cache the surfaces share: values computed once per store version, query forms, rendered pages by version.

``CACHE`` keeps what the data makes, once per store version (statistics, dumps, the sitemap's paths, the change
and move records). ``QUERY_FORMS`` keeps what a query's tokens say (its form, whether its answer changes from run
to run), by the text's digest. ``versioned`` keeps rendered pages and RDF documents: a response is keyed by (data
version, route, path, format), a repeat request for the same version is served without a store query, and a build
or an HTTP write (a new store version) changes every key and every ETag; that cache is per process, bounded in bytes
(``KG_PAGE_CACHE_BYTES``), and held by the store handle beside the query result cache (``KG_CACHE_BYTES``). Whole
responses to repeat GETs are kept in front of Flask (kg.server.layers.fastpath).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

from flask import Response, request
from werkzeug.wrappers import Response as BaseResponse

from ...formats import Format
from ...query.cache import ResultCache
from ...store import GraphStore
from .handle import handle

CACHE_CONTROL = "public, no-cache"  # keep, but revalidate: the data changes with every build or write
KEPT_HEADERS = ("Content-Type", "Link", "Content-Disposition")
MAX_NAMES = 32  # values one version keeps (seven names are used)
T = TypeVar("T")


class VersionCache:
    """Values computed once per store version (the newest version only), thread-safe. Names are fixed in the code
    (statistics, the dumps, the sitemap's paths, the change and move records), never made from a request: the
    cache holds what the data makes, whatever clients send; past MAX_NAMES a value is computed and not kept."""

    def __init__(self) -> None:
        self.version: tuple[str, str] | None = None
        self.values: dict[str, object] = {}
        self.lock = threading.Lock()

    def get(self, store: GraphStore, name: str, compute: Callable[[], T]) -> T:
        """The cached value for this store version, computing it on first use (a name always holds one type)."""
        version = (store.version, str(store.metadata.get("built_at")))
        with self.lock:
            if version != self.version:
                self.version, self.values = version, {}
            if name in self.values:
                return cast(T, self.values[name])
        value = compute()
        with self.lock:
            if version == self.version and len(self.values) < MAX_NAMES:
                self.values[name] = value
        return value


CACHE = VersionCache()
QUERY_FORMS: ResultCache[bytes] = ResultCache(max_bytes=1_000_000, max_entry=1_000)  # by the query text's digest


def etag_for(name: str) -> str:
    """The strong ETag of one representation (name: a format or a route's variant) of the current data version
    (its digest computed once per store object, by the store handle)."""
    return f"{handle().version()}-{name}"


def per_host(name: str) -> str:
    """A representation's name for etag_for when its body holds absolute URLs built from the request's scheme and
    host: the name and a short digest of them (the same body for another host is another entity)."""
    return f"{name}-{hashlib.blake2b(request.host_url.encode(), digest_size=6).hexdigest()}"


def mark(response: BaseResponse, tag: str, vary: bool) -> BaseResponse:
    """Add the ETag, Cache-Control and (for negotiated resources) Vary: Accept."""
    response.set_etag(tag)
    response.headers["Cache-Control"] = CACHE_CONTROL
    if vary:
        response.vary.add("Accept")
    return response


def not_modified(tag: str, vary: bool) -> BaseResponse | None:
    """A 304 when the request's If-None-Match names this ETag (or *), else None."""
    if not request.if_none_match or not request.if_none_match.contains_weak(tag) and not request.if_none_match.star_tag:
        return None
    return mark(Response(status=304), tag, vary)


def _pack(response: BaseResponse) -> bytes:
    """A response's kept headers and body as one byte string."""
    headers = [[k, v] for k, v in response.headers.items() if k in KEPT_HEADERS]
    return json.dumps(headers).encode("utf-8") + b"\n" + response.get_data()


def _unpack(value: bytes) -> Response:
    """The response a packed byte string holds."""
    head, _, body = value.partition(b"\n")
    response = Response(body)
    for name, header in json.loads(head):
        response.headers[name] = header
    return response


def versioned(representation: Callable[..., tuple[Format | str, bool] | None]) -> Callable[..., Any]:
    """Decorate a GET view: 304 on a matching If-None-Match, else the cached 200 of this version, else render.

    representation(**view_args) gives the format the request will get (a Format, or the name of a representation
    outside the RDF formats, such as "bib") and whether it was negotiated (Vary: Accept), or None when it cannot
    tell (the view then runs uncached, as without this decorator).
    """
    def decorate(view: Callable[..., BaseResponse]) -> Callable[..., BaseResponse]:
        @functools.wraps(view)
        def wrapper(**kwargs: Any) -> BaseResponse:
            chosen = representation(**kwargs)
            if chosen is None:
                return view(**kwargs)
            fmt, vary = chosen
            tag = etag_for(fmt.extension if isinstance(fmt, Format) else fmt)
            early = not_modified(tag, vary)
            if early is not None:
                return early
            cache = handle().pages
            key = (tag, request.endpoint or "", request.path)
            packed = cache.get(key)
            if packed is not None:
                return mark(_unpack(packed), tag, vary)
            response = view(**kwargs)
            if response.status_code != 200 or response.direct_passthrough:
                return response
            cache.put(key, _pack(response))
            return mark(response, tag, vary)
        return wrapper
    return decorate
