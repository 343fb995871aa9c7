"""Full build, then rebuilds after editing one profile: per-stage seconds, and equality with a clean build.

    python benchmarks/incremental_bench.py --data /tmp/kg-http-bench/100000/data --work /tmp/inc-100k --edits 3

copies DATA to WORK/data (the source folder is never modified), builds WORK/store from scratch, then for each
edit changes one publication title in a different profile and rebuilds, printing each stage's seconds and the
median. With --check, a clean build of the final data into WORK/clean is compared per named graph.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

import yaml

from kg.config import Config
from kg.pipeline import build


def edit_profile(path: Path, number: int) -> None:
    """Change the title of a profile's first publication."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["publications"][0]["title"] += f" (revised {number})"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def timed_build(data: Path, store: Path) -> tuple[float, dict[str, float], list[str]]:
    """Wall seconds, stage seconds and progress lines of one build."""
    lines: list[str] = []
    start = time.perf_counter()
    result = build(Config(data=data, store=store), progress=lines.append)
    return time.perf_counter() - start, result.seconds, lines


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="compare with a clean build (costs one more build)")
    args = parser.parse_args()
    if args.work.exists():
        shutil.rmtree(args.work)
    shutil.copytree(args.data, args.work / "data")
    data, store = args.work / "data", args.work / "store"
    wall, seconds, lines = timed_build(data, store)
    print(f"full build: {wall:.2f} s wall", *lines, sep="\n  ", flush=True)
    profiles = sorted((data / "profiles").glob("*.yaml"))
    walls: list[float] = []
    for number in range(args.edits):
        edit_profile(profiles[number * 7 % len(profiles)], number)
        wall, seconds, lines = timed_build(data, store)
        walls.append(wall)
        print(f"rebuild after edit {number + 1}: {wall:.2f} s wall", *lines, sep="\n  ", flush=True)
    if walls:
        print(f"median rebuild: {statistics.median(walls):.2f} s wall over {len(walls)}")
    if args.check:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from kg.store import Store
        from tests.conftest import assert_isomorphic

        timed_build(data, args.work / "clean" / "store")
        ours, clean = Store.open(store), Store.open(args.work / "clean" / "store")
        assert ours.graph_names() == clean.graph_names()
        for name in ours.graph_names():
            assert_isomorphic(ours.rdflib_graph(name), clean.rdflib_graph(name))
        print(f"equal to a clean build: {len(ours.graph_names())} named graphs isomorphic")


if __name__ == "__main__":
    main()
