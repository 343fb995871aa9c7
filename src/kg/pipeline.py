"""build(): sources → model → resolution → mapping → validation → reasoning → store."""

from __future__ import annotations

import hashlib
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph, URIRef

from .config import Config
from .errors import ValidationFailed
from .iris import Minter
from .mapping import MappedGraphs, map_corpus
from .model import Corpus, parse_corpus
from .reasoning import infer
from .resolve import resolve
from .sources import DataFiles, load_turtle_dir, read_data_dir
from .store import to_ox, write_store
from .validation import ValidationReport, validate_graphs
from .validation_shards import validate_sharded
from .writes_edits import replay_edits, write_lock

Progress = Callable[[str], None]


def _reference_sha(files: DataFiles) -> str:
    digest = hashlib.sha256()
    for doc in (files.organizations, files.venues):
        digest.update((doc.sha256 if doc else "").encode())
    return digest.hexdigest()


def map_data(config: Config) -> tuple[Corpus, MappedGraphs]:
    """Read, check, resolve and map a data directory."""
    files = read_data_dir(config.data)
    corpus = parse_corpus(files)
    mapped = map_corpus(corpus, Minter(config.base), resolve(corpus), _reference_sha(files))
    return corpus, replay_edits(config, mapped)  # accepted HTTP edits (data/edits/edits.nq, see kg.writes_edits)


def validation_cache(config: Config) -> Path:
    """Where validation reports of unchanged shards are kept between builds (beside the store)."""
    return config.store.absolute().parent / "cache" / "validation"


def validate_data(config: Config) -> ValidationReport:
    """Map a data directory and validate it against the shapes."""
    _, mapped = map_data(config)
    return validate_graphs(mapped, load_turtle_dir(config.shapes), load_turtle_dir(config.ontology))


@dataclass
class BuildResult:
    """What a build produced."""

    location: str
    triples: dict[str, int]
    report: ValidationReport
    seconds: dict[str, float] = field(default_factory=dict)


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(config: Config, progress: Progress | None = None, reasoner: str = "rules") -> BuildResult:
    """Run the whole pipeline and swap the new store in; any failure leaves the old store untouched."""
    with write_lock(config.store):  # one writer at a time: HTTP writes (kg.writes) wait for the build
        return _build(config, progress, reasoner)


def _build(config: Config, progress: Progress | None, reasoner: str) -> BuildResult:
    say = progress or (lambda message: None)
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def stage(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round(now - clock, 3)
        clock = now
        say(f"{name:<9} {timings[name]:8.2f} s  peak {peak_memory_mb():8.1f} MB")

    corpus, mapped = map_data(config)
    stage("map")
    ontology = load_turtle_dir(config.ontology)
    report = validate_sharded(mapped, load_turtle_dir(config.shapes), ontology,
                              reference=Minter(config.base).graph("reference"), cache_dir=validation_cache(config))
    stage("validate")
    if not report.conforms:
        raise ValidationFailed(report)
    asserted = Graph()
    for graph in mapped.graphs.values():
        asserted += graph
    minter = Minter(config.base)
    inferred = infer(asserted, ontology, reasoner)
    stage("reason")
    graphs: dict[URIRef, Graph] = dict(mapped.graphs)
    graphs[minter.graph("ontology")] = ontology
    graphs[minter.graph("inferred")] = inferred
    triples = {str(iri): len(graph) for iri, graph in sorted(graphs.items())}
    metadata = {"built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "base": config.base,
                "triples": triples, "profiles": len(corpus.profiles),
                "sources": {str(k): v for k, v in sorted(mapped.sources.items())}}
    if config.store_url:
        location = push_graphs(config, graphs, metadata)
    else:
        location = str(write_store(config.store, graphs, metadata))
    stage("store")
    return BuildResult(location, triples, report, timings)


def push_graphs(config: Config, graphs: dict[URIRef, Graph], metadata: dict[str, object]) -> str:
    """Push the graphs into the configured remote store (kg.remote_push); returns where they went."""
    from .remote_client import RemoteLocation, SparqlClient
    from .remote_push import push

    client = SparqlClient(RemoteLocation.from_config(config))
    try:
        triples = {str(iri): (ox.Triple(to_ox(s), to_ox(p), to_ox(o)) for s, p, o in graph)
                   for iri, graph in graphs.items()}
        manifest = push(client, config.base, triples, metadata)
    finally:
        client.close()
    return f"{config.store_url} (version {manifest.version})"
