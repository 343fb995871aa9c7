"""Content negotiation over the format table: the Accept header (RFC 9110 12.5.1) and format=.

>>> negotiate("text/csv;q=0.5, application/sparql-results+xml", RESULTS_FORMATS).name
'SPARQL_XML'
>>> negotiate(None, GRAPH_FORMATS, format_param="jsonld").media_type
'application/ld+json'
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from .errors import NotAcceptable
from .formats import GRAPH_FORMATS, RESULTS_FORMATS, Format  # noqa: F401 - the tuples are the doctests'


def _specificity(media_range: str, media_type: str) -> int:
    """How specifically a media range matches a media type: 2 exact, 1 type/*, 0 */*, -1 no match."""
    if media_range in ("*/*", "*"):
        return 0
    range_type, _, range_sub = media_range.partition("/")
    kind, _, sub = media_type.partition("/")
    if range_type != kind:
        return -1
    if range_sub == "*":
        return 1
    return 2 if range_sub == sub else -1


def quality(accept: MIMEAccept, media_type: str, *, exact: bool = False) -> float:
    """The client's quality for a media type: the q of the most specific matching range (RFC 9110 12.5.1).

    With exact, wildcard ranges do not count (used for a format's secondary media types).

    >>> accept = parse_accept_header("text/*;q=0.5, text/csv;q=0, */*;q=0.1", MIMEAccept)
    >>> quality(accept, "text/csv"), quality(accept, "text/tsv"), quality(accept, "image/png")
    (0.0, 0.5, 0.1)
    """
    best, value = -1, 0.0
    for raw, q in accept:
        spec = _specificity(raw.split(";", 1)[0].strip().lower(), media_type)
        if exact and spec < 2:
            continue
        if spec > best or (spec == best and q > value):
            best, value = spec, q
    return float(value) if best >= 0 else 0.0


def negotiate(accept_header: str | None, candidates: Sequence[Format], format_param: str | None = None) -> Format:
    """Choose the response format: format= first when it names an offered format, then the Accept header; ties go
    to the earlier candidate.

    format= is no part of the SPARQL protocol: a value naming nothing offered here falls back to an Accept header
    that can be satisfied (SPARQLWrapper sends format=n3 beside Accept: text/turtle); only without an Accept header
    (or with one that nothing here satisfies) is it a 406.

    Args:
        accept_header: the request's Accept header (missing or empty means anything).
        candidates: the formats this resource offers, the preferred one first.
        format_param: an explicit format= value (alias, extension or media type), which wins over Accept.

    Returns:
        The chosen format.

    Raises:
        NotAcceptable: nothing offered is acceptable; the message lists the supported media types.

    >>> negotiate("*/*", GRAPH_FORMATS).name
    'TURTLE'
    >>> negotiate("text/*", RESULTS_FORMATS).name
    'CSV'
    >>> negotiate("application/sparql-results+xml", RESULTS_FORMATS, format_param="n3").name
    'SPARQL_XML'
    >>> negotiate("image/png", RESULTS_FORMATS)
    Traceback (most recent call last):
    ...
    kg.errors.NotAcceptable: no acceptable format for Accept: image/png; supported: ...
    """
    if not candidates:
        raise ValueError("negotiate needs at least one candidate format")
    if len(accept_header or "") + len(format_param or "") > NEGOTIATION_KEY_CHARS:
        return _negotiate(accept_header, tuple(candidates), format_param)
    return _negotiate_cached(accept_header, tuple(candidates), format_param)


# issue 18: parsing the Accept header was 10 % of a cheap query; clients send few distinct headers, so each
# (Accept, candidates, format=) is decided once. Bounded: at most NEGOTIATION_CACHE_SIZE answers, none for
# oversized keys; a NotAcceptable is raised anew each time (exceptions are not cached).
NEGOTIATION_CACHE_SIZE = 256
NEGOTIATION_KEY_CHARS = 2048


def _negotiate(accept_header: str | None, candidates: tuple[Format, ...], format_param: str | None) -> Format:
    """negotiate's decision, uncached."""
    if format_param:
        chosen = Format.from_name(format_param, candidates)
        if chosen is not None:
            return chosen
        by_accept = _by_accept(accept_header, candidates) if accept_header and accept_header.strip() else None
        if by_accept is None:
            raise NotAcceptable(f"format={format_param} is not available here", candidates)
        return by_accept
    if not accept_header or not accept_header.strip():
        return candidates[0]
    best = _by_accept(accept_header, candidates)
    if best is None:
        raise NotAcceptable(f"no acceptable format for Accept: {accept_header}", candidates)
    return best


_negotiate_cached = lru_cache(maxsize=NEGOTIATION_CACHE_SIZE)(_negotiate)


def _by_accept(accept_header: str, candidates: Sequence[Format]) -> Format | None:
    """The candidate the Accept header rates highest (the earlier on ties), or None when it accepts none."""
    accept = parse_accept_header(accept_header, MIMEAccept)
    best: Format | None = None
    best_q = 0.0
    for fmt in candidates:
        q = max([quality(accept, fmt.media_type)] + [quality(accept, alt, exact=True) for alt in fmt.media_types[1:]])
        if q > best_q:
            best, best_q = fmt, q
    return best


__all__ = ["NotAcceptable", "negotiate", "quality"]
