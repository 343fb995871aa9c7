"""The web process's end of the write worker: the Writer's operations, applied in kg.writes.worker within limits.

One write at a time per web process (the store's write lock serialises writes across processes). Each write may
take ``write_timeout`` seconds and add ``write_memory_mb`` megabytes to the worker; past either, the worker is
killed (the kernel releases its file lock, the current store version keeps serving) and the write answers 503
naming the limit. The next write starts a fresh worker. Nothing of the write stack is imported here.
"""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import pyoxigraph as ox

from .. import errors
from ..config import Config
from ..errors import KgError, QueryFailed, WriteBusy, WriteLimit, WriteRejected
from ..query.child import MB, ChildProcess, resident_bytes
from .result import Outcome, WriteResult

STARTUP_TIMEOUT = 120.0
WATCH_SECONDS = 0.05
CARRIED = {name: cls for name, cls in vars(errors).items()  # the errors a worker's answer is raised as again
           if isinstance(cls, type) and issubclass(cls, KgError) and name not in
           ("SourceError", "SourceErrors", "ValidationFailed", "WriteRejected", "QueryFailed")}


class WriteOperations(Protocol):
    """What the HTTP write routes call: kg.writes.Writer in process, or WriteClient through the write worker."""

    def update_operations(self, operations: list[str], base_iri: str | None = None,
                          request: str | None = None) -> WriteResult:
        """Apply the operations of one SPARQL Update request, all or none (request: its text, checked first)."""

    def put(self, graph: str | None, triples: Iterable[ox.Triple]) -> WriteResult:
        """Replace a graph (None: the default graph)."""

    def post(self, graph: str | None, triples: Iterable[ox.Triple]) -> WriteResult:
        """Merge triples into a graph (None: the default graph)."""

    def delete(self, graph: str | None) -> WriteResult:
        """Remove a graph (None: empty the default graph)."""


def raised_again(kind: str, status: int, message: str) -> KgError:
    """The error a worker reported, as its own class where it takes a message alone, else QueryFailed."""
    cls = CARRIED.get(kind)
    if cls is not None:
        try:
            return cls(message)
        except TypeError:
            pass
    return QueryFailed(status, kind, message)


class WriteClient:
    """The Writer's operations, each applied in the write worker with time and memory limits."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._child: ChildProcess | None = None

    def update_operations(self, operations: list[str], base_iri: str | None = None,
                          request: str | None = None) -> WriteResult:
        """Apply the operations of one SPARQL Update request, all or none (request: its text, checked first)."""
        return self._call("update_operations", operations, base_iri, request=request)

    def put(self, graph: str | None, triples: Iterable[ox.Triple]) -> WriteResult:
        """Replace a graph (None: the default graph)."""
        return self._call("put", graph, list(triples))

    def post(self, graph: str | None, triples: Iterable[ox.Triple]) -> WriteResult:
        """Merge triples into a graph (None: the default graph)."""
        return self._call("post", graph, list(triples))

    def delete(self, graph: str | None) -> WriteResult:
        """Remove a graph (None: empty the default graph)."""
        return self._call("delete", graph)

    def close(self) -> None:
        """Stop the worker (a later write starts another)."""
        if self._child is not None:
            self._child.kill()
            self._child = None

    def _call(self, operation: str, *args: object, **options: object) -> WriteResult:
        """Send one write to the worker and turn its outcome into a result or an error."""
        if not self._lock.acquire(timeout=self.config.write_timeout):
            raise WriteBusy(f"another write has been running for more than {self.config.write_timeout:g} s; "
                            "retry shortly")
        try:
            reply = self._ask(pickle.dumps((operation, args, options)))
        finally:
            self._lock.release()
        if reply.result is not None:
            return reply.result
        if reply.report is not None:
            raise WriteRejected(reply.report)
        raise raised_again(reply.error_kind, reply.status, reply.message)

    def _worker(self) -> ChildProcess:
        """The running worker, started (and its write stack loaded) when there is none."""
        if self._child is None or self._child.process.poll() is not None:
            child = ChildProcess("kg.writes.worker", [], {**os.environ, **self.config.environment()})
            if not child.wait_ready(STARTUP_TIMEOUT):
                child.kill()
                raise KgError("the write worker could not start; see the server log")
            self._child = child
        return self._child

    def _ask(self, job: bytes) -> Outcome:
        """The worker's outcome for a job, or WriteLimit once it passes the time or memory limit (worker killed)."""
        child = self._worker()
        version = self._version()
        deadline = time.monotonic() + self.config.write_timeout
        memory_mb = self.config.write_memory_mb
        ceiling = child.resting + memory_mb * MB
        try:
            child.conn.send_bytes(job)
            while not child.answered(min(WATCH_SECONDS, max(0.0, deadline - time.monotonic()))):
                if memory_mb > 0 and resident_bytes(child.pid) > ceiling:
                    self.close()
                    raise WriteLimit(self._stopped(version, f"needed more than the memory limit of {memory_mb} MB",
                                                   "KG_WRITE_MEMORY_MB"))
                if time.monotonic() >= deadline:
                    self.close()
                    raise WriteLimit(self._stopped(version, "ran past the time limit of "
                                                   f"{self.config.write_timeout:g} s", "KG_WRITE_TIMEOUT"))
            outcome: Outcome = pickle.loads(child.conn.recv_bytes())  # noqa: S301 - our own child
            return outcome
        except (EOFError, OSError):
            self.close()
            raise WriteLimit(self._stopped(version, "stopped its worker process", "KG_WRITE_MEMORY_MB")) from None

    def _version(self) -> Path | None:
        """The store version the link points at (None for a remote store or a missing link)."""
        if self.config.remote:
            return None
        try:
            return self.config.store.resolve(strict=True)
        except OSError:
            return None

    def _stopped(self, version: Path | None, why: str, setting: str) -> str:
        """The message for a write stopped at a limit, saying whether it had already been committed."""
        now = self._version()
        if now is not None and now != version:
            return (f"the write {why} and was stopped right after it was committed as {now.name}; check the data "
                    f"before retrying (the limit is {setting})")
        return f"the write {why} and was stopped; nothing was changed; make it smaller or raise {setting}"
