"""Remote-store benchmark: kg serve in front of the Oxigraph server and Virtuoso, side by side in one run.

    python benchmarks/remote_bench.py --triples 100000 --repeats 2
    python benchmarks/remote_bench.py --data data            # the repository's seed data instead

Steps: generate a synthetic data folder (benchmarks/generate.py; or use --data), build it into a local
embedded store, start the Oxigraph server and Virtuoso (tests/engines.py: own ports on 127.0.0.1, own
files, stopped by PID), ``kg build`` into each of them twice (the first push and an unchanged second
push, timed, with the requests each push sends counted), then start

    kg-embedded           kg serve on the local store, KG_CACHE_BYTES=0
    kg-oxigraph[-cache]   kg serve -> Oxigraph server (KG_STORE_URL=...), cache off / on
    kg-virtuoso[-cache]   kg serve -> Virtuoso, cache off / on
    oxigraph-direct       the Oxigraph server's own /query endpoint
    virtuoso-direct       Virtuoso's own /sparql endpoint
    oxigraph-kgform       (optional) the engine sent exactly the request kg forwards: POST, kg's prologue,
    virtuoso-kgform       default-graph-uri and one named-graph-uri per public graph (wrk with a Lua script)

checks that every server returns the same rows for every query in benchmarks/queries/ (differences are
reported in the output, not hidden), measures each query at each client count with wrk (servers
interleaved, --repeats runs of --duration seconds, medians), stops every server by its process group,
and writes benchmarks/out/remote-<N>.json and remote-<N>.md (N = --triples, or "seed" for --data).

kg sends a query to a remote store with its dataset: default graph ``<base>/kg/merged[/VERSION]`` (the merge of the
public graphs, kg's default graph) and every public graph as a named graph. The engines queried directly
get the same query with that graph as ``FROM <...>`` inserted before WHERE, so they answer over the same
default graph (Oxigraph's own default graph is empty in kg's layout; Virtuoso's is the union of all
graphs, which counts a triple once per graph holding it).

The measurement helpers (Server, kg_server, run_wrk via measure, wait_quiet, summarise, MEMORY) come from
benchmarks/http_bench.py.
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
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import http_bench as hb  # noqa: E402
from http_bench import Query, Server, fmt, log, rps_cell  # noqa: E402

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
ENGINES = ("oxigraph", "virtuoso")


# ---------------------------------------------------------------------------------------------------------------
# servers


@dataclass
class EngineServer(Server):
    """An engine's own query endpoint, already running (started by tests/engines.py): nothing to start or stop."""

    direct_url: str = ""
    pid: int = 0
    started_in: float = 0.0
    kg_form: bool = False  # POST the exact form kg forwards (Query.text holds that urlencoded body)

    @property
    def url(self) -> str:  # type: ignore[override]
        return self.direct_url

    def start(self, log_dir: Path) -> None:
        hb.MEMORY.watch(self.name, self.pid)
        self.startup_seconds = self.started_in
        self.idle_rss = hb.tree_rss(self.pid)
        log(f"{self.name}: {self.direct_url} (engine PID {self.pid}), RSS {self.idle_rss / 2**20:.0f} MB")

    def stop(self) -> None:
        hb.MEMORY.unwatch(self.name)  # the engine itself is stopped by its context manager (by PID)


def oxigraph_without_timeout(work: Path) -> str:
    """A wrapper that runs the oxigraph binary without --timeout-s (exec: same PID, so stopping by PID still works).

    tests/engines.py starts `oxigraph serve --timeout-s 600`. Oxigraph 0.5.13 then keeps one thread per query
    alive for the whole timeout (measured: 300 queries, 307 threads; 7 without the option), so a few thousand
    requests per second exhaust the threads within seconds (about 16,000 here, vm.max_map_count 65530) and it
    answers "OxHTTP thread spawn error: Resource temporarily unavailable". The benchmark runs it without.
    """
    binary = shutil.which("oxigraph")
    wrapper = work / "oxigraph-no-timeout"
    wrapper.write_text("#!/bin/sh\n# oxigraph without --timeout-s (see benchmarks/remote_bench.py)\n"
                       "skip=\nfor a in \"$@\"; do shift\n  if [ -n \"$skip\" ]; then skip=; continue; fi\n"
                       "  if [ \"$a\" = --timeout-s ]; then skip=1; continue; fi\n  set -- \"$@\" \"$a\"\ndone\n"
                       f"exec {shlex.quote(str(binary))} \"$@\"\n")
    wrapper.chmod(0o755)
    return str(wrapper)


def remote_env(engine: Any) -> dict[str, str]:
    """The KG_STORE_* variables that point kg at an engine."""
    env = {"KG_STORE_URL": engine.query_url, "KG_STORE_UPDATE_URL": engine.update_url,
           "KG_STORE_GSP_URL": engine.gsp_url}
    if engine.user:
        env.update(KG_STORE_USER=engine.user, KG_STORE_PASSWORD=engine.password, KG_STORE_AUTH=engine.auth or "basic")
    return env


def kg_remote_server(name: str, engine: Any, local: Path, data: Path, *, cache: bool, workers: int,
                     threads: int) -> Server:
    env = {"KG_STORE": str(local), "KG_DATA": str(data), **remote_env(engine)}
    if not cache:
        env["KG_CACHE_BYTES"] = "0"
    command = [shutil.which("kg") or "kg", "serve", "--store", str(local), "--host", "127.0.0.1", "--port", "{port}",
               "--workers", str(workers), "--threads", str(threads)]
    cached = "result cache on (default)" if cache else "KG_CACHE_BYTES=0"
    return Server(name, command, env, description=f"kg serve --workers {workers} --threads {threads} -> "
                                                   f"{engine.name}, {cached}")


def redacted(env: dict[str, str]) -> dict[str, str]:
    return {k: ("***" if "PASSWORD" in k else v) for k, v in env.items()}


def with_from(query: Query, graph: str) -> Query:
    """The query with FROM <graph> before its (first) WHERE: the dataset kg sends, for an engine queried directly."""
    text, count = re.subn(r"\bWHERE\s*\{", f"FROM <{graph}>\nWHERE {{", query.text, count=1, flags=re.I)
    if count != 1:
        raise SystemExit(f"{query.name}: no WHERE {{ to put FROM <{graph}> before")
    return Query(query.name, text, query.comment)


KG_ACCEPT = "application/sparql-results+json, application/sparql-results+xml;q=0.9"


def kg_forms(engine: Any, queries: list[Query], base: str) -> dict[str, Query]:
    """The exact request body kg sends the engine for each query (its prologue, default and named graphs).

    Captured from kg's own code path (kg.query.results.run_query on a RemoteStore whose client records the
    request instead of sending it); the endpoint URL kg passes as base IRI is replaced by a fixed one.
    """
    from kg.config import Config
    from kg.iris import RemoteNames
    from kg.query.results import run_query
    from kg.store.client import RemoteLocation, SparqlClient
    from kg.store.remote import RemoteStore, read_manifest

    config = Config(store_url=engine.query_url, store_update_url=engine.update_url, store_gsp_url=engine.gsp_url,
                    store_user=engine.user, store_password=engine.password, store_auth=engine.auth or "basic",
                    base=base)
    client = SparqlClient(RemoteLocation.from_config(config))
    names = RemoteNames(base)
    manifest = read_manifest(client, names)
    client.close()

    class Captured(Exception):
        pass

    class Recorder:
        location = None

        def query(self, text: str, *, default_graphs: Any = (), named_graphs: Any = (), timeout: float = 0,
                  accept: str = "") -> Any:
            form = [("query", text)] + [("default-graph-uri", g) for g in default_graphs]
            form += [("named-graph-uri", g) for g in named_graphs]
            raise Captured(urllib.parse.urlencode(form))

    store = RemoteStore(Recorder(), names, manifest)  # type: ignore[arg-type]
    forms = {}
    for query in queries:
        try:
            run_query(store, query.text, base_iri="http://127.0.0.1/sparql")
        except Captured as captured:
            forms[query.name] = Query(query.name, str(captured), query.comment)
    return forms


def post_query(url: str, body: str, timeout: float) -> tuple[int, bytes, float]:
    """POST a urlencoded query form; (status, body, seconds)."""
    request = urllib.request.Request(url, data=body.encode("ascii"), method="POST",
                                     headers={"Accept": KG_ACCEPT,
                                              "Content-Type": "application/x-www-form-urlencoded"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        answer, status = error.read(), error.code
    return status, answer, time.perf_counter() - started


def ask(server: Server, query: Query, timeout: float) -> tuple[int, bytes, float]:
    if isinstance(server, EngineServer) and server.kg_form:
        return post_query(server.url, query.text, timeout)
    return hb.http_query(server.url, query.text, timeout=timeout)


def run_wrk_post(url: str, body: str, clients: int, duration: float, timeout: float, work: Path) -> dict[str, Any]:
    """wrk POSTing one form body (a Lua script sets method, headers and body); the same figures as hb.run_wrk."""
    body_file = work / f"wrk-body-{abs(hash(body))}.txt"
    body_file.write_text(body)
    script = work / f"wrk-post-{abs(hash(body))}.lua"
    script.write_text(f'''wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Accept"] = "{KG_ACCEPT}"
local f = io.open("{body_file}", "rb")
wrk.body = f:read("*a")
f:close()
''')
    command = ["wrk", "-t", str(min(clients, 2)), "-c", str(clients), "-d", f"{duration:g}s", "--timeout",
               f"{timeout:g}s", "--latency", "-s", str(script), url]
    out = subprocess.run(command, capture_output=True, text=True, timeout=duration + timeout + 30).stdout
    return parse_wrk(out)


def parse_wrk(out: str) -> dict[str, Any]:
    """wrk's text output as hb.run_wrk reads it (hb.run_wrk builds its own GET command, so it is not reusable)."""
    done = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)", out)
    if not done:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    requests, seconds = int(done.group(1)), hb.parse_duration_ms(done.group(2) + done.group(3)) / 1e3
    non2xx = int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    socket_errors = 0
    if m := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out):
        socket_errors = sum(int(x) for x in m.groups())
    percentiles = {p: hb.parse_duration_ms(v) for p, v in re.findall(r"^\s+(\d+)%\s+(\S+)\s*$", out, re.M)}
    ok = max(0, requests - non2xx)
    if ok == 0:
        percentiles = {}
    return {"requests": requests, "ok": ok, "non2xx": non2xx, "socket_errors": socket_errors,
            "seconds": seconds, "rps": ok / seconds if seconds else 0.0,
            "p50_ms": percentiles.get("50"), "p99_ms": percentiles.get("99")}


def measure(server: Server, query: Query, clients: int, duration: float, cap: float, single: float,
            work: Path) -> dict[str, Any]:
    """hb.measure, or for a kg-form engine server the same with wrk POSTing kg's request body."""
    if not (isinstance(server, EngineServer) and server.kg_form):
        return hb.measure(server, query, clients, duration, cap, single)
    hb.MEMORY.mark(server.name)
    result = run_wrk_post(server.url, query.text, clients, duration, cap, work)
    if result["non2xx"] or result["socket_errors"]:
        log(f"warning: {server.name} {query.name} c={clients}: {result['non2xx']} non-2xx, "
            f"{result['socket_errors']} socket errors")
    hb.wait_quiet(server, cap)
    result["peak_rss_mb"] = round(hb.MEMORY.window_peak(server.name) / 2**20, 1)
    result["load1"] = round(os.getloadavg()[0], 2)
    return result


# ---------------------------------------------------------------------------------------------------------------
# builds and pushes


def build_local(data: Path, store: Path, work: Path) -> dict[str, Any]:
    """kg build into the embedded store (skipped when it exists)."""
    if (store / "kg-build.json").exists() or store.is_symlink():
        log(f"local store: reusing {store}")
        return {"reused": True}
    started = time.perf_counter()
    with open(work / "build-local.log", "w") as out:
        hb.run(["kg", "build", "--data", str(data), "--store", str(store), "--timings"], stdout=out,
               stderr=subprocess.STDOUT)
    return {"seconds": round(time.perf_counter() - started, 2)}


class RequestCount:
    """Counts the requests kg's remote client sends (by kind) and their body bytes, while installed."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()

    def install(self) -> Any:
        from kg.store.client import SparqlClient

        original = SparqlClient._send
        counter = self

        def counting(client: Any, method: str, url: str, **options: Any) -> Any:
            body = options.get("data")
            if isinstance(body, list):
                size = len(urllib.parse.urlencode(body))
                kind = "update" if body and body[0][0] == "update" else "query"
            else:
                size = len(body or b"")
                kind = f"gsp-{method.lower()}"
            counter.requests[kind] += 1
            counter.bytes[kind] += size
            return original(client, method, url, **options)

        SparqlClient._send = counting  # type: ignore[method-assign]
        return lambda: setattr(SparqlClient, "_send", original)


def push(engine: Any, data: Path, local: Path, label: str) -> dict[str, Any]:
    """One `kg build` into the engine (kg.pipeline.build in this process, to count its requests); timings."""
    from kg.config import Config
    from kg.pipeline import build

    config = Config(data=data, store=local, store_url=engine.query_url, store_update_url=engine.update_url,
                    store_gsp_url=engine.gsp_url, store_user=engine.user, store_password=engine.password,
                    store_auth=engine.auth or "basic")
    counter = RequestCount()
    uninstall = counter.install()
    started = time.perf_counter()
    try:
        result = build(config)
    finally:
        uninstall()
    wall = time.perf_counter() - started
    entry = {"engine": engine.name, "push": label, "build_seconds": round(wall, 2),
             "push_seconds": result.seconds.get("store"), "stages": result.seconds,
             "triples": sum(result.triples.values()), "graphs": len(result.triples),
             "requests": dict(counter.requests), "request_bytes": dict(counter.bytes)}
    log(f"push {engine.name} {label}: build {wall:.1f} s, push (store stage) {entry['push_seconds']} s, "
        f"requests {dict(counter.requests)}, bytes {dict(counter.bytes)}")
    return entry


# ---------------------------------------------------------------------------------------------------------------
# verification


def normalised_rows(body: bytes) -> tuple[list[tuple], list[tuple]]:
    """(rows with term type, datatype and language, xsd:string folded into plain literals; rows of values only)."""
    document = json.loads(body)
    if "boolean" in document:
        row = (("boolean", str(document["boolean"]).lower()),)
        return [row], [row]
    full, values = [], []
    for binding in document["results"]["bindings"]:
        cells, plain = [], []
        for var, term in binding.items():
            kind = "literal" if term.get("type") == "typed-literal" else term.get("type")
            datatype = term.get("datatype")
            if datatype == XSD_STRING:
                datatype = None
            cells.append((var, kind, term["value"], datatype or "", term.get("xml:lang", "").lower()))
            plain.append((var, term["value"]))
        full.append(tuple(sorted(cells)))
        values.append(tuple(sorted(plain)))
    return full, values


def verify(servers: list[Server], queries: dict[str, dict[str, Query]], cap: float, reference: str
           ) -> tuple[dict[str, Any], list[str]]:
    """Every server's rows for every query against the reference's; the differences are returned, not raised."""
    report: dict[str, Any] = {}
    problems: list[str] = []
    for name, per_server in queries.items():
        answers: dict[str, Any] = {}
        for server in servers:
            query = per_server[server.name]
            try:
                status, body, seconds = ask(server, query, cap)
            except OSError as error:
                answers[server.name] = {"error": f"no answer within {cap:g} s ({error})", "seconds": cap}
                problems.append(f"{name}: {server.name} gave no answer within {cap:g} s")
                continue
            if status != 200:
                answers[server.name] = {"error": f"HTTP {status}: {body[:300]!r}", "seconds": seconds}
                problems.append(f"{name}: {server.name} answered HTTP {status}: {body[:300]!r}")
                continue
            full, values = normalised_rows(body)
            answers[server.name] = {"rows": len(full), "seconds": round(seconds, 4), "_full": Counter(full),
                                    "_values": Counter(values)}
        base = answers.get(reference, {})
        for server_name, answer in answers.items():
            if server_name == reference or "rows" not in answer or "rows" not in base:
                continue
            if answer["_full"] == base["_full"]:
                answer["same"] = True
                continue
            answer["same"] = False
            if answer["_values"] == base["_values"]:
                extra = list((answer["_full"] - base["_full"]).elements())[:2]
                missing = list((base["_full"] - answer["_full"]).elements())[:2]
                problems.append(f"{name}: {server_name} returns the same values as {reference} but other term types "
                                f"or datatypes, e.g. {extra} instead of {missing}")
            elif answer["rows"] != base["rows"]:
                problems.append(f"{name}: {server_name} returned {answer['rows']} rows, {reference} {base['rows']}")
            else:
                diff = list((answer["_values"] - base["_values"]).elements())[:3]
                problems.append(f"{name}: {server_name} rows differ from {reference}'s, e.g. {diff}")
        report[name] = {n: {k: v for k, v in a.items() if not k.startswith("_")} for n, a in answers.items()}
        log(f"verify {name}: " + ", ".join(
            f"{n} {a.get('rows', a.get('error'))} rows {a.get('seconds', 0) * 1e3:.1f} ms"
            + ("" if a.get("same", True) else " DIFFERENT") for n, a in answers.items()))
    for problem in problems:
        log("MISMATCH " + problem)
    return report, problems


# ---------------------------------------------------------------------------------------------------------------
# report


RATIOS = [("kg-oxigraph", "oxigraph-direct"), ("kg-oxigraph-cache", "oxigraph-direct"),
          ("kg-virtuoso", "virtuoso-direct"), ("kg-virtuoso-cache", "virtuoso-direct"),
          ("kg-embedded", "oxigraph-direct"), ("oxigraph-kgform", "oxigraph-direct"),
          ("virtuoso-kgform", "virtuoso-direct"), ("kg-oxigraph", "oxigraph-kgform"),
          ("kg-virtuoso", "virtuoso-kgform")]


def ratios(summary: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by = {(s["query"], s["clients"], s["server"]): s for s in summary}
    out = []
    for query, clients in dict.fromkeys((s["query"], s["clients"]) for s in summary):
        row: dict[str, Any] = {"query": query, "clients": clients}
        for a, b in RATIOS:
            sa, sb = by.get((query, clients, a)), by.get((query, clients, b))
            if sa and sb and sa["rps"] and sb["rps"]:
                row[f"{a}/{b}"] = round(sa["rps"] / sb["rps"], 2)
        out.append(row)
    return out


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v]
    return round(statistics.geometric_mean(values), 2) if values else None


def markdown(result: dict[str, Any]) -> str:
    servers = list(result["servers"])
    summary = {(s["query"], s["clients"], s["server"]): s for s in result["summary"]}
    ratio = {(r["query"], r["clients"]): r for r in result["ratios"]}
    keys = list(dict.fromkeys((s["query"], s["clients"]) for s in result["summary"]))
    present = [(a, b) for a, b in RATIOS if a in servers and b in servers]
    machine = result["machine"]
    settings = result["settings"]
    lines = [f"# Remote-store benchmark, {result['label']}",
             "",
             f"Data: {result['data']['triples']:,} triples in {result['data']['graphs']} named graphs "
             f"({result['data']['folder']}). Machine: {machine['cpus']} CPUs (shared with other work; load average "
             f"{machine['load_at_start'][0]:.2f} at the start), {machine['memory_gb']} GB, {machine['platform']}. "
             f"Each cell: median of {settings['repeats']} runs of {settings['duration']:g} s (wrk, keep-alive, GET, "
             "SPARQL JSON results), servers interleaved.",
             "",
             f"Command: `{result['command']}` ({result['elapsed_s'] / 60:.0f} min)",
             "",
             "## Pushes (`kg build` into the engine)",
             "",
             "| engine | push | build s | push s (store stage) | requests sent | bytes sent |",
             "|---|---|---:|---:|---|---:|"]
    for p in result["pushes"]:
        kinds: Counter[str] = Counter()
        for kind, count in p["requests"].items():
            kinds[kind.split("-")[0].replace("gsp", "GSP")] += count  # update-insert-data (older runs): update
        requests = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        lines.append(f"| {p['engine']} | {p['push']} | {p['build_seconds']:.1f} | {p['push_seconds']:.2f} | "
                     f"{requests} | {sum(p['request_bytes'].values()):,} |")
    lines += ["", "## Throughput (requests/s, 2xx only)", "",
              "| query | clients | " + " | ".join(servers) + " |", "|---|---:|" + "---:|" * len(servers)]
    for key in keys:
        cells = [rps_cell(summary.get((*key, name)), few=False) for name in servers]
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    lines += ["", "## Ratios: kg in front / the engine queried directly", "",
              "| query | clients | " + " | ".join(f"{a} / {b}" for a, b in present) + " |",
              "|---|---:|" + "---:|" * len(present)]
    for key in keys:
        r = ratio.get(key, {})
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(
            f"{r[f'{a}/{b}']:g}" if f"{a}/{b}" in r else "–" for a, b in present) + " |")
    for clients in settings["clients"]:
        means = [geomean([r.get(f"{a}/{b}") for r in result["ratios"] if r["clients"] == clients]) for a, b in present]
        lines.append(f"| geometric mean | {clients} | " + " | ".join(fmt(m, 2) if m else "–" for m in means) + " |")
    lines += ["", "## Latency p50 / p99 (ms)", "",
              "| query | clients | " + " | ".join(servers) + " |", "|---|---:|" + "---:|" * len(servers)]
    for key in keys:
        cells = []
        for name in servers:
            s = summary.get((*key, name))
            cells.append("" if s is None or s.get("skipped") else f"{fmt(s['p50_ms'], 2)} / {fmt(s['p99_ms'], 2)}")
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    lines += ["", "## Servers (RSS summed over each process tree, MB)", "",
              "| server | what | RSS after start | peak RSS |", "|---|---|---:|---:|"]
    for name, info in result["servers"].items():
        lines.append(f"| {name} | {info['description']} | {fmt(info['idle_rss_mb'])} | {fmt(info['peak_rss_mb'])} |")
    lines += ["", f"## Answers (reference: {result['reference']})", "",
              "| query | " + " | ".join(servers) + " | what |", "|---|" + "---:|" * len(servers) + "---|"]
    for query in result["queries"]:
        answers = result["verification"][query["name"]]
        cells = []
        for name in servers:
            a = answers.get(name, {})
            cells.append(str(a["rows"]) + ("" if a.get("same", True) else " (differs)") if "rows" in a else "error")
        lines.append(f"| {query['name']} | " + " | ".join(cells) + f" | {query['comment']} |")
    if result["problems"]:
        lines += ["", "Differences and errors:", ""] + [f"- {p}" for p in result["problems"]]
    else:
        lines += ["", "Every server returned the same rows (values, term types, datatypes and languages; xsd:string "
                      "folded into plain literals) for every query."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, default=100_000, help="approximate triples to generate (default 100000)")
    parser.add_argument("--data", type=Path, help="use this data folder (e.g. data, the seed) instead of generating")
    parser.add_argument("--work", type=Path, help="work folder (default /tmp/kg-remote-bench/N)")
    parser.add_argument("--out", type=Path, default=HERE / "out", help="results folder (default benchmarks/out)")
    parser.add_argument("--queries", type=Path, default=HERE / "queries", help="folder of .rq files")
    parser.add_argument("--only", default="", help="comma-separated query names (file stems) to run")
    parser.add_argument("--servers", default="kg-embedded,kg-oxigraph,kg-oxigraph-cache,oxigraph-direct,"
                                              "kg-virtuoso,kg-virtuoso-cache,virtuoso-direct",
                        help="servers to measure, comma-separated")
    parser.add_argument("--clients", default="1,8", help="client counts (default 1,8)")
    parser.add_argument("--duration", type=float, default=10, help="seconds per measured run (default 10)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per cell; medians are reported (default 3)")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of 8-client warm-up per query and server")
    parser.add_argument("--cap", type=float, default=60, help="longest a single request may take, s (default 60)")
    parser.add_argument("--kg-workers", type=int, default=2, help="kg serve --workers (default 2)")
    parser.add_argument("--kg-threads", type=int, default=4, help="kg serve --threads (default 4)")
    parser.add_argument("--report-only", action="store_true", help="rewrite remote-N.md from remote-N.json")
    args = parser.parse_args()
    # SIGTERM (kill -- -PGID) unwinds like Ctrl-C, so the servers and engines are stopped by their PIDs
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    label = "seed" if args.data else str(args.triples)
    stem = args.out / f"remote-{label}"
    if args.report_only:
        saved = json.loads(stem.with_suffix(".json").read_text())
        saved["summary"] = hb.summarise(saved["runs"])
        saved["ratios"] = ratios(saved["summary"])
        stem.with_suffix(".md").write_text(markdown(saved))
        print(stem.with_suffix(".md").read_text())
        return

    for tool in ("wrk", "kg", "oxigraph", "virtuoso-t"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (wrk, virtuoso-opensource: apt-get; oxigraph: pip; kg: pip)")
    from tests import engines  # tests/engines.py: starts and stops the engines by PID

    work = (args.work or Path(f"/tmp/kg-remote-bench/{label}")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    clients = [int(c) for c in args.clients.split(",")]
    base_queries = [Query.load(p) for p in sorted(args.queries.glob("*.rq"))]
    if args.only:
        wanted = set(args.only.split(","))
        base_queries = [q for q in base_queries if q.name in wanted]
    names = [n for n in args.servers.split(",") if n]
    if not base_queries or not names:
        raise SystemExit("no queries or no servers")
    estimate = len(base_queries) * len(clients) * args.repeats * len(names) * args.duration / 60
    log(f"measuring {len(names)} servers x {len(base_queries)} queries x {len(clients)} client counts x "
        f"{args.repeats} repeats x {args.duration:g} s: about {estimate:.0f} min of wrk")

    started = time.monotonic()
    if args.data:
        data = args.data.resolve()
    else:
        data = work / "data"
        if not (data / "profiles").is_dir():
            hb.run([sys.executable, str(HERE / "generate.py"), "--triples", str(args.triples), "--out", str(data)])
    store = work / "store"
    local_build = build_local(data, store, work)
    meta = json.loads((store / "kg-build.json").read_text())
    log_dir = work / "logs"
    log_dir.mkdir(exist_ok=True)
    result: dict[str, Any] = {
        "label": f"{args.triples:,} triples requested" if not args.data else f"data folder {args.data}",
        "command": "python benchmarks/remote_bench.py " + shlex.join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "memory_gb": round(os.sysconf("SC_PHYS_PAGES") * hb.PAGE / 2**30, 1),
                    "platform": f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
                    "load_at_start": os.getloadavg()},
        "settings": {"duration": args.duration, "repeats": args.repeats, "clients": clients, "warmup": args.warmup,
                     "cap": args.cap, "kg_workers": args.kg_workers, "kg_threads": args.kg_threads},
        "data": {"folder": str(data), "triples": sum(meta.get("triples", {}).values()),
                 "graphs": len(meta.get("triples", {})), "local_build": local_build},
        "versions": versions(),
    }
    engines.oxigraph_binary = lambda: oxigraph_without_timeout(work)  # see oxigraph_without_timeout
    hb.MEMORY.start()
    servers: list[Server] = []
    with ExitStack() as stack:
        running: dict[str, tuple[Any, int]] = {}
        for engine_name in ENGINES:
            folder = work / engine_name
            if folder.exists():
                shutil.rmtree(folder)  # a fresh engine every run: the first push is a first push
            manager = engines.oxigraph(folder) if engine_name == "oxigraph" else engines.virtuoso(folder)
            running[engine_name] = stack.enter_context(manager)
            log(f"{engine_name} started: {running[engine_name][0].query_url} (PID {running[engine_name][1]})")
        pushes = []
        for engine_name, (engine, _) in running.items():
            local = work / f"store-{engine_name}"
            if local.exists():
                shutil.rmtree(local)
            for label_push in ("first", "second, unchanged"):
                pushes.append(push(engine, data, local, label_push))
        result["pushes"] = pushes
        result["engines"] = {n: {"query_url": e.query_url, "pid": pid, "startup_seconds": round(e.startup_seconds, 1)}
                             for n, (e, pid) in running.items()}
        # kg's exact request per engine and query; the default graph it names (the build's merge) is the one the
        # engines queried directly get as FROM (its IRI depends on the kg version: <base>/kg/merged[/VERSION])
        forms = {n: kg_forms(running[n][0], base_queries, meta.get("base") or "https://kg.example.org/")
                 for n in running}
        merged_of = {n: urllib.parse.parse_qs(next(iter(f.values())).text)["default-graph-uri"][0]
                     for n, f in forms.items()}
        log(f"default graph kg sends: {merged_of}")
        available: dict[str, Server] = {}
        w, t = args.kg_workers, args.kg_threads
        available["kg-embedded"] = hb.kg_server("kg-embedded", store, workers=w, threads=t, cache=False,
                                                description=f"kg serve --workers {w} --threads {t}, embedded store, "
                                                            "KG_CACHE_BYTES=0")
        for engine_name, (engine, pid) in running.items():
            local = work / f"store-{engine_name}"
            available[f"kg-{engine_name}"] = kg_remote_server(f"kg-{engine_name}", engine, local, data, cache=False,
                                                              workers=w, threads=t)
            available[f"kg-{engine_name}-cache"] = kg_remote_server(f"kg-{engine_name}-cache", engine, local, data,
                                                                    cache=True, workers=w, threads=t)
            available[f"{engine_name}-direct"] = EngineServer(
                f"{engine_name}-direct", [], description=f"{engine_name} queried directly ({engine.query_url}), "
                                                         f"FROM <{merged_of[engine_name]}>",
                direct_url=engine.query_url, pid=pid, started_in=engine.startup_seconds)
            available[f"{engine_name}-kgform"] = EngineServer(
                f"{engine_name}-kgform", [],
                description=f"{engine_name} queried directly with the exact request kg forwards (POST; prologue, "
                            "default-graph-uri, named-graph-uri)",
                direct_url=engine.query_url, pid=pid, started_in=engine.startup_seconds, kg_form=True)
        unknown = set(names) - set(available)
        if unknown:
            raise SystemExit(f"unknown servers: {sorted(unknown)}")
        servers = [available[n] for n in names]

        def query_for(q: Query, s: Server) -> Query:
            if isinstance(s, EngineServer):
                engine_name = s.name.split("-")[0]
                return forms[engine_name][q.name] if s.kg_form else with_from(q, merged_of[engine_name])
            return q

        queries = {q.name: {s.name: query_for(q, s) for s in servers} for q in base_queries}
        reference = "kg-embedded" if "kg-embedded" in names else names[0]
        try:
            for server in servers:
                server.start(log_dir)
            result["verification"], result["problems"] = verify(servers, queries, args.cap, reference)
            result["reference"] = reference
            singles = {(q, s.name): result["verification"][q][s.name].get("seconds", args.cap)
                       for q in queries for s in servers}
            runs: list[dict[str, Any]] = []
            for query in base_queries:
                for server in servers:
                    mine = queries[query.name][server.name]
                    if not (isinstance(server, EngineServer) and server.kg_form):  # warm-up: GET only
                        hb.warm(server, mine, args.warmup, singles[query.name, server.name])
                        hb.retime(server, mine, singles, args.cap, key=(query.name, server.name))
                for count in clients:
                    for repeat in range(args.repeats):
                        for server in servers:
                            entry = measure(server, queries[query.name][server.name], count, args.duration,
                                            args.cap, singles[query.name, server.name], log_dir)
                            runs.append({"query": query.name, "clients": count, "server": server.name,
                                         "repeat": repeat, **entry})
                            log(f"{query.name} c={count} #{repeat} {server.name}: {fmt(entry.get('rps'))} req/s "
                                f"p50 {fmt(entry.get('p50_ms'), 2)} ms p99 {fmt(entry.get('p99_ms'), 2)} ms")
            result["runs"] = runs
            result["engine_threads_at_end"] = {n: len(os.listdir(f"/proc/{pid}/task"))
                                               for n, (_, pid) in running.items()}
            log(f"engine threads at the end: {result['engine_threads_at_end']}")
            result["servers"] = {s.name: {"description": s.description, "command": shlex.join(s.command),
                                          "env": redacted(s.env), "startup_seconds": round(s.startup_seconds, 1),
                                          "idle_rss_mb": round(s.idle_rss / 2**20, 1),
                                          "peak_rss_mb": round(hb.MEMORY.peak.get(s.name, 0) / 2**20, 1)}
                                 for s in servers}
        finally:
            for server in servers:
                server.stop()
    hb.MEMORY.stopped.set()
    result["queries"] = [{"name": q.name, "comment": q.comment, "text": q.text,
                          "direct_text": {n: with_from(q, m).text for n, m in merged_of.items()},
                          "kg_form": {n: forms[n][q.name].text for n in forms}} for q in base_queries]
    result["summary"] = hb.summarise(result["runs"])
    result["ratios"] = ratios(result["summary"])
    result["elapsed_s"] = round(time.monotonic() - started, 1)
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(result))
    log(f"wrote {stem}.json and {stem}.md")
    print(stem.with_suffix(".md").read_text())


def versions() -> dict[str, str]:
    found = hb.versions()
    for package in ("requests",):
        try:
            from importlib.metadata import version
            found[package] = version(package)
        except Exception:  # noqa: BLE001
            found[package] = "?"
    found["oxigraph_server"] = subprocess.run(["oxigraph", "--version"], capture_output=True,
                                              text=True).stdout.strip()
    found["virtuoso"] = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "virtuoso-opensource-7"],
                                       capture_output=True, text=True).stdout.strip()
    return found


if __name__ == "__main__":
    main()
