"""What the engine costs before kg adds anything: the floors under issue 18's missed targets.

Three measurements over one built store, side by side in one run:

1. Each benchmark query (benchmarks/queries) answered by ``oxigraph serve-read-only`` over HTTP and by pyoxigraph in
   this process, on the same store version, alternated, medians: the gap is the engine build's, not kg's.
2. Term decoding: N rows of two IRIs (``?w schema:author ?a``) counted in the engine, iterated without touching a
   term, and iterated reading both: pyoxigraph decodes every term of a solution as it yields it.
3. The most prolific person's page: the store queries its prefetch makes (kg.server.pages.prefetch), each run to count
   its rows and run to iterate them, so the reads alone can be compared with the page's 10 ms target.

    PYTHONPATH=src python benchmarks/engine_floor.py --store /tmp/kg-http-bench/1000000/data/store

Results go to benchmarks/out/engine-floor-<size>.md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from bench_servers import free_port
from page_bench import commit, pages_to_render

from kg.config import Config
from kg.server import create_app
from kg.store import Store

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
ROWS = """PREFIX schema: <http://schema.org/>
SELECT ?w ?a WHERE {{ ?w schema:author ?a }} LIMIT {n}"""
COUNTED = """PREFIX schema: <http://schema.org/>
SELECT (COUNT(*) AS ?n) WHERE {{ {{ SELECT ?w ?a WHERE {{ ?w schema:author ?a }} LIMIT {n} }} }}"""
PREFETCH_HEAD = "SELECT ?k ?s ?j ?p ?i ?o WHERE"


def median_ms(samples: list[float]) -> float:
    """The median of timings in milliseconds."""
    return round(statistics.median(samples) * 1000, 3)


def engines(version: Path, repeats: int) -> list[dict[str, Any]]:
    """Every benchmark query through the oxigraph server and through pyoxigraph, alternated."""
    port = free_port()
    server = subprocess.Popen(["oxigraph", "serve-read-only", "--location", str(version), "--bind",
                               f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    store = ox.Store.read_only(str(version))
    results = []
    try:
        url = f"http://127.0.0.1:{port}/query"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}?query=ASK%7B%7D", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        for path in sorted((HERE / "queries").glob("*.rq")):
            query = path.read_text(encoding="utf-8")
            request = urllib.request.Request(f"{url}?{urllib.parse.urlencode({'query': query})}",
                                             headers={"Accept": "application/sparql-results+json"})
            served, embedded = [], []
            for _ in range(repeats):
                start = time.perf_counter()
                urllib.request.urlopen(request, timeout=600).read()
                served.append(time.perf_counter() - start)
                start = time.perf_counter()
                rows = sum(1 for _ in store.query(query))
                embedded.append(time.perf_counter() - start)
            ratio = statistics.median(embedded) / statistics.median(served)
            results.append({"query": path.stem, "rows": rows, "server_ms": median_ms(served),
                            "pyoxigraph_ms": median_ms(embedded), "pyoxigraph_over_server": round(ratio, 3)})
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    return results


def decoding(version: Path, rows: int, repeats: int) -> dict[str, Any]:
    """Counting N two-IRI rows in the engine against iterating them, with and without reading the terms."""
    store = ox.Store.read_only(str(version))
    query, counted = ROWS.format(n=rows), COUNTED.format(n=rows)
    timings: dict[str, list[float]] = {"count": [], "iterate": [], "read": []}
    found = 0
    for _ in range(repeats):
        start = time.perf_counter()
        found = int(next(iter(store.query(counted)))[0].value)
        timings["count"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in store.query(query):
            pass
        timings["iterate"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for row in store.query(query):
            row[0].value, row[1].value  # noqa: B018 - reading is what is measured
        timings["read"].append(time.perf_counter() - start)
    result: dict[str, Any] = {"rows": found, **{f"{k}_ms": median_ms(v) for k, v in timings.items()}}
    result["us_per_row_beyond_count"] = round((statistics.median(timings["iterate"]) - statistics.median(
        timings["count"])) / max(found, 1) * 1e6, 2)
    return result


def page_reads(store_dir: Path, repeats: int) -> dict[str, Any]:
    """The prolific person's page: its prefetch queries' rows, time to count them and time to iterate them."""
    store = Store.open(store_dir)
    path = next(iter(pages_to_render(store).values()))
    app = create_app(Config(data=store_dir.parent, store=store_dir, query_workers=0, page_cache_bytes=0), store)
    seen: list[str] = []
    real = store.query

    def recording(text: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(text)
        return real(text, *args, **kwargs)

    store.query = recording  # type: ignore[method-assign]
    app.test_client().get(f"/page/{path}")
    store.query = real  # type: ignore[method-assign]
    queries = []
    for text in (q for q in seen if q.startswith(PREFETCH_HEAD)):
        counted = "SELECT (COUNT(*) AS ?n) WHERE" + text[len(PREFETCH_HEAD):]
        counts, reads = [], []
        rows = 0
        for _ in range(repeats):
            start = time.perf_counter()
            rows = int(next(iter(real(counted)))[0].value)
            counts.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in real(text):
                pass
            reads.append(time.perf_counter() - start)
        queries.append({"rows": rows, "count_ms": median_ms(counts), "iterate_ms": median_ms(reads)})
    return {"page": f"/page/{path}", "queries": queries, "rows": sum(q["rows"] for q in queries),
            "count_ms": round(sum(q["count_ms"] for q in queries), 3),
            "iterate_ms": round(sum(q["iterate_ms"] for q in queries), 3)}


def report(size: str, found: dict[str, Any]) -> str:
    """The measurements as Markdown."""
    lines = [f"# Engine floors at {size} (issue 18)", "", f"Store {found['store']}, code at {found['commit'] or '?'}; "
             f"medians of {found['repeats']} alternated runs.", "",
             "## The same query, the same store: oxigraph server over HTTP vs pyoxigraph in process", "",
             "| query | rows | oxigraph server ms | pyoxigraph ms | pyoxigraph / server |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {r['query']} | {r['rows']} | {r['server_ms']} | {r['pyoxigraph_ms']} | "
              f"{r['pyoxigraph_over_server']} |" for r in found["engines"]]
    d = found["decoding"]
    lines += ["", "## Decoding terms", "", "| rows of two IRIs | count in the engine ms | iterate ms | "
              "iterate and read ms | µs per row beyond the count |", "|---:|---:|---:|---:|---:|",
              f"| {d['rows']} | {d['count_ms']} | {d['iterate_ms']} | {d['read_ms']} | "
              f"{d['us_per_row_beyond_count']} |"]
    p = found["page"]
    lines += ["", f"## The most prolific person's page ({p['page']}): its prefetch queries", "",
              "| query | rows | count ms | iterate ms |", "|---:|---:|---:|---:|"]
    lines += [f"| {i} | {q['rows']} | {q['count_ms']} | {q['iterate_ms']} |" for i, q in enumerate(p["queries"], 1)]
    lines.append(f"| all | {p['rows']} | {p['count_ms']} | {p['iterate_ms']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Parse arguments, measure, write benchmarks/out/engine-floor-<size>.md and .json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a built store (read-only)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rows", type=int, default=20000, help="rows for the decoding measurement")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    digits = re.findall(r"\d{3,}", str(args.store))
    size = digits[-1] if digits else "store"
    version = args.store.resolve()
    found = {"store": str(args.store), "size": size, "commit": commit(), "repeats": args.repeats,
             "engines": engines(version, args.repeats), "decoding": decoding(version, args.rows, args.repeats),
             "page": page_reads(args.store, args.repeats)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"engine-floor-{size}.json").write_text(json.dumps(found, indent=2) + "\n")
    text = report(size, found)
    (args.out / f"engine-floor-{size}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
