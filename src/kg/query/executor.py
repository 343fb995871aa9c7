"""Query execution in recyclable worker processes: real time and memory limits, crash containment, admission.

pyoxigraph cannot cancel a running query, so each query runs in a child process that holds its own copy
of the store. When a query passes the time limit the parent answers 503 at once and kills that child
(freeing its CPU); a fresh child replaces it in the background. The parent also watches the child's
resident memory while the query runs and kills it past ``memory_mb`` megabytes above its resting size
(the child's address space is capped too, so one huge allocation fails instead of taking the machine). A
query that crashes the engine (for example a stack overflow) kills only its child.

Admission: at most ``max_pending`` queries are admitted at once (503 with ``Retry-After`` beyond, at once);
an admitted query waits at most ``queue_wait`` seconds for a free worker. When every worker is busy, a
reserve worker answers with a short time budget (``fast_lane_timeout``), so cheap queries are not stuck
behind slow ones; a query that needs longer there is stopped with a 503 and ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import queue
import resource
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..errors import (
    BusyTimeout,
    EngineCrashed,
    KgError,
    QueryFailed,
    QueryMemoryLimit,
    QueryTimeout,
    Saturated,
    WorkersDown,
)
from ..formats import Format
from .results import Limits, preview_result, run_query, serialize_result

logger = logging.getLogger(__name__)
CONTEXT = multiprocessing.get_context("spawn")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
MB = 1 << 20
WATCH_SECONDS = 0.02
ADDRESS_SPACE_FACTOR = 2
NORMAL, RESERVE = "normal", "reserve"


@dataclass(frozen=True)
class QueryJob:
    """Everything a worker needs to answer one query."""

    text: str
    base_iri: str
    default_graphs: tuple[str, ...]
    named_graphs: tuple[str, ...]
    dataset: bool
    format: str
    max_results: int
    timeout: float
    preview: int = 0

    def cache_key(self, version: str) -> tuple[Any, ...]:
        """Key of this job's answer in the result cache for one data version (the text by its digest)."""
        digest = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).digest()
        return (version, digest, self.base_iri, self.default_graphs, self.named_graphs, self.dataset, self.format,
                self.preview)


def answer(store: Any, job: QueryJob) -> bytes:
    """Run one job against an open store and serialise the result (used in workers and in-process)."""
    result = run_query(store, job.text, base_iri=job.base_iri, default_graphs=job.default_graphs,
                       named_graphs=job.named_graphs, dataset=job.dataset)
    limits = Limits(job.max_results, job.timeout)
    if job.preview:
        return preview_result(result, job.preview, limits)
    return serialize_result(result, Format[job.format], limits)


def resident_bytes(pid: int) -> int:
    """Resident memory of a process in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


def cap_address_space(memory_mb: int) -> None:
    """Cap this process's address space at its current size plus a multiple of the per-query memory limit."""
    if memory_mb <= 0:
        return
    with open("/proc/self/statm", "rb") as statm:
        virtual = int(statm.read().split()[0]) * PAGE_BYTES
    limit = virtual + ADDRESS_SPACE_FACTOR * memory_mb * MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def memory_error(memory_mb: int) -> QueryMemoryLimit:
    """The error for a query stopped at the memory limit."""
    return QueryMemoryLimit(f"the query needed more than the memory limit of {memory_mb} MB and was stopped; "
                            "add a LIMIT, avoid ORDER BY or GROUP BY over large joins, or raise KG_QUERY_MEMORY_MB")


def open_store(path: str, in_memory: bool) -> Any:
    """Open the built store read-only, or copy it into memory (much faster on aggregates)."""
    import pyoxigraph as ox

    from ..store import Store

    disk = Store.open(Path(path))
    if not in_memory:
        return disk
    memory = ox.Store()
    memory.bulk_load(disk.ox.dump(format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)
    return Store(memory, disk.path, disk.metadata)


def worker_main(conn: Connection, path: str, in_memory: bool, memory_mb: int = 0) -> None:
    """Child process loop: open the store, cap the address space, then answer jobs until the pipe closes."""
    store = open_store(path, in_memory)
    cap_address_space(memory_mb)
    conn.send(("ready", None, None))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send(("ok", answer(store, job), None))
        except KgError as error:
            conn.send(("error", (error.status, type(error).__name__), str(error)))
        except MemoryError:
            stopped = memory_error(memory_mb)
            conn.send(("error", (stopped.status, type(stopped).__name__), str(stopped)))
        except Exception:  # noqa: BLE001 - reported to the parent as a 500, never as a stack trace
            logging.getLogger(__name__).exception("query failed in worker")
            conn.send(("error", (500, "InternalError"), "internal error"))


class Worker:
    """One child process and the parent's end of its pipe."""

    def __init__(self, path: str, in_memory: bool, memory_mb: int = 0, lane: str = NORMAL) -> None:
        self.lane = lane
        self.conn, child = CONTEXT.Pipe()
        self.process = CONTEXT.Process(target=worker_main, args=(child, path, in_memory, memory_mb), daemon=True)
        self.process.start()
        child.close()

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the child has opened its store."""
        if not self.conn.poll(timeout):
            return False
        try:
            return bool(self.conn.recv()[0] == "ready")
        except (EOFError, OSError):
            return False

    def kill(self) -> None:
        """Stop the child at once and reap it."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


@dataclass(frozen=True)
class PoolSettings:
    """How a pool admits, waits and bounds its queries."""

    max_pending: int = 16
    memory_mb: int = 0
    queue_wait: float = 5.0
    fast_lane_timeout: float = 1.0
    startup_timeout: float = 120.0


class QueryPool:
    """A fixed number of worker processes over one store version, plus a reserve worker for when all are busy."""

    def __init__(self, path: Path, size: int, *, in_memory: bool, settings: PoolSettings | None = None):
        settings = settings or PoolSettings()
        self.path, self.size, self.in_memory, self.settings = str(path), size, in_memory, settings
        self.idle: queue.Queue[Worker] = queue.Queue()
        self.reserve: queue.Queue[Worker] = queue.Queue()
        self.admission = threading.BoundedSemaphore(max(1, settings.max_pending))
        self.closed = False
        self.lock = threading.Lock()
        self.alive = 0
        self.starting = 0
        for _ in range(size):
            self._replace(NORMAL)
        if settings.fast_lane_timeout > 0:
            self._replace(RESERVE)

    def _replace(self, lane: str) -> None:
        """Start a worker in the background and make it available once its store is open."""
        with self.lock:
            self.starting += 1

        def start() -> None:
            worker = Worker(self.path, self.in_memory, self.settings.memory_mb, lane)
            ready = worker.wait_ready(self.settings.startup_timeout) and not self.closed
            with self.lock:
                self.starting -= 1
                self.alive += ready
            if ready:
                self._release(worker)
            else:
                logger.error("query worker failed to start (exit code %s)", worker.process.exitcode)
                worker.kill()

        threading.Thread(target=start, daemon=True).start()

    def _release(self, worker: Worker) -> None:
        """Hand a free worker back to its lane."""
        (self.reserve if worker.lane == RESERVE else self.idle).put(worker)

    def _retire(self, worker: Worker) -> None:
        """Kill a worker and start its replacement."""
        worker.kill()
        with self.lock:
            self.alive -= 1
        self._replace(worker.lane)

    def _take(self) -> Worker:
        """A free worker: a normal one if any, else the reserve, else wait up to queue_wait for either."""
        wait = self.settings.queue_wait if self.alive else max(self.settings.queue_wait, self.settings.startup_timeout)
        deadline = time.monotonic() + wait
        while True:
            for lane in (self.idle, self.reserve):
                try:
                    return lane.get_nowait()
                except queue.Empty:
                    pass
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Saturated(f"no query worker became free within {wait:g} s; retry shortly")
            try:
                return self.idle.get(timeout=min(remaining, 0.05))
            except queue.Empty:
                continue

    def run(self, job: QueryJob) -> bytes:
        """Answer a job in a worker: admit it (503 at once when max_pending are in), take a free worker, and
        allow it job.timeout seconds of running time (fast_lane_timeout on the reserve worker)."""
        if not self.admission.acquire(blocking=False):
            raise Saturated("the endpoint is busy: too many queries are running or waiting; retry shortly")
        try:
            if self.alive == 0 and self.starting == 0:
                raise WorkersDown("no query worker could start; see the server log")
            worker = self._take()
            return self._ask(worker, job)
        finally:
            self.admission.release()

    def _ask(self, worker: Worker, job: QueryJob) -> bytes:
        """Send a job to a worker and wait for its answer, watching the time and memory limits."""
        reserve = worker.lane == RESERVE
        budget = min(job.timeout, self.settings.fast_lane_timeout) if reserve else job.timeout
        deadline = time.monotonic() + budget
        pid = worker.process.pid or 0
        ceiling = resident_bytes(pid) + self.settings.memory_mb * MB
        peak = 0
        try:
            worker.conn.send(job)
            while not worker.conn.poll(min(WATCH_SECONDS, max(0.0, deadline - time.monotonic()))):
                peak = max(peak, resident_bytes(pid))
                if self.settings.memory_mb > 0 and peak > ceiling:
                    self._retire(worker)
                    raise memory_error(self.settings.memory_mb)
                if time.monotonic() >= deadline:
                    self._retire(worker)
                    if reserve and budget < job.timeout:
                        raise BusyTimeout(f"every query worker is busy with long queries, and this query ran past "
                                          f"the {budget:g} s allowed while they are; retry shortly")
                    raise QueryTimeout(f"the query ran past the time limit of {job.timeout:g} s and was stopped; "
                                       "narrow it or add a LIMIT")
            status, payload, message = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._retire(worker)
            if self.settings.memory_mb > 0 and peak > ceiling - self.settings.memory_mb * MB // 2:
                raise memory_error(self.settings.memory_mb) from None
            raise EngineCrashed("the query engine failed on this query (for example, nesting too deep); "
                                "simplify the query") from None
        self._release(worker)
        if status == "error":
            code, kind = payload
            raise QueryFailed(code, kind, message)
        return bytes(payload)

    def close(self) -> None:
        """Stop every worker."""
        self.closed = True
        for lane in (self.idle, self.reserve):
            while True:
                try:
                    lane.get_nowait().kill()
                except queue.Empty:
                    break
