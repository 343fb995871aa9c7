"""The servers of the HTTP benchmark: started on free 127.0.0.1 ports, watched for memory, stopped by process group."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_load import http_query, run_wrk

HERE = Path(__file__).resolve().parent
PAGE = os.sysconf("SC_PAGE_SIZE")


def log(message: str) -> None:
    """Progress on stderr, with the time."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
    """Run a preparation command, failing loudly."""
    log("$ " + shlex.join(command))
    return subprocess.run(command, check=True, **kwargs)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ---------------------------------------------------------------------------------------------------------------
# memory of process trees


def process_tree(root: int) -> list[int]:
    """root and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def tree_rss(root: int) -> int:
    """Summed resident set size, in bytes, of a process tree (shared pages counted once per process)."""
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def tree_pss(root: int) -> int:
    """Summed proportional set size, in bytes, of a process tree (a page shared by n processes counts 1/n each)."""
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, IndexError, ValueError):
            continue
    return total


class MemoryWatch(threading.Thread):
    """Samples the RSS of every watched server tree every `interval` seconds; peaks since a mark."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.roots: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.window: dict[str, int] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()

    def watch(self, name: str, pid: int) -> None:
        with self.lock:
            self.roots[name] = pid
            self.peak.setdefault(name, 0)

    def unwatch(self, name: str) -> None:
        with self.lock:
            self.roots.pop(name, None)

    def mark(self, name: str) -> None:
        """Start a new measurement window for one server."""
        with self.lock:
            self.window[name] = 0

    def window_peak(self, name: str) -> int:
        self.sample()
        with self.lock:
            return self.window.get(name, 0)

    def sample(self) -> None:
        with self.lock:
            roots = dict(self.roots)
        for name, pid in roots.items():
            rss = tree_rss(pid)
            with self.lock:
                self.peak[name] = max(self.peak.get(name, 0), rss)
                if name in self.window:
                    self.window[name] = max(self.window[name], rss)

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            self.sample()


MEMORY = MemoryWatch()


# ---------------------------------------------------------------------------------------------------------------
# servers


@dataclass
class Server:
    """A server process started by this script, stopped by its process group id.

    `command` may hold "{port}"; `command_for`, when given, builds the command from the port instead.
    """

    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    ready_timeout: float = 900
    description: str = ""
    command_for: Callable[[int], list[str]] | None = None
    port: int = 0
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    ready_seconds: float = 0.0  # process start to the first 200 answer to ASK {}
    warmup_seconds: float = 0.0  # after ready, until 8 clients get every ASK {} answer fast
    ready_rss: int = 0
    idle_rss: int = 0  # after the warm-up
    end_rss: int = 0  # after every run, before stopping
    end_pss: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/sparql"

    @property
    def startup_seconds(self) -> float:
        return self.ready_seconds + self.warmup_seconds

    def start(self, log_dir: Path) -> None:
        self.port = free_port()
        if self.command_for is not None:
            self.command = self.command_for(self.port)
        command = [part.replace("{port}", str(self.port)) for part in self.command]
        self.log_path = log_dir / f"server-{self.name}.log"
        log(f"starting {self.name} on 127.0.0.1:{self.port}: {shlex.join(command)}")
        env = dict(os.environ, **self.env)
        with open(self.log_path, "ab") as out:
            started = time.monotonic()
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True, stdin=subprocess.DEVNULL)
        MEMORY.watch(self.name, self.process.pid)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; see {self.log_path}")
            try:
                status, _, _ = http_query(self.url, "ASK {}", timeout=5)
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() - started > self.ready_timeout:
                raise RuntimeError(f"{self.name} not ready after {self.ready_timeout:g} s; see {self.log_path}")
            time.sleep(0.02)
        self.ready_seconds = time.monotonic() - started
        self.ready_rss = tree_rss(self.process.pid)
        # kg starts its query worker pools lazily, one per web worker, on the first query each gets:
        # keep 8 clients asking a trivial query until every answer is fast (bounded)
        warm_started = time.monotonic()
        while time.monotonic() - started < self.ready_timeout:
            probe = run_wrk(self.url, "ASK {}", 8, 3, 60)
            if probe["non2xx"] == 0 and probe["socket_errors"] == 0 and (probe["p99_ms"] or 1e9) < 1000:
                break
        self.warmup_seconds = time.monotonic() - warm_started
        time.sleep(0.5)
        self.idle_rss = tree_rss(self.process.pid)
        log(f"{self.name} ready (first 200 to ASK {{}}) after {self.ready_seconds:.2f} s, RSS "
            f"{self.ready_rss / 2**20:.0f} MB; warm after {self.warmup_seconds:.1f} s more, RSS "
            f"{self.idle_rss / 2**20:.0f} MB")

    def record_end(self) -> None:
        """RSS and PSS of the process tree after the runs."""
        if self.process is not None and self.process.poll() is None:
            self.end_rss = tree_rss(self.process.pid)
            self.end_pss = tree_pss(self.process.pid)

    def stop(self) -> None:
        """SIGTERM to the server's own process group (its PID), then SIGKILL if it lingers."""
        if self.process is None:
            return
        MEMORY.unwatch(self.name)
        pid = self.process.pid
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            try:
                os.killpg(pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(wait)
                # the group may still hold children (query workers): give them the same signal
                time.sleep(0.2)
                try:
                    os.killpg(pid, 0)
                except ProcessLookupError:
                    break
            except subprocess.TimeoutExpired:
                continue
        self.process = None
        log(f"stopped {self.name} (process group {pid})")


def kg_server(name: str, store: Path, *, workers: int = 2, threads: int = 32, cache: bool = True,
              query_workers: int | None = None, description: str = "") -> Server:
    env = {"KG_STORE": str(store)}
    if not cache:  # both caches: query results (sparql) and rendered pages / RDF documents (pages)
        env["KG_CACHE_BYTES"] = "0"
        env["KG_PAGE_CACHE_BYTES"] = "0"
    if query_workers is not None:
        env["KG_QUERY_WORKERS"] = str(query_workers)
    command = [shutil.which("kg") or "kg", "serve", "--store", str(store), "--host", "127.0.0.1", "--port", "{port}",
               "--workers", str(workers), "--threads", str(threads)]
    return Server(name, command, env, description=description)


def kg_serve_defaults() -> dict[str, Any]:
    """kg serve's own option defaults (--workers, --threads, ...), so "kg" here is the default kg serve."""
    from kg.cli import serve
    return {param.name: param.default for param in serve.params}


def hello_server(workers: int, threads: int) -> Server:
    """benchmarks/hello_app.py under granian with exactly kg serve's granian options (kg.serving.server_arguments)."""
    from kg.config import Config
    from kg.serving import server_arguments

    config = Config.from_env()  # as kg serve reads it: KG_ACCESS_LOG, KG_HEADER_TIMEOUT

    def command_for(port: int) -> list[str]:
        return [sys.executable, "-m", "granian", *server_arguments(config, "127.0.0.1", port, workers, threads),
                "hello_app:app"]

    pythonpath = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    return Server("flask-hello", command_for(0), {"PYTHONPATH": pythonpath}, command_for=command_for,
                  description=f"hello-world Flask app (hello_app.py), granian with kg serve's options, "
                              f"--workers {workers} --threads {threads}")


# ---------------------------------------------------------------------------------------------------------------
# HTTP


def wait_quiet(server: Server, limit: float) -> None:
    """Wait (bounded) until a server answers a trivial query fast again, after a run cut requests short."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            status, _, seconds = http_query(server.url, "ASK {}", timeout=max(1.0, deadline - time.monotonic()))
            if status == 200 and seconds < 1:
                return
        except OSError:
            pass
        time.sleep(0.5)
    log(f"warning: {server.name} still busy after {limit:g} s")


# ---------------------------------------------------------------------------------------------------------------
# wrk

