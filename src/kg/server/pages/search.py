"""Name search as one bounded SPARQL query, run where /sparql queries run: /search for a store version without a
full-text index (a remote store, a store written by other means; kg.server.pages.fulltext uses the index otherwise).

The query keeps the resources whose name, alternate name or title contains the search text (lower-cased on both
sides), ranks them by kind (people, publications, organisations, venues, projects, the rest) and match quality
(exact, whole word, word start, inside; shorter names first among equals), keeps the first ``SEARCH_CANDIDATES``
and counts the statements of those only. It goes through StoreHandle.execute like any query: the result cache
(keyed by data version), a worker process with the time and memory limits, admission (503 and ``Retry-After``
when too many queries run), or the web thread when no worker pool is configured. The candidates are then ranked
here: kind, match quality, more statements first, then label; the first ``SEARCH_LIMIT`` are shown with their
labels and details, read from the store for those only.

Bounded, not exhaustive: past ``SEARCH_CANDIDATES`` matches, the page says there are more, and statement counts
rank only the candidates kept.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox
from flask import render_template

from ...config import Config
from ...errors import BadQuery, KgError
from ...formats import Format
from ...iris import Minter
from ...namespaces import SCHEMA_IRIS as S
from ...query.wire import QueryJob
from ..floor.handle import StoreHandle
from .resources import DISPLAY_LABELS, Reader

logger = logging.getLogger(__name__)
SEARCH_LIMIT = 100  # results shown
SEARCH_CANDIDATES = 1000  # matches the query keeps (and counts the statements of)
SEARCH_MAX_CHARS = 200  # longest search text accepted
SEARCH_ORDER = {"person": 0, "work": 1, "organization": 2, "venue": 3, "project": 4}
OTHER_KIND = 9
DETAILS = (S.jobTitle, S.datePublished)
_WORD = re.compile(r"\w+")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}


@dataclass(frozen=True)
class SearchResults:
    """The hits to show, best first, and how many matched (at least, when the bound cut the matches)."""

    hits: list[dict[str, Any]]
    matched: int
    more: bool  # more resources match than the query kept


def match_quality(value: str, needle: str) -> int:
    """How well a name matches a search: 0 exactly, 1 a whole word, 2 a word's start, 3 anywhere inside.

    >>> [match_quality(v, "xiao") for v in ("Xiao", "Wencong Xiao", "Xiaoying Jia", "Jianxiao")]
    [0, 1, 2, 3]
    """
    folded = value.casefold()
    words = [w for w in re.split(r"\W+", folded) if w]
    if folded == needle:
        return 0
    if needle in words:
        return 1
    return 2 if any(w.startswith(needle) for w in words) else 3


def sparql_string(text: str) -> str:
    """Text as a SPARQL double-quoted string literal (backslash, quote and line breaks escaped).

    >>> print(sparql_string('a "b" \\\\ c'))
    "a \\"b\\" \\\\ c"
    """
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def search_needle(text: str) -> str:
    """The search text as matched: stripped and lower-cased (BadQuery past SEARCH_MAX_CHARS characters)."""
    needle = text.strip().lower()
    if len(needle) > SEARCH_MAX_CHARS:
        raise BadQuery(f"the search text has {len(needle)} characters; at most {SEARCH_MAX_CHARS} are searched")
    return needle


def search_query(id_space: str, needle: str, candidates: int = SEARCH_CANDIDATES) -> str:
    """The SPARQL query finding the best candidates for a (stripped, lower-cased, non-empty) needle."""
    literal = sparql_string(needle)
    rank = str(OTHER_KIND)
    for kind, order in sorted(SEARCH_ORDER.items(), key=lambda item: -item[1]):
        rank = f'IF(STRSTARTS(?path, {sparql_string(kind + "/")}), {order}, {rank})'
    if _WORD.fullmatch(needle):  # a word (letters, digits, _: no regex syntax) may match a whole word or a start
        start, whole = sparql_string(r"(^|\W)" + needle), sparql_string(r"(^|\W)" + needle + r"(\W|$)")
        quality = f"IF(?folded = {literal}, 0, IF(REGEX(?folded, {start}), IF(REGEX(?folded, {whole}), 1, 2), 3))"
    else:  # a word never holds a space or punctuation: such text matches exactly or inside
        quality = f"IF(?folded = {literal}, 0, 3)"
    # the text test comes first, alone and inline: a VALUES block for the two properties, or binding the
    # lower-cased value before the test, made a search that matches nothing take twice as long
    return f"""SELECT ?s ?value ?rank ?quality (COUNT(*) AS ?statements) WHERE {{
  {{ SELECT DISTINCT ?s ?value ?rank ?quality WHERE {{
      {{ ?s <{S.name}> ?value }} UNION {{ ?s <{S.alternateName}> ?value }}
      FILTER(CONTAINS(LCASE(STR(?value)), {literal}))
      BIND(LCASE(STR(?value)) AS ?folded)
      BIND(STRAFTER(STR(?s), {sparql_string(id_space)}) AS ?path)
      FILTER(?path != "")
      BIND({rank} AS ?rank)
      BIND({quality} AS ?quality)
    }} ORDER BY ?rank ?quality STRLEN(?value) LIMIT {candidates} }}
  ?s ?p ?o .
}} GROUP BY ?s ?value ?rank ?quality"""


def candidate_limit(config: Config) -> int:
    """How many matches a search keeps: SEARCH_CANDIDATES, or fewer when queries may return fewer rows."""
    return max(1, min(SEARCH_CANDIDATES, config.max_results))


def search_job(config: Config, text: str) -> QueryJob | None:
    """The query job of a search (None for blank text), with the row limit of any query and its time limit for the
    whole search, waiting for a worker included (a deadline)."""
    needle = search_needle(text)
    if not needle:
        return None
    candidates = candidate_limit(config)
    return QueryJob(text=search_query(Minter(config.base).id_space, needle, candidates), base_iri=config.base,
                    default_graphs=(), named_graphs=(), dataset=False, format=Format.SPARQL_JSON.name,
                    max_results=config.max_results, timeout=config.query_timeout,
                    deadline=time.monotonic() + config.query_timeout)


def rank_candidates(reader: Reader, text: str, results: bytes, candidates: int = SEARCH_CANDIDATES) -> SearchResults:
    """The search's hits from the query's SPARQL JSON results: one per resource (its best match), ranked, the
    first SEARCH_LIMIT with labels and details."""
    needle = text.strip().casefold()
    best: dict[str, dict[str, Any]] = {}
    rows = json.loads(results)["results"]["bindings"]
    for row in rows:
        iri, value = row["s"]["value"], row["value"]["value"]
        path = reader.href(ox.NamedNode(iri))
        if path is None:
            continue
        quality = match_quality(value, needle)
        found = best.get(iri)
        if found is not None and (found["quality"], len(found["matched"])) <= (quality, len(value)):
            continue
        kind = path.split("/", 1)[0]
        best[iri] = {"iri": iri, "path": path, "kind": kind, "matched": value, "quality": quality,
                     "weight": int(row["statements"]["value"]), "order": SEARCH_ORDER.get(kind, OTHER_KIND)}
    ranked = sorted(best.values(), key=lambda m: (m["order"], m["quality"], -m["weight"], m["matched"].casefold(),
                                                  m["iri"]))[:SEARCH_LIMIT]
    subjects = reader.load([ox.NamedNode(m["iri"]) for m in ranked], DISPLAY_LABELS + DETAILS)
    for match, subject in zip(ranked, subjects, strict=True):
        match["label"] = reader.label(subject)
        match["detail"] = reader.text(subject, S.jobTitle) or reader.text(subject, S.datePublished)
    ranked.sort(key=lambda m: (m["order"], m["quality"], -m["weight"], m["label"].casefold(), m["iri"]))
    return SearchResults(hits=ranked, matched=len(best), more=len(rows) >= candidates)


def search_names(store_handle: StoreHandle, reader: Reader, text: str) -> SearchResults:
    """Search names and titles for text: the query runs as any query would (cache, worker, limits, admission).

    Raises:
        BadQuery: the text is too long.
        KgError: what the query met (QueryTimeout, Saturated, QueryMemoryLimit...), with its status.
    """
    job = search_job(store_handle.config, text)
    if job is None:
        return SearchResults(hits=[], matched=0, more=False)
    return rank_candidates(reader, text, store_handle.execute(job), candidate_limit(store_handle.config))


@dataclass(frozen=True)
class SearchPage:
    """The rendered search page, its HTTP status and, for a refusal worth retrying, its Retry-After seconds."""

    body: str
    status: int = 200
    retry_after: int | None = None


def render_search(store_handle: StoreHandle, reader: Reader, text: str,
                  alternates: list[dict[str, str]]) -> SearchPage:
    """The search page for text: its results, or why there are none (a refusal or a limit, with its status)."""
    title = f"Search: {text}" if text else "Search"
    try:
        found = search_names(store_handle, reader, text)
    except KgError as error:
        if error.status >= 500:
            logger.warning("search refused: %s", error)
        body = render_template("search.html", title=title, q=text, error=str(error), status=error.status,
                               alternates=alternates)
        return SearchPage(body, error.status, getattr(error, "retry_after", None))
    body = render_template("search.html", title=title, q=text, results=found.hits, matched=found.matched,
                           more=found.more, alternates=alternates)
    return SearchPage(body)
