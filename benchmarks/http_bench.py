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

Bounded: wrk runs for --duration seconds with a --cap second request timeout; a slow query's runs are
stretched (the same for every server, at most --longest seconds) so the fastest server that computes each
answer (not kg with its caches on) completes about --min-requests requests; a server whose single request
still takes more than a third of the run is measured with at most a few sequential requests (reported as
capped) instead. All traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import math
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_load import HERE, JSON_RESULTS, fetch, http_query, parse_duration_ms, run_capped, run_wrk, run_wrk_url  # noqa: F401 - remote_bench uses them through this module
from bench_report import HELLO_QUERY, RATIOS, done_when, fmt, markdown, rps_cell  # noqa: F401
from bench_servers import (  # noqa: F401
    MEMORY,
    PAGE,
    Server,
    free_port,
    hello_server,
    kg_serve_defaults,
    kg_server,
    log,
    run,
    tree_pss,
    tree_rss,
    wait_quiet,
)

HTML = "text/html"
NTRIPLES = "application/n-triples"


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


def cell_duration(duration: float, longest: float, requests: int, fastest: float, clients: int) -> float:
    """Seconds for one (query, clients) cell, the same for every server: --duration, stretched (up to --longest)
    so that the fastest server completes about --min-requests requests when one takes `fastest` seconds.

    >>> cell_duration(6, 20, 20, 0.01, 8), cell_duration(6, 20, 20, 0.79, 1), cell_duration(6, 20, 20, 0.79, 8)
    (6.0, 16.0, 8.0)
    """
    parallel = min(clients, os.cpu_count() or 1)
    return float(math.ceil(min(max(duration, requests * fastest / parallel), max(duration, longest))))  # wrk: whole s


def measure_gzip(server: Server, queries: list[Query], clients: list[int], args: argparse.Namespace,
                 singles: dict[Any, float]) -> list[dict[str, Any]]:
    """The cached server's runs again with Accept-Encoding: gzip (answers kept compressed): req/s, bytes each."""
    runs = []
    for query in queries:
        for count in clients:
            if singles.get((query.name, server.name), 0) * count > args.duration:
                continue
            for repeat in range(args.repeats):
                entry = run_wrk(server.url, query.text, count, args.duration, args.cap, ("Accept-Encoding: gzip",))
                wait_quiet(server, args.cap)
                entry["bytes_each"] = round(entry["bytes"] / entry["requests"]) if entry["requests"] else None
                runs.append({"query": query.name, "clients": count, "server": "kg-gzip", "repeat": repeat, **entry})
                log(f"{query.name} c={count} #{repeat} kg-gzip: {fmt(entry.get('rps'))} req/s")
    return runs


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



def stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so that the servers started so far are stopped (finally) and not orphaned."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def main() -> None:
    stop_on_sigterm()
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
    parser.add_argument("--gzip", action=argparse.BooleanOptionalAction, default=True,
                        help="also run kg (cached) with Accept-Encoding: gzip (default on)")
    parser.add_argument("--min-requests", type=int, default=20,
                        help="stretch a slow query's runs so the fastest server completes about this many requests "
                             "(default 20)")
    parser.add_argument("--longest", type=float, default=20,
                        help="the longest a stretched run may be, in seconds (default 20)")
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
        "settings": {"duration": args.duration, "min_requests": args.min_requests, "longest": args.longest,
                     "repeats": args.repeats, "clients": clients, "warmup": args.warmup,
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
            computing = [s for s in measured if s.name != "kg"] or measured  # kg answers repeats from its caches
            fastest = min(singles[query.name, server.name] for server in computing)
            for count in clients:
                seconds = cell_duration(args.duration, args.longest, args.min_requests, fastest, count)
                for repeat in range(args.repeats):
                    for server in measured:
                        entry = measure(server, query, count, seconds, args.cap, singles[query.name, server.name])
                        runs.append({"query": query.name, "clients": count, "server": server.name,
                                     "repeat": repeat, "cell_seconds": seconds, **entry})
                        log(f"{query.name} c={count} #{repeat} {server.name}: {fmt(entry.get('rps'))} req/s "
                            f"p50 {fmt(entry.get('p50_ms'), 2)} ms p99 {fmt(entry.get('p99_ms'), 2)} ms")
        result["runs"] = runs
        cached = next((s for s in servers if s.name == "kg"), None)
        if cached is not None and args.gzip:
            result["gzip_runs"] = measure_gzip(cached, queries, clients, args, singles)
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
