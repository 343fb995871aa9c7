"""Query workers: a real time limit, crash containment, admission control and the result cache."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kg.errors import QueryMemoryLimit, QueryTimeout
from kg.query.cache import ENTRY_OVERHEAD, ResultCache
from kg.query.executor import BusyTimeout, EngineCrashed, PoolSettings, QueryFailed, QueryJob, QueryPool, Saturated

CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
LOOKUP = 'SELECT ?p WHERE { ?p <http://schema.org/name> "Ziheng Jiang" }'


def job(text: str, timeout: float = 10.0, fmt: str = "SPARQL_JSON") -> QueryJob:
    """A query job with default settings."""
    return QueryJob(text=text, base_iri="http://127.0.0.1/sparql", default_graphs=(), named_graphs=(),
                    dataset=False, format=fmt, max_results=1000, timeout=timeout)


def ready_pool(path: Path, size: int = 1, **options: Any) -> QueryPool:
    """A pool whose workers have all started."""
    pool = QueryPool(path, size, in_memory=options.pop("in_memory", True),
                     settings=PoolSettings(max_pending=options.pop("max_pending", 8)))
    deadline = time.monotonic() + 60
    while pool.idle.qsize() < size and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.idle.qsize() == size, "workers did not start"
    return pool


@pytest.fixture(scope="module")
def pool(built_store_dir: Path) -> Iterator[QueryPool]:
    """Two workers over the built store."""
    started = ready_pool(built_store_dir, 2)
    yield started
    started.close()


def test_worker_answers(pool: QueryPool) -> None:
    assert b"https://kg.example.org/id/person/ziheng-jiang" in pool.run(job(LOOKUP))


def test_errors_come_back_with_their_status(pool: QueryPool) -> None:
    with pytest.raises(QueryFailed) as info:
        pool.run(job("SELECT ?s WHERE { ?s ?p ?o }", fmt="SPARQL_JSON"))
    assert info.value.status == 400 and "LIMIT" in str(info.value)


def test_time_limit_stops_the_query_and_frees_the_worker(pool: QueryPool) -> None:
    started = time.monotonic()
    with pytest.raises(QueryTimeout):
        pool.run(job(CARTESIAN, timeout=1.0))
    assert time.monotonic() - started < 2.0
    assert b"ziheng-jiang" in pool.run(job(LOOKUP))


def test_other_clients_are_served_during_a_runaway_query(pool: QueryPool) -> None:
    outcome: list[str] = []

    def runaway() -> None:
        try:
            pool.run(job(CARTESIAN, timeout=3.0))
        except QueryTimeout:
            outcome.append("stopped")

    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.3)
    answered = sum(1 for _ in range(20) if b"ziheng-jiang" in pool.run(job(LOOKUP)))
    thread.join()
    assert answered == 20 and outcome == ["stopped"]


def test_engine_crash_is_contained(built_store_dir: Path) -> None:
    crashing = ready_pool(built_store_dir, 1, in_memory=False)
    try:
        deep = "ASK { FILTER(" + "(" * 5000 + "true" + ")" * 5000 + ") }"
        with pytest.raises((EngineCrashed, QueryFailed)):
            crashing.run(job(deep))
        deadline = time.monotonic() + 30
        while crashing.idle.qsize() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b"ziheng-jiang" in crashing.run(job(LOOKUP))
    finally:
        crashing.close()


def test_saturation_answers_503_instead_of_queueing(built_store_dir: Path) -> None:
    small = ready_pool(built_store_dir, 1, max_pending=1)
    try:
        thread = threading.Thread(target=lambda: pytest.raises(QueryTimeout, small.run, job(CARTESIAN, timeout=2)))
        thread.start()
        time.sleep(0.3)
        with pytest.raises(Saturated) as info:
            small.run(job(LOOKUP))
        assert info.value.status == 503 and info.value.retry_after >= 1
        thread.join()
    finally:
        small.close()


def test_result_cache_is_bounded_and_lru() -> None:
    entry = 1 + 5 + ENTRY_OVERHEAD  # key, value, overhead
    cache = ResultCache(max_bytes=2 * entry, max_entry=entry)
    cache.put("a", b"12345")
    cache.put("b", b"12345")
    assert cache.get("a") == b"12345"
    cache.put("c", b"123")
    assert cache.get("b") is None and cache.get("a") == b"12345" and cache.get("c") == b"123"
    cache.put("big", b"1234567")
    assert cache.get("big") is None


def test_result_cache_counts_its_keys() -> None:
    cache = ResultCache(max_bytes=10_000_000, max_entry=2_000_000)
    for i in range(50):
        cache.put((f"{i}" + "x" * 1_000_000,), b"1")
    assert cache.size <= 10_000_000 and len(cache.entries) < 10


def test_workers_that_cannot_start_fail_fast(tmp_path: Path) -> None:
    from kg.query.executor import WorkersDown

    broken = QueryPool(tmp_path / "no-store", 1, in_memory=False, settings=PoolSettings(max_pending=2))
    deadline = time.monotonic() + 60
    while broken.starting and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    with pytest.raises(WorkersDown):
        broken.run(job(LOOKUP))
    assert time.monotonic() - started < 1


def settled_pool(path: Path, size: int, settings: PoolSettings) -> QueryPool:
    """A pool whose normal workers have all started (the reserve one starts when first needed)."""
    pool = QueryPool(path, size, in_memory=False, settings=settings)
    deadline = time.monotonic() + 60
    while pool.idle.qsize() < size and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.idle.qsize() == size, "workers did not start"
    return pool


def reserve_up(pool: QueryPool, seconds: float = 60) -> bool:
    """Wait (bounded) until the pool's reserve worker is ready."""
    deadline = time.monotonic() + seconds
    while pool.reserve.qsize() < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    return pool.reserve.qsize() == 1


def test_the_reserve_worker_starts_only_when_a_query_is_slow(built_store_dir: Path) -> None:
    pool = settled_pool(built_store_dir, 1, PoolSettings(max_pending=4, fast_lane_timeout=1.0))
    try:
        for _ in range(5):
            assert b"ziheng-jiang" in pool.run(job(LOOKUP))
        time.sleep(0.5)
        assert not pool.reserve_started and pool.reserve.qsize() == 0 and pool.starting == 0
        with pytest.raises(QueryTimeout):
            pool.run(job(CARTESIAN, timeout=0.5))
        assert pool.reserve_started and reserve_up(pool)
    finally:
        pool.close()


def test_the_reserve_worker_stops_once_no_query_has_been_slow_for_a_while(built_store_dir: Path) -> None:
    pool = settled_pool(built_store_dir, 1, PoolSettings(max_pending=4, fast_lane_timeout=1.0, reserve_idle=1.0))
    try:
        with pytest.raises(QueryTimeout):
            pool.run(job(CARTESIAN, timeout=0.3))
        assert reserve_up(pool)
        pid = pool.reserve.queue[0].pid
        deadline = time.monotonic() + 30
        while pool.reserve_started and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not pool.reserve_started and pool.reserve.qsize() == 0
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert b"ziheng-jiang" in pool.run(job(LOOKUP))
        with pytest.raises(QueryTimeout):  # slow again: the reserve comes back
            pool.run(job(CARTESIAN, timeout=0.3))
        assert reserve_up(pool)
    finally:
        pool.close()


def test_reserve_worker_answers_cheap_queries_while_all_are_busy(built_store_dir: Path) -> None:
    busy = settled_pool(built_store_dir, 1, PoolSettings(max_pending=4, queue_wait=0.2, fast_lane_timeout=1.0))
    try:
        slow = threading.Thread(target=lambda: pytest.raises(QueryTimeout, busy.run, job(CARTESIAN, timeout=4)))
        slow.start()
        assert reserve_up(busy), "the slow query did not start the reserve worker"
        started = time.monotonic()
        assert b"ziheng-jiang" in busy.run(job(LOOKUP))
        assert time.monotonic() - started < 1.0
        started = time.monotonic()
        with pytest.raises(BusyTimeout) as info:
            busy.run(job(CARTESIAN, timeout=4))
        assert info.value.status == 503 and info.value.retry_after and time.monotonic() - started < 2.0
        slow.join()
    finally:
        busy.close()


def test_a_query_known_to_outrun_the_reserve_waits_for_a_normal_worker(built_store_dir: Path) -> None:
    """On the reserve it would only be stopped again: having run past its budget before, it waits instead."""
    pairs = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }"  # about 1-2 s on the seed store
    pool = settled_pool(built_store_dir, 1, PoolSettings(max_pending=4, queue_wait=20, fast_lane_timeout=0.3))
    try:
        single = json.loads(pool.run(job("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c }", timeout=20)))
        squared = str(int(single["results"]["bindings"][0]["n"]["value"]) ** 2).encode()  # the seed size, squared
        assert squared in pool.run(job(pairs, timeout=20))
        assert pool.known_slow(job(pairs)) and not pool.known_slow(job(LOOKUP))
        assert reserve_up(pool)
        blocker = threading.Thread(target=lambda: pytest.raises(QueryTimeout, pool.run, job(CARTESIAN, timeout=1.5)))
        blocker.start()
        time.sleep(0.3)  # the normal worker is busy, the reserve is free
        assert pool.idle.qsize() == 0 and pool.reserve.qsize() == 1
        assert squared in pool.run(job(pairs, timeout=20))  # not a BusyTimeout from the reserve
        assert pool.reserve.qsize() == 1
        blocker.join()
    finally:
        pool.close()


def test_a_query_waits_for_a_worker_at_most_queue_wait(built_store_dir: Path) -> None:
    busy = settled_pool(built_store_dir, 1, PoolSettings(max_pending=4, queue_wait=0.5, fast_lane_timeout=0))
    try:
        slow = threading.Thread(target=lambda: pytest.raises(QueryTimeout, busy.run, job(CARTESIAN, timeout=3)))
        slow.start()
        time.sleep(0.3)
        started = time.monotonic()
        with pytest.raises(Saturated):
            busy.run(job(LOOKUP))
        assert 0.4 < time.monotonic() - started < 1.5
        slow.join()
    finally:
        busy.close()


def test_memory_limit_stops_the_query_and_replaces_the_worker(built_store_dir: Path) -> None:
    hungry = settled_pool(built_store_dir, 1, PoolSettings(max_pending=2, memory_mb=200, fast_lane_timeout=0))
    try:
        started = time.monotonic()
        with pytest.raises(QueryMemoryLimit) as info:
            hungry.run(job("SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?a LIMIT 1", timeout=20))
        assert "200 MB" in str(info.value) and "LIMIT" in str(info.value) and time.monotonic() - started < 10
        assert b"ziheng-jiang" in hungry.run(job(LOOKUP))
    finally:
        hungry.close()


def test_a_pool_dropped_without_close_stops_its_workers(built_store_dir: Path) -> None:
    """A worker never outlives its pool: dropping the pool kills and reaps the children (no ResourceWarning)."""
    import gc
    import os
    import warnings

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    dropped = ready_pool(built_store_dir, 1)
    pids = [worker.pid for worker in list(dropped.idle.queue)]
    assert pids
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        del dropped
        # a thread still starting a worker holds the pool until it ends: collect until it has
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            gc.collect()
            time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)
