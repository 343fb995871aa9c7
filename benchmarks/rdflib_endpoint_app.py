"""rdflib-endpoint over the same data as kg, for the HTTP benchmark (benchmarks/http_bench.py).

    python benchmarks/rdflib_endpoint_app.py --nq x.nq --port 8001

Loads kg's N-Quads export into an rdflib ``Dataset(default_union=True)``: a query without a dataset
sees the union of the named graphs, each triple once (rdflib's memory store keeps one triple with a
set of contexts), which is what kg's merged default graph holds. Serves SPARQL at /sparql with
uvicorn, one process (rdflib-endpoint's documented way to run). Listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import sys
import time


def main() -> None:
    """Load the N-Quads file, then serve it until stopped."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nq", required=True, help="N-Quads file (kg export --format nq)")
    parser.add_argument("--port", type=int, required=True, help="port on 127.0.0.1")
    args = parser.parse_args()

    import uvicorn
    from rdflib import Dataset
    from rdflib_endpoint import SparqlEndpoint

    started = time.perf_counter()
    dataset = Dataset(default_union=True)
    dataset.parse(args.nq, format="nquads")
    print(f"loaded {len(dataset)} triples (default union) in {time.perf_counter() - started:.1f} s",
          file=sys.stderr, flush=True)
    app = SparqlEndpoint(graph=dataset, path="/sparql", cors_enabled=False, title="rdflib-endpoint (benchmark)")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
