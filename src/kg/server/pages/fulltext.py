"""/search and /search/suggest over the version's full-text index (kg.search): ranked hits, facets, filters, JSON.

``/search?q=…&kind=…&year=…&org=…&page=…`` answers HTML, or JSON for ``format=json`` or an Accept preferring
``application/json``. Facet counts are over every match of the text (at most KG_SEARCH_MAX_RESULTS), whatever
the filters; the filters narrow the hits. A version without an index (a remote store, a store written by other
means) is searched as before, by the bounded substring query of kg.server.pages.search.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import Request, Response, render_template, url_for

from ...errors import BadQuery, KgError
from ...search import Filters, Found, SearchIndex
from ...search.documents import KINDS
from ..floor.handle import StoreHandle
from ..floor.offers import wants_json
from ..floor.searching import search_index
from .resources import Reader
from .search import render_search

logger = logging.getLogger(__name__)
PER_PAGE = 20
MAX_PER_PAGE = 100
MAX_PAGE = 50
SUGGESTIONS = 8
SUGGEST_CANDIDATES = 50  # ranked before names are put first and the best SUGGESTIONS kept


def _number(request: Request, name: str, default: int, top: int) -> int:
    """A positive whole-number parameter no larger than top (BadQuery otherwise)."""
    raw = request.args.get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= top:
        raise BadQuery(f"{name}={raw[:20]} is not a number from 1 to {top}")
    return int(raw)


def filters_from(request: Request) -> Filters:
    """The filters a request names: kind (person, work, organization, venue, project), year, org (an IRI)."""
    kind = request.args.get("kind") or None
    if kind is not None and kind not in KINDS:
        raise BadQuery(f"kind={kind[:40]} is not one of {', '.join(KINDS)}")
    year = request.args.get("year") or None
    if year is not None and not (year.isdigit() and len(year) == 4):
        raise BadQuery(f"year={year[:20]} is not a year")
    return Filters(kind, int(year) if year else None, request.args.get("org") or None)


def _link(text: str, filters: Filters, page: int = 1, **changed: Any) -> str:
    """The /search URL of a text with filters (changed ones replaced; None drops one), on a page."""
    params = {"q": text, "kind": filters.kind, "year": filters.year, "org": filters.org, **changed}
    if page > 1:
        params["page"] = page
    return url_for("pages.search", **{k: v for k, v in params.items() if v not in (None, "")})


def found_json(text: str, filters: Filters, found: Found, page: int, per: int) -> dict[str, Any]:
    """The JSON form of a search: the hits of this page, the totals, facets and corrections."""
    return {"query": text, "filters": {"kind": filters.kind, "year": filters.year, "org": filters.org},
            "total": found.total, "capped": found.capped, "page": page, "per_page": per,
            "hits": [{"iri": h.iri, "url": url_for("pages.page", path=h.path), "kind": h.kind, "label": h.label,
                      "detail": h.detail, "year": h.year, "score": round(-h.score, 4)} for h in found.hits],
            "facets": found.facets, "corrections": found.corrections}


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body, ensure_ascii=False), status=status, content_type="application/json")


def _error(error: KgError, as_json: bool, text: str, alternates: list[dict[str, str]]) -> Response:
    """A refused search: JSON or the page, with the error's status (and Retry-After when it has one)."""
    if error.status >= 500:
        logger.warning("search refused: %s", error)
    if as_json:
        response = _json({"error": str(error), "status": error.status}, error.status)
    else:
        response = Response(render_template("search.html", title="Search", q=text[:200], error=str(error),
                                            status=error.status, alternates=alternates),
                            status=error.status, content_type="text/html; charset=utf-8")
    retry = getattr(error, "retry_after", None)
    if retry is not None:
        response.headers["Retry-After"] = str(retry)
    return response


def search_response(store_handle: StoreHandle, reader: Reader, request: Request,
                    alternates: list[dict[str, str]]) -> Response:
    """The answer to GET /search: ranked hits with facets (HTML or JSON), or the substring search without index."""
    text = request.args.get("q", "").strip()
    as_json = wants_json("/search")
    try:
        index = search_index(store_handle)
        if index is None:
            return _unindexed(store_handle, reader, text, as_json, alternates)
        filters = filters_from(request)
        page, per = _number(request, "page", 1, MAX_PAGE), _number(request, "per_page", PER_PAGE, MAX_PER_PAGE)
        found = index.search(text, filters, page, per)
    except KgError as error:
        return _error(error, as_json, text, alternates)
    if as_json:
        return _json(found_json(text, filters, found, page, per))
    pages = min(MAX_PAGE, -(-found.total // per))
    body = render_template(
        "search.html", title=f"Search: {text}" if text else "Search", q=text, indexed=True, results=found.hits,
        matched=found.total, more=found.capped, facets=found.facets, filters=filters, corrections=found.corrections,
        page=page, pages=pages, first=(page - 1) * per + 1, alternates=alternates,
        link=lambda **changed: _link(text, filters, changed.pop("page", 1), **changed))
    return Response(body, content_type="text/html; charset=utf-8")


def _unindexed(store_handle: StoreHandle, reader: Reader, text: str, as_json: bool,
               alternates: list[dict[str, str]]) -> Response:
    """The search of a version without an index: the bounded substring query (kg.server.pages.search)."""
    if as_json:
        raise BadQuery("this store version has no search index (kg build writes one); JSON search needs it")
    page = render_search(store_handle, reader, text, alternates)
    response = Response(page.body, status=page.status, content_type="text/html; charset=utf-8")
    if page.retry_after is not None:
        response.headers["Retry-After"] = str(page.retry_after)
    return response


def suggestions(index: SearchIndex, text: str) -> list[dict[str, Any]]:
    """The best few matches of what is typed so far, names first."""
    hits = index.ranked(text, SUGGEST_CANDIDATES)[0][:SUGGESTIONS]
    return [{"label": h.label, "kind": h.kind, "detail": h.detail, "url": url_for("pages.page", path=h.path)}
            for h in hits]


def suggest_response(store_handle: StoreHandle, request: Request) -> Response:
    """The answer to GET /search/suggest?q=…: a JSON list of suggestions (empty without an index)."""
    try:
        index = search_index(store_handle)
        found = suggestions(index, request.args.get("q", "")) if index is not None else []
    except KgError as error:
        return _json({"error": str(error), "status": error.status}, error.status)
    return _json({"query": request.args.get("q", "")[:200], "suggestions": found})
