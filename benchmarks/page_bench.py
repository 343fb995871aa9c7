"""Uncached HTML page renders in process: the most prolific person's page, the median person's, and a publication.

Each page is rendered N times through the Flask test client with the page cache off (page_cache_bytes=0) over a
built store; the report gives p50/p95/p99 milliseconds and the store calls one render makes (query,
quads_for_pattern and graph_names, counted by wrapping the store's methods), and is written to
benchmarks/out/pages-<size>.md and .json.

    PYTHONPATH=src python benchmarks/page_bench.py --store /tmp/kg-http-bench/100000/data/store --runs 50
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from kg.config import Config
from kg.server import create_app
from kg.store import Store

OUT = Path(__file__).resolve().parent / "out"
BASE = "https://kg.example.org/id/"
PEOPLE = """PREFIX schema: <http://schema.org/>
SELECT ?p (COUNT(DISTINCT ?w) AS ?n) WHERE { ?p a schema:Person . OPTIONAL { ?w schema:author ?p } }
GROUP BY ?p ORDER BY DESC(?n) ?p"""
WORKS = """PREFIX schema: <http://schema.org/>
SELECT ?w (COUNT(DISTINCT ?a) AS ?n) WHERE {{ ?w schema:author <{person}> . ?w schema:author ?a }}
GROUP BY ?w ORDER BY DESC(?n) ?w LIMIT 1"""


def count_calls(store: Store) -> dict[str, int]:
    """Wrap the store's query methods so that every call is counted."""
    calls = {"n": 0}
    for name in ("query", "quads_for_pattern", "graph_names"):
        real = getattr(store, name)

        def counted(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            calls["n"] += 1
            return _real(*args, **kwargs)

        setattr(store, name, counted)
    return calls


def pages_to_render(store: Store) -> dict[str, str]:
    """The most prolific person (most works naming them schema:author), the median person, and the publication
    of the most prolific person with most authors."""
    people = [(row[0].value, int(row[1].value)) for row in store.query(PEOPLE) if row[0].value.startswith(BASE)]
    top, median = people[0], people[len(people) // 2]
    work = next(iter(store.query(WORKS.format(person=top[0]))))[0].value
    return {f"most prolific person ({top[1]} works)": top[0][len(BASE):],
            f"median person ({median[1]} works)": median[0][len(BASE):], "publication (most authors)": work[len(BASE):]}


def percentile(values: list[float], share: float) -> float:
    """The value below which the given share of the sorted values lies (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def bench(store_dir: Path, runs: int) -> list[dict[str, Any]]:
    """Render each page runs times (after one warm-up) and measure it."""
    store = Store.open(store_dir)
    pages = pages_to_render(store)
    calls = count_calls(store)
    app = create_app(Config(data=store_dir.parent, store=store_dir, query_workers=0, page_cache_bytes=0), store)
    client = app.test_client()
    results = []
    for name, path in pages.items():
        url = f"/page/{path}"
        size = len(client.get(url).get_data())
        before = calls["n"]
        client.get(url)
        made = calls["n"] - before
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (url, response.status_code)
        results.append({"page": name, "path": url, "bytes": size, "store_calls": made, "runs": runs,
                        "p50_ms": round(statistics.median(times), 2), "p95_ms": round(percentile(times, 0.95), 2),
                        "p99_ms": round(percentile(times, 0.99), 2)})
    return results


def commit() -> str:
    """The checked-out commit of the code under test (its src/ on the import path), or ''."""
    import kg

    try:
        found = subprocess.run(["git", "-C", str(Path(kg.__file__).parent), "rev-parse", "--short", "HEAD"],
                               capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return found.stdout.strip()


def report(results: list[dict[str, Any]], store_dir: Path, size: str, label: str) -> str:
    """The results as a Markdown table."""
    lines = [f"# Uncached page renders at {size} ({label})", "",
             f"Store {store_dir}, code at {commit() or '?'}, page cache off, Flask test client in process.", "",
             "| page | path | bytes | store calls | p50 ms | p95 ms | p99 ms | runs |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['page']} | `{r['path']}` | {r['bytes']} | {r['store_calls']} | {r['p50_ms']} | {r['p95_ms']} | "
              f"{r['p99_ms']} | {r['runs']} |" for r in results]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Parse arguments, run, write benchmarks/out/pages-<size>[-label].md and .json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a built store (read-only)")
    parser.add_argument("--runs", type=int, default=30, help="renders per page")
    parser.add_argument("--size", default="", help="name of the store size in the file name (default: digits in "
                        "the store path, e.g. 100000)")
    parser.add_argument("--label", default="", help="suffix of the file name, e.g. before")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    digits = re.findall(r"\d{3,}", str(args.store))
    size = args.size or (digits[-1] if digits else "store")
    results = bench(args.store, args.runs)
    stem = f"pages-{size}" + (f"-{args.label}" if args.label else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps({"store": str(args.store), "size": size, "label": args.label,
                                                       "commit": commit(), "results": results}, indent=2) + "\n")
    text = report(results, args.store, size, args.label or "this code")
    (args.out / f"{stem}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
