"""What a search engine's crawler reads first: /robots.txt (the query routes are not for crawling; where the sitemap
is) and /sitemap.xml, the page of every person, work, organisation, venue and project (sitemaps.org 0.9; past
50,000 pages, a sitemap index of /sitemap-<n>.xml files), with ``lastmod`` where the builds' change records tell.
Rendered once per store version without a host (kept in the page cache, bounded in bytes), the request's scheme
and host filled in per request; ETags per version and host."""

from __future__ import annotations

from collections.abc import Callable
from xml.sax.saxutils import escape

from flask import Blueprint, Response, request
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response as BaseResponse

from ...changes import BuildChanges
from ...changes.diff import KIND_CLASSES
from ...changes.rdf import read_log
from ...iris import Minter
from ...store import GraphStore, solutions
from ..floor.caches import CACHE, etag_for, mark, not_modified, per_host
from ..floor.handle import get_config, get_store, handle
from ..floor.links import page_url

bp = Blueprint("sitemap", __name__)
PER_FILE = 50_000  # the most URLs one sitemap file may list (sitemaps.org)
XML = "application/xml; charset=utf-8"
NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOT_CRAWLED = ("/sparql", "/store", "/explain", "/search")  # answers computed per request, not pages
HOST = "\0"  # where the request's scheme and host go in a rendered sitemap
CLASSES = " ".join(f"<{c}>" for _, classes in KIND_CLASSES for c in classes)


def page_paths(store: GraphStore, base: str) -> list[tuple[str, str | None]]:
    """The /id/ path of every entity that has a page, sorted, with when it last changed (None: not known)."""
    minter = Minter(base)
    rows = solutions(store.query(f"SELECT DISTINCT ?s WHERE {{ VALUES ?t {{ {CLASSES} }} ?s a ?t "
                                 f"FILTER(STRSTARTS(STR(?s), \"{minter.id_space}\")) }}"))
    changed, since = last_changes(read_log(store))
    return sorted((path, changed.get(row[0].value, since)) for row in rows if (path := minter.path_of(row[0].value)))


def last_changes(log: list[BuildChanges]) -> tuple[dict[str, str], str | None]:
    """From the kept change records (newest first): when each listed entity was last added or changed, and when
    every other one was, if the records say (the oldest kept is the first build and none left an entity out)."""
    changed: dict[str, str] = {}
    for build in log:
        for entity in build.entities:
            if entity.status != "removed":
                changed.setdefault(entity.iri, build.ended_at)
    complete = bool(log) and log[-1].initial and not any(b.unlisted for b in log if not b.initial)
    return changed, log[-1].ended_at if complete else None


def _paths() -> list[tuple[str, str | None]]:
    store = get_store()
    found: list[tuple[str, str | None]] = CACHE.get(store, "sitemap", lambda: page_paths(store, get_config().base))
    return found


def _xml(tag: str, body: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{tag} xmlns="{NAMESPACE}">\n{body}</{tag}>\n'


def _text(value: str) -> str:
    """XML character data, with NUL (never allowed in XML, and the host's placeholder here) replaced."""
    return escape(value.replace(HOST, "\ufffd"))


def _urls(paths: list[tuple[str, str | None]]) -> str:
    return "".join(f"<url><loc>{HOST}{_text(page_url(path))}</loc>"
                   + (f"<lastmod>{_text(when)}</lastmod>" if when else "") + "</url>\n" for path, when in paths)


def _answer(name: str, render: Callable[[], str]) -> BaseResponse:
    """An ETag'd response for this store version and Host: the body is rendered once per version with a
    placeholder for the scheme and host (kept in the byte-bounded page cache), which each request fills in."""
    tag = etag_for(per_host(name))
    early = not_modified(tag, vary=False)
    if early is not None:
        return early
    cache = handle().pages
    key = (etag_for(name), "sitemap", request.script_root, PER_FILE)
    template = cache.get(key)
    if template is None:
        template = render().encode()
        cache.put(key, template)
    body = template.replace(HOST.encode(), escape(request.host_url.rstrip("/")).encode())
    return mark(Response(body, content_type=XML), tag, vary=False)


@bp.route("/sitemap.xml", methods=["GET"])
def sitemap() -> BaseResponse:
    """Every entity's page, or, past PER_FILE pages, the index of the numbered sitemap files."""
    paths = _paths()
    if len(paths) <= PER_FILE:
        return _answer("sitemap", lambda: _xml("urlset", _urls(paths)))
    root = _text(request.script_root)
    files = "".join(f"<sitemap><loc>{HOST}{root}/sitemap-{n}.xml</loc></sitemap>\n"
                    for n in range(1, (len(paths) - 1) // PER_FILE + 2))
    return _answer("sitemap-index", lambda: _xml("sitemapindex", files))


@bp.route("/sitemap-<int:number>.xml", methods=["GET"])
def sitemap_file(number: int) -> BaseResponse:
    """One numbered sitemap file of PER_FILE pages (from 1), when the sitemap is an index."""
    paths = _paths()
    if len(paths) <= PER_FILE or not 1 <= number <= (len(paths) - 1) // PER_FILE + 1:
        raise NotFound(f"no sitemap file {number}: /sitemap.xml lists the files there are")
    part = paths[(number - 1) * PER_FILE:number * PER_FILE]
    return _answer(f"sitemap-{number}", lambda: _xml("urlset", _urls(part)))


@bp.route("/robots.txt", methods=["GET"])
def robots() -> Response:
    """Crawl the pages, not the query routes; the sitemap's address."""
    host = request.host_url.rstrip("/")
    lines = ["User-agent: *", *(f"Disallow: {route}" for route in NOT_CRAWLED), f"Sitemap: {host}/sitemap.xml"]
    return Response("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


__all__ = ["PER_FILE", "bp", "page_paths"]
