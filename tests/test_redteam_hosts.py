"""Red-team findings on the Host header and on echoes (issue 28, items 2 and 7), against a real `kg serve`.

- Distinct Host headers no longer grow the web process: the sitemap is rendered once per data version without
  the host (2,000 requests with distinct 250-character hosts stay within 50 MB of the process tree's RSS).
- The sitemap's ETag differs per host (its body does), and 304 still answers a matching If-None-Match.
- KG_PUBLIC_HOSTS refuses other hosts with 400 and serves the listed ones; a malformed Host always gets 400.
- /explain of a 60 KB term answers a small 404; /static//etc/passwd redirects without the Host in Location.

In-process: KG_PUBLIC_HOSTS's matching, and a malformed value stopping `kg serve` with a message.

Requests go only to 127.0.0.1, each with a timeout; loops are bounded; servers are stopped by their PID.
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.config import Config
from kg.errors import SettingError
from kg.server.layers.hosts import PublicHosts

from . import server_process
from .repo_data import copy_site
from .test_redteam_protocol import Answer

TIMEOUT = 30
REQUESTS = 2_000
RSS_SLACK = 50 * 1024 * 1024
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
PUBLIC = "kg.example.org"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


class Connection:
    """One kept-alive HTTP/1.1 connection to the server, sending targets and Host headers as given."""

    def __init__(self, url: str) -> None:
        host, port = urllib.parse.urlsplit(url).netloc.rsplit(":", 1)
        self.connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)

    def get(self, target: str, host: str, headers: dict[str, str] | None = None) -> Answer:
        """GET target with this Host header."""
        self.connection.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
        for name, value in {"Host": host, **(headers or {})}.items():
            self.connection.putheader(name, value)
        self.connection.endheaders()
        response = self.connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())

    def close(self) -> None:
        self.connection.close()


@pytest.fixture()
def connection(served: tuple[str, subprocess.Popen[bytes]]) -> Iterator[Connection]:
    opened = Connection(served[0])
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Config:
    return copy_site(tmp_path_factory.mktemp("hosts"))


@pytest.fixture(scope="module")
def served(site: Config) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`kg serve` (one web worker, queries in the web thread: the process tree is the server and its worker)."""
    with server_process.kg_serve_process(site.data, site.store, "--workers", "1",
                                         env={"KG_QUERY_WORKERS": "0"}) as running:
        yield running


def tree_rss(root: int) -> int:
    """Bytes of resident memory of a process and all its descendants (VmRSS in /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    family, grew = {root}, True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in family} - family
        family |= found
        grew = bool(found)
    total = 0
    for pid in family:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total


def long_host(number: int) -> str:
    """A distinct, well-formed host name of about 250 characters (four labels of 60, then the number)."""
    return ".".join(f"{chr(97 + (number + i) % 26)}{number:06d}".ljust(60, "x") for i in range(4)) + f".n{number}"


def locs(body: bytes) -> list[str]:
    return [e.text or "" for e in ET.fromstring(body).findall("s:url/s:loc", NS)]


def test_distinct_hosts_do_not_grow_the_web_process(served: tuple[str, subprocess.Popen[bytes]],
                                                    connection: Connection) -> None:
    """2,000 sitemaps for 2,000 distinct long hosts: each lists its own host, and memory stays flat."""
    for number in range(50):  # warm up: the sitemap's paths, the page cache, the allocator
        assert connection.get("/sitemap.xml", f"warm{number}.example").status == 200
    before = tree_rss(served[1].pid)
    for number in range(REQUESTS):
        host = long_host(number)
        assert len(host) <= 253
        answer = connection.get("/sitemap.xml", host)
        assert answer.status == 200, (answer.status, answer.text[:200])
        if number % 500 == 0:
            assert all(loc.startswith(f"http://{host}/page/") for loc in locs(answer.body))
    grown = tree_rss(served[1].pid) - before
    assert grown < RSS_SLACK, f"the server grew by {grown / 2**20:.0f} MB over {REQUESTS} distinct hosts"


def test_each_host_has_its_own_sitemap_etag_and_304_still_works(connection: Connection) -> None:
    first = connection.get("/sitemap.xml", "one.example")
    second = connection.get("/sitemap.xml", "two.example")
    assert first.status == second.status == 200
    assert first.headers["etag"] != second.headers["etag"]
    again = connection.get("/sitemap.xml", "one.example", {"If-None-Match": first.headers["etag"]})
    assert again.status == 304 and not again.body
    other = connection.get("/sitemap.xml", "two.example", {"If-None-Match": first.headers["etag"]})
    assert other.status == 200 and locs(other.body)[0].startswith("http://two.example/")


MALFORMED = {"label-of-64": "a" * 64 + ".example", "name-of-304": ".".join(["b" * 60] * 5), "8-kb": "x" * 8000,
             "slash": "evil.example/x", "port-99999": "kg.example.org:99999", "port-80x": "kg.example.org:80x",
             "empty-label": "kg..example.org", "bad-ipv6": "[::g]"}


@pytest.mark.parametrize("host", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_host_gets_400(connection: Connection, host: str) -> None:
    answer = connection.get("/sitemap.xml", host)
    assert answer.status == 400 and "invalid Host" in answer.text and len(answer.body) < 300, answer
    assert host not in answer.text


def test_public_hosts_refuse_other_hosts_and_serve_their_own(site: Config) -> None:
    env = {"KG_PUBLIC_HOSTS": f"{PUBLIC},.example.edu", "KG_QUERY_WORKERS": "0"}
    with server_process.kg_serve(site.data, site.store, "--workers", "1", env=env) as url:
        connection = Connection(url)
        try:
            for target in ("/sitemap.xml", "/robots.txt", "/void", "/", "/sparql"):
                refused = connection.get(target, "evil.example")
                assert refused.status == 400, (target, refused)
                assert "invalid Host" in refused.text and "evil.example" not in refused.text
            assert connection.get("/sitemap.xml", f"{PUBLIC}.evil.example").status == 400
            for host in (PUBLIC, f"{PUBLIC}:8443", "example.edu", "profiles.example.edu"):
                answer = connection.get("/sitemap.xml", host)
                assert answer.status == 200 and locs(answer.body)[0].startswith(f"http://{host}/page/"), host
            robots = connection.get("/robots.txt", PUBLIC)
            assert f"Sitemap: http://{PUBLIC}/sitemap.xml" in robots.text
            address = urllib.parse.urlsplit(url).netloc
            assert connection.get("/health", address).status == 200  # load balancers probe by address
            assert connection.get("/sitemap.xml", address).status == 400  # and only /health answers them
        finally:
            connection.close()


def test_explain_of_a_huge_term_answers_a_small_404(connection: Connection) -> None:
    term = "<https://kg.example.org/id/person/" + "z" * 60_000 + ">"
    target = "/explain?" + urllib.parse.urlencode({"s": term, "p": "a", "o": "schema:Person"})
    page = connection.get(target, "127.0.0.1", {"Accept": BROWSER})
    assert page.status == 404 and page.headers["content-type"].startswith("text/html")
    assert len(page.body) < 10_000, f"{len(page.body)} bytes"
    assert "characters]" in page.text  # an elided excerpt, saying how much it left out
    as_json = connection.get(target, "127.0.0.1", {"Accept": "application/json"})
    assert as_json.status == 404 and len(as_json.body) < 10_000
    assert json.loads(as_json.body)["status"] == "not entailed"


def test_a_routing_redirect_does_not_reflect_the_host(connection: Connection) -> None:
    answer = connection.get("/static//etc/passwd", "evil.example")
    assert "evil.example" not in answer.headers.get("location", "") and b"evil.example" not in answer.body
    if answer.status in (301, 302, 307, 308):
        assert answer.headers["location"] == "/static/etc/passwd"
        assert connection.get(answer.headers["location"], "evil.example").status == 404
    else:
        assert answer.status == 404



# in-process: the setting's parsing and matching ---------------------------------------------------------------

def test_public_hosts_match_names_ports_and_domains() -> None:
    public = PublicHosts.parse(" KG.example.org , api.example.org:8443, .example.edu,")
    assert public.allows("kg.example.org") and public.allows("kg.example.org:5000") and public.allows("KG.EXAMPLE.ORG.")
    assert public.allows("api.example.org:8443") and not public.allows("api.example.org:443")
    assert not public.allows("api.example.org")
    assert public.allows("example.edu") and public.allows("a.b.example.edu:80")
    assert not public.allows("badexample.edu") and not public.allows("kg.example.org.evil.example")
    assert not PublicHosts.parse("") and not PublicHosts.parse(" , ")


@pytest.mark.parametrize(("setting", "says"), [
    ("kg.example.org,bad host", "'bad host' is not a host"),
    ("kg.example.org:http", "the port is not a number"),
    (".example.edu:443", "names a domain with a port"),
    ("a" * 70 + ".org", "a label has at most 63")])
def test_a_malformed_public_hosts_setting_stops_kg_serve(setting: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(SettingError, match=re.escape(says)):
        PublicHosts.parse(setting)
    result = CliRunner().invoke(main, ["serve", "--data", str(tmp_path), "--store", str(tmp_path / "store"),
                                       "--port", "1"], env={"KG_PUBLIC_HOSTS": setting})
    assert result.exit_code == 4 and "KG_PUBLIC_HOSTS" in result.output and says in result.output, result.output
