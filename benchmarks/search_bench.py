"""Search benchmark: query latency of the full-text index and what indexing adds to a full build.

    python benchmarks/search_bench.py --triples 100000 1000000 --repeats 3 --out benchmarks/out

For each size: the generated corpus (benchmarks/generate.py, made once under --work) is built cold with
KG_SEARCH_INDEX=false and =true alternately, --repeats times each (a fresh store folder each time, so every build is
a full one), and the median wall times are compared. On the last indexed store: p50/p95 of name, title and topic
searches through kg.search directly (the web worker's call: ranking, facets, one page), of /search/suggest's
ranking, and of `GET /search?q=…&format=json` through a real `kg serve`. Writes search-N.json and search-N.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import pyoxigraph as ox  # noqa: E402
from generate import FAMILY, GIVEN, NOUNS, TOPICS, WORDS, generate  # noqa: E402

from kg.search import INDEX_FILE, Filters, SearchIndex, derive_index  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAMES = [f"{g} {f}" for g, f in zip(GIVEN, FAMILY, strict=False)] + FAMILY[:10] + ["Lovel", "Dijk", "Hopp"]
TITLES = [f"{w} {n}" for w, n in zip(WORDS, NOUNS, strict=False)] + ["garbage collection", "load balanc"]
TOPIC_QUERIES = TOPICS + ["ML compilers", "compilres", "distributd systems"]


def build(data: Path, store: Path, index: bool) -> tuple[float, float, dict]:
    """A cold full `kg build` in a fresh process; wall seconds, CPU seconds (user + system, less sensitive than
    wall time to other load on a shared machine) and the version's metadata."""
    env = dict(os.environ, KG_SEARCH_INDEX="true" if index else "false", PYTHONPATH=str(ROOT / "src"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kg", "build", "--data", str(data), "--store", str(store)],
                   check=True, capture_output=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, json.loads((store.resolve() / "kg-build.json").read_text(encoding="utf-8"))


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds."""
    ordered = sorted(samples)
    return {"p50_ms": round(1000 * ordered[len(ordered) // 2], 2),
            "p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2), "n": len(ordered)}


def direct_latency(index: SearchIndex, queries: list[str], rounds: int, suggest: bool = False) -> dict[str, float]:
    """Latency of searches (or suggestion rankings) called directly, after one warming round."""
    samples = []
    for number in range(rounds + 1):
        for text in queries:
            started = time.perf_counter()
            if suggest:
                index.ranked(text, 50)
            else:
                index.search(text, Filters())
            if number:
                samples.append(time.perf_counter() - started)
    return percentiles(samples)


def http_latency(data: Path, store: Path, queries: list[str], rounds: int) -> dict[str, float]:
    """Latency of GET /search?format=json through a real `kg serve` (the response cache does not keep /search)."""
    port = 18000 + os.getpid() % 1000
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    server = subprocess.Popen([sys.executable, "-m", "kg", "serve", "--data", str(data), "--store", str(store),
                               "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        samples = []
        for number in range(rounds + 1):
            for text in queries:
                url = f"{base}/search?format=json&q={urllib.parse.quote(text)}"
                started = time.perf_counter()
                urllib.request.urlopen(url, timeout=10).read()
                if number:
                    samples.append(time.perf_counter() - started)
        return percentiles(samples)
    finally:
        server.terminate()
        server.wait(timeout=30)


def derived_seconds(store: Path) -> dict[str, float]:
    """Seconds to derive the next version's index as a write or an incremental build does (kg.search.derive_index):
    copy the file, re-index one person (with what links to them) and one organisation (with its members)."""
    version = store.resolve()
    index = SearchIndex(version / INDEX_FILE, timeout=60.0)
    deadline = time.monotonic() + 60
    person = index._rows("SELECT iri FROM docs WHERE kind = 'person' LIMIT 1", (), deadline)[0][0]
    org = index._rows("SELECT iri FROM docs WHERE kind = 'organization' LIMIT 1", (), deadline)[0][0]
    id_space = person[:person.index("/id/") + 4]
    oxstore = ox.Store.read_only(str(version))
    found = {}
    for label, subjects in (("person", [person]), ("organization", [org])):
        target = version.parent / f"derived-{label}.sqlite"
        started = time.perf_counter()
        count = derive_index(version / INDEX_FILE, oxstore, target, id_space, [ox.NamedNode(s) for s in subjects])
        found[f"{label}_s"] = round(time.perf_counter() - started, 3)
        found[f"{label}_documents"] = count
        target.unlink()
    return found


def run_size(triples: int, work: Path, repeats: int, rounds: int) -> dict:
    """Builds with and without the index, then latencies, for one corpus size."""
    data = work / f"data-{triples}"
    if not (data / "profiles").is_dir():
        generate(triples, data)
    walls: dict[str, list[float]] = {"without": [], "with": []}
    cpus: dict[str, list[float]] = {"without": [], "with": []}
    index_seconds, store = [], work / "none"
    for repeat in range(repeats):
        for label in ("without", "with"):
            folder = work / f"store-{triples}-{label}-{repeat}"
            shutil.rmtree(folder, ignore_errors=True)
            wall, cpu, metadata = build(data, folder / "store", label == "with")
            walls[label].append(round(wall, 2))
            cpus[label].append(round(cpu, 2))
            if label == "with":
                index_seconds.append(metadata.get("index_seconds", 0.0))
                if store.name != "none":
                    shutil.rmtree(store.parent, ignore_errors=True)
                store = folder / "store"
            else:
                shutil.rmtree(folder, ignore_errors=True)
    metadata = json.loads((store.resolve() / "kg-build.json").read_text(encoding="utf-8"))
    index = SearchIndex(store.resolve() / INDEX_FILE, timeout=5.0)
    without, with_index = statistics.median(walls["without"]), statistics.median(walls["with"])
    cpu_without, cpu_with = statistics.median(cpus["without"]), statistics.median(cpus["with"])
    result = {
        "triples": sum(metadata["triples"].values()), "repeats": repeats,
        "build_without_index_s": round(without, 2), "build_with_index_s": round(with_index, 2),
        "overhead_pct": round(100 * (with_index - without) / without, 1),
        "cpu_without_index_s": round(cpu_without, 2), "cpu_with_index_s": round(cpu_with, 2),
        "cpu_overhead_pct": round(100 * (cpu_with - cpu_without) / cpu_without, 1),
        "index_seconds_median": statistics.median(index_seconds),
        "index_share_pct": round(100 * statistics.median(index_seconds) / with_index, 1),
        "builds_wall_s": walls, "builds_cpu_s": cpus,
        "index_mb": round((store.resolve() / INDEX_FILE).stat().st_size / 1e6, 1),
        "documents": index._rows("SELECT COUNT(*) FROM docs", (), time.monotonic() + 5)[0][0],
        "latency": {"name": direct_latency(index, NAMES, rounds), "title": direct_latency(index, TITLES, rounds),
                    "topic": direct_latency(index, TOPIC_QUERIES, rounds),
                    "suggest": direct_latency(index, [n[:4] for n in NAMES], rounds, suggest=True)},
        "derived_index": derived_seconds(store),
        "http": http_latency(data, store, NAMES + TITLES + TOPIC_QUERIES, max(1, rounds // 2)),
    }
    shutil.rmtree(store.parent, ignore_errors=True)
    return result


def markdown(result: dict) -> str:
    """The result as a Markdown summary."""
    lines = [f"## Search at {result['triples']:,} triples ({result['documents']:,} documents, "
             f"index {result['index_mb']} MB)", "",
             f"| full build, median of {result['repeats']} | wall s | CPU s |", "|---|---|---|",
             f"| without index | {result['build_without_index_s']} | {result['cpu_without_index_s']} |",
             f"| with index | {result['build_with_index_s']} | {result['cpu_with_index_s']} |",
             f"| difference | {result['overhead_pct']} % | {result['cpu_overhead_pct']} % |",
             f"| indexing itself (kg-build.json `index_seconds`) | {result['index_seconds_median']} s = "
             f"{result['index_share_pct']} % of the indexed build's wall time | |", "",
             "| queries | p50 ms | p95 ms | n |", "|---|---|---|---|"]
    for kind, found in [*result["latency"].items(), ("HTTP /search (kg serve)", result["http"])]:
        lines.append(f"| {kind} | {found['p50_ms']} | {found['p95_ms']} | {found['n']} |")
    derived = result.get("derived_index")
    if derived:
        lines += ["", "| derived index (a write, an incremental build) | s | documents re-indexed |", "|---|---|---|",
                  f"| one person changed | {derived['person_s']} | {derived['person_documents']} |",
                  f"| one organisation changed | {derived['organization_s']} | {derived['organization_documents']} |"]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run the benchmark for each size and write the results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, nargs="+", default=[100_000])
    parser.add_argument("--repeats", type=int, default=3, help="builds of each kind (median reported)")
    parser.add_argument("--rounds", type=int, default=10, help="times each query is timed")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-search-bench"))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--derived", type=Path, help="only time deriving the index of this built store and exit")
    args = parser.parse_args()
    if args.derived:
        print(json.dumps(derived_seconds(args.derived)))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    for triples in args.triples:
        result = run_size(triples, args.work, args.repeats, args.rounds)
        (args.out / f"search-{triples}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        (args.out / f"search-{triples}.md").write_text(markdown(result), encoding="utf-8")
        print(markdown(result))


if __name__ == "__main__":
    main()
