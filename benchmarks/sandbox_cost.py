"""What the network filter (kg.sandbox) costs a query worker: the same queries timed in two fresh processes over one
store, one that installs the filter half-way and one that does not (the control), alternated, medians.

    PYTHONPATH=src python benchmarks/sandbox_cost.py --store .kg/store

Results go to benchmarks/out/sandbox-cost.md and .json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERIES = {
    "names (50 rows)": "SELECT ?n WHERE { ?p <http://schema.org/name> ?n } LIMIT 50",
    "ask": "ASK { ?s ?p ?o }",
}
OUT = Path(__file__).parent / "out"


def child(store: str, filtered: bool, repeats: int, rounds: int) -> dict[str, list[float]]:
    """In this process: µs per query for each query, before and after the filter (or after nothing)."""
    import pyoxigraph as ox

    from kg.sandbox import deny_network

    opened = ox.Store.read_only(store)

    def timed() -> dict[str, float]:
        out = {}
        for name, text in QUERIES.items():
            started = time.perf_counter()
            for _ in range(repeats):
                list(opened.query(text)) if not text.startswith("ASK") else bool(opened.query(text))
            out[name] = (time.perf_counter() - started) / repeats * 1e6
        return out

    before = [timed() for _ in range(rounds)]
    if filtered:
        deny_network()
    after = [timed() for _ in range(rounds)]
    return {name: [statistics.median(r[name] for r in before), statistics.median(r[name] for r in after)]
            for name in QUERIES}


def main() -> None:
    """Run filtered and control processes alternately and write the medians of their after/before ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", required=True)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--child", choices=["filtered", "control"])
    args = parser.parse_args()
    store = str(Path(args.store).resolve())
    if args.child:
        print(json.dumps(child(store, args.child == "filtered", args.repeats, 3)))
        return
    ratios: dict[str, dict[str, list[float]]] = {q: {"filtered": [], "control": []} for q in QUERIES}
    for _ in range(args.pairs):
        for kind in ("filtered", "control"):
            out = subprocess.run([sys.executable, __file__, "--store", store, "--child", kind, "--repeats",
                                  str(args.repeats)], check=True, capture_output=True, text=True).stdout
            for name, (before, after) in json.loads(out).items():
                ratios[name][kind].append(after / before)
    result = {name: {kind: round(statistics.median(values), 3) for kind, values in kinds.items()}
              for name, kinds in ratios.items()}
    OUT.mkdir(exist_ok=True)
    (OUT / "sandbox-cost.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = ["| query | after/before, filter installed | after/before, control |", "|---|---|---|"]
    lines += [f"| {name} | {r['filtered']} | {r['control']} |" for name, r in result.items()]
    (OUT / "sandbox-cost.md").write_text("\n".join(lines) + "\n")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
