"""Query execution in recyclable worker processes: a real time limit, crash containment, admission control.

pyoxigraph cannot cancel a running query, so each query runs in a child process that holds its own copy
of the store. When a query passes the time limit the parent answers 503 at once and kills that child
(freeing its CPU); a fresh child replaces it in the background. A query that crashes the engine (for
example a stack overflow) kills only its child. At most ``max_pending`` queries are admitted at once;
beyond that the endpoint answers 503 with ``Retry-After`` instead of queueing without bound.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..errors import KgError
from ..formats import Format
from .errors import QueryTimeout
from .results import Limits, run_query, serialize_result

logger = logging.getLogger(__name__)
CONTEXT = multiprocessing.get_context("spawn")


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

    def cache_key(self, version: str) -> tuple[Any, ...]:
        """Key of this job's answer in the result cache for one data version."""
        return (version, self.text, self.base_iri, self.default_graphs, self.named_graphs, self.dataset, self.format)


class QueryFailed(KgError):
    """An error raised inside a worker, carried back with its status."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


class Saturated(KgError):
    """Too many queries are running or waiting."""

    status = 503
    retry_after = 1


class WorkersDown(KgError):
    """No query worker process is running."""

    status = 503
    retry_after = 5


class EngineCrashed(KgError):
    """The worker evaluating the query died."""

    status = 400


def answer(store: Any, job: QueryJob) -> bytes:
    """Run one job against an open store and serialise the result (used in workers and in-process)."""
    result = run_query(store, job.text, base_iri=job.base_iri, default_graphs=job.default_graphs,
                       named_graphs=job.named_graphs, dataset=job.dataset)
    return serialize_result(result, Format[job.format], Limits(job.max_results, job.timeout))


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


def worker_main(conn: Connection, path: str, in_memory: bool) -> None:
    """Child process loop: open the store, then answer jobs until the pipe closes."""
    store = open_store(path, in_memory)
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
        except Exception:  # noqa: BLE001 - reported to the parent as a 500, never as a stack trace
            logging.getLogger(__name__).exception("query failed in worker")
            conn.send(("error", (500, "InternalError"), "internal error"))


class Worker:
    """One child process and the parent's end of its pipe."""

    def __init__(self, path: str, in_memory: bool) -> None:
        self.conn, child = CONTEXT.Pipe()
        self.process = CONTEXT.Process(target=worker_main, args=(child, path, in_memory), daemon=True)
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


class QueryPool:
    """A fixed number of worker processes over one store version."""

    def __init__(self, path: Path, size: int, *, in_memory: bool, max_pending: int, startup_timeout: float = 120):
        self.path, self.size, self.in_memory = str(path), size, in_memory
        self.startup_timeout = startup_timeout
        self.idle: queue.Queue[Worker] = queue.Queue()
        self.admission = threading.BoundedSemaphore(max_pending)
        self.closed = False
        self.lock = threading.Lock()
        self.alive = 0
        self.starting = 0
        for _ in range(size):
            self._replace()

    def _replace(self) -> None:
        """Start a worker in the background and make it available once its store is open."""
        with self.lock:
            self.starting += 1

        def start() -> None:
            worker = Worker(self.path, self.in_memory)
            ready = worker.wait_ready(self.startup_timeout) and not self.closed
            with self.lock:
                self.starting -= 1
                self.alive += ready
            if ready:
                self.idle.put(worker)
            else:
                logger.error("query worker failed to start (exit code %s)", worker.process.exitcode)
                worker.kill()

        threading.Thread(target=start, daemon=True).start()

    def _retire(self, worker: Worker) -> None:
        """Kill a worker and start its replacement."""
        worker.kill()
        with self.lock:
            self.alive -= 1
        self._replace()

    def run(self, job: QueryJob) -> bytes:
        """Answer a job in a worker: wait for a free worker (longer while workers are still starting), then
        allow the query job.timeout seconds of running time."""
        if not self.admission.acquire(blocking=False):
            raise Saturated("the endpoint is busy: too many queries are running; retry shortly")
        try:
            if self.alive == 0 and self.starting == 0:
                raise WorkersDown("no query worker could start; see the server log")
            wait = job.timeout if self.alive else max(job.timeout, self.startup_timeout)
            try:
                worker = self.idle.get(timeout=wait)
            except queue.Empty:
                raise Saturated("no query worker became free in time; retry shortly") from None
            return self._ask(worker, job, time.monotonic() + job.timeout)
        finally:
            self.admission.release()

    def _ask(self, worker: Worker, job: QueryJob, deadline: float) -> bytes:
        try:
            worker.conn.send(job)
            if not worker.conn.poll(max(0.0, deadline - time.monotonic())):
                self._retire(worker)
                raise QueryTimeout(f"the query ran past the time limit of {job.timeout:g} s and was stopped; "
                                   "narrow it or add a LIMIT")
            status, payload, message = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._retire(worker)
            raise EngineCrashed("the query engine failed on this query (for example, nesting too deep); "
                                "simplify the query") from None
        self.idle.put(worker)
        if status == "error":
            code, kind = payload
            raise QueryFailed(code, kind, message)
        return bytes(payload)

    def close(self) -> None:
        """Stop every worker."""
        self.closed = True
        while True:
            try:
                self.idle.get_nowait().kill()
            except queue.Empty:
                return
