"""Free query workers, handed to the queries waiting for them first come, first served.

A queue.Queue let a query that had just arrived take a worker freed for one that had been waiting, so under
load some queries waited past ``queue_wait`` (503) while others never waited: at 8 clients of 0.35 s joins,
p99 was 4.4 s where Oxigraph's was 1.5 s. Here a freed worker goes to the longest-waiting query, and a query
takes a free worker at once only when nobody waits before it. One query may wait on two lanes (the normal
workers and the reserve one): the first worker offered wins, the other lane's next worker goes on.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Generic, TypeVar

W = TypeVar("W")


class Waiter(Generic[W]):
    """One query waiting for a worker from one or more lanes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.ready = threading.Event()
        self.worker: W | None = None
        self.gone = False

    @property
    def done(self) -> bool:
        """Whether the waiter has a worker or has given up."""
        return self.worker is not None or self.gone

    def offer(self, worker: W) -> bool:
        """Hand a worker over; False when the waiter already has one or has given up."""
        with self._lock:
            if self.done:
                return False
            self.worker = worker
        self.ready.set()
        return True

    def give_up(self) -> W | None:
        """Stop waiting; the worker handed over in the meantime, if any."""
        with self._lock:
            self.gone = True
            return self.worker


class Lane(Generic[W]):
    """The free workers of one lane and the queries waiting for one, in arrival order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[W] = []  # the worker freed last is taken first: its caches are warm
        self._waiters: deque[Waiter[W]] = deque()

    def put(self, worker: W) -> None:
        """Free a worker: to the longest-waiting query, or back to the free list."""
        with self._lock:
            while self._waiters:
                if self._waiters.popleft().offer(worker):
                    return
            self._free.append(worker)

    def take_nowait(self) -> W | None:
        """A free worker, when one is free and no query waits for it."""
        with self._lock:
            self._prune()
            return self._free.pop() if self._free and not self._waiters else None

    def join(self, waiter: Waiter[W]) -> None:
        """Queue a waiter, or hand it a free worker at once when nobody waits before it."""
        with self._lock:
            self._prune()
            if self._free and not self._waiters:
                worker = self._free.pop()
                if not waiter.offer(worker):
                    self._free.append(worker)
                return
            self._waiters.append(waiter)

    def drain(self) -> list[W]:
        """Every free worker, taken out (to stop them)."""
        with self._lock:
            taken, self._free = self._free, []
            return taken

    def qsize(self) -> int:
        """How many workers are free."""
        return len(self._free)

    def waiting(self) -> int:
        """How many queries wait for a worker of this lane (some may have given up since)."""
        return len(self._waiters)

    @property
    def queue(self) -> list[W]:
        """The free workers (a copy)."""
        return list(self._free)

    def _prune(self) -> None:
        """Drop waiters at the front that are served or gone."""
        while self._waiters and self._waiters[0].done:
            self._waiters.popleft()


def take_first(lanes: list[Lane[W]], timeout: float) -> W | None:
    """The first worker any of the lanes frees for this query within timeout seconds, or None."""
    waiter: Waiter[W] = Waiter()
    for lane in lanes:
        lane.join(waiter)
        if waiter.done:
            break
    if waiter.ready.wait(timeout):
        return waiter.worker
    return waiter.give_up()
