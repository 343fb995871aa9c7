"""Writes against real `kg serve` processes (granian, two workers, query worker processes): the next query
sees a write whichever worker answers it, a write survives a restart, and a kill -9 during a batch of writes
leaves a store that opens and holds a prefix of the committed writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kg.config import Config
from kg.edits import current_edits_text, edits_file
from kg.pipeline import build
from kg.store import Store
from kg.writes import inferred_matches

from .repo_data import copy_repo_data
from .server_process import kg_serve_process

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)

TOKEN = "server-token"
SUBJECT = "http://e/batch"
COUNT = f"SELECT (COUNT(?n) AS ?c) WHERE {{ <{SUBJECT}> <http://e/n> ?n }}"


@pytest.fixture()
def site(tmp_path: Path) -> Config:
    """A copy of the repository's data and a store built from it."""
    copy_repo_data(tmp_path / "data", edits=False)
    config = Config(data=tmp_path / "data", store=tmp_path / "store")
    build(config)
    return config


@contextmanager
def serve(config: Config, timeout: float = 90.0) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`kg serve` with writes enabled; yields its URL and process (the leader of its own process group)."""
    with kg_serve_process(config.data, config.store, "--workers", "2", timeout=timeout,
                          env={"KG_WRITE_TOKEN": TOKEN}) as served:
        yield served


def write(url: str, text: str, timeout: float = 60) -> int:
    request = urllib.request.Request(f"{url}/sparql", data=text.encode(), method="POST", headers={
        "Content-Type": "application/sparql-update", "Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def count(url: str) -> int:
    query = urllib.parse.urlencode({"query": COUNT})
    request = urllib.request.Request(f"{url}/sparql?{query}", headers={"Accept": "application/sparql-results+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return int(json.load(response)["results"]["bindings"][0]["c"]["value"])


def stored_numbers(config: Config) -> set[int]:
    store = Store.open(config.store)
    import pyoxigraph as ox

    return {int(q.object.value) for q in store.ox.quads_for_pattern(ox.NamedNode(SUBJECT), None, None,
                                                                       ox.DefaultGraph())}


def assert_consistent(config: Config) -> None:
    store = Store.open(config.store)
    assert set(store.default_triples()) == {q.triple for q in store.quads()}
    missing, extra = inferred_matches(config.store)
    assert not missing and not extra


def test_writes_are_seen_by_every_worker_and_survive_a_restart(site: Config) -> None:
    """After each write the next query (on a new connection, so on either granian worker and a fresh query
    worker pool) sees it; concurrent writes through both workers all land; after a restart the data is still
    there."""
    with serve(site) as (url, _):
        assert count(url) == 0
        for number in range(1, 4):
            assert write(url, f"INSERT DATA {{ <{SUBJECT}> <http://e/n> {number} }}") == 200
            for _ in range(2):
                assert count(url) == number
        statuses: list[int] = []
        writers = [threading.Thread(target=lambda n=n: statuses.append(
            write(url, f"INSERT DATA {{ <{SUBJECT}> <http://e/n> {n} }}"))) for n in range(4, 8)]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
        assert statuses == [200] * 4 and count(url) == 7
        unauthorised = urllib.request.Request(f"{url}/sparql", data=b"CLEAR ALL", method="POST",
                                              headers={"Content-Type": "application/sparql-update"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(unauthorised, timeout=30)
        assert refused.value.code == 401 and refused.value.headers["WWW-Authenticate"].startswith("Bearer")
    with serve(site) as (url, _):
        assert count(url) == 7
    assert stored_numbers(site) == set(range(1, 8))
    assert Store.open(site.store).metadata["writes"] == 7
    assert_consistent(site)


@pytest.mark.parametrize("delay", [0.3, 1.6])
def test_kill_9_during_a_batch_of_writes_leaves_a_prefix(site: Config, delay: float) -> None:
    """Writes 1, 2, 3, ... are sent one after the other; the whole process group gets SIGKILL after a delay
    (mid-write, at some stage). The store opens, holds exactly 1..k for some k no less than the number of
    acknowledged writes (at most the one in flight more), keeps its invariants, and serves again."""
    acknowledged: list[int] = []
    with serve(site) as (url, process):
        stop = threading.Event()

        def batch() -> None:
            for number in range(1, 1000):
                if stop.is_set():
                    return
                try:
                    status = write(url, f"INSERT DATA {{ <{SUBJECT}> <http://e/n> {number} }}", timeout=30)
                except OSError:
                    return
                if status != 200:
                    return
                acknowledged.append(number)

        sender = threading.Thread(target=batch)
        sender.start()
        while len(acknowledged) < 2:
            time.sleep(0.05)
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        stop.set()
        sender.join(60)
    numbers = stored_numbers(site)
    k = len(numbers)
    assert numbers == set(range(1, k + 1)), sorted(numbers)
    assert len(acknowledged) <= k <= len(acknowledged) + 1
    assert_consistent(site)
    assert (current_edits_text(site) or "").count(SUBJECT) == k, "a rebuild now would give the same data"
    with serve(site) as (url, _):
        assert count(url) == k
        assert write(url, f"INSERT DATA {{ <{SUBJECT}> <http://e/n> {k + 2} }}") == 200
        assert count(url) == k + 1
    assert_consistent(site)
    persisted = edits_file(site.data).read_text(encoding="utf-8")
    assert persisted.count(SUBJECT) == k + 1 and f'"{k + 1}"' not in persisted
