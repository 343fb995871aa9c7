"""A Python child process that the parent talks to over a socket pair, stopped with the parent's handle on it.

Query workers (kg.query.worker) and the write worker (kg.writes.worker) are both started this way: ``python -m
MODULE FD ARGS…`` with the child's end of the pair as FD, the package's folder on its PYTHONPATH, no standard
input, and a finalizer that kills and reaps it when the parent's handle goes (or the parent exits).
"""

from __future__ import annotations

import logging
import os
import select
import socket
import subprocess
import sys
import weakref
from multiprocessing.connection import Connection
from pathlib import Path

from .wire import READY

logger = logging.getLogger(__name__)
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
MB = 1 << 20
SOURCE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the kg package, for the child


def resident_bytes(pid: int) -> int:
    """Resident memory of a process in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


class ChildProcess:
    """A child process running ``python -m module FD args…`` and the parent's end of its socket."""

    def __init__(self, module: str, args: list[str], env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-m", module, str(theirs.fileno()), *args]
        env = dict(env, PYTHONPATH=os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")])))
        try:
            self.process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        self.poller = select.poll()  # one poll object per child: multiprocessing's poll() builds a selector per call
        self.poller.register(self.conn.fileno(), select.POLLIN)
        self.resting = 0  # resident bytes when idle, the base of a memory limit
        # the child is stopped when this object goes (a pool dropped without close()) and at exit, as
        # multiprocessing's daemon children were: a worker must never outlive the web process
        self._stop = weakref.finalize(self, stop_child, self.process, self.conn)

    def answered(self, seconds: float) -> bool:
        """Wait up to seconds for the child's answer (or its death: the socket then reads as ready)."""
        return bool(self.poller.poll(max(0, int(seconds * 1000))))

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self.process.pid

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the child says it is ready."""
        if not self.conn.poll(timeout):
            return False
        try:
            ready = self.conn.recv_bytes() == READY
        except (EOFError, OSError):
            return False
        self.resting = resident_bytes(self.pid)
        return ready

    def kill(self) -> None:
        """Stop the child at once and reap it."""
        self._stop()


def stop_child(process: subprocess.Popen[bytes], conn: Connection) -> None:
    """Kill a child process, reap it and close its socket."""
    if process.poll() is None:
        process.kill()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        logger.error("worker process %s did not exit after SIGKILL", process.pid)
    conn.close()
