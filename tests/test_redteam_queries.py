"""Hostile queries and clients against a real `kg serve` (issue 12: 1-6, 14), each bounded in time and memory.

One server of the seed data, with a 10 s query limit, every process capped at 4 GB of address space. Each
hostile request must get an HTTP status within 15 s while `ASK {}` keeps answering within 2 s, and the
server's memory must stay bounded.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from kg.errors import BadQuery

from .repo_data import copy_repo_data
from .server_process import kg_serve_process

ROOT = Path(__file__).resolve().parents[1]
GB = 1 << 30
HOSTILE_SECONDS = 15.0
ASK_SECONDS = 2.0
JSON = "application/sparql-results+json"


def numbers(count: int) -> str:
    """'0 1 2 … count-1'."""
    return " ".join(str(i) for i in range(count))


VALUES_COUNT = "SELECT (COUNT(*) AS ?c) WHERE { " + " ".join(
    f"VALUES ?v{i} {{ {numbers(100)} }}" for i in range(6)) + " }"
VALUES_ORDER = (f"SELECT ?a WHERE {{ VALUES ?a {{ {numbers(1000)} }} VALUES ?b {{ {numbers(1000)} }} "
                f"VALUES ?c {{ {numbers(1000)} }} }} ORDER BY ?a LIMIT 1")
VALUES_GROUP = (f"SELECT ?a (COUNT(*) AS ?n) WHERE {{ VALUES ?a {{ {numbers(1000)} }} VALUES ?b {{ {numbers(1000)} }} "
                f"VALUES ?c {{ {numbers(1000)} }} }} GROUP BY ?a")
CARTESIAN_ORDER = "SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?a LIMIT 1"
CONCAT_CHAIN = ('SELECT ?s9 WHERE { BIND("abcdefghijklmnop" AS ?s0) '
                + " ".join(f"BIND(CONCAT(?s{i}, ?s{i}, ?s{i}, ?s{i}) AS ?s{i + 1})" for i in range(9))
                + " }")
QUOTE_BACKSLASH = '"\\' * 150_000  # 900 KB form-encoded
SLOW_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
MANY_ROWS = f"SELECT ?a ?b WHERE {{ VALUES ?a {{ {numbers(400)} }} VALUES ?b {{ {numbers(250)} }} }}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A kg serve of the seed data: 10 s query limit, 16 MB result cache, 4 GB per process; (URL, PID)."""
    base = tmp_path_factory.mktemp("redteam")
    data = base / "data"
    copy_repo_data(data)
    env = {"KG_QUERY_TIMEOUT": "10", "KG_CACHE_BYTES": "16000000"}
    with kg_serve_process(data, base / "store", env=env, memory_cap=4 * GB, timeout=180) as (url, process):
        warm(url)
        yield url, process.pid


def warm(url: str, in_a_row: int = 8) -> None:
    """Wait until the web processes have their query workers running (ASK {} answers fast in_a_row times)."""
    deadline = time.monotonic() + 120
    fast = 0
    while fast < in_a_row and time.monotonic() < deadline:
        fast = fast + 1 if ask_seconds(url) < 0.5 else 0
    assert fast >= in_a_row, "the query workers did not start"


def query(url: str, text: str, accept: str = JSON, timeout: float = 30.0) -> tuple[int, float, str]:
    """POST a query; (status, seconds, body text)."""
    started = time.monotonic()
    response = requests.post(f"{url}/sparql", data={"query": text}, headers={"Accept": accept}, timeout=timeout)
    return response.status_code, time.monotonic() - started, response.text


def ask_seconds(url: str) -> float:
    """Seconds `ASK {}` takes (a failure counts as forever)."""
    try:
        status, seconds, _ = query(url, "ASK {}", timeout=10)
    except requests.RequestException:
        return float("inf")
    return seconds if status == 200 else float("inf")


def children(pid: int) -> list[int]:
    """The direct children of a process."""
    return [p for p in tree(pid) if parent_of(p) == pid]


def parent_of(pid: int) -> int:
    """The parent of a process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def tree(pid: int) -> list[int]:
    """A process and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            children.setdefault(parent_of(int(entry)), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def rss(pids: list[int]) -> int:
    """Resident bytes of some processes, summed."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total


class PeakMemory:
    """Samples the resident memory of a process tree in the background; .peak in bytes."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss(tree(self.pid)))
            time.sleep(0.1)

    def __enter__(self) -> PeakMemory:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.running = False
        self.thread.join()


def while_running(url: str, work: Callable[[], Any], probes: int = 4) -> tuple[Any, list[float]]:
    """Run work in a thread; meanwhile time `probes` ASK {} queries; (work's result, probe seconds)."""
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(work)
        time.sleep(0.5)
        timings = []
        for _ in range(probes):
            timings.append(ask_seconds(url))
            time.sleep(0.3)
        return future.result(timeout=60), timings


@pytest.mark.parametrize("text, limit", [
    (VALUES_COUNT, "time"), (VALUES_ORDER, None), (VALUES_GROUP, None),
    (CARTESIAN_ORDER, None), (CONCAT_CHAIN, None), (QUOTE_BACKSLASH, None)],
    ids=["values-count-1e12", "values-order-by", "values-group-by", "cartesian-order-by", "concat-chain",
         "tokeniser-backtracking"])
def test_hostile_query_is_answered_in_time_and_memory(server: tuple[str, int], text: str, limit: str | None) -> None:
    url, pid = server
    with PeakMemory(pid) as memory:
        (status, seconds, body), probes = while_running(url, lambda: query(url, text))
    assert seconds < HOSTILE_SECONDS, f"answered after {seconds:.1f} s"
    assert 200 <= status < 600
    if status >= 400:
        assert "Traceback" not in body and ("limit" in body or "malformed" in body), body[:300]
    if limit is not None:
        assert status == 503 and f"{limit} limit" in body, body[:300]
    assert max(probes) < ASK_SECONDS, f"ASK {{}} took {max(probes):.2f} s while the hostile query ran"
    assert memory.peak < 6 * GB, f"the server tree peaked at {memory.peak / GB:.1f} GB"


def test_memory_hungry_query_is_stopped_by_the_memory_limit(server: tuple[str, int]) -> None:
    url, pid = server
    status, seconds, body = query(url, CARTESIAN_ORDER)
    assert status == 503 and "memory limit of 1024 MB" in body and "LIMIT" in body, body[:300]
    assert seconds < 10


def test_html_results_are_capped_and_do_not_block_others(server: tuple[str, int]) -> None:
    url, _ = server

    def eight_pages() -> list[tuple[int, float, str]]:
        with ThreadPoolExecutor(8) as pool:
            return list(pool.map(lambda i: query(url, MANY_ROWS + f" # {i}", accept="text/html"), range(8)))

    pages, probes = while_running(url, eight_pages)
    for status, seconds, body in pages:
        assert status == 200 and seconds < 10
        assert "The first 1000 rows." in body and 'id="more-results"' in body
        assert body.count("<tr>") <= 1001
    assert max(probes) < ASK_SECONDS


def test_slow_and_idle_connections_do_not_starve_the_server(server: tuple[str, int]) -> None:
    url, _ = server
    port = int(url.rsplit(":", 1)[1])
    stop = threading.Event()
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(50)]
    dripping = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(50)]

    def drip() -> None:
        request = b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
        for byte in request:
            if stop.wait(1.0):
                return
            for sock in dripping:
                try:
                    sock.send(bytes([byte]))
                except OSError:
                    pass

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        time.sleep(1.5)
        timings = [ask_seconds(url) for _ in range(10)]
    finally:
        stop.set()
        dripper.join(5)
        for sock in idle + dripping:
            sock.close()
    assert max(timings) < ASK_SECONDS, timings


def test_four_slow_queries_leave_ask_fast(server: tuple[str, int]) -> None:
    url, _ = server

    def four_slow() -> list[tuple[int, float, str]]:
        with ThreadPoolExecutor(4) as pool:
            return list(pool.map(lambda i: query(url, SLOW_COUNT + f" # {i}"), range(4)))

    outcomes, probes = while_running(url, four_slow, probes=6)
    assert max(probes) < ASK_SECONDS, probes
    assert all(seconds < HOSTILE_SECONDS for _, seconds, _ in outcomes)


def test_a_full_queue_answers_503_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    copy_repo_data(data)
    env = {"KG_QUERY_TIMEOUT": "6", "KG_MAX_PENDING": "2", "KG_FAST_LANE_TIMEOUT": "0"}
    with kg_serve_process(data, tmp_path / "store", "--workers", "1", env=env, memory_cap=4 * GB,
                          timeout=180) as (url, _):
        with ThreadPoolExecutor(2) as pool:
            slow = [pool.submit(query, url, SLOW_COUNT + f" # {i}") for i in range(2)]
            time.sleep(1.0)
            started = time.monotonic()
            response = requests.get(f"{url}/sparql", params={"query": "ASK {}"}, headers={"Accept": JSON}, timeout=10)
            waited = time.monotonic() - started
            for future in slow:
                future.result(timeout=30)
    assert response.status_code == 503 and response.headers.get("Retry-After") and waited < 1.0, (
        response.status_code, waited)


def test_distinct_query_texts_do_not_pile_up(server: tuple[str, int]) -> None:
    url, pid = server
    web = [p for p in children(pid) if b"multiprocessing" not in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert web, "no web worker processes found"
    before = rss(web)
    filler = "#" + "x" * 500_000 + "\n"
    session = requests.Session()
    for i in range(300):
        answer = session.post(f"{url}/sparql", data=f"{filler}ASK {{ FILTER({i} = {i}) }}".encode(),
                              headers={"Content-Type": "application/sparql-query", "Accept": JSON}, timeout=30)
        assert answer.status_code == 200
    grown = rss(web) - before
    assert grown < 80_000_000, f"the web processes grew by {grown / 1e6:.0f} MB over 150 MB of distinct queries"


def test_no_shared_control_socket(server: tuple[str, int]) -> None:
    _, pid = server
    inodes = set()
    for process in tree(pid):
        try:
            for fd in os.listdir(f"/proc/{process}/fd"):
                target = os.readlink(f"/proc/{process}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    with open("/proc/net/unix") as table:
        rows = [line.split() for line in table]
    held = [row[7] for row in rows if len(row) > 7 and row[6] in inodes]
    assert not [path for path in held if path.endswith((".ctl", ".sock"))], held


# (prefix, repeated unit) of inputs that once made the query checks quadratic.
SLOW_SHAPES = {"quote-backslash": ("", '"\\'), "dotted-words": ("", "a."),
               "long-string": ("'''", "\\'"), "long-double-string": ('"""', '"\\')}


def _check_seconds(text: str) -> float:
    """The least CPU time of two runs of the query checks on a text they reject."""
    from kg.sparql_text import check_query, query_form

    times = []
    for _ in range(2):
        started = time.process_time()
        with pytest.raises(BadQuery):
            check_query(text)
            query_form(text)
        times.append(time.process_time() - started)
    return min(times)


@pytest.mark.parametrize("shape", list(SLOW_SHAPES))
def test_the_query_checks_are_linear(shape: str) -> None:
    prefix, unit = SLOW_SHAPES[shape]
    small, large = (_check_seconds(prefix + unit * n) for n in (50_000, 200_000))
    # Four times the input: about four times the CPU time when linear, sixteen when quadratic.
    assert large < max(8 * small, 0.05), (small, large)


def test_a_dot_does_not_hide_service() -> None:
    from kg.server.sparql.updates import check_update
    from kg.sparql_text import check_query

    with pytest.raises(BadQuery, match="SERVICE"):
        check_query("SELECT * { ?s ?p true.SERVICE <http://example.org/sparql> { ?a ?b ?c } }")
    with pytest.raises(BadQuery, match="SERVICE"):
        check_update("INSERT { <a> <b> <c> } WHERE { ?s ?p true.SERVICE <http://example.org/sparql> { } }")
