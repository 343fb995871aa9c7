"""HTTP access to a remote SPARQL 1.1 store: queries, updates and Graph Store uploads, with credentials.

One ``requests`` session per client keeps connections alive (a query per page lookup would otherwise pay a
TCP handshake each). Every failure becomes a ``RemoteStoreError`` naming the URL, the HTTP status and the
engine's own message, so a refused update or a wrong password reads as such rather than as a stack trace.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import requests
from requests.auth import AuthBase, HTTPBasicAuth, HTTPDigestAuth

from ..config import Config
from ..errors import QueryTimeout, RemoteConfigError, RemoteStoreError

RESULTS_ACCEPT = "application/sparql-results+json, application/n-triples;q=0.9, text/turtle;q=0.8, text/plain;q=0.5"
AUTH_SCHEMES = ("basic", "digest", "bearer")
MESSAGE_CHARS = 600
CONNECT_SECONDS = 10.0
UPDATE_SECONDS = 3600.0


@dataclass(frozen=True)
class RemoteLocation:
    """Where a remote store answers: its query, update and Graph Store URLs, and the credentials."""

    query_url: str
    update_url: str
    gsp_url: str = ""
    user: str = ""
    password: str = ""
    auth: str = "basic"

    @classmethod
    def from_config(cls, config: Config) -> RemoteLocation:
        """The remote store named by KG_STORE_URL and its companions."""
        if not config.remote:
            raise RemoteConfigError("no remote store configured: set KG_STORE_URL (or --store-url)")
        if config.store_auth not in AUTH_SCHEMES:
            raise RemoteConfigError(f"KG_STORE_AUTH is {config.store_auth!r}; use one of {', '.join(AUTH_SCHEMES)}")
        return cls(config.store_url, config.store_update_url or config.store_url, config.store_gsp_url,
                   config.store_user, config.store_password, config.store_auth)


@dataclass(frozen=True)
class Response:
    """A remote answer: its media type (without parameters) and body."""

    media_type: str
    body: bytes
    partial: str = ""


class SparqlClient:
    """Sends SPARQL queries, updates and Graph Store requests to one remote store."""

    def __init__(self, location: RemoteLocation) -> None:
        self.location = location
        self.session = requests.Session()
        self.session.auth = _auth(location)
        self.session.headers["User-Agent"] = "kg (SPARQL 1.1 client)"

    def query(self, text: str, *, default_graphs: Sequence[str] = (), named_graphs: Sequence[str] = (),
              timeout: float = 30.0, accept: str = RESULTS_ACCEPT) -> Response:
        """POST a query (form-encoded, with an optional protocol dataset) and return the whole answer."""
        form: list[tuple[str, str]] = [("query", text)]
        form += [("default-graph-uri", g) for g in default_graphs]
        form += [("named-graph-uri", g) for g in named_graphs]
        return self._send("POST", self.location.query_url, data=form, headers={"Accept": accept}, timeout=timeout)

    def update(self, text: str, timeout: float = UPDATE_SECONDS) -> None:
        """POST a SPARQL Update (form-encoded update=)."""
        self._send("POST", self.location.update_url, data=[("update", text)], timeout=timeout)

    def upload(self, graph: str, ntriples: bytes, *, replace: bool, timeout: float = UPDATE_SECONDS) -> None:
        """Graph Store Protocol: PUT (replace) or POST (add) N-Triples into a named graph, sent as Turtle."""
        self._send("PUT" if replace else "POST", self.location.gsp_url, params={"graph": graph}, data=ntriples,
                   headers={"Content-Type": "text/turtle; charset=utf-8"}, timeout=timeout)

    def _send(self, method: str, url: str, *, timeout: float, **options: Any) -> Response:
        """One request; errors and non-2xx answers become RemoteStoreError, a read time-out QueryTimeout."""
        deadline = time.monotonic() + timeout
        try:
            with self.session.request(method, url, timeout=(CONNECT_SECONDS, timeout), stream=True,
                                      **options) as answer:
                if answer.status_code >= 400:
                    raise RemoteStoreError(f"the remote store answered {answer.status_code} to {method} {url}: "
                                           f"{_message(answer)}")
                chunks = []
                for chunk in answer.iter_content(65536):
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise QueryTimeout(f"the remote store took longer than {timeout:g} s; narrow the query "
                                           "or add a LIMIT")
                media_type = answer.headers.get("Content-Type", "").split(";")[0].strip().lower()
                return Response(media_type, b"".join(chunks), _partial(answer))
        except requests.Timeout:
            raise QueryTimeout(f"the remote store at {url} did not answer within {timeout:g} s; narrow the "
                               "query or add a LIMIT") from None
        except requests.RequestException as error:
            raise RemoteStoreError(f"cannot reach the remote store at {url}: {error}") from None

    def close(self) -> None:
        """Close the pooled connections."""
        self.session.close()


class BearerAuth(AuthBase):
    """``Authorization: Bearer <token>`` (QLever's access token, or a token-checking proxy)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self.token}"
        return request


def _auth(location: RemoteLocation) -> AuthBase | None:
    """The requests authentication for the configured scheme (bearer: the password is the token)."""
    if location.auth == "bearer" and location.password:
        return BearerAuth(location.password)
    if not location.user:
        return None
    if location.auth == "digest":
        return HTTPDigestAuth(location.user, location.password)
    return HTTPBasicAuth(location.user, location.password)


def _partial(answer: requests.Response) -> str:
    """Why an answer is incomplete: Virtuoso's 'anytime' results stop at its time limit and say so in headers."""
    state = answer.headers.get("X-SQL-State", "")
    return f"{state} {answer.headers.get('X-SQL-Message', '')}".strip() if state else ""


def _message(answer: requests.Response) -> str:
    """The start of an error body, on one line."""
    try:
        text = answer.content.decode("utf-8", "replace")
    except requests.RequestException:
        return answer.reason or ""
    text = " ".join(text.split())
    return (text[:MESSAGE_CHARS] + " ...") if len(text) > MESSAGE_CHARS else text or (answer.reason or "")
