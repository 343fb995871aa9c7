"""HTTP benchmark: kg serve against oxigraph serve-read-only and rdflib-endpoint, on the same data.

    python benchmarks/http_bench.py --triples 100000

Steps, each skipped when its output already exists in the work folder (--fresh redoes them):
generate a synthetic data folder (benchmarks/generate.py), ``kg build`` it, export it (``kg export``
N-Quads for the named graphs and N-Triples for kg's default graph, the merge of the named graphs),
load Oxigraph. Then it starts every server on a free 127.0.0.1 port, checks that all of them
return the same rows for every query in benchmarks/queries/ (exit 1 otherwise), measures each
query at each client count with wrk (interleaving the servers, ``--repeats`` times ``--duration``
seconds), optionally compares kg serving designs (``--designs``), stops every server by its process
group id, and writes benchmarks/out/http-<N>.json and http-<N>.md.

Servers: ``kg`` (kg serve with its default options: result and page caches on), ``kg-nocache``
(KG_CACHE_BYTES=0 and KG_PAGE_CACHE_BYTES=0: every request runs the query or renders the page),
``flask-hello`` (benchmarks/hello_app.py: one Flask route answering a fixed SPARQL JSON body, served by
granian with exactly kg serve's granian options; the ceiling for any Flask front end, measured on the
lookup query only and not verified), ``oxigraph`` (oxigraph serve-read-only over a store holding the named
graphs plus the merge as default graph, exactly kg's layout; ``--union-default-graph`` is not used
because it repeats a triple once per graph holding it, so non-DISTINCT queries return more rows than
kg), ``rdflib`` (rdflib-endpoint over Dataset(default_union=True), see rdflib_endpoint_app.py; not run by
default from 1M triples on, it is far too slow there).

Pages: the HTML page (/page/..., Accept: text/html) of the most prolific person (most incoming
schema:author) and of a median one, found with a SPARQL query before measuring, on kg and kg-nocache,
against Oxigraph's DESCRIBE of the same IRI (N-Triples) as a reference. Every wrk run uses
wrk_percentiles.lua, which prints p50/p95/p99 (wrk --latency prints 50/75/90/99 only).

Start-up: ready_s is the time from starting the process to its first 200 answer to ``ASK {}``; the
warm-up after it (8 clients asking ``ASK {}`` until every answer is fast, so lazily started query
workers exist) is timed separately. RSS is summed over the whole process tree at ready, after the
warm-up and after all runs. The markdown ends with a "Done when" section: issue 18's targets, each with
the measured value, the threshold and PASS/MISS.

Bounded: wrk runs for --duration seconds with a --cap second request timeout; a server whose single
request already takes more than a third of --duration is measured with at most a few sequential
requests (reported as capped) instead. All traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JSON_RESULTS = "application/sparql-results+json"
HTML = "text/html"
NTRIPLES = "application/n-triples"
WRK_SCRIPT = HERE / "wrk_percentiles.lua"
HELLO_QUERY = "1_lookup_by_name"  # the one query flask-hello is measured with (it answers every query alike)
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
    """benchmarks/hello_app.py under granian with exactly kg serve's granian options (kg.cli.server_arguments)."""
    from kg.cli import server_arguments
    from kg.config import Config

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


def http_query(url: str, query: str, timeout: float) -> tuple[int, bytes, float]:
    """GET url?query=..., SPARQL JSON results; (status, body, seconds)."""
    full = url + "?" + urllib.parse.urlencode({"query": query})
    request = urllib.request.Request(full, headers={"Accept": JSON_RESULTS})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        body, status = error.read(), error.code
    return status, body, time.perf_counter() - started


def rows_of(body: bytes) -> list[tuple]:
    """SPARQL JSON results as comparable rows (variable, value) - values only, datatypes ignored."""
    document = json.loads(body)
    if "boolean" in document:
        return [(("boolean", str(document["boolean"])),)]
    return [tuple(sorted((var, binding["value"]) for var, binding in row.items()))
            for row in document["results"]["bindings"]]


@dataclass
class Query:
    name: str
    text: str
    comment: str

    @classmethod
    def load(cls, path: Path) -> Query:
        lines = path.read_text(encoding="utf-8").splitlines()
        comment = " ".join(line.lstrip("# ").strip() for line in lines if line.startswith("#"))
        text = "\n".join(line for line in lines if not line.startswith("#")).strip()
        return cls(path.stem, text, comment)


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

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def parse_duration_ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise ValueError(f"cannot read wrk duration {text!r}")
    return float(match.group(1)) * UNITS[match.group(2)]


def run_wrk(url: str, query: str, clients: int, duration: float, timeout: float) -> dict[str, Any]:
    """One wrk run of a SPARQL query (GET, SPARQL JSON results)."""
    return run_wrk_url(url + "?" + urllib.parse.urlencode({"query": query}), JSON_RESULTS, clients, duration,
                       timeout)


def run_wrk_url(full: str, accept: str, clients: int, duration: float, timeout: float) -> dict[str, Any]:
    """One wrk run against a full URL; requests/s counts only 2xx answers; percentiles from wrk_percentiles.lua."""
    command = ["wrk", "-t", str(min(clients, 2)), "-c", str(clients), "-d", f"{duration:g}s",
               "--timeout", f"{timeout:g}s", "-s", str(WRK_SCRIPT), "-H", f"Accept: {accept}", full]
    out = subprocess.run(command, capture_output=True, text=True, timeout=duration + timeout + 30).stdout
    match = re.search(r"^WRK_JSON (\{.*\})\s*$", out, re.M)
    if not match:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    stats = json.loads(match.group(1))
    requests, seconds = stats["requests"], stats["duration_us"] / 1e6
    non2xx = stats["status"]
    socket_errors = stats["connect"] + stats["read"] + stats["write"] + stats["timeout"]
    ok = max(0, requests - non2xx)
    latency = {f"p{p}_ms": round(stats[f"p{p}_us"] / 1e3, 3) if ok else None for p in (50, 75, 90, 95, 99)}
    return {"requests": requests, "ok": ok, "non2xx": non2xx, "socket_errors": socket_errors,
            "seconds": seconds, "rps": ok / seconds if seconds else 0.0, "bytes": stats["bytes"], **latency}


def run_capped(url: str, query: str, duration: float, cap: float) -> dict[str, Any]:
    """For a very slow server: sequential requests for at most `duration` s (at least one, each <= cap s)."""
    latencies, errors, started = [], 0, time.monotonic()
    while not latencies or time.monotonic() - started < duration:
        try:
            status, _, seconds = http_query(url, query, timeout=cap)
        except OSError:
            errors += 1
            break
        if status != 200:
            errors += 1
            break
        latencies.append(seconds * 1e3)
        if len(latencies) >= 3:
            break
    elapsed = time.monotonic() - started
    return {"requests": len(latencies) + errors, "ok": len(latencies), "non2xx": errors, "socket_errors": 0,
            "seconds": elapsed, "rps": len(latencies) / elapsed if elapsed else 0.0,
            "p50_ms": statistics.median(latencies) if latencies else None,
            "p95_ms": max(latencies) if latencies else None,
            "p99_ms": max(latencies) if latencies else None, "capped": True}


# ---------------------------------------------------------------------------------------------------------------
# preparation


def prepare(work: Path, triples: int, fresh: bool) -> dict[str, Any]:
    """Generate, build, export and load Oxigraph; returns paths and timings."""
    if fresh and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    data, store = work / "data", work / "data" / "store"
    nq, nt, oxdir = work / "kg.nq", work / "kg-default.nt", work / "oxigraph"
    timings: dict[str, float] = {}

    def step(name: str, done: bool, command: list[str], **kwargs: Any) -> None:
        if done:
            log(f"{name}: reusing {work}")
            return
        started = time.perf_counter()
        run(command, **kwargs)
        timings[name] = round(time.perf_counter() - started, 2)

    step("generate", (data / "profiles").is_dir(),
         [sys.executable, str(HERE / "generate.py"), "--triples", str(triples), "--out", str(data)])
    with open(work / "build.log", "a") as build_log:
        step("build", store.exists(), ["kg", "build", "--data", str(data), "--store", str(store), "--timings"],
             stdout=build_log, stderr=subprocess.STDOUT)
    step("export_nq", nq.exists(), ["kg", "export", "--store", str(store), "--format", "nq", "-o", str(nq)])
    step("export_nt", nt.exists(), ["kg", "export", "--store", str(store), "--format", "nt", "-o", str(nt)])
    step("oxigraph_load", (oxdir / "CURRENT").exists(),
         ["oxigraph", "load", "--location", str(oxdir), "--file", str(nq), str(nt)])
    # oxigraph's advice before a read-heavy workload (it would otherwise compact in the background while serving)
    step("oxigraph_optimize", (work / "oxigraph.optimized").exists(),
         ["oxigraph", "optimize", "--location", str(oxdir)])
    (work / "oxigraph.optimized").touch()
    metadata = json.loads((store / "kg-build.json").read_text()) if (store / "kg-build.json").exists() else {}
    triples_by_graph = metadata.get("triples", {})
    with open(nq, "rb") as handle:
        quads = sum(1 for _ in handle)
    with open(nt, "rb") as handle:
        default_triples = sum(1 for _ in handle)
    return {"work": str(work), "store": str(store), "nq": str(nq), "nt": str(nt), "oxigraph": str(oxdir),
            "quads": quads, "default_graph_triples": default_triples, "graphs": len(triples_by_graph),
            "timings": timings}


# ---------------------------------------------------------------------------------------------------------------
# verification and measurement


def verify(servers: list[Server], queries: list[Query], cap: float, reference: str) -> dict[str, Any]:
    """Every server must return the same rows (count and values) for every query; exit 1 otherwise."""
    report: dict[str, Any] = {}
    problems: list[str] = []
    for query in queries:
        answers: dict[str, Any] = {}
        for server in servers:
            try:
                status, body, seconds = http_query(server.url, query.text, timeout=cap)
            except OSError as error:
                answers[server.name] = {"error": f"no answer within {cap:g} s ({error})", "seconds": cap}
                problems.append(f"{query.name}: {server.name} gave no answer within {cap:g} s")
                continue
            if status != 200:
                answers[server.name] = {"error": f"HTTP {status}: {body[:300]!r}", "seconds": seconds}
                problems.append(f"{query.name}: {server.name} answered HTTP {status}: {body[:300]!r}")
                continue
            rows = rows_of(body)
            answers[server.name] = {"rows": len(rows), "seconds": round(seconds, 4), "_rows": Counter(rows)}
        base = answers.get(reference, {})
        for name, answer in answers.items():
            if "rows" not in answer or "rows" not in base or name == reference:
                continue
            if answer["rows"] != base["rows"]:
                problems.append(f"{query.name}: {name} returned {answer['rows']} rows, {reference} {base['rows']}")
            elif answer["_rows"] != base["_rows"]:
                diff = list((answer["_rows"] - base["_rows"]).items())[:3]
                problems.append(f"{query.name}: {name} rows differ from {reference}'s, e.g. {diff}")
        report[query.name] = {name: {k: v for k, v in a.items() if k != "_rows"} for name, a in answers.items()}
        log(f"verify {query.name}: " + ", ".join(
            f"{n} {a.get('rows', a.get('error'))} rows {a.get('seconds', 0) * 1e3:.1f} ms" for n, a in answers.items()))
    if problems:
        for problem in problems:
            log("MISMATCH " + problem)
        raise SystemExit("verification failed: the servers do not return the same rows (see above)")
    return report


def measure(server: Server, query: Query, clients: int, duration: float, cap: float, single: float) -> dict[str, Any]:
    """One measured run of one query on one server; capped when one request takes > duration/3."""
    MEMORY.mark(server.name)
    if single > duration / 3 or (clients > 1 and single * clients > duration):
        if clients > 1:
            result = {"skipped": f"one request takes {single:.1f} s: {clients} queued requests would not finish "
                                 f"within {duration:g} s", "capped": True,
                      "rps": None, "p50_ms": None, "p95_ms": None, "p99_ms": None}
        else:
            result = run_capped(server.url, query.text, duration, cap)
    else:
        result = run_wrk(server.url, query.text, clients, duration, cap)
        if result["non2xx"] or result["socket_errors"]:
            log(f"warning: {server.name} {query.name} c={clients}: {result['non2xx']} non-2xx, "
                f"{result['socket_errors']} socket errors")
    # a server may still be computing answers for requests wrk cut off: let it finish before the next run
    wait_quiet(server, cap)
    result["peak_rss_mb"] = round(MEMORY.window_peak(server.name) / 2**20, 1)
    result["load1"] = round(os.getloadavg()[0], 2)
    return result


def warm(server: Server, query: Query, seconds: float, single: float) -> None:
    """Bring pools and caches up: a short 8-client wrk run (skipped for servers this slow)."""
    if single > 1 or seconds <= 0:
        return
    run_wrk(server.url, query.text, 8, seconds, 30)


def retime(server: Server, query: Query, singles: dict, cap: float, key: Any = None) -> None:
    """A slow first answer (cold pool, cold cache) is re-timed once after warm-up; the faster time is kept."""
    key = key if key is not None else (query.name, server.name)
    if singles.get(key, 0) > 0.2:
        try:
            status, _, seconds = http_query(server.url, query.text, timeout=cap)
            if status == 200:
                singles[key] = min(singles[key], seconds)
        except OSError:
            pass


def median_of(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def summarise(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Medians per (query, clients, server); page runs name the person in "query"."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for entry in runs:
        groups.setdefault((entry["query"], entry["clients"], entry["server"]), []).append(entry)
    summary = []
    for (query, clients, server), group in groups.items():
        summary.append({"query": query, "clients": clients, "server": server, "repeats": len(group),
                        "rps": median_of(group, "rps"), "p50_ms": median_of(group, "p50_ms"),
                        "p95_ms": median_of(group, "p95_ms"), "p99_ms": median_of(group, "p99_ms"),
                        "peak_rss_mb": max(g.get("peak_rss_mb", 0) for g in group),
                        "capped": any(g.get("capped") for g in group),
                        "min_ok": min((g.get("ok") or 0) for g in group),
                        "errors": sum((g.get("non2xx") or 0) + (g.get("socket_errors") or 0) for g in group),
                        "skipped": next((g["skipped"] for g in group if g.get("skipped")), None)})
    return summary


RATIOS = [("kg", "oxigraph"), ("kg-nocache", "oxigraph"), ("kg", "rdflib"), ("kg-nocache", "rdflib"),
          ("kg", "flask-hello"), ("kg-nocache", "flask-hello")]


def ratios(summary: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by = {(s["query"], s["clients"], s["server"]): s for s in summary}
    out = []
    for query, clients in dict.fromkeys((s["query"], s["clients"]) for s in summary):
        row: dict[str, Any] = {"query": query, "clients": clients}
        for a, b in RATIOS:
            sa, sb = by.get((query, clients, a)), by.get((query, clients, b))
            if sa and sb and sa["rps"] and sb["rps"]:
                row[f"{a}/{b}"] = round(sa["rps"] / sb["rps"], 2)
                if sb["capped"]:
                    row[f"{a}/{b}_capped"] = True
        out.append(row)
    return out


# ---------------------------------------------------------------------------------------------------------------
# person pages

AUTHORED = """PREFIX schema: <http://schema.org/>
SELECT ?p (COUNT(DISTINCT ?w) AS ?n) WHERE { ?w schema:author ?p . ?p a schema:Person }
GROUP BY ?p ORDER BY DESC(?n) STR(?p)"""


def find_people(server: Server, cap: float) -> list[dict[str, Any]]:
    """The most prolific person (most incoming schema:author) and a median one, asked of `server`."""
    status, body, seconds = http_query(server.url, AUTHORED, timeout=cap)
    if status != 200:
        raise RuntimeError(f"{server.name} answered HTTP {status} to the authors query: {body[:300]!r}")
    rows = [(b["p"]["value"], int(b["n"]["value"])) for b in json.loads(body)["results"]["bindings"]]
    if not rows:
        raise RuntimeError(f"{server.name}: no schema:author in the data")
    log(f"pages: {len(rows)} authors ({seconds * 1e3:.0f} ms on {server.name}); most prolific {rows[0][0]} "
        f"({rows[0][1]} works), median {rows[len(rows) // 2][0]} ({rows[len(rows) // 2][1]})")
    return [{"person": "most prolific", "iri": rows[0][0], "works": rows[0][1], "authors": len(rows)},
            {"person": "median", "iri": rows[len(rows) // 2][0], "works": rows[len(rows) // 2][1],
             "authors": len(rows)}]


def page_targets(servers: list[Server], iri: str) -> dict[str, tuple[str, str]]:
    """server name -> (URL, Accept): kg's /page/ path for the IRI, oxigraph's DESCRIBE of it."""
    from kg.config import Config
    from kg.iris import Minter

    path = Minter(Config.from_env().base).path_of(iri)
    targets = {}
    for server in servers:
        if server.name in ("kg", "kg-nocache") and path is not None:
            targets[server.name] = (f"{server.base}/page/{urllib.parse.quote(path)}", HTML)
        elif server.name == "oxigraph":
            describe = server.url + "?" + urllib.parse.urlencode({"query": f"DESCRIBE <{iri}>"})
            targets["oxigraph-describe"] = (describe, NTRIPLES)
    return targets


def fetch(url: str, accept: str, timeout: float) -> tuple[int, str, int, float]:
    """GET url: (status, content type, body bytes, seconds)."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept}), timeout=timeout) as r:
            body, status, kind = r.read(), r.status, r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        body, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, kind, len(body), time.perf_counter() - started


def measure_pages(servers: list[Server], people: list[dict[str, Any]], clients: list[int], duration: float,
                  repeats: int, warmup: float, cap: float) -> dict[str, Any]:
    """wrk on each person's page (kg, kg-nocache) and Oxigraph's DESCRIBE of the IRI, interleaved like the queries."""
    by_name = {s.name: s for s in servers}
    checks, runs = [], []
    for person in people:
        targets = page_targets(servers, person["iri"])
        for name, (url, accept) in targets.items():
            status, kind, size, seconds = fetch(url, accept, cap)
            checks.append({"person": person["person"], "server": name, "url": url, "status": status,
                           "content_type": kind, "bytes": size, "seconds": round(seconds, 4)})
            log(f"page {person['person']} {name}: HTTP {status} {kind} {size:,} bytes {seconds * 1e3:.1f} ms")
            if status != 200 or (accept == HTML and not kind.startswith(HTML)):
                raise SystemExit(f"page check failed: {name} answered HTTP {status} {kind} for {url}")
            if warmup > 0:
                run_wrk_url(url, accept, 8, warmup, 30)
        for count in clients:
            for repeat in range(repeats):
                for name, (url, accept) in targets.items():
                    server = by_name["oxigraph" if name == "oxigraph-describe" else name]
                    MEMORY.mark(server.name)
                    entry = run_wrk_url(url, accept, count, duration, cap)
                    wait_quiet(server, cap)
                    entry["peak_rss_mb"] = round(MEMORY.window_peak(server.name) / 2**20, 1)
                    entry["load1"] = round(os.getloadavg()[0], 2)
                    runs.append({"query": person["person"], "iri": person["iri"], "clients": count, "server": name,
                                 "repeat": repeat, **entry})
                    log(f"page {person['person']} c={count} #{repeat} {name}: {fmt(entry['rps'])} req/s p50 "
                        f"{fmt(entry['p50_ms'], 2)} p95 {fmt(entry['p95_ms'], 2)} p99 {fmt(entry['p99_ms'], 2)} ms")
    return {"people": people, "checks": checks, "runs": runs, "summary": summarise(runs)}


# ---------------------------------------------------------------------------------------------------------------
# serving designs


DESIGN = re.compile(r"w(\d+)t(\d+)q(\d+)")


def run_designs(specs: list[str], store: Path, queries: list[Query], clients: list[int], duration: float,
                cap: float, log_dir: Path, singles: dict[str, float]) -> list[dict[str, Any]]:
    """kg serve --workers W --threads T with KG_QUERY_WORKERS=Q, cache off, one at a time, one short run each."""
    results = []
    for spec in specs:
        match = DESIGN.fullmatch(spec)
        if not match:
            raise SystemExit(f"bad design {spec!r}: use wWtTqQ, e.g. w2t4q2")
        workers, threads, qworkers = (int(x) for x in match.groups())
        server = kg_server(f"design-{spec}", store, workers=workers, threads=threads, cache=False,
                           query_workers=qworkers)
        try:
            server.start(log_dir)
            for query in queries:
                warm(server, query, 2, singles.get(query.name, 0))
                retime(server, query, singles, cap, key=query.name)
                for count in clients:
                    result = measure(server, query, count, duration, cap, singles.get(query.name, 0))
                    results.append({"design": spec, "workers": workers, "threads": threads, "query_workers": qworkers,
                                    "query": query.name, "clients": count, **result})
                    log(f"design {spec} {query.name} c={count}: {fmt(result.get('rps'))} req/s")
            results.append({"design": spec, "query": "_memory",
                            "peak_rss_mb": round(MEMORY.peak[server.name] / 2**20, 1)})
        finally:
            server.stop()
    return results


# ---------------------------------------------------------------------------------------------------------------
# issue 18's targets

LOOKUP, GROUP_BY, TWO_HOP = "1_lookup_by_name", "5_group_venue_year", "3_coauthors_2hop"


def done_when(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 18's "Done when" targets, each with the measured value, the threshold and PASS/MISS.

    The issue states the page targets for 1M triples and start-up/memory for 100k; they are reported at every size.
    """
    summary = {(s["query"], s["clients"], s["server"]): s for s in result.get("summary", [])}
    pages = {(s["query"], s["clients"], s["server"]): s for s in result.get("pages", {}).get("summary", [])}
    clients = result["settings"]["clients"]
    lines: list[dict[str, Any]] = []

    def figure(table: dict, key: tuple, field: str = "rps") -> tuple[float | None, str]:
        entry = table.get(key)
        if entry is None or entry.get("skipped") or entry.get(field) is None:
            return None, ""
        return entry[field], " (capped)" if entry.get("capped") else ""

    def add(target: str, value: float | None, measured: str, threshold: str, ok: bool | None) -> None:
        status = "not measured" if value is None or ok is None else ("PASS" if ok else "MISS")
        lines.append({"target": target, "value": value, "measured": measured if value is not None else "–",
                      "threshold": threshold, "status": status})

    def ratio_line(target: str, query: str, count: int, factor: float) -> None:
        mine, mark_a = figure(summary, (query, count, "kg-nocache"))
        theirs, mark_b = figure(summary, (query, count, "oxigraph"))
        value = round(mine / theirs, 2) if mine and theirs else None
        add(target, value, f"{fmt(mine)}{mark_a} / {fmt(theirs)}{mark_b} req/s = {value}x" if value else "",
            f">= {factor:g}x oxigraph", value >= factor if value is not None else None)

    def n(count: int) -> str:
        return f"{count} client" + ("s" if count != 1 else "")

    for count in clients:
        ratio_line(f"uncached name lookup ({LOOKUP}), kg-nocache / oxigraph, {n(count)}", LOOKUP, count, 0.5)
    for query, what in ((GROUP_BY, "GROUP BY"), (TWO_HOP, "2-hop join")):
        for count in clients:
            ratio_line(f"uncached {what} ({query}), kg-nocache / oxigraph, {n(count)}", query, count, 1)
    queries = [q["name"] for q in result["queries"]]
    for count in clients:
        base, mark_b = figure(summary, (LOOKUP, count, "oxigraph"))
        cached = [(q, *figure(summary, (q, count, "kg"))) for q in queries]
        measured = [(q, v, m) for q, v, m in cached if v is not None]
        if base is None or not measured or len(measured) < len(cached):
            add(f"every cached query (kg) >= oxigraph's lookup, {n(count)}", None, "", ">= 1x oxigraph lookup req/s",
                None)
            continue
        query, value, mark_a = min(measured, key=lambda item: item[1])
        add(f"every cached query (kg) >= oxigraph's lookup, {n(count)}", round(value / base, 2),
            f"slowest {query} {fmt(value)}{mark_a} / oxigraph lookup {fmt(base)}{mark_b} req/s = "
            f"{value / base:.2f}x", ">= 1x oxigraph lookup req/s", value >= base)
    one, many = min(clients), max(clients)
    for server, limit, what in (("kg-nocache", 10.0, "uncached"), ("kg", 1.0, "cached")):
        value, _ = figure(pages, ("most prolific", one, server), "p50_ms")
        add(f"most prolific person's page, p50 {what} ({server}, {n(one)})", value,
            f"{fmt(value, 2)} ms", f"<= {limit:g} ms", value <= limit if value is not None else None)
    value, _ = figure(pages, ("most prolific", many, "kg"))
    add(f"most prolific person's page, cached (kg), {n(many)}", value, f"{fmt(value)} pages/s",
        ">= 1000 pages/s", value >= 1000 if value is not None else None)
    kg = result.get("servers", {}).get("kg")
    if kg is None:
        add("default kg serve ready (first 200 to ASK {})", None, "", "< 2 s", None)
        add("default kg serve RSS over all processes", None, "", "<= 200 MB", None)
    else:
        ready = kg.get("ready_s")
        add("default kg serve ready (first 200 to ASK {})", ready, f"{ready:.2f} s" if ready is not None else "",
            "< 2 s", ready < 2 if ready is not None else None)
        rss = [kg.get(k) for k in ("ready_rss_mb", "idle_rss_mb", "end_rss_mb") if kg.get(k)]
        value = max(rss) if rss else None
        add("default kg serve RSS over all processes (largest of: at ready, after warm-up, after the runs)", value,
            f"{fmt(value)} MB (ready {fmt(kg.get('ready_rss_mb'))}, warm {fmt(kg.get('idle_rss_mb'))}, "
            f"after runs {fmt(kg.get('end_rss_mb'))}; PSS after runs {fmt(kg.get('end_pss_mb'))})",
            "<= 200 MB", value <= 200 if value is not None else None)
    return lines


# ---------------------------------------------------------------------------------------------------------------
# report


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}" if value >= 1 else f"{value:.{max(digits, 2)}f}"


def rps_cell(s: dict[str, Any] | None, few: bool = True) -> str:
    """A throughput table cell: requests/s with capped, few-requests and error marks."""
    if s is None:
        return ""
    if s.get("skipped"):
        return "not run"
    mark = " (capped)" if s["capped"] else ""
    mark += " (few)" if few and not s["capped"] and s.get("min_ok", 99) < 10 else ""
    mark += f" ({s['errors']} err)" if s["errors"] else ""
    return fmt(s["rps"]) + mark


def markdown(result: dict[str, Any]) -> str:
    servers = [s for s in result["servers"]]
    summary = {(s["query"], s["clients"], s["server"]): s for s in result["summary"]}
    ratio = {(r["query"], r["clients"]): r for r in result["ratios"]}
    keys = list(dict.fromkeys((s["query"], s["clients"]) for s in result["summary"]))
    pairs = [(a, b) for a, b in RATIOS if a in servers and b in servers]
    prep = result["data"]
    lines = [f"# HTTP benchmark, {result['triples']:,} triples requested",
             "",
             f"Data: {prep['quads']:,} quads in {prep['graphs']} named graphs; default graph (their merge) "
             f"{prep['default_graph_triples']:,} triples. Machine: {result['machine']['cpus']} CPUs, "
             f"{result['machine']['memory_gb']} GB, {result['machine']['platform']}. "
             f"Each cell: median of {result['settings']['repeats']} runs of {result['settings']['duration']:g} s "
             "(wrk, keep-alive, GET, SPARQL JSON results).",
             "",
             f"Command: `{result['command']}`",
             ""]
    if result.get("done_when"):
        lines += ["## Done when (issue 18)", "",
                  "Computed from the tables below. The issue states the page targets for 1M triples and start-up "
                  "and memory for 100k; they are reported at every size.", "",
                  "| target | measured | threshold | |", "|---|---|---|---|"]
        lines += [f"| {d['target']} | {d['measured']} | {d['threshold']} | {d['status']} |"
                  for d in result["done_when"]]
        lines.append("")
    lines += ["## Throughput (requests/s, 2xx only) and ratios",
             "",
             "| query | clients | " + " | ".join(servers) + " | " + " | ".join(f"{a}/{b}" for a, b in pairs) + " |",
             "|---|---:|" + "---:|" * (len(servers) + len(pairs))]
    for key in keys:
        cells = [rps_cell(summary.get((*key, name))) for name in servers]
        r = ratio.get(key, {})
        rcells = [(f"{r[f'{a}/{b}']:g}" + ("*" if r.get(f"{a}/{b}_capped") else "")) if f"{a}/{b}" in r else "–"
                  for a, b in pairs]
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " | " + " | ".join(rcells) + " |")
    lines += ["", "`*`: the other server's figure is capped (a few sequential requests, see below). "
              "(few): a run completed fewer than 10 requests, so the figure is coarse. "
              "not run: one request x clients exceeds the run time.", "",
              "flask-hello (a fixed answer, no store) is measured with the lookup query only.", "",
              "## Latency p50 / p95 / p99 (ms)", "",
              "| query | clients | " + " | ".join(servers) + " |", "|---|---:|" + "---:|" * len(servers)]
    for key in keys:
        cells = []
        for name in servers:
            s = summary.get((*key, name))
            cells.append("" if s is None or s.get("skipped") else
                         f"{fmt(s['p50_ms'], 2)} / {fmt(s.get('p95_ms'), 2)} / {fmt(s['p99_ms'], 2)}")
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    pages = result.get("pages")
    if pages:
        pservers = list(dict.fromkeys(s["server"] for s in pages["summary"]))
        psummary = {(s["query"], s["clients"], s["server"]): s for s in pages["summary"]}
        sizes = {(c["person"], c["server"]): c["bytes"] for c in pages["checks"]}
        lines += ["", "## Person pages", "",
                  "kg and kg-nocache: GET /page/... with `Accept: text/html` (kg-nocache has the result and page "
                  "caches off); oxigraph-describe: `DESCRIBE <iri>` as N-Triples, a reference (no HTML). "
                  f"Median of {result['settings']['repeats']} runs of {result['settings']['duration']:g} s.", ""]
        for person in pages["people"]:
            lines.append(f"- {person['person']}: <{person['iri']}>, {person['works']} works (of {person['authors']:,}"
                         " authors); body bytes " + ", ".join(f"{n} {sizes.get((person['person'], n), 0):,}"
                                                             for n in pservers))
        lines += ["", "| person | clients | server | req/s | p50 ms | p95 ms | p99 ms |",
                  "|---|---:|---|---:|---:|---:|---:|"]
        for person in pages["people"]:
            for count in result["settings"]["clients"]:
                for name in pservers:
                    s = psummary.get((person["person"], count, name))
                    if s is not None:
                        lines.append(f"| {person['person']} | {count} | {name} | {rps_cell(s)} | "
                                     f"{fmt(s['p50_ms'], 2)} | {fmt(s.get('p95_ms'), 2)} | {fmt(s['p99_ms'], 2)} |")
    lines += ["", "## Start-up and memory (RSS summed over each server's process tree, MB)", "",
              "ready s: process start to the first 200 answer to `ASK {}`; warm-up s: then 8 clients asking `ASK {}` "
              "until every answer is fast (kg starts its query workers lazily). PSS counts a page shared by n "
              "processes 1/n in each.", "",
              "| server | what | ready s | warm-up s | RSS at ready | after warm-up | after runs | PSS after runs | "
              "peak RSS |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, info in result["servers"].items():
        ready = info.get("ready_s")
        warmup = info.get("warmup_s")
        lines.append(f"| {name} | {info['description']} | {'–' if ready is None else f'{ready:.2f}'} | "
                     f"{'–' if warmup is None else f'{warmup:.1f}'} | {fmt(info.get('ready_rss_mb'))} | "
                     f"{fmt(info['idle_rss_mb'])} | {fmt(info.get('end_rss_mb'))} | {fmt(info.get('end_pss_mb'))} | "
                     f"{fmt(info['peak_rss_mb'])} |")
    lines += ["", "## Row counts (verified equal on every server)", "", "| query | rows | what |", "|---|---:|---|"]
    for query in result["queries"]:
        rows = {a.get("rows") for a in result["verification"][query["name"]].values() if "rows" in a}
        lines.append(f"| {query['name']} | {', '.join(str(r) for r in rows)} | {query['comment']} |")
    if result.get("designs"):
        lines += ["", "## kg serving designs (cache off, one run each)", "",
                  f"`wWtTqQ` = `kg serve --workers W --threads T` with `KG_QUERY_WORKERS=Q`; "
                  f"{result['settings']['design_duration']:g} s per cell; requests/s.", ""]
        designs = list(dict.fromkeys(d["design"] for d in result["designs"]))
        dkeys = list(dict.fromkeys((d["query"], d["clients"]) for d in result["designs"] if d["query"] != "_memory"))
        by = {(d["design"], d["query"], d.get("clients")): d for d in result["designs"]}
        lines += ["| query | clients | " + " | ".join(designs) + " |", "|---|---:|" + "---:|" * len(designs)]
        for key in dkeys:
            cells = []
            for d in designs:
                entry = by.get((d, *key))
                failed = entry is not None and (entry.get("non2xx") or entry.get("socket_errors"))
                cells.append("" if entry is None else fmt(entry.get("rps")) + (" (err)" if failed else ""))
            lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
        lines.append("| peak RSS MB | | " + " | ".join(fmt(by.get((d, "_memory", None), {}).get("peak_rss_mb"))
                                                        for d in designs) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, required=True, help="approximate triples to generate (e.g. 100000)")
    parser.add_argument("--work", type=Path, help="folder for data, stores, exports (default /tmp/kg-http-bench/N)")
    parser.add_argument("--fresh", action="store_true", help="regenerate and rebuild even if the work folder has them")
    parser.add_argument("--out", type=Path, default=HERE / "out", help="results folder (default benchmarks/out)")
    parser.add_argument("--queries", type=Path, default=HERE / "queries", help="folder of .rq files")
    parser.add_argument("--only", default="", help="comma-separated query names (file stems) to run")
    parser.add_argument("--servers", default=None,
                        help="servers to run, comma-separated, of kg, kg-nocache, flask-hello, oxigraph, rdflib "
                             "(default: all of them; without rdflib from 1M triples on)")
    parser.add_argument("--clients", default="1,8", help="client counts (default 1,8)")
    parser.add_argument("--duration", type=float, default=10, help="seconds per measured run (default 10)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per cell; medians are reported (default 3)")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of 8-client warm-up per query and server")
    parser.add_argument("--cap", type=float, default=120, help="longest a single request may take, s (default 120)")
    parser.add_argument("--kg-workers", type=int, default=None,
                        help="kg serve --workers for kg, kg-nocache and flask-hello (default: kg serve's)")
    parser.add_argument("--kg-threads", type=int, default=None,
                        help="kg serve --threads for kg, kg-nocache and flask-hello (default: kg serve's)")
    parser.add_argument("--kg-query-workers", type=int, default=None, help="KG_QUERY_WORKERS for kg and kg-nocache")
    parser.add_argument("--designs", default="", help="kg serving designs to compare, e.g. w2t4q2,w2t4q4,w1t8q2")
    parser.add_argument("--design-duration", type=float, default=5, help="seconds per design cell (default 5)")
    parser.add_argument("--design-clients", default="1,8", help="client counts for the designs")
    parser.add_argument("--pages", action=argparse.BooleanOptionalAction, default=True,
                        help="measure person pages (default: on)")
    parser.add_argument("--report-only", action="store_true", help="rewrite http-N.md from an existing http-N.json")
    args = parser.parse_args()
    if args.report_only:
        stem = args.out / f"http-{args.triples}"
        saved = json.loads(stem.with_suffix(".json").read_text())
        for entry in saved["runs"]:  # runs that completed nothing have no latency
            if not entry.get("ok"):
                entry["p50_ms"] = entry["p95_ms"] = entry["p99_ms"] = None
        saved["summary"] = summarise(saved["runs"])
        saved["ratios"] = ratios(saved["summary"])
        saved["done_when"] = done_when(saved)
        stem.with_suffix(".json").write_text(json.dumps(saved, indent=1) + "\n")
        stem.with_suffix(".md").write_text(markdown(saved))
        print(stem.with_suffix(".md").read_text())
        return

    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install -y wrk")
    for tool in ("kg", "oxigraph"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (pip install -e . / pip install oxigraph)")
    work = args.work or Path(f"/tmp/kg-http-bench/{args.triples}")
    args.out.mkdir(parents=True, exist_ok=True)
    clients = [int(c) for c in args.clients.split(",")]
    queries = [Query.load(p) for p in sorted(args.queries.glob("*.rq"))]
    if args.only:
        wanted = set(args.only.split(","))
        queries = [q for q in queries if q.name in wanted]
    if not queries:
        raise SystemExit("no queries")

    data = prepare(work, args.triples, args.fresh)
    store = Path(data["store"])
    log_dir = work / "logs"
    log_dir.mkdir(exist_ok=True)
    defaults = kg_serve_defaults()
    workers = defaults["workers"] if args.kg_workers is None else args.kg_workers
    threads = defaults["threads"] if args.kg_threads is None else args.kg_threads
    kg_kwargs = {"workers": workers, "threads": threads, "query_workers": args.kg_query_workers}
    design = f"kg serve --workers {workers} --threads {threads}" + (
        f", KG_QUERY_WORKERS={args.kg_query_workers}" if args.kg_query_workers is not None else "")
    available = {
        "kg": kg_server("kg", store, cache=True, description=f"{design}, caches on (default)", **kg_kwargs),
        "kg-nocache": kg_server("kg-nocache", store, cache=False,
                                description=f"{design}, KG_CACHE_BYTES=0 KG_PAGE_CACHE_BYTES=0", **kg_kwargs),
        "flask-hello": hello_server(workers, threads),
        "oxigraph": Server("oxigraph", ["oxigraph", "serve-read-only", "--location", data["oxigraph"],
                                        "--bind", "127.0.0.1:{port}"],
                           description="oxigraph serve-read-only (named graphs + merged default graph)"),
        "rdflib": Server("rdflib", [sys.executable, str(HERE / "rdflib_endpoint_app.py"), "--nq", data["nq"],
                                    "--port", "{port}"],
                         description="rdflib-endpoint, Dataset(default_union=True), uvicorn, 1 process"),
    }
    if args.servers is None:
        args.servers = "kg,kg-nocache,flask-hello,oxigraph" + (",rdflib" if args.triples < 1_000_000 else "")
    names = [n for n in args.servers.split(",") if n]
    unknown = set(names) - set(available)
    if unknown:
        raise SystemExit(f"unknown servers: {sorted(unknown)}")
    servers = [available[n] for n in names]
    checked = [s for s in servers if s.name != "flask-hello"]  # its fixed answer is not verified
    reference = "oxigraph" if "oxigraph" in names else (checked[0].name if checked else "")
    hello_query = HELLO_QUERY if any(q.name == HELLO_QUERY for q in queries) else queries[0].name

    MEMORY.start()
    result: dict[str, Any] = {
        "triples": args.triples,
        "command": "python benchmarks/http_bench.py " + shlex.join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "memory_gb": round(os.sysconf("SC_PHYS_PAGES") * PAGE / 2**30, 1),
                    "platform": f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
                    "load_at_start": os.getloadavg()},
        "settings": {"duration": args.duration, "repeats": args.repeats, "clients": clients, "warmup": args.warmup,
                     "cap": args.cap, "design_duration": args.design_duration, "kg_workers": workers,
                     "kg_threads": threads, "flask_hello_query": hello_query},
        "data": data, "queries": [{"name": q.name, "comment": q.comment, "text": q.text} for q in queries],
        "versions": versions(),
    }
    started = time.monotonic()
    try:
        for server in servers:
            server.start(log_dir)
        result["verification"] = verify(checked, queries, args.cap, reference)
        singles = {(q.name, s.name): result["verification"][q.name][s.name].get("seconds", 0)
                   for q in queries for s in checked}
        for server in servers:
            if server.name == "flask-hello":
                query = next(q for q in queries if q.name == hello_query)
                status, _, seconds = http_query(server.url, query.text, timeout=args.cap)
                if status != 200:
                    raise SystemExit(f"flask-hello answered HTTP {status}")
                singles[query.name, server.name] = seconds
        runs: list[dict[str, Any]] = []
        for query in queries:
            measured = [s for s in servers if s.name != "flask-hello" or query.name == hello_query]
            for server in measured:
                warm(server, query, args.warmup, singles[query.name, server.name])
                retime(server, query, singles, args.cap)
            for count in clients:
                for repeat in range(args.repeats):
                    for server in measured:
                        entry = measure(server, query, count, args.duration, args.cap,
                                        singles[query.name, server.name])
                        runs.append({"query": query.name, "clients": count, "server": server.name,
                                     "repeat": repeat, **entry})
                        log(f"{query.name} c={count} #{repeat} {server.name}: {fmt(entry.get('rps'))} req/s "
                            f"p50 {fmt(entry.get('p50_ms'), 2)} ms p99 {fmt(entry.get('p99_ms'), 2)} ms")
        result["runs"] = runs
        page_servers = [s for s in servers if s.name in ("kg", "kg-nocache", "oxigraph")]
        if args.pages and page_servers:
            finder = next((s for s in page_servers if s.name == "oxigraph"), page_servers[0])
            people = find_people(finder, args.cap)
            result["pages"] = measure_pages(page_servers, people, clients, args.duration, args.repeats, args.warmup,
                                            args.cap)
        for server in servers:
            server.record_end()
        result["servers"] = {s.name: {"description": s.description, "command": shlex.join(s.command),
                                      "env": s.env, "ready_s": round(s.ready_seconds, 3),
                                      "warmup_s": round(s.warmup_seconds, 1),
                                      "startup_seconds": round(s.startup_seconds, 1),
                                      "ready_rss_mb": round(s.ready_rss / 2**20, 1),
                                      "idle_rss_mb": round(s.idle_rss / 2**20, 1),
                                      "end_rss_mb": round(s.end_rss / 2**20, 1),
                                      "end_pss_mb": round(s.end_pss / 2**20, 1),
                                      "peak_rss_mb": round(MEMORY.peak.get(s.name, 0) / 2**20, 1)}
                             for s in servers}
    finally:
        for server in servers:
            server.stop()
    if args.designs:
        result["designs"] = run_designs(args.designs.split(","), store, queries,
                                        [int(c) for c in args.design_clients.split(",")], args.design_duration,
                                        args.cap, log_dir,
                                        {q.name: result["verification"][q.name].get("kg-nocache", {}).get("seconds", 0)
                                         for q in queries})
    MEMORY.stopped.set()
    result["summary"] = summarise(result["runs"])
    result["ratios"] = ratios(result["summary"])
    result["done_when"] = done_when(result)
    result["elapsed_s"] = round(time.monotonic() - started, 1)
    stem = args.out / f"http-{args.triples}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(result))
    log(f"wrote {stem}.json and {stem}.md")
    print(stem.with_suffix(".md").read_text())


def versions() -> dict[str, str]:
    found = {}
    for package in ("kg", "pyoxigraph", "oxigraph", "rdflib", "rdflib-endpoint", "uvicorn", "granian", "flask"):
        try:
            from importlib.metadata import version
            found[package] = version(package)
        except Exception:  # noqa: BLE001
            found[package] = "?"
    found["kg_commit"] = subprocess.run(["git", "-C", str(HERE), "describe", "--always", "--dirty"],
                                        capture_output=True, text=True).stdout.strip()
    found["wrk"] = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip()
    return found


if __name__ == "__main__":
    main()
