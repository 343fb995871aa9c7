"""What compacting a store version (pyoxigraph ``Store.optimize()``) does to each query, side by side.

    python benchmarks/optimize_bench.py --triples 100000 --work /tmp/kg-optimize-100k --repeats 15

builds a store of a generated corpus (``benchmarks/generate.py``; or takes ``--data DIR``, or an existing store
with ``--store``), reloads its quads into a fresh version the way a build wrote them before compaction (one
bulk load, then flush: the "unoptimized" copy), copies that directory and runs ``optimize()`` on the copy. Then
it times the README's example queries and those in ``benchmarks/queries/`` on both copies with pyoxigraph
directly (results fully read), alternating which copy goes first, and reports medians over the repeats, the
optimize() time and both directory sizes. Results go to ``benchmarks/out/optimize.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyoxigraph as ox

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def readme_queries(readme: Path) -> list[tuple[str, str]]:
    """The README's example queries, each with the shared prefix block (its first sparql block) in front."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("## Example queries", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sparql\n(.*?)```", section, re.S)
    prefixes, bodies = blocks[0], blocks[1:]
    return [(f"README {number}", prefixes + body) for number, body in enumerate(bodies, 1)]


def bench_queries(folder: Path) -> list[tuple[str, str]]:
    """The queries of benchmarks/queries/, named by file."""
    return [(path.stem, path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.rq"))]


def build_store(args: argparse.Namespace) -> Path:
    """The version directory to measure: --store, or a fresh build of --data or of a generated corpus."""
    if args.store:
        return args.store.resolve()
    data = args.data
    if data is None:
        data = args.work / "data"
        if not data.exists():
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--triples", str(args.triples),
                            "--out", str(data)], check=True)
    from kg.config import Config
    from kg.pipeline import build

    start = time.perf_counter()
    build(Config(data=data, store=args.work / "store"), progress=lambda line: print(" ", line, flush=True))
    print(f"build: {time.perf_counter() - start:.1f} s", flush=True)
    return (args.work / "store").resolve()


def unoptimized_copy(version: Path, target: Path) -> int:
    """Write version's quads into a fresh store at target as a build did before compaction; returns the count."""
    if target.exists():
        shutil.rmtree(target)
    source = ox.Store.read_only(str(version))
    store = ox.Store(str(target))
    store.bulk_extend(source.quads_for_pattern(None, None, None, None))
    store.flush()
    count = len(store)
    del store, source
    return count


def directory_size(path: Path) -> tuple[int, int]:
    """Bytes and SST file count under path."""
    files = [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), sum(1 for p in files if p.suffix == ".sst")


def run(store: Any, text: str) -> int:
    """Run a query and read its whole result; the number of rows (or triples, or 1 for ASK)."""
    result = store.query(text)
    if isinstance(result, bool):
        return 1
    return sum(1 for _ in result)


def main() -> None:
    """Run the benchmark and write the markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, default=100000, help="size of the generated corpus")
    parser.add_argument("--data", type=Path, help="an existing corpus folder to build instead (read only)")
    parser.add_argument("--store", type=Path, help="an existing store (link or version directory): no build")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-optimize-bench"))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=HERE / "out" / "optimize.md")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    version = build_store(args)
    plain, optimized = args.work / "unoptimized", args.work / "optimized"
    quads = unoptimized_copy(version, plain)
    if optimized.exists():
        shutil.rmtree(optimized)
    shutil.copytree(plain, optimized)
    store = ox.Store(str(optimized))
    start = time.perf_counter()
    store.optimize()
    optimize_seconds = time.perf_counter() - start
    del store
    sizes = {"unoptimized": directory_size(plain), "optimized": directory_size(optimized)}
    print(f"{quads:,} quads; optimize() {optimize_seconds:.2f} s; sizes {sizes}", flush=True)

    stores = {"unoptimized": ox.Store.read_only(str(plain)), "optimized": ox.Store.read_only(str(optimized))}
    queries = readme_queries(ROOT / "README.md") + bench_queries(HERE / "queries")
    rows: dict[str, int] = {}
    times: dict[tuple[str, str], list[float]] = {}
    for name, text in queries:  # warm both copies, and check they answer alike
        counts = {label: run(s, text) for label, s in stores.items()}
        if counts["unoptimized"] != counts["optimized"]:
            raise SystemExit(f"{name}: {counts} rows differ")
        rows[name] = counts["optimized"]
    for repeat in range(args.repeats):
        order = list(stores) if repeat % 2 == 0 else list(reversed(stores))
        for name, text in queries:
            for label in order:
                start = time.perf_counter()
                run(stores[label], text)
                times.setdefault((name, label), []).append(time.perf_counter() - start)
    lines = [f"# Store.optimize() per query: {quads:,} quads (pyoxigraph {ox.__version__})", "",
             f"Command: `python benchmarks/optimize_bench.py {' '.join(sys.argv[1:])}`", "",
             f"optimize(): {optimize_seconds:.2f} s. Directory: unoptimized {sizes['unoptimized'][0] / 1e6:.1f} MB "
             f"in {sizes['unoptimized'][1]} SST files, optimized {sizes['optimized'][0] / 1e6:.1f} MB in "
             f"{sizes['optimized'][1]} SST files.", "",
             f"Median ms over {args.repeats} alternating repeats (results fully read):", "",
             "| query | rows | unoptimized ms | optimized ms | speed-up |", "|---|---|---|---|---|"]
    for name, _ in queries:
        before = statistics.median(times[(name, "unoptimized")]) * 1000
        after = statistics.median(times[(name, "optimized")]) * 1000
        lines.append(f"| {name} | {rows[name]:,} | {before:.3f} | {after:.3f} | {before / after:.2f}x |")
    report = "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
