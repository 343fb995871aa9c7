"""The allocator preloaded into query workers (KG_QUERY_ALLOCATOR): which library, and a real worker under it."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from kg.errors import QueryMemoryLimit
from kg.query.allocator import preload_library, worker_environment
from kg.query.executor import PoolSettings, QueryPool

from .test_executor import LOOKUP, job


def test_system_or_empty_means_no_preload(tmp_path: Path) -> None:
    present = tmp_path / "libjemalloc.so.2"
    present.write_bytes(b"")
    assert preload_library("system", (present,)) is None and preload_library(" ", (present,)) is None


def test_auto_takes_the_first_installed_library(tmp_path: Path) -> None:
    absent, first, second = tmp_path / "a.so", tmp_path / "b.so", tmp_path / "c.so"
    first.write_bytes(b"")
    second.write_bytes(b"")
    assert preload_library("auto", (absent, first, second)) == str(first)
    assert preload_library("AUTO", (absent,)) is None


def test_a_named_library_is_used_and_a_missing_one_is_reported(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    library = tmp_path / "libmine.so"
    library.write_bytes(b"")
    assert preload_library(str(library)) == str(library)
    with caplog.at_level(logging.WARNING, logger="kg.query.allocator"):
        assert preload_library(str(tmp_path / "gone.so")) is None
    assert "gone.so is not a file" in caplog.text and "system allocator" in caplog.text


def test_the_library_goes_first_in_ld_preload_once() -> None:
    assert worker_environment({"PATH": "/bin"}, None) == {"PATH": "/bin"}
    assert worker_environment({}, "/j.so")["LD_PRELOAD"] == "/j.so"
    assert worker_environment({"LD_PRELOAD": "/j.so:/x.so"}, "/j.so")["LD_PRELOAD"] == "/j.so:/x.so"


@pytest.fixture()
def jemalloc() -> str:
    """The installed jemalloc (scripts/test.sh installs it as root; fails under CI=true when missing)."""
    found = preload_library("auto")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("jemalloc is not installed (scripts/test.sh installs libjemalloc2)", pytrace=False)
        pytest.skip("jemalloc is not installed")
    return found


def test_a_worker_runs_under_the_preloaded_allocator_with_its_limits(built_store_dir: Path, jemalloc: str) -> None:
    pool = QueryPool(built_store_dir, 1, in_memory=False,
                     settings=PoolSettings(max_pending=2, memory_mb=200, fast_lane_timeout=0, allocator=jemalloc))
    try:
        deadline = time.monotonic() + 60
        while pool.idle.qsize() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        worker = pool.idle.queue[0]
        assert jemalloc in Path(f"/proc/{worker.pid}/maps").read_text()
        assert b"ziheng-jiang" in pool.run(job(LOOKUP))
        with pytest.raises(QueryMemoryLimit):
            pool.run(job("SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?a LIMIT 1", timeout=20))
        assert b"ziheng-jiang" in pool.run(job(LOOKUP))
    finally:
        pool.close()
