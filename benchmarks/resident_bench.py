"""Resident rebuilds in process: the wall and CPU seconds of each one-profile rebuild by a ResidentBuilder.

    PYTHONPATH=src python benchmarks/resident_bench.py --data /tmp/perf/g1m --work /tmp/perf/rc-1m \\
        --out benchmarks/out/resident_cpu_1m.json

copies DATA to WORK/data, builds it once with a ResidentBuilder (kg build --watch's builder), then makes --edits
edits to different profiles (alternating a retitled first work and a renamed person, as edit_page_bench.py does),
each followed by one rebuild in the same process, 3 s apart. The CPU seconds are this process's own
(time.process_time), so they stay meaningful on a machine shared with other work, where wall seconds do not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from edit_page_bench import edit_profile

from kg.config import Config
from kg.pipeline.resident import ResidentBuilder


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.work.exists():
        shutil.rmtree(args.work)
    shutil.copytree(args.data, args.work / "data")
    builder = ResidentBuilder(Config(data=args.work / "data", store=args.work / "store"))
    wall, cpu = time.perf_counter(), time.process_time()
    builder.build()
    print(f"first build: {time.perf_counter() - wall:.2f} s (CPU {time.process_time() - cpu:.2f} s)", flush=True)
    profiles = sorted((args.work / "data" / "profiles").glob("*.yaml"))
    rows: list[dict[str, Any]] = []
    for number in range(args.edits):
        time.sleep(3)
        kind = "retitle" if number % 2 == 0 else "rename"
        edit_profile(profiles[(number * 7 + 3) % len(profiles)], kind, number)
        wall, cpu = time.perf_counter(), time.process_time()
        result = builder.build()
        rows.append({"kind": kind, "wall": round(time.perf_counter() - wall, 3),
                     "cpu": round(time.process_time() - cpu, 3), "stages": result.seconds,
                     "load": os.getloadavg()[0]})
        print(rows[-1], flush=True)
    medians = {key: statistics.median(r[key] for r in rows) for key in ("wall", "cpu")}
    print(f"median over {len(rows)} rebuilds: {medians['wall']:.2f} s (CPU {medians['cpu']:.2f} s)", flush=True)
    if args.out:
        args.out.write_text(json.dumps({"data": str(args.data), "medians": medians, "rebuilds": rows}, indent=1),
                            encoding="utf-8")


if __name__ == "__main__":
    main()
