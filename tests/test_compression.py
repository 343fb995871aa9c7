"""gzip content-coding (kg.server.layers.compression): same bytes once decompressed, Vary and ETag right, kept apart
from identity answers in the response cache, streamed for large or unsized bodies, and never where not asked."""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from kg.config import Config
from kg.server import create_app
from kg.server.layers import compression
from kg.server.layers.compression import Compression

from .conftest import REPO_DATA
from .test_response_cache import counting_views

ALL = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o LIMIT 400"
PERSON = "/page/person/ziheng-jiang"
GZIP = {"Accept-Encoding": "gzip, deflate"}
LARGE = [
    ("/sparql", {"query": ALL}, {"Accept": "application/sparql-results+json"}),
    ("/sparql", {"query": ALL}, {"Accept": "text/csv"}),
    (PERSON, {}, {"Accept": "text/html"}),
    ("/data/person/ziheng-jiang.ttl", {}, {}),
    ("/dump.nq", {}, {}),
]


def varies_on_encoding(response: Any) -> bool:
    """Whether the response's Vary names Accept-Encoding."""
    return "accept-encoding" in ", ".join(response.headers.getlist("Vary")).lower()


@pytest.mark.parametrize("path, params, headers", LARGE)
def test_a_gzip_client_gets_the_same_bytes_compressed(app: Flask, path: str, params: dict[str, str],
                                                      headers: dict[str, str]) -> None:
    client = app.test_client()
    plain = client.get(path, query_string=params, headers=headers)
    packed = client.get(path, query_string=params, headers={**headers, **GZIP})
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers and packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == plain.data and len(packed.data) < len(plain.data) / 2
    assert int(packed.headers["Content-Length"]) == len(packed.data)
    assert varies_on_encoding(plain) and varies_on_encoding(packed)
    assert packed.headers["Content-Type"] == plain.headers["Content-Type"]
    if "ETag" in plain.headers:
        assert packed.headers["ETag"] == plain.headers["ETag"][:-1] + '-gzip"'


@pytest.mark.parametrize("header", ["", "identity", "gzip;q=0", "br", "*;q=0"])
def test_no_gzip_unless_the_client_accepts_it(app: Flask, header: str) -> None:
    response = app.test_client().get(PERSON, headers={"Accept-Encoding": header} if header else {})
    assert response.status_code == 200 and "Content-Encoding" not in response.headers
    assert response.data.lstrip().startswith(b"<!") and varies_on_encoding(response)


def test_small_bodies_and_head_requests_stay_identity(app: Flask) -> None:
    client = app.test_client()
    small = client.get("/sparql", query_string={"query": "ASK {}"},
                       headers={"Accept": "application/sparql-results+json", **GZIP})
    assert small.status_code == 200 and "Content-Encoding" not in small.headers and varies_on_encoding(small)
    head = client.head(PERSON, headers=GZIP)
    assert head.status_code == 200 and "Content-Encoding" not in head.headers


def test_revalidating_with_the_gzip_etag_gets_304(app: Flask) -> None:
    client = app.test_client()
    packed = client.get(PERSON, headers=GZIP)
    tag = packed.headers["ETag"]
    again = client.get(PERSON, headers={**GZIP, "If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag and not again.data
    plain_tag = client.get(PERSON).headers["ETag"]
    assert client.get(PERSON, headers={"If-None-Match": plain_tag}).status_code == 304
    assert client.get(PERSON, headers={"If-None-Match": tag}).status_code == 200  # not the identity's tag


def test_the_response_cache_keeps_gzip_and_identity_answers_apart(app: Flask) -> None:
    client = app.test_client()
    calls = counting_views(app)
    params, accept = {"query": ALL}, {"Accept": "application/sparql-results+json"}
    packed = client.get("/sparql", query_string=params, headers={**accept, **GZIP})
    assert calls["n"] == 1
    repeat = client.get("/sparql", query_string=params, headers={**accept, "Accept-Encoding": "gzip"})
    assert calls["n"] == 1 and repeat.data == packed.data and repeat.headers["Content-Encoding"] == "gzip"
    plain = client.get("/sparql", query_string=params, headers=accept)
    assert calls["n"] == 2 and "Content-Encoding" not in plain.headers
    assert gzip.decompress(packed.data) == plain.data


def test_zero_min_bytes_never_compresses(built_store_dir: Path) -> None:
    app = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0, gzip_min_bytes=0))
    response = app.test_client().get(PERSON, headers=GZIP)
    assert response.status_code == 200 and "Content-Encoding" not in response.headers


def _app(parts: list[bytes], headers: list[tuple[str, str]]) -> Any:
    """A WSGI app answering 200 with the given body parts and headers."""
    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        start_response("200 OK", headers)
        return iter(parts)
    return app


def _call(app: Any, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    started: list[tuple[str, list[tuple[str, str]]]] = []
    body = app({"REQUEST_METHOD": "GET", **environ}, lambda status, headers, exc=None: started.append(
        (status, headers)))
    data = b"".join(body)
    return started[0][0], started[0][1], data


def test_an_unsized_or_large_body_is_compressed_as_a_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"<http://e/s{n}> <http://e/p> \"{n}\" .\n".encode() for n in range(5000)]
    unsized = Compression(_app(lines, [("Content-Type", "application/n-triples")]), 1024)
    status, headers, body = _call(unsized, {"HTTP_ACCEPT_ENCODING": "gzip"})
    names = {n.lower() for n, _ in headers}
    assert status == "200 OK" and ("Content-Encoding", "gzip") in headers and "content-length" not in names
    assert gzip.decompress(body) == b"".join(lines)
    monkeypatch.setattr(compression, "WHOLE_MAX_BYTES", 1000)
    whole = b"".join(lines)
    sized = Compression(_app([whole], [("Content-Type", "text/plain"), ("Content-Length", str(len(whole)))]), 1024)
    status, headers, body = _call(sized, {"HTTP_ACCEPT_ENCODING": "gzip"})
    assert "content-length" not in {n.lower() for n, _ in headers} and gzip.decompress(body) == whole


def test_binary_and_already_encoded_bodies_pass_through() -> None:
    data = bytes(range(256)) * 20
    for headers in ([("Content-Type", "image/png")], [("Content-Type", "text/plain"), ("Content-Encoding", "br")]):
        status, sent, body = _call(Compression(_app([data], headers), 1024), {"HTTP_ACCEPT_ENCODING": "gzip"})
        assert body == data and sent == headers


def test_a_script_can_read_the_etag_and_revalidate(app: Flask) -> None:
    client = app.test_client()
    origin = {"Origin": "https://app.example", "Accept": "text/csv"}
    response = client.get("/sparql", query_string={"query": ALL}, headers=origin)
    assert "ETag" in response.headers["Access-Control-Expose-Headers"].split(", ")
    preflight = client.options("/sparql", headers={"Origin": "https://app.example",
                                                   "Access-Control-Request-Method": "GET",
                                                   "Access-Control-Request-Headers": "If-None-Match"})
    assert "If-None-Match" in preflight.headers["Access-Control-Allow-Headers"]
    again = client.get("/sparql", query_string={"query": ALL}, headers={**origin,
                                                                        "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Access-Control-Allow-Origin"] == "*"
