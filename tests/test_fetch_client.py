"""kg fetch's HTTP client against a real server on 127.0.0.1 that misbehaves: 429 with Retry-After, 5xx, slow
answers, cut-off bodies, redirects, oversized answers; and the token bucket that keeps ORCID's rate."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg.config import Config
from kg.errors import FetchLimited, SourceUnreachable
from kg.fetch.client import Client, TokenBucket, retry_after, shown

from .fetch_server import Apis, Reply, fixture, ok, serving

WORK = "/crossref/works/10.7554/elife.01567"
BODY = fixture("crossref_10.7554-elife.01567.json")


@pytest.fixture()
def apis() -> Iterator[Apis]:
    """The local server, no routes yet."""
    with serving() as server:
        yield server


def client(apis: Apis, **settings: object) -> Client:
    """A client with the test settings (quick backoff) and any overrides."""
    values = {k.removeprefix("KG_").lower(): v for k, v in apis.environment().items()}
    config = Config.from_env(environ={f"KG_{k.upper()}": str(v) for k, v in {**values, **settings}.items()},
                             data=Path("unused"))
    return Client(config)


def get(apis: Apis, http: Client, path: str = WORK) -> bytes:
    return http.get("crossref", apis.base + path, check=json.loads).body


def test_429_waits_as_retry_after_says(apis: Apis) -> None:
    apis.route(WORK, Reply(429, b"slow down", {"Retry-After": "1"}), ok("crossref_10.7554-elife.01567.json"))
    assert get(apis, client(apis)) == BODY
    first, second = apis.seen
    assert second.at - first.at >= 0.95


def test_a_retry_after_longer_than_the_limit_stops_with_when_to_come_back(apis: Apis) -> None:
    apis.route(WORK, Reply(429, b"", {"Retry-After": "3600"}))
    with pytest.raises(FetchLimited, match=r"asks to wait 3600 s, more than KG_FETCH_MAX_WAIT \(120 s\)"):
        get(apis, client(apis))
    assert len(apis.seen) == 1


def test_5xx_is_retried_with_growing_waits(apis: Apis) -> None:
    apis.route(WORK, Reply(502), Reply(503), Reply(500), ok("crossref_10.7554-elife.01567.json"))
    assert get(apis, client(apis, fetch_backoff=0.1)) == BODY
    gaps = [b.at - a.at for a, b in zip(apis.seen, apis.seen[1:], strict=False)]
    assert len(gaps) == 3 and gaps[0] >= 0.08 and gaps[1] >= 0.17 and gaps[2] >= 0.35


def test_retries_are_bounded_and_the_error_names_the_url_and_the_fix(apis: Apis) -> None:
    apis.route(WORK, Reply(503, b"down"))
    with pytest.raises(SourceUnreachable) as caught:
        get(apis, client(apis, fetch_retries=2))
    assert len(apis.seen) == 3
    message = str(caught.value)
    assert f"{apis.base}{WORK}?mailto=curator%40example.org: HTTP 503" in message
    assert "still after 2 retries" in message and "rerun kg fetch later" in message
    assert caught.value.exit_code == 9


def test_backoff_is_capped(apis: Apis) -> None:
    apis.route(WORK, Reply(500), Reply(500), Reply(500), ok("crossref_10.7554-elife.01567.json"))
    started = time.monotonic()
    get(apis, client(apis, fetch_backoff=0.2, fetch_max_wait=0.25))
    assert time.monotonic() - started < 1.5  # 0.2 + 0.25 + 0.25 (with jitter), not 0.2 + 0.4 + 0.8


def test_a_slow_answer_times_out_and_is_retried(apis: Apis) -> None:
    apis.route(WORK, Reply(200, BODY, delay=1.5), ok("crossref_10.7554-elife.01567.json"))
    assert get(apis, client(apis, fetch_timeout=0.5)) == BODY
    assert len(apis.seen) == 2


def test_a_body_cut_off_is_fetched_again(apis: Apis) -> None:
    apis.route(WORK, Reply(200, BODY, cut=1000), ok("crossref_10.7554-elife.01567.json"))
    assert get(apis, client(apis)) == BODY
    assert len(apis.seen) == 2


def test_a_complete_but_truncated_document_is_fetched_again(apis: Apis) -> None:
    apis.route(WORK, Reply(200, BODY[:1000]), ok("crossref_10.7554-elife.01567.json"))
    assert get(apis, client(apis)) == BODY
    with pytest.raises(SourceUnreachable, match="the body is cut off or malformed"):
        apis.route(WORK, Reply(200, BODY[:1000]))
        get(apis, client(apis, fetch_retries=1))


def test_redirects_are_followed_a_few_times(apis: Apis) -> None:
    apis.route("/dblp/pid/95/7448.xml", Reply(301, b"", {"Location": f"{apis.base}/dblp/pid/95/7448-1.xml"}))
    apis.route("/dblp/pid/95/7448-1.xml", Reply(200, fixture("dblp_95-7448-1.xml")))
    response = client(apis).get("dblp", f"{apis.base}/dblp/pid/95/7448.xml", accept="application/xml")
    assert response.url == f"{apis.base}/dblp/pid/95/7448-1.xml" and response.body.startswith(b"<?xml")
    apis.route("/loop", Reply(302, b"", {"Location": f"{apis.base}/loop"}))
    with pytest.raises(SourceUnreachable, match="more than 5 redirects"):
        client(apis).get("dblp", f"{apis.base}/loop")


def test_a_response_larger_than_the_limit_is_refused(apis: Apis) -> None:
    apis.route(WORK, ok("crossref_10.7554-elife.01567.json"))
    with pytest.raises(FetchLimited, match=r"more than KG_FETCH_MAX_BYTES \(1,000"):
        get(apis, client(apis, fetch_max_bytes=1000))


def test_an_openalex_refusal_says_to_check_the_key_and_never_shows_it(apis: Apis) -> None:
    apis.route("/openalex/works/W1", Reply(401, b'{"error": "Invalid api_key"}'))
    with pytest.raises(SourceUnreachable) as caught:
        client(apis).get("openalex", f"{apis.base}/openalex/works/W1")
    assert "HTTP 401" in str(caught.value) and "check KG_OPENALEX_KEY" in str(caught.value)
    assert "test-key-123" not in str(caught.value)
    assert apis.seen[0].query == {"api_key": "test-key-123"}
    assert shown("https://x/works", {"api_key": "secret", "filter": "a:b"}) == "https://x/works?filter=a%3Ab"


def test_advertised_rate_limits_slow_the_client_down(apis: Apis) -> None:
    apis.route(WORK, ok("crossref_10.7554-elife.01567.json", **{"x-rate-limit-limit": "4",
                                                                "x-rate-limit-interval": "1s"}))
    http = client(apis)
    get(apis, http)
    assert http.bucket("crossref").rate == 4
    apis.route("/limited", Reply(200, b"{}", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"}))
    get(apis, http, "/limited")
    get(apis, http, "/limited")
    assert apis.seen[-1].at - apis.seen[-2].at >= 0.9


def test_the_token_bucket_allows_a_burst_then_the_rate() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    bucket = TokenBucket(12.0, 40, clock=lambda: now[0], sleep=sleep)
    for _ in range(40):
        bucket.take()
    assert not slept
    for _ in range(12):
        bucket.take()
    assert sum(slept) == pytest.approx(1.0, rel=0.01)
    bucket.hold(5.0)
    bucket.take()
    assert slept[-1] == pytest.approx(5.0)


def test_retry_after_reads_seconds_and_dates() -> None:
    assert retry_after("7") == 7.0
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == pytest.approx(10.0)
    assert retry_after("soon") is None and retry_after(None) is None


def test_a_redirect_to_another_scheme_is_refused_in_one_line(apis: Apis) -> None:
    apis.route("/elsewhere", Reply(302, b"", {"Location": "ftp://example.org/record.json"}))
    with pytest.raises(SourceUnreachable, match="cannot be fetched .*KG_DBLP_API"):
        client(apis).get("dblp", f"{apis.base}/elsewhere")


def test_a_source_that_is_down_is_retried_then_named(apis: Apis) -> None:
    http = client(apis, fetch_retries=1, fetch_backoff=0.01)
    with pytest.raises(SourceUnreachable, match=r"http://127\.0\.0\.1:1/x: cannot connect .*still after 1 retries"):
        http.get("ror", "http://127.0.0.1:1/x")
