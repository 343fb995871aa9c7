"""gzip content-coding for clients that ask for it (``Accept-Encoding: gzip``), as WSGI middleware.

SPARQL answers, pages and dumps are text and shrink 5-30x (a 350 KB GROUP BY answer in SPARQL JSON becomes
8 KB). A 200 response with a text media type and a body of at least ``KG_GZIP_MIN_BYTES`` is compressed for a
client that accepts gzip: whole up to 4 MB (with its Content-Length), chunk by chunk as it is written beyond
that or when its length is not known (a dump), so a large body is never held in memory for compression. Every
response this could apply to says ``Vary: Accept-Encoding``, compressed or not, so a shared cache keeps the two
apart.

A compressed representation has its own entity tag (the identity tag with ``-gzip`` before the closing quote),
as RFC 9110 asks of a different content-coding; a conditional request that sends it back is matched against the
identity tag it came from, so a revalidation still gets its 304. The response cache sits in front of this
middleware and keys on whether the client accepts gzip, so a repeat request is answered with bytes compressed
once.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
GZIP_WINDOW = 31  # zlib's wbits for a gzip header and trailer
WHOLE_LEVEL = 6  # a body compressed at once (kept by the response cache, compressed once)
STREAM_LEVEL = 1  # a streamed dump: the fastest level keeps up with the serialiser
WHOLE_MAX_BYTES = 4_000_000  # a larger body (a dump file) is compressed as a stream, never held whole
TAG_SUFFIX = "-gzip"
KEPT_HEADERS = 256  # Accept-Encoding values whose answer is kept
MAX_KEPT_HEADER = 200  # characters of the longest one kept
TEXT_TYPES = ("text/", "application/n-triples", "application/n-quads", "application/trig", "image/svg+xml",
              "application/javascript")
TEXT_SUFFIXES = ("json", "xml")  # application/sparql-results+json, application/ld+json, application/rdf+xml


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header accepts gzip; the answers for short headers (what browsers and clients
    send) are kept, so the cache holds at most KEPT_HEADERS × MAX_KEPT_HEADER characters whatever clients send."""
    return _kept_answer(header) if len(header) <= MAX_KEPT_HEADER else gzip_accepted(header)


def gzip_accepted(header: str) -> bool:
    """Whether an Accept-Encoding header accepts gzip (by name or '*', with a q-value above 0).

    >>> gzip_accepted("gzip, deflate, br"), gzip_accepted("gzip;q=0, identity"), gzip_accepted("*;q=0.5")
    (True, False, True)
    >>> gzip_accepted(""), gzip_accepted("br;q=1.0, *;q=0"), gzip_accepted("x-gzip")
    (False, False, True)
    """
    found: dict[str, float] = {}
    for item in header.lower().split(","):
        name, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if name.strip():
            found[name.strip()] = quality
    for name in ("gzip", "x-gzip"):
        if name in found:
            return found[name] > 0
    return found.get("*", 0.0) > 0


_kept_answer = functools.lru_cache(maxsize=KEPT_HEADERS)(gzip_accepted)


@functools.lru_cache(maxsize=256)
def compressible(media_type: str) -> bool:
    """Whether a media type is text that gzip shrinks (HTML, RDF and SPARQL results formats, JSON, XML).

    >>> compressible("application/sparql-results+json"), compressible("text/turtle; charset=utf-8")
    (True, True)
    >>> compressible("image/png"), compressible("application/octet-stream")
    (False, False)
    """
    essence = media_type.split(";", 1)[0].strip().lower()
    return essence.startswith(TEXT_TYPES) or essence.endswith(TEXT_SUFFIXES)


def gzip_tag(tag: str) -> str:
    """The entity tag of the gzip representation: '-gzip' inside the closing quote.

    >>> gzip_tag('"v1-abc"'), gzip_tag('W/"x"')
    ('"v1-abc-gzip"', 'W/"x-gzip"')
    """
    return tag[:-1] + TAG_SUFFIX + '"' if tag.endswith('"') else tag + TAG_SUFFIX


def identity_tags(header: str) -> str:
    """An If-None-Match header with each gzip tag turned back into the identity tag it was made from.

    >>> identity_tags('"a-gzip", W/"b-gzip", "c"')
    '"a", W/"b", "c"'
    """
    return ", ".join(tag.strip()[:-len(TAG_SUFFIX) - 1] + '"' if tag.strip().endswith(TAG_SUFFIX + '"')
                     else tag.strip() for tag in header.split(","))


def compressed_stream(parts: Iterable[bytes]) -> Iterator[bytes]:
    """The gzip stream of a streamed body, a chunk out for each chunk in that yields output."""
    compressor = zlib.compressobj(STREAM_LEVEL, zlib.DEFLATED, GZIP_WINDOW)
    try:
        for part in parts:
            chunk = compressor.compress(part)
            if chunk:
                yield chunk
        yield compressor.flush()
    finally:
        close = getattr(parts, "close", None)
        if close is not None:
            close()


Pending = tuple[str, list[tuple[str, str]], bool]  # status, headers, whether the body is compressed whole


class Compression:
    """WSGI middleware that gzips text responses for clients that accept it."""

    def __init__(self, app: WsgiApp, min_bytes: int) -> None:
        self.app, self.min_bytes = app, min_bytes

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Answer through the app, compressing the body when the client and the response allow it."""
        if self.min_bytes <= 0:
            return self.app(environ, start_response)
        wanted = environ.get("REQUEST_METHOD") != "HEAD" and accepts_gzip(environ.get("HTTP_ACCEPT_ENCODING", ""))
        returned_tag = wanted and TAG_SUFFIX in environ.get("HTTP_IF_NONE_MATCH", "")
        if returned_tag:
            environ["HTTP_IF_NONE_MATCH"] = identity_tags(environ["HTTP_IF_NONE_MATCH"])
        pending: list[Pending] = []

        def deciding(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if exc_info is not None:
                return start_response(status, headers, exc_info)
            headers, compressed = self.headers_for(status, headers, wanted, returned_tag)
            if compressed is None:
                return start_response(status, headers)
            pending.append(compressed)
            return lambda data: None  # the body comes from the iterable; kg's views never call write()

        parts = self.app(environ, deciding)
        return self.compressed(parts, pending[0], start_response) if pending else parts

    def headers_for(self, status: str, headers: list[tuple[str, str]], wanted: bool,
                    returned_tag: bool) -> tuple[list[tuple[str, str]], Pending | None]:
        """The identity response's headers with Vary (and a 304's gzip entity tag), and the compressed response's
        status and headers when this one is to be compressed."""
        media, varies, length, encoded, tagged = "", [], None, False, False
        for name, value in headers:
            lower = name.lower()
            if lower == "content-type":
                media = value
            elif lower == "vary":
                varies.append(value)
            elif lower == "content-length":
                length = value
            elif lower == "content-encoding":
                encoded = True
            elif lower == "etag":
                tagged = True
        if encoded or not compressible(media):
            if returned_tag and tagged and status.startswith("304"):
                headers = [(n, gzip_tag(v) if n.lower() == "etag" else v) for n, v in headers]
            return headers, None
        vary = ", ".join(varies)
        if "accept-encoding" not in vary.lower():
            headers = [*(pair for pair in headers if pair[0].lower() != "vary"),
                       ("Vary", f"{vary}, Accept-Encoding" if vary else "Accept-Encoding")] if varies else [
                *headers, ("Vary", "Accept-Encoding")]
        if not wanted or not status.startswith("200") or (length is not None and length.isdigit()
                                                          and int(length) < self.min_bytes):
            return headers, None
        packed = [(n, gzip_tag(v) if n.lower() == "etag" else v) for n, v in headers if n.lower() != "content-length"]
        whole = length is not None and length.isdigit() and int(length) <= WHOLE_MAX_BYTES
        return headers, (status, [*packed, ("Content-Encoding", "gzip")], whole)

    @staticmethod
    def compressed(parts: Iterable[bytes], pending: Pending, start_response: StartResponse) -> Iterable[bytes]:
        """Start the compressed response and give its body: whole when it is known to be small, else streamed."""
        status, headers, whole = pending
        if not whole:
            start_response(status, headers)
            return compressed_stream(parts)
        try:
            body = b"".join(parts)
        finally:
            close = getattr(parts, "close", None)
            if close is not None:
                close()
        compressor = zlib.compressobj(WHOLE_LEVEL, zlib.DEFLATED, GZIP_WINDOW)
        packed = compressor.compress(body) + compressor.flush()
        start_response(status, [*headers, ("Content-Length", str(len(packed)))])
        return [packed]
