"""HTTP for kg fetch: a polite client with per-source token buckets, retries with capped exponential backoff,
Retry-After and rate-limit headers honoured, timeouts, a response-size limit and redirects followed a few times.

Errors name the identifier's URL and the fix: a source that keeps failing is SourceUnreachable, one that asks to
wait longer than KG_FETCH_MAX_WAIT or sends more than KG_FETCH_MAX_BYTES is FetchLimited. The OpenAlex key is
added to requests here and never appears in a message, a file or the provenance.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urlencode

import requests

from ..config import Config
from ..errors import FetchLimited, SourceUnreachable

MAX_REDIRECTS = 5
CHUNK = 65_536
RATES = {  # requests per second and burst, per source (ORCID's from the settings)
    "openalex": (10.0, 10), "crossref": (10.0, 10), "datacite": (10.0, 10), "dblp": (1.0, 3), "wikidata": (5.0, 5),
    "ror": (5.0, 5),
}
SECRET_PARAMS = ("api_key",)
RETRIED_STATUSES = {408, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class Response:
    """A response kg fetch reads: the final URL, the status, the headers (lower-case names) and the whole body."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes


class TokenBucket:
    """At most rate requests a second on average, burst at once; hold() stops all requests for a while."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.rate, self.burst = rate, max(1, burst)
        self.tokens = float(self.burst)
        self.clock, self.sleep = clock, sleep
        self.updated = clock()
        self.until = 0.0
        self.lock = threading.Lock()

    def take(self) -> float:
        """Wait for a token and take it; the seconds waited."""
        with self.lock:
            now = self.clock()
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            wait = max(self.until - now, (1 - self.tokens) / self.rate if self.tokens < 1 else 0.0)
            if wait > 0:
                self.sleep(wait)
                now = self.clock()
                self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
                self.updated = now
            self.tokens = max(0.0, self.tokens - 1) if self.tokens >= 1 else 0.0
            return wait

    def hold(self, seconds: float) -> None:
        """Send nothing for the next seconds (a Retry-After, a rate-limit reset)."""
        with self.lock:
            self.until = max(self.until, self.clock() + seconds)
            self.tokens = 0.0

    def slow_to(self, rate: float) -> None:
        """Lower the rate to what the source advertises (never raise it above kg's own)."""
        with self.lock:
            if 0 < rate < self.rate:
                self.rate = rate
                self.burst = max(1, min(self.burst, int(rate)))


def validators(response: Response | None) -> tuple[str, str]:
    """A response's ETag and Last-Modified (empty when absent), kept for conditional requests."""
    if response is None:
        return "", ""
    return response.headers.get("etag", ""), response.headers.get("last-modified", "")


def user_agent(config: Config) -> str:
    """kg's User-Agent: name, version, project URL and the contact (KG_CONTACT_EMAIL)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("kg")
    except PackageNotFoundError:  # not installed: running from a checkout
        release = "0"
    contact = f"; mailto:{config.contact_email}" if config.contact_email else ""
    return f"kg/{release} (researcher-profile knowledge graph; kg fetch{contact})"


def shown(url: str, params: Mapping[str, str] | None = None) -> str:
    """The URL as messages and provenance show it: the query without secrets such as the OpenAlex api_key."""
    visible = {k: v for k, v in (params or {}).items() if k not in SECRET_PARAMS}
    return f"{url}?{urlencode(visible)}" if visible else url


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a Retry-After header asks to wait (a number, or an HTTP date), or None when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    if text.replace(".", "", 1).isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _interval(text: str) -> float | None:
    """Crossref's x-rate-limit-interval ('1s', '60s', '1m') in seconds."""
    text = text.strip().lower()
    unit = {"s": 1.0, "m": 60.0, "h": 3600.0}.get(text[-1:], 1.0)
    number = text.rstrip("smh")
    try:
        return float(number) * unit
    except ValueError:
        return None


class Transient(Exception):
    """A failure worth retrying (a 5xx, a timeout, a cut-off body); wait is what the source asked for, if any."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.wait = reason, wait


class Client:
    """GET requests to the record sources, politely; one instance per kg fetch run."""

    def __init__(self, config: Config, session: requests.Session | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.config, self.sleep = config, sleep
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = user_agent(config)
        self.session.max_redirects = MAX_REDIRECTS
        self.buckets: dict[str, TokenBucket] = {}
        self.requests = 0

    def bucket(self, source: str) -> TokenBucket:
        """The token bucket of a source."""
        if source not in self.buckets:
            rate, burst = ((self.config.orcid_rate, self.config.orcid_burst) if source == "orcid"
                           else RATES.get(source, (5.0, 5)))
            self.buckets[source] = TokenBucket(rate, burst, sleep=self.sleep)
        return self.buckets[source]

    def params(self, source: str, params: Mapping[str, str] | None) -> dict[str, str]:
        """The query parameters with the source's own: OpenAlex's api_key, Crossref's mailto."""
        found = dict(params or {})
        if source == "openalex" and self.config.openalex_key:
            found["api_key"] = self.config.openalex_key
        if source == "crossref" and self.config.contact_email:
            found["mailto"] = self.config.contact_email
        return found

    def get(self, source: str, url: str, params: Mapping[str, str] | None = None, accept: str = "application/json",
            check: Callable[[bytes], object] | None = None, headers: Mapping[str, str] | None = None) -> Response:
        """A GET's 2xx (accepted by check, else fetched again as cut off), 304, 404 or 410 answer, retried politely."""
        query = self.params(source, params)
        where = shown(url, query)
        retries = max(0, self.config.fetch_retries)
        for attempt in range(retries + 1):
            self.bucket(source).take()
            try:
                response = self._once(source, url, query, {"Accept": accept, **(headers or {})}, where)
                if 200 <= response.status < 300 and check is not None:
                    try:
                        check(response.body)
                    except ValueError as error:
                        raise Transient(f"the body is cut off or malformed ({error})") from None
                return response
            except Transient as failure:
                if attempt == retries:
                    raise SourceUnreachable(
                        f"{where}: {failure.reason}, still after {retries} retries; nothing more was written for it; "
                        f"rerun kg fetch later (it resumes where it stopped), or raise KG_FETCH_RETRIES") from None
                self._wait(source, where, attempt, failure)
        raise AssertionError("unreachable")

    def _wait(self, source: str, where: str, attempt: int, failure: Transient) -> None:
        """Sleep before a retry: what the source asked for, else capped exponential backoff with jitter."""
        limit = self.config.fetch_max_wait
        if failure.wait is not None:
            if failure.wait > limit:
                raise FetchLimited(f"{where}: {failure.reason}; the source asks to wait {failure.wait:.0f} s, "
                                   f"more than KG_FETCH_MAX_WAIT ({limit:.0f} s); rerun kg fetch after that time "
                                   "(it resumes where it stopped)")
            delay = failure.wait
            self.bucket(source).hold(delay)
        else:
            delay = min(limit, self.config.fetch_backoff * 2 ** attempt) * random.uniform(0.9, 1.1)
        self.sleep(delay)

    def _once(self, source: str, url: str, query: Mapping[str, str], headers: Mapping[str, str],
              where: str) -> Response:
        """One request, its body read whole within the size and time limits."""
        timeout = self.config.fetch_timeout
        self.requests += 1
        try:
            raw = self.session.get(url, params=query, headers=dict(headers), timeout=(timeout, timeout),
                                   stream=True, allow_redirects=True)
        except requests.TooManyRedirects:
            raise SourceUnreachable(f"{where}: more than {MAX_REDIRECTS} redirects; check the base URL setting of "
                                    f"{source} (KG_{source.upper()}_API)") from None
        except requests.Timeout:
            raise Transient(f"no answer within {timeout:.0f} s (KG_FETCH_TIMEOUT)") from None
        except requests.ConnectionError as error:
            raise Transient(f"cannot connect ({_reason(error)})") from None
        except requests.RequestException as error:  # a redirect to another scheme, a malformed URL
            raise SourceUnreachable(f"{where}: cannot be fetched ({_reason(error)}); check the base URL setting of "
                                    f"{source} (KG_{source.upper()}_API)") from None
        with raw:
            headers = {k.lower(): v for k, v in raw.headers.items()}
            self._observe(source, headers)
            if raw.status_code in RETRIED_STATUSES:
                wait = retry_after(headers.get("retry-after"))
                raise Transient(f"HTTP {raw.status_code} {raw.reason}", wait)
            body = self._read(raw, where, timeout)
        if raw.status_code >= 300 and raw.status_code not in (304, 404, 410):
            raise SourceUnreachable(f"{where}: HTTP {raw.status_code} {raw.reason}: {_excerpt(body)}"
                                    f"{_hint(source, raw.status_code)}")
        return Response(raw.url, raw.status_code, headers, body)

    def _read(self, raw: requests.Response, where: str, timeout: float) -> bytes:
        """The body, refused past KG_FETCH_MAX_BYTES; a body cut off or slower than the timeout is transient."""
        limit = self.config.fetch_max_bytes
        declared = raw.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchLimited(f"{where}: the response is {int(declared):,} bytes, more than KG_FETCH_MAX_BYTES "
                               f"({limit:,}); raise it to fetch this record")
        deadline = time.monotonic() + timeout
        parts, size = [], 0
        try:
            for chunk in raw.iter_content(CHUNK):
                size += len(chunk)
                if size > limit:
                    raise FetchLimited(f"{where}: the response is more than KG_FETCH_MAX_BYTES ({limit:,} bytes); "
                                       "raise it to fetch this record")
                if time.monotonic() > deadline:
                    raise Transient(f"the body took longer than {timeout:.0f} s (KG_FETCH_TIMEOUT)")
                parts.append(chunk)
        except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError) as error:
            raise Transient(f"the body was cut off ({_reason(error)})") from None
        except requests.ConnectionError as error:
            raise Transient(f"the connection broke while reading ({_reason(error)})") from None
        return b"".join(parts)

    def _observe(self, source: str, headers: Mapping[str, str]) -> None:
        """Follow what the source says of its rate limits: x-rate-limit-limit/-interval, x-ratelimit-remaining 0."""
        limit, interval = headers.get("x-rate-limit-limit", ""), headers.get("x-rate-limit-interval", "")
        seconds = _interval(interval) if interval else None
        if limit.isdigit() and seconds:
            self.bucket(source).slow_to(int(limit) / seconds)
        remaining = headers.get("x-ratelimit-remaining", headers.get("x-rate-limit-remaining", ""))
        reset = headers.get("x-ratelimit-reset", headers.get("x-rate-limit-reset", ""))
        if remaining.strip() == "0" and reset.strip().replace(".", "", 1).isdigit():
            value = float(reset)
            wait = value - time.time() if value > 1_000_000_000 else value
            self.bucket(source).hold(max(0.0, min(wait, self.config.fetch_max_wait)))


def _reason(error: BaseException) -> str:
    """The innermost reason of a requests error, short."""
    text = str(error.args[0] if error.args else error)
    return text.split(": ", 1)[-1][:160]


def _excerpt(body: bytes) -> str:
    """The start of an error body, one line."""
    return " ".join(body[:200].decode("utf-8", "replace").split()) or "(empty body)"


def _hint(source: str, status: int) -> str:
    """The likely fix for a refused request."""
    if source == "openalex" and status in (401, 403):
        return "; check KG_OPENALEX_KEY (a free key from https://openalex.org/settings/api), or wait for the daily " \
               "allowance to renew"
    if status == 400:
        return "; check the identifier"
    return ""
