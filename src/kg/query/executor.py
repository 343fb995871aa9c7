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
behind slow ones; a query that needs longer there is stopped with a 503 and ``Retry-After``. The reserve
worker starts the first time it could be needed, when a query runs past ``WATCH_SECONDS`` (workers busy with
cheap queries are free again within milliseconds), and stops again once no query has been slow for
``reserve_idle`` seconds: a server answering cheap queries keeps one process (about 39 MB) fewer. A query
that ran longer than the reserve allows before, on the same store version, waits for a normal worker
instead: on the reserve it would only be stopped again, its work thrown away.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from ..errors import BusyTimeout, EngineCrashed, QueryFailed, QueryTimeout, Saturated, WorkersDown
from .allocator import worker_environment
from .child import MB, ChildProcess, resident_bytes
from .lanes import Lane, take_first
from .wire import ERROR, QueryJob, decode_error
from .worker import memory_error

logger = logging.getLogger(__name__)
WATCH_SECONDS = 0.02
MIN_RUN_SECONDS = 0.1  # a job with a deadline waits for a worker only while this much running time would be left
NORMAL, RESERVE = "normal", "reserve"
KNOWN_DURATIONS = 4096  # queries whose last running time a pool remembers (all forgotten past that)


class Worker(ChildProcess):
    """One query worker process (python -m kg.query.worker) and the parent's end of its socket."""

    def __init__(self, path: str, in_memory: bool, memory_mb: int = 0, lane: str = NORMAL,
                 allocator: str | None = None) -> None:
        self.lane = lane
        super().__init__("kg.query.worker", [path, "1" if in_memory else "0", str(memory_mb)],
                         worker_environment(dict(os.environ), allocator))


def watch_reserve(pool_ref: weakref.ref[QueryPool], every: float) -> None:
    """Every few seconds, stop the pool's reserve worker once it has been idle long enough (holding the pool only
    weakly, so that a pool dropped without close() is still collected)."""
    while True:
        time.sleep(every)
        pool = pool_ref()
        if pool is None or pool.stop_idle_reserve():
            return
        del pool


@dataclass(frozen=True)
class PoolSettings:
    """How a pool admits, waits and bounds its queries."""

    max_pending: int = 16
    memory_mb: int = 0
    queue_wait: float = 5.0
    fast_lane_timeout: float = 1.0
    startup_timeout: float = 120.0
    allocator: str | None = None  # a malloc library preloaded into each worker (kg.query.allocator)
    reserve_idle: float = 60.0  # seconds without a slow query after which the reserve worker is stopped


class QueryPool:
    """A fixed number of worker processes over one store version, plus a reserve worker for when all are busy."""

    def __init__(self, path: Path, size: int, *, in_memory: bool, settings: PoolSettings | None = None):
        settings = settings or PoolSettings()
        self.path, self.size, self.in_memory, self.settings = str(path), size, in_memory, settings
        self.idle: Lane[Worker] = Lane()  # free normal workers, handed to waiting queries in arrival order
        self.reserve: Lane[Worker] = Lane()
        self.admission = threading.BoundedSemaphore(max(1, settings.max_pending))
        self.closed = False
        self.lock = threading.Lock()
        self.alive = 0
        self.starting = 0
        self.reserve_started = settings.fast_lane_timeout <= 0  # no reserve wanted counts as started
        self.last_slow = 0.0  # time.monotonic() of the last query that ran past WATCH_SECONDS
        self.durations: dict[tuple[object, ...], float] = {}  # seconds each query last ran on this store version
        for _ in range(size):
            self._replace(NORMAL)

    def want_reserve(self) -> None:
        """Start the reserve worker unless it runs (a query is slow, so the other workers may soon all be busy),
        with a watcher that stops it once no query has been slow for reserve_idle seconds."""
        self.last_slow = time.monotonic()
        if self.reserve_started:
            return
        with self.lock:
            if self.reserve_started or self.closed:
                return
            self.reserve_started = True
        self._replace(RESERVE)
        threading.Thread(target=watch_reserve, args=(weakref.ref(self), self.settings.reserve_idle / 4),
                         daemon=True).start()

    def stop_idle_reserve(self) -> bool:
        """Stop the reserve worker if no query has been slow for reserve_idle seconds and it is free; whether
        the watcher is done (the reserve stopped, or the pool closed)."""
        if self.closed:
            return True
        if time.monotonic() - self.last_slow < self.settings.reserve_idle:
            return False
        worker = self.reserve.take_nowait()
        if worker is None:  # busy, or still starting
            return False
        with self.lock:
            self.reserve_started = False
            self.alive -= 1
        worker.kill()
        return True

    def _replace(self, lane: str) -> None:
        """Start a worker in the background and make it available once its store is open."""
        with self.lock:
            self.starting += 1

        def start() -> None:
            worker = Worker(self.path, self.in_memory, self.settings.memory_mb, lane, self.settings.allocator)
            ready = worker.wait_ready(self.settings.startup_timeout) and not self.closed
            with self.lock:
                self.starting -= 1
                self.alive += ready
            if ready:
                self._release(worker)
            else:
                logger.error("query worker failed to start (exit code %s)", worker.process.poll())
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

    def known_slow(self, job: QueryJob) -> bool:
        """Whether the query ran longer than the reserve worker allows when it last ran on this store version."""
        seconds = self.durations.get(job.cost_key)
        return seconds is not None and seconds >= self.settings.fast_lane_timeout

    def _note(self, job: QueryJob, seconds: float) -> None:
        """Remember how long a query ran (bounded: everything is forgotten past KNOWN_DURATIONS queries)."""
        if len(self.durations) >= KNOWN_DURATIONS:
            self.durations.clear()
        self.durations[job.cost_key] = seconds

    def _take(self, job: QueryJob) -> Worker:
        """A free worker: a normal one if any, else the reserve (unless the query is known to need longer), else
        the first of them freed within queue_wait, queries served in arrival order."""
        worker = self.idle.take_nowait()
        if worker is not None:
            return worker
        lanes = [self.idle]
        if not self.known_slow(job):
            worker = self.reserve.take_nowait()
            if worker is not None:
                return worker
            lanes.append(self.reserve)
        wait = self.settings.queue_wait if self.alive else max(self.settings.queue_wait, self.settings.startup_timeout)
        if job.deadline:
            wait = min(wait, max(0.0, job.deadline - time.monotonic() - MIN_RUN_SECONDS))
        worker = take_first(lanes, wait)
        if worker is None:
            raise Saturated(f"no query worker became free within {wait:g} s; retry shortly")
        return worker

    def run(self, job: QueryJob) -> bytes:
        """Answer a job in a worker: admit it (503 at once when max_pending are in), take a free worker, and
        allow it job.timeout seconds of running time (fast_lane_timeout on the reserve worker)."""
        if not self.admission.acquire(blocking=False):
            raise Saturated("the endpoint is busy: too many queries are running or waiting; retry shortly")
        try:
            if self.alive == 0 and self.starting == 0:
                raise WorkersDown("no query worker could start; see the server log")
            worker = self._take(job)
            return self._ask(worker, job)
        finally:
            self.admission.release()

    def _ask(self, worker: Worker, job: QueryJob) -> bytes:
        """Send a job to a worker and wait for its answer, watching the time and memory limits."""
        reserve = worker.lane == RESERVE
        budget = min(job.timeout, self.settings.fast_lane_timeout) if reserve else job.timeout
        started = time.monotonic()
        if job.deadline:
            budget = max(MIN_RUN_SECONDS, min(budget, job.deadline - started))
        deadline = started + budget
        pid = worker.pid
        ceiling = worker.resting + self.settings.memory_mb * MB
        peak, slow = 0, False
        try:
            worker.conn.send_bytes(job.encode())
            slow = not worker.answered(WATCH_SECONDS)  # a cheap query is answered here, without reading /proc
            if slow:
                self.want_reserve()
                while not worker.answered(min(WATCH_SECONDS, max(0.0, deadline - time.monotonic()))):
                    peak = max(peak, resident_bytes(pid))
                    if self.settings.memory_mb > 0 and peak > ceiling:
                        self._retire(worker)
                        raise memory_error(self.settings.memory_mb)
                    if time.monotonic() >= deadline:
                        self._retire(worker)
                        self._note(job, budget)
                        if reserve and budget < job.timeout:
                            raise BusyTimeout(f"every query worker is busy with long queries, and this query ran "
                                              f"past the {budget:g} s allowed while they are; retry shortly")
                        raise QueryTimeout(f"the query ran past the time limit of {job.timeout:g} s and was "
                                           "stopped; narrow it or add a LIMIT")
            reply = worker.conn.recv_bytes()
        except (EOFError, OSError, BrokenPipeError):
            self._retire(worker)
            if self.settings.memory_mb > 0 and peak > ceiling - self.settings.memory_mb * MB // 2:
                raise memory_error(self.settings.memory_mb) from None
            raise EngineCrashed("the query engine failed on this query (for example, nesting too deep); "
                                "simplify the query") from None
        if slow:  # what a long query left allocated is the worker's new resting size
            worker.resting = resident_bytes(pid)
            self._note(job, time.monotonic() - started)
        self._release(worker)
        if reply[:1] == ERROR:
            raise QueryFailed(*decode_error(reply))
        return reply[1:]

    def close(self) -> None:
        """Stop every worker."""
        self.closed = True
        for lane in (self.idle, self.reserve):
            for worker in lane.drain():
                worker.kill()
