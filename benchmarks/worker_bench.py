"""Where a cheap query's time goes below HTTP: the engine, kg's serialisation, the hand-off to a query worker.

    python benchmarks/worker_bench.py --store /tmp/kg-http-bench/100000/data/store [--calls 2000]

Times, in one process and one run, the name lookup of benchmarks/queries/ and ``ASK {}``: the query alone
(pyoxigraph parse and evaluate), ``answer()`` (query plus the requested format, as a worker runs it), a job's
encoding and decoding, and one round trip through a real query worker process (``QueryPool.run``). Prints
microseconds per call (medians of --repeats rounds) and writes benchmarks/out/worker.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from kg.config import Config
from kg.prefixes import PREFIXES
from kg.query.allocator import preload_library
from kg.query.executor import PoolSettings, QueryPool
from kg.query.results import answer
from kg.query.wire import QueryJob
from kg.store import Store

HERE = Path(__file__).resolve().parent


def per_call(function: Callable[[], object], calls: int, repeats: int) -> float:
    """Median over rounds of the microseconds one call takes (after a short warm-up)."""
    for _ in range(min(50, calls)):
        function()
    rounds = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            function()
        rounds.append((time.perf_counter() - started) / calls * 1e6)
    return statistics.median(rounds)


def job_for(text: str) -> QueryJob:
    """A SPARQL JSON job as the endpoint builds it."""
    return QueryJob(text=text, base_iri="http://127.0.0.1:5000/sparql", default_graphs=(), named_graphs=(),
                    dataset=False, format="SPARQL_JSON", max_results=10_000, timeout=30.0)


def measure(store: Store, pool: QueryPool, text: str, calls: int, repeats: int) -> dict[str, float]:
    """The four timings of one query."""
    job = job_for(text)

    def query_alone() -> object:
        result = store.ox.query(text, base_iri=job.base_iri, prefixes=PREFIXES)
        return list(result) if "SELECT" in text else result

    return {
        "query alone": per_call(query_alone, calls, repeats),
        "answer()": per_call(lambda: answer(store, job), calls, repeats),
        "job encode + decode": per_call(lambda: QueryJob.decode(job.encode()), calls, repeats),
        "through a worker": per_call(lambda: pool.run(job), calls, repeats),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True, help="a built store directory")
    parser.add_argument("--calls", type=int, default=2000, help="calls per round (default 2000)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds; medians are reported (default 3)")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "worker.md")
    args = parser.parse_args()
    store = Store.open(args.store)
    lookup = (HERE / "queries" / "1_lookup_by_name.rq").read_text(encoding="utf-8")
    allocator = preload_library(Config.from_env().query_allocator)  # as kg serve starts its workers
    pool = QueryPool(store.path, 1, in_memory=False, settings=PoolSettings(fast_lane_timeout=0, allocator=allocator))
    deadline = time.monotonic() + 60
    while pool.idle.qsize() < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        rows = [(name, measure(store, pool, text, args.calls, args.repeats))
                for name, text in (("name lookup", lookup), ("ASK {}", "ASK {}"))]
    finally:
        pool.close()
    columns = list(rows[0][1])
    lines = ["# Below HTTP: one cheap query, µs per call", "",
             f"Command: `python benchmarks/worker_bench.py --store {args.store} --calls {args.calls} "
             f"--repeats {args.repeats}`", "",
             "| query | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    lines += [f"| {name} | " + " | ".join(f"{cells[c]:.1f}" for c in columns) + " |" for name, cells in rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
