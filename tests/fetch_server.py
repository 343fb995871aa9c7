"""A real HTTP server on 127.0.0.1 (a free port, in a thread) that answers kg fetch's requests with recorded
responses from tests/fixtures/fetch/, and can misbehave: 429 with Retry-After, 5xx, slow answers, cut-off bodies,
redirects. Each route holds a list of replies: each request takes the first, and the last one stays."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fetch"


def fixture(name: str) -> bytes:
    """A recorded response body."""
    return (FIXTURES / name).read_bytes()


@dataclass
class Reply:
    """One response: status, body and headers; delay seconds first; cut: send only so many body bytes, then close."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    cut: int | None = None


def ok(name: str, **headers: str) -> Reply:
    """200 with a recorded body."""
    return Reply(200, fixture(name), {"Content-Type": "application/json", **headers})


@dataclass
class Seen:
    """A request the server answered: path, query parameters, headers and when."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    at: float


class Apis:
    """The routes, and every request seen."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.routes: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        self.lock = threading.Lock()

    @property
    def base(self) -> str:
        """http://127.0.0.1:port"""
        return f"http://127.0.0.1:{self.port}"

    def route(self, key: str, *replies: Reply) -> None:
        """Answer a path (or `path|cursor=…` for an OpenAlex page) with these replies, in order."""
        self.routes[key] = list(replies)

    def environment(self) -> dict[str, str]:
        """The KG_* settings that point kg fetch here, quick to retry."""
        return {"KG_ORCID_API": f"{self.base}/orcid/v3.0", "KG_OPENALEX_API": f"{self.base}/openalex",
                "KG_DBLP_API": f"{self.base}/dblp", "KG_CROSSREF_API": f"{self.base}/crossref",
                "KG_DATACITE_API": f"{self.base}/datacite", "KG_WIKIDATA_API": f"{self.base}/wikidata",
                "KG_ROR_API": f"{self.base}/ror/v2", "KG_CONTACT_EMAIL": "curator@example.org",
                "KG_OPENALEX_KEY": "test-key-123", "KG_FETCH_BACKOFF": "0.05", "KG_FETCH_TIMEOUT": "2",
                "KG_FETCH_RETRIES": "3"}

    def paths(self) -> list[str]:
        """The paths requested, in order."""
        return [s.path for s in self.seen]

    def take(self, path: str, query: dict[str, str]) -> Reply:
        """The reply for a request."""
        key = f"{path}|cursor={query['cursor']}" if "cursor" in query else path
        with self.lock:
            replies = self.routes.get(key)
            if not replies:
                return Reply(404, b'{"error": "not found"}', {"Content-Type": "application/json"})
            return replies.pop(0) if len(replies) > 1 else replies[0]


class _Handler(BaseHTTPRequestHandler):
    apis: Apis

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """Quiet."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.apis.seen.append(Seen(parts.path, query, {k.lower(): v for k, v in self.headers.items()},
                                   time.monotonic()))
        reply = self.apis.take(parts.path, query)
        try:
            if reply.delay:
                time.sleep(reply.delay)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body if reply.cut is None else reply.body[:reply.cut])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


@contextmanager
def serving() -> Iterator[Apis]:
    """A server on a free port of 127.0.0.1 for the duration."""
    apis = Apis(0)
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"apis": apis}))
    server.daemon_threads = True
    apis.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield apis
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
