"""Full SHACL validation, old engine against new, side by side in alternating fresh processes.

    python benchmarks/validation_bench.py --old /tmp/wt-oldengine --sizes 10000 100000 --repeats 5
    python benchmarks/validation_bench.py --old /tmp/wt-oldengine --sizes 1000000 --repeats 3

--old and --new are checkouts (default --new: this repository); each one's src/ holds the kg.validation measured.
Each corpus is generated once into OUT/data-N (benchmarks/generate.py, deterministic). Every repeat starts one
worker process per implementation (this script with --worker, PYTHONPATH=IMPL/src, cwd IMPL), old and new
alternating and the order swapped every repeat: the worker maps the corpus (read_data_dir, parse_corpus,
map_corpus), loads shapes/ and ontology/ from --shapes-root (default: this repository) and times only
kg.validation.validate_graphs(mapped, shapes, ontology). It prints one JSON line: seconds, results, errors,
warnings, a digest of the errors and of all results, peak RSS before and after validation.

Results are merged by size into OUT/validation.json (so runs of different sizes accumulate) and OUT/validation.md
is written from it: medians per size, the ratio new/old, and whether both found the same errors.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def worker(data: Path, shapes_root: Path) -> None:
    """Map the corpus, then time validate_graphs alone; print one JSON line."""
    import gc
    import hashlib
    import resource

    import kg
    from kg.iris import Minter
    from kg.mapping import map_corpus
    from kg.parsing import parse_corpus
    from kg.sources import read_data_dir
    from kg.turtle_files import load_turtle_dir
    from kg.validation import validate_graphs

    mapped = map_corpus(parse_corpus(read_data_dir(data)), Minter())
    shapes, ontology = load_turtle_dir(shapes_root / "shapes"), load_turtle_dir(shapes_root / "ontology")
    triples = sum(len(graph) for graph in mapped.graphs.values())
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    report = validate_graphs(mapped, shapes, ontology)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    def digest(results: tuple[Any, ...]) -> str:
        keys = sorted((v.severity, v.focus, v.path or "", v.value or "", v.message) for v in results)
        return hashlib.sha256(json.dumps(keys).encode()).hexdigest()[:16]

    print(json.dumps({"seconds": seconds, "results": len(report.violations), "errors": len(report.errors),
                      "warnings": len(report.warnings), "errors_digest": digest(report.errors),
                      "results_digest": digest(report.violations), "engine": getattr(report, "engine", "oxigraph"),
                      "triples": triples, "peak_mb_before": round(before, 1), "peak_mb": round(after, 1),
                      "kg": kg.__file__}))


def run_worker(impl: Path, data: Path, shapes_root: Path, timeout: float) -> dict:
    """One fresh process validating with the kg of impl/src."""
    env = {**os.environ, "PYTHONPATH": str(impl / "src")}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", "--data", str(data.resolve()),
                           "--shapes-root", str(shapes_root.resolve())], cwd=impl, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"worker for {impl} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(result["kg"]).resolve().is_relative_to((impl / "src").resolve()):
        raise SystemExit(f"worker for {impl} imported kg from {result['kg']}")
    result["load"] = round(os.getloadavg()[0], 2)
    return result


def corpus(out: Path, triples: int) -> Path:
    """The generated data folder for a size (made once)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from generate import generate

    data = out / f"data-{triples}"
    if not (data / "profiles").is_dir():
        generate(triples, data)
    return data


def git_rev(path: Path) -> str:
    """The short commit of a checkout (and '+dirty' when it has changes to tracked files)."""
    rev = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True)
    return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def summarise(size: int, runs: dict[str, list[dict]], command: str, revs: dict[str, str]) -> dict:
    """Medians and agreement for one size."""
    row: dict = {"size": size, "command": command, "revs": revs, "runs": runs}
    for name, results in runs.items():
        row[name] = {"median_s": statistics.median(r["seconds"] for r in results),
                     "seconds": [round(r["seconds"], 3) for r in results],
                     "peak_mb": max(r["peak_mb"] for r in results),
                     "peak_mb_before": max(r["peak_mb_before"] for r in results),
                     "results": sorted({r["results"] for r in results}),
                     "errors": sorted({r["errors"] for r in results}),
                     "warnings": sorted({r["warnings"] for r in results}),
                     "errors_digest": sorted({r["errors_digest"] for r in results}),
                     "results_digest": sorted({r["results_digest"] for r in results}),
                     "engines": sorted({r["engine"] for r in results}), "triples": results[0]["triples"],
                     "load": [r["load"] for r in results]}
    row["ratio"] = row["new"]["median_s"] / row["old"]["median_s"]
    row["same_errors"] = (row["old"]["errors_digest"] == row["new"]["errors_digest"]
                          and len(row["new"]["errors_digest"]) == 1)
    row["same_results"] = row["old"]["results_digest"] == row["new"]["results_digest"]
    return row


def counts(side: dict) -> str:
    """results / errors / warnings of one implementation (all distinct values seen across repeats)."""
    return " / ".join(",".join(f"{n:,}" for n in side[key]) for key in ("results", "errors", "warnings"))


def markdown(rows: list[dict]) -> str:
    """The table and the commands."""
    lines = ["# Validation: old engine vs new", "",
             "Full `kg.validation.validate_graphs(mapped, shapes, ontology)` in fresh processes, old and new",
             "alternating; wall seconds of the call alone (mapping excluded), median over the repeats. Counts are",
             "results / errors (sh:Violation) / warnings.", "",
             "| size | triples | old median s | new median s | ratio new/old | repeats | old counts | new counts "
             "| same errors | same results | peak RSS old / new MB |",
             "|---|---:|---:|---:|---:|---:|---|---|---|---|---|"]
    for row in rows:
        old, new = row["old"], row["new"]
        lines.append(f"| {row['size']:,} | {new['triples']:,} | {old['median_s']:.3f} | {new['median_s']:.3f} "
                     f"| {row['ratio']:.2f} | {len(old['seconds'])} | {counts(old)} | {counts(new)} "
                     f"| {'yes' if row['same_errors'] else 'NO'} | {'yes' if row['same_results'] else 'no'} "
                     f"| {old['peak_mb']:,.0f} / {new['peak_mb']:,.0f} |")
    lines += ["", "Every run (seconds; 1-minute load average after each run):", ""]
    for row in rows:
        for name in ("old", "new"):
            side = row[name]
            lines.append(f"- {row['size']:,} {name} ({row['revs'][name]}, engine {', '.join(side['engines'])}): "
                         f"{', '.join(f'{s:.3f}' for s in side['seconds'])}; load {', '.join(map(str, side['load']))}; "
                         f"peak RSS before validation {side['peak_mb_before']:,.0f} MB")
    lines += ["", "Commands:", ""]
    for command in dict.fromkeys(row["command"] for row in rows):
        lines.append(f"    {command}")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run the benchmark (or, with --worker, one measurement)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, help="checkout of the old implementation")
    parser.add_argument("--new", type=Path, default=ROOT, help="checkout of the new implementation (default: here)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--shapes-root", type=Path, default=ROOT, help="folder holding shapes/ and ontology/")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per worker")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.data, args.shapes_root)
        return
    if args.old is None:
        parser.error("--old is required")
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, Path.cwd()), *sys.argv[1:]])
    impls = {"old": args.old.resolve(), "new": args.new.resolve()}
    revs = {name: git_rev(path) for name, path in impls.items()}
    args.out.mkdir(parents=True, exist_ok=True)
    store = args.out / "validation.json"
    saved = {row["size"]: row for row in json.loads(store.read_text())} if store.exists() else {}
    for size in args.sizes:
        data = corpus(args.out, size)
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for repeat in range(args.repeats):
            for name in (("old", "new") if repeat % 2 == 0 else ("new", "old")):
                result = run_worker(impls[name], data, args.shapes_root, args.timeout)
                runs[name].append(result)
                print(f"{size} repeat {repeat + 1} {name}: {result['seconds']:.3f} s, {result['results']} results, "
                      f"{result['errors']} errors, peak {result['peak_mb']:.0f} MB, load {result['load']}", flush=True)
        row = summarise(size, runs, command, revs)
        if not row["same_errors"]:
            print(f"DIFFERENCE at {size}: old errors {row['old']['errors']} {row['old']['errors_digest']}, "
                  f"new errors {row['new']['errors']} {row['new']['errors_digest']}", flush=True)
        saved[size] = row
        rows = [saved[key] for key in sorted(saved)]
        store.write_text(json.dumps(rows, indent=1) + "\n")
        (args.out / "validation.md").write_text(markdown(rows))
    print((args.out / "validation.md").read_text())


if __name__ == "__main__":
    main()
