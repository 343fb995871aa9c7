"""Start a real `kg serve` process on a free 127.0.0.1 port and stop it by its PID."""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def kg_serve(data: Path, store: Path, *extra: str, timeout: float = 90.0,
             env: dict[str, str] | None = None, memory_cap: int | None = None) -> Iterator[str]:
    """Run `kg serve` until the block ends; yields the base URL."""
    with kg_serve_process(data, store, *extra, timeout=timeout, env=env, memory_cap=memory_cap) as (url, _):
        yield url


def address_space_cap(limit: int | None) -> Callable[[], None] | None:
    """A preexec function that caps a child's address space (inherited by its own children), or None."""
    if limit is None:
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@contextmanager
def kg_serve_process(data: Path, store: Path, *extra: str, timeout: float = 90.0, env: dict[str, str] | None = None,
                     memory_cap: int | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run `kg serve` until the block ends; yields the base URL and the process (its own process group); with
    memory_cap, every process of the server is limited to that many bytes of address space."""
    port = free_port()
    log = store.parent / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "kg", "serve", "--data", str(data), "--store", str(store),
             "--host", "127.0.0.1", "--port", str(port), *extra],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, **(env or {})},
            preexec_fn=address_space_cap(memory_cap))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"kg serve exited with {process.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"kg serve did not answer within {timeout}s:\n{log.read_text()}")
            time.sleep(0.2)
        yield url, process
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
