"""Build benchmark: stage times and peak memory at several corpus sizes, against a bare `oxigraph load` of the same
quads, with reasoning and validation engines side by side.

    python benchmarks/build_bench.py --sizes 100000 1000000 --repeats 3 --reasoning-sizes --validation-sizes

Writes build.json and build.md under --out. Corpora are generated once into OUT/data-N (deterministic).
Each size is built --repeats times from scratch (`kg build --timings` in a fresh process, peak resident memory
from the kernel's rusage of that process); after each build the store's quads (named graphs, their merge in the
default graph, change records) are dumped as N-Quads and loaded by `oxigraph load` into a fresh directory, also
measured by rusage. The builds and loads alternate, so both see the same machine; the table gives medians and
the ratio of the medians. Each comparison (rules vs owlrl; validation engines) runs side by side in one process,
and reports the median of --repeats runs. Validation compares the compiled Oxigraph engine over the union (the
default), the same engine in 2-process shards, and the previous hybrid path (pyshacl core shapes + Oxigraph
SPARQL shapes, one run; skipped above --old-validation-max triples because it takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph

sys.path.insert(0, str(Path(__file__).parent))
from generate import generate  # noqa: E402

from kg.iris import Minter  # noqa: E402
from kg.mapping import map_corpus  # noqa: E402
from kg.parsing import parse_corpus  # noqa: E402
from kg.reasoning import infer  # noqa: E402
from kg.sources import read_data_dir  # noqa: E402
from kg.turtle_files import load_turtle_dir  # noqa: E402
from kg.validation import validate_graphs  # noqa: E402
from kg.validation.shards import validate_sharded  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STAGE = re.compile(r"^(\w+)\s+([\d.]+) s(?:\s+\(.*\))?\s+peak\s+([\d.]+) MB$")


def corpus(out: Path, triples: int) -> Path:
    """The generated data folder for a size (made once)."""
    data = out / f"data-{triples}"
    if not (data / "profiles").is_dir():
        generate(triples, data)
    return data


def measured(command: list[str], output: Path) -> tuple[float, float, float]:
    """Run a command with its standard output in a file; (wall seconds, peak resident MB, CPU seconds (user and
    system) of that process)."""
    started = time.perf_counter()
    with open(output, "w", encoding="utf-8") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, command)
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def timed_build(data: Path, store: Path) -> dict:
    """Run `kg build --timings` in a fresh process; stage seconds, peak MB, wall time and the process's peak MB."""
    log = store.parent / "build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    wall, peak, cpu = measured([sys.executable, "-m", "kg", "build", "--data", str(data), "--store", str(store),
                                "--timings"], log)
    out = log.read_text(encoding="utf-8")
    stages = {m.group(1): {"seconds": float(m.group(2)), "peak_mb": float(m.group(3))}
              for m in map(STAGE.match, out.splitlines()) if m}
    built = re.search(r"^built .* \((\d+) triples\)$", out, flags=re.M)
    total = int(built.group(1)) if built else 0
    return {"stages": stages, "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "peak_mb": round(peak, 1),
            "triples": total}


def timed_load(store: Path, work: Path) -> dict:
    """Dump a built store's quads as N-Quads and time a bare `oxigraph load` of them into a fresh directory."""
    dump, target = work / "quads.nq", work / "oxigraph-load"
    ox.Store.read_only(str(store.resolve())).dump(output=str(dump), format=ox.RdfFormat.N_QUADS)
    shutil.rmtree(target, ignore_errors=True)
    quads = sum(1 for _ in open(dump, "rb"))
    wall, peak, cpu = measured(["oxigraph", "load", "--location", str(target), "--file", str(dump)],
                               work / "load.log")
    shutil.rmtree(target, ignore_errors=True)
    dump.unlink()
    return {"wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "peak_mb": round(peak, 1), "quads": quads}


def versus_load(data: Path, work: Path, repeats: int) -> dict:
    """Fresh builds and bare loads of their quads, alternating; medians, the ratio of the medians, and the runs."""
    builds, loads = [], []
    for _ in range(repeats):
        shutil.rmtree(work, ignore_errors=True)
        store = work / "store"
        builds.append(timed_build(data, store))
        loads.append(timed_load(store, work))
        print(json.dumps({"build": builds[-1], "load": loads[-1]}), flush=True)
    stages = {name: {key: round(statistics.median(b["stages"][name][key] for b in builds), 2)
                     for key in ("seconds", "peak_mb")} for name in builds[0]["stages"]}
    keys = ("wall_seconds", "cpu_seconds", "peak_mb")
    build = {key: round(statistics.median(b[key] for b in builds), 2) for key in keys}
    load = {key: round(statistics.median(run[key] for run in loads), 2) for key in keys}
    return {"triples": builds[0]["triples"], "quads": loads[0]["quads"], "repeats": repeats, "stages": stages,
            **build, "load": load, "wall_ratio": round(build["wall_seconds"] / load["wall_seconds"], 2),
            "runs": {"builds": builds, "loads": loads}}


def edit_one_profile(data: Path) -> None:
    """Change one publication title of the first profile (an incremental-build trigger)."""
    first = sorted((data / "profiles").glob("*.yaml"))[0]
    text = first.read_text(encoding="utf-8")
    first.write_text(text.replace("title: ", "title: Revised ", 1), encoding="utf-8")


def median_time(function, repeats: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    """Median seconds of repeated calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def compare_reasoners(data: Path, repeats: int) -> dict:
    """Rule engine vs owlrl on the same asserted graph; equal results required."""
    mapped = map_corpus(parse_corpus(read_data_dir(data)), Minter())
    asserted = Graph()
    for graph in mapped.graphs.values():
        asserted += graph
    ontology = load_turtle_dir(ROOT / "ontology")
    rules_s, rules = median_time(lambda: infer(asserted, ontology, "rules"), repeats)
    owlrl_s, reference = median_time(lambda: infer(asserted, ontology, "owlrl"), repeats)
    assert set(rules) == set(reference), "rule engine and owlrl disagree"  # type: ignore[arg-type]
    return {"asserted": len(asserted), "inferred": len(rules), "rules_s": round(rules_s, 3),  # type: ignore[arg-type]
            "owlrl_s": round(owlrl_s, 3), "speedup": round(owlrl_s / rules_s, 1)}


def compare_validation(data: Path, repeats: int, old_max: int) -> dict:
    """Oxigraph engine (union, shards) vs the old hybrid pyshacl path; equal reports required."""
    mapped = map_corpus(parse_corpus(read_data_dir(data)), Minter())
    shapes, ontology = load_turtle_dir(ROOT / "shapes"), load_turtle_dir(ROOT / "ontology")
    reference = Minter().graph("reference")
    triples = sum(len(g) for g in mapped.graphs.values())
    union_s, union = median_time(lambda: validate_sharded(mapped, shapes, ontology, reference=reference), repeats)
    shards_s, shards = median_time(lambda: validate_sharded(mapped, shapes, ontology, reference=reference,
                                                            processes=2, mode="shards"), repeats)
    assert shards.violations == union.violations, "sharded and union validation disagree"  # type: ignore[union-attr]
    row = {"triples": triples, "oxigraph_s": round(union_s, 2), "shards_s": round(shards_s, 2)}
    if triples <= old_max:
        old_s, old = median_time(lambda: validate_graphs(mapped, shapes, ontology, engine="hybrid"), 1)
        assert old.violations == union.violations, "old and new validation disagree"  # type: ignore[union-attr]
        row.update(hybrid_s=round(old_s, 2), speedup=round(old_s / union_s, 1))
    return row


def _run_cells(run: dict) -> str:
    """Wall seconds / CPU seconds (when measured) / peak MB of a process."""
    cpu = f" / {run['cpu_seconds']:.1f}" if "cpu_seconds" in run else ""
    return f"{run['wall_seconds']:.1f}{cpu} / {run['peak_mb']:.0f}"


def markdown(results: dict) -> str:
    """The results as Markdown tables."""
    lines = ["| triples | " + " | ".join(f"{s} s / MB" for s in ("map", "validate", "reason", "store"))
             + " | kg build wall s / CPU s / peak MB | oxigraph load wall s / CPU s / peak MB | quads | wall ratio "
             "| incremental s |", "|---" * 10 + "|"]
    for row in results["builds"].values():
        cells = [f"{row['stages'][s]['seconds']:.2f} / {row['stages'][s]['peak_mb']:.0f}" if s in row["stages"]
                 else "–" for s in ("map", "validate", "reason", "store")]
        lines.append(f"| {row['triples']:,} | " + " | ".join(cells) + f" | {_run_cells(row)} | "
                     f"{_run_cells(row['load'])} | {row['quads']:,} | {row['wall_ratio']:.2f}x | "
                     f"{row.get('incremental_wall_seconds', '–')} |")
    lines.append(f"\nMedians of {max((r['repeats'] for r in results['builds'].values()), default=0)} fresh builds "
                 "and loads, alternating in one run.")
    lines += ["", "| reasoning at | asserted | inferred | rules s | owlrl s | speedup |", "|---|---|---|---|---|---|"]
    for size, row in results["reasoning"].items():
        lines.append(f"| {size} | {row['asserted']} | {row['inferred']} | {row['rules_s']} | {row['owlrl_s']} | "
                     f"{row['speedup']}x |")
    lines += ["", "| validation at | triples | oxigraph (union) s | oxigraph 2-process shards s | old hybrid s "
              "(pyshacl core) | speedup |", "|---|---|---|---|---|---|"]
    for size, row in results["validation"].items():
        lines.append(f"| {size} | {row['triples']:,} | {row['oxigraph_s']} | {row['shards_s']} | "
                     f"{row.get('hybrid_s', '–')} | {str(row['speedup']) + 'x' if 'speedup' in row else '–'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000, 1000000])
    parser.add_argument("--reasoning-sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--validation-sizes", type=int, nargs="*", default=[10000, 100000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--old-validation-max", type=int, default=200_000,
                        help="largest triple count at which the old hybrid validation is also timed")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict = {"builds": {}, "reasoning": {}, "validation": {}}
    for size in args.sizes:
        data = corpus(args.out, size)
        store = args.out / f"store-{size}" / "store"
        row = versus_load(data, store.parent, args.repeats)
        edited = args.out / f"edited-{size}"
        shutil.rmtree(edited, ignore_errors=True)
        shutil.copytree(data, edited)
        edit_one_profile(edited)
        row["incremental_wall_seconds"] = timed_build(edited, store)["wall_seconds"]
        results["builds"][str(size)] = row
        print(json.dumps({size: row}), flush=True)
    for size in args.reasoning_sizes:
        results["reasoning"][str(size)] = compare_reasoners(corpus(args.out, size), args.repeats)
        print(json.dumps({"reasoning": {size: results["reasoning"][str(size)]}}), flush=True)
    for size in args.validation_sizes:
        results["validation"][str(size)] = compare_validation(corpus(args.out, size), args.repeats,
                                                                args.old_validation_max)
        print(json.dumps({"validation": {size: results["validation"][str(size)]}}), flush=True)
    (args.out / "build.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    (args.out / "build.md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))


if __name__ == "__main__":
    main()
