"""build(): sources → model → resolution → mapping → validation → reasoning → store."""

from __future__ import annotations

import hashlib
import resource
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import Graph, URIRef

from ..changes import precise_now
from ..config import Config
from ..edits import replay_edits
from ..errors import Location, SourceError, SourceErrors, ValidationFailed
from ..iris import Minter, graph_kind
from ..mapping import MappedGraphs, map_corpus
from ..mapping.cache import MapCache, MapStats, graph_digest, graph_size, map_corpus_cached
from ..model import Corpus
from ..parsing import parse_corpus
from ..reasoning import inferred_triples
from ..reasoning.rules import LocalRules, compile_rules, has_joins, unsupported_axioms
from ..records import read_records_dir
from ..resolution import BuildWarning, Conflict, Linking, Resolution, duplicate_errors, link, repeated_authors, resolve
from ..resolution.links import KeptApart
from ..search import derived_index_step, index_step
from ..sources import DataFiles, read_data_dir, require_data_dir
from ..store import OPTIMIZE_KEY, log_graphs, write_store
from ..store.lock import write_lock
from ..terms import to_ox
from ..turtle_files import load_turtle_dir
from ..validation import ValidationReport, validate_graphs
from .changes import PendingLog, pending_log
from .checking import validate_build, validate_full
from .incremental import (
    BuildState,
    GraphChange,
    TripleSets,
    current_version,
    graph_changes,
    inferred_change,
    is_large,
    load_state,
    most_graphs,
    save_state,
    uses_equality,
    write_diff,
)
from .parsed import ParseCache, read_corpus
from .quarantine import Quarantined, Screened, screen, write_quarantine

Progress = Callable[[str], None]


def _reference_sha(files: DataFiles) -> str:
    digest = hashlib.sha256()
    for doc in (files.organizations, files.venues):
        digest.update((doc.sha256 if doc else "").encode())
    return digest.hexdigest()


@dataclass
class LinkedData:
    """A data directory read, checked, resolved and linked, before mapping."""

    corpus: Corpus
    resolution: Resolution
    linking: Linking
    reference_sha: str
    repeated: tuple[BuildWarning, ...] = ()  # an author twice in one author list (kg.resolution.duplicates)
    skipped: tuple[BuildWarning, ...] = ()  # files in data/records/ no reader recognises

    @property
    def warnings(self) -> tuple[BuildWarning, ...]:
        """Every source-data warning: profiles (kg.resolution), records' own, and record linking."""
        records = [BuildWarning(Location(Path(w.origin.file), w.origin.line), w.message)  # the message names the place
                   for r in self.corpus.records for w in r.warnings]
        profiles = tuple(sorted(self.resolution.warnings + self.repeated,
                                key=lambda w: (str(w.location.path), w.location.line or 0)))
        return profiles + self.skipped + tuple(records) + tuple(self.linking.warnings)


def _read_corpus(config: Config, parsed: ParseCache | None) -> tuple[Corpus, str]:
    if parsed is not None:
        return read_corpus(config.data, parsed)
    files = read_data_dir(config.data)
    return parse_corpus(files), _reference_sha(files)


def read_linked(config: Config, parsed: ParseCache | None = None) -> LinkedData:
    """Read a data directory's profiles (unchanged ones from a parse cache when given) and records; resolve, link."""
    errors: list[SourceError] = []
    try:  # a file that cannot be read (or has a YAML syntax error) raises a SourceError at once
        corpus, reference_sha = _read_corpus(config, parsed)
    except SourceErrors as error:
        errors += error.errors
    try:
        records, skipped = read_records_dir(config.data)
    except SourceErrors as error:
        errors += error.errors
    if errors:
        raise SourceErrors(errors)
    corpus = replace(corpus, records=records)
    resolution = resolve(corpus)
    duplicates = duplicate_errors(corpus, resolution)  # before mapping: the shapes would word them in RDF terms
    if duplicates:
        raise SourceErrors(duplicates)
    linking = link(corpus, resolution, config.precedence)
    return LinkedData(corpus, resolution, linking, reference_sha, tuple(repeated_authors(corpus, resolution)),
                      tuple(BuildWarning(Location(Path(w.origin.file)), w.message) for w in skipped))


def map_data(config: Config) -> tuple[Corpus, MappedGraphs]:
    """Read, check, resolve and map a data directory."""
    data, mapped = _map_linked(config)
    return data.corpus, mapped


def _map_linked(config: Config) -> tuple[LinkedData, MappedGraphs]:
    data = read_linked(config)
    mapped = map_corpus(data.corpus, Minter(config.base), data.resolution, data.reference_sha, data.linking)
    return data, replay_edits(config, mapped)  # accepted HTTP edits (data/edits/edits.nq, see kg.edits)


def _map_cached(config: Config, cache: MapCache, parsed: ParseCache | None = None
                ) -> tuple[LinkedData, MappedGraphs, MapStats]:
    """map_data before the edits are replayed, with unchanged profiles read from the build cache (or parsed, a
    resident builder's cache kept in memory)."""
    if parsed is None:
        parsed = ParseCache(build_cache(config) / "parsed" if not config.remote else None)
    data = read_linked(config, parsed)
    mapped, stats = map_corpus_cached(data.corpus, Minter(config.base), data.resolution, data.reference_sha, cache,
                                      data.linking)
    return data, mapped, stats


def build_cache(config: Config) -> Path:
    """Where mapped profiles and the last build's state are kept between builds (beside the store)."""
    return config.store.absolute().parent / "cache" / "build"


def validate_data(config: Config) -> ValidationReport:
    """Map a data directory and validate it against the shapes."""
    return check_data(config)[0]


def check_data(config: Config) -> tuple[ValidationReport, tuple[BuildWarning, ...]]:
    """validate_data, with the source-data warnings that kg build reports too (kg.resolution, records, linking)."""
    data, mapped = _map_linked(config)
    report = validate_graphs(mapped, load_turtle_dir(config.shapes), load_turtle_dir(config.ontology))
    return report, data.warnings


def screen_data(config: Config) -> tuple[Screened, tuple[BuildWarning, ...]]:
    """check_data as kg build decides: record entities that violate the shapes quarantined, the rest validated."""
    data, mapped = _map_linked(config)
    shapes, ontology = load_turtle_dir(config.shapes), load_turtle_dir(config.ontology)
    report = validate_graphs(mapped, shapes, ontology)
    return screen(mapped, report, Minter(config.base), lambda m: validate_graphs(m, shapes, ontology)), data.warnings


@dataclass
class BuildResult:
    """What a build produced."""

    location: str
    triples: dict[str, int]
    report: ValidationReport
    seconds: dict[str, float] = field(default_factory=dict)
    warnings: tuple[BuildWarning, ...] = ()  # source-data warnings (kg.resolution); SHACL warnings are in report
    conflicts: tuple[Conflict, ...] = ()  # where downloaded records and profiles disagree (kg.resolution.linking)
    changes: Any = None  # what changed since the previous version (kg.changes.BuildChanges); None when remote
    quarantined: tuple[Quarantined, ...] = ()  # record entities left out for violating the shapes
    kept_apart: tuple[KeptApart, ...] = ()  # record people a similar name did not merge (kg.resolution.people)


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class BuildCaches:
    """The parse and map caches a resident builder (kg.pipeline.resident) keeps in memory between builds, and the
    shapes and ontology it read (by folder, with the stats of their files)."""

    parsed: ParseCache
    mapped: MapCache
    turtle: dict[Path, tuple[tuple[tuple[str, int, int, int], ...], Graph]] = field(default_factory=dict)

    def load_turtle(self, folder: Path) -> Graph:
        """load_turtle_dir, read again only when a file of the folder was added, removed or changed (the graphs
        are only read by a build)."""
        files = sorted(folder.glob("*.ttl")) if folder.is_dir() else []
        stats = tuple((f.name, (s := f.stat()).st_mtime_ns, s.st_size, s.st_ino) for f in files)
        known = self.turtle.get(folder)
        if known is None or known[0] != stats:
            known = (stats, load_turtle_dir(folder))
            self.turtle[folder] = known
        return known[1]


def build(config: Config, progress: Progress | None = None, reasoner: str = "rules",
          caches: BuildCaches | None = None) -> BuildResult:
    """Run the whole pipeline and swap the new store in; any failure leaves the old store untouched."""
    require_data_dir(config.data)  # before the lock: a missing data/ must leave no .kg/ behind
    with write_lock(config.store):  # one writer at a time: HTTP writes (kg.writes) wait for the build
        return _build(config, progress, reasoner, caches)


def _build(config: Config, progress: Progress | None, reasoner: str, caches: BuildCaches | None) -> BuildResult:
    say = progress or (lambda message: None)
    started = precise_now()
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def stage(name: str, note: str = "") -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round(now - clock, 3)
        clock = now
        detail = f"  ({note})" if note else ""
        say(f"{name:<9} {timings[name]:8.2f} s{detail}  peak {peak_memory_mb():8.1f} MB")

    local = not config.remote
    folder = build_cache(config)
    cache = caches.mapped if caches is not None else MapCache(folder / "map" if local else None)
    data, raw, stats = _map_cached(config, cache, caches.parsed if caches is not None else None)
    corpus, warnings = data.corpus, data.warnings
    mapped = replay_edits(config, raw)  # accepted HTTP edits (data/edits/edits.nq, see kg.edits)
    stage("map", f"{stats.cached} of {stats.profiles} profiles cached")
    turtle = caches.load_turtle if caches is not None else load_turtle_dir
    ontology = turtle(config.ontology)
    ids = {str(iri): stats.content_ids[iri] if graph is raw.graphs.get(iri) and iri in stats.content_ids
           else graph_digest(graph) for iri, graph in mapped.graphs.items()}
    state = BuildState("", uuid.uuid4().hex, config.base, graph_digest(ontology), reasoner, ids, {})
    shapes = turtle(config.shapes)
    sets = TripleSets()  # the changed graphs' triples, converted once for validation, the change record, reasoning
    report, how = validate_build(config, mapped, shapes, ontology, state, folder, sets)
    screened = screen(mapped, report, Minter(config.base),
                      lambda m: validate_full(config, m, shapes, ontology, _regraphed(state, ids, m)))
    mapped, report = screened.mapped, screened.report
    stage("validate", how + (f", {len(screened.quarantined)} record entities quarantined"
                             if screened.quarantined else ""))
    if not report.passes:
        raise ValidationFailed(report)
    metadata_quarantine = [q.as_json() for q in screened.quarantined]
    metadata: dict[str, object] = {"base": config.base, "profiles": len(corpus.profiles), "build_id": state.build_id,
                                   "sources": {str(k): v for k, v in sorted(mapped.sources.items())}, "graph_ids": ids,
                                   "quarantined": metadata_quarantine}
    log = pending_log(config, mapped, ids, state.build_id, started, sets)  # kg.pipeline.changes: what changed
    written = _incremental(config, mapped, ontology, state, metadata, stage, log, sets) if local else None
    if written is None:
        written = _full(config, mapped, ontology, reasoner, metadata, stage, log)
        state.counts, state.version = written[1], Path(written[0]).name
    if local:
        save_state(folder, state)
        cache.prune()
    write_quarantine(quarantine_file(config), screened.held)
    return BuildResult(written[0], written[1], report, timings, warnings, tuple(data.linking.conflicts),
                       log.changes if log else None, screened.quarantined, tuple(data.linking.kept_apart))


def quarantine_file(config: Config) -> Path:
    """Where a build keeps what it quarantined, as N-Quads: beside the store (STORE.quarantine.nq)."""
    store = config.store.absolute()
    return store.with_name(f"{store.name}.quarantine.nq")


def _regraphed(state: BuildState, ids: dict[str, str], mapped: MappedGraphs) -> BuildState:
    """The build state with the content ids of the graphs a quarantine changed (ids is updated in place)."""
    ids.update({str(iri): graph_digest(graph) for iri, graph in mapped.graphs.items()
                if graph_kind(str(iri)) == "record"})
    return state


def _incremental(config: Config, mapped: MappedGraphs, ontology: Graph, state: BuildState, metadata: dict[str, object],
                 stage: Callable[..., None], log: PendingLog | None,
                 sets: TripleSets | None = None) -> tuple[str, dict[str, int]] | None:
    """Reason and store only what changed since the last build (kg.pipeline.incremental), or None when that is not
    exact."""
    previous = load_state(build_cache(config))
    source = current_version(config.store, previous)
    if previous is None or source is None or (previous.base, previous.ontology, previous.reasoner) != \
            (state.base, state.ontology, state.reasoner) or state.reasoner != "rules":
        return None
    rules = compile_rules(ontology)
    if has_joins(rules) or unsupported_axioms(ontology):
        return None
    minter = Minter(config.base)
    inferred_iri, ontology_iri = str(minter.graph("inferred")), str(minter.graph("ontology"))
    oxstore = ox.Store.read_only(str(source))
    changed = {iri for iri in set(state.graphs) | set(previous.graphs)
               if state.graphs.get(iri) != previous.graphs.get(iri)}
    if most_graphs(changed, len(previous.graphs)):
        return None  # every graph re-mapped (a new kg version, say): one full pass is several times faster
    changes = graph_changes(oxstore, changed, mapped.graphs, sets, str(source))
    asserted_total = sum(n for iri, n in previous.counts.items() if iri not in (inferred_iri, ontology_iri))
    if is_large(changes, asserted_total) or uses_equality(oxstore, changes):
        return None  # owl:sameAs joins triples: the local path would not be exact
    added, removed = inferred_change(oxstore, changes, ontology, LocalRules(rules),
                                     {inferred_iri, ontology_iri, *log_graphs(oxstore)}, inferred_iri)
    del oxstore
    stage("reason", f"incremental: {len(changes)} graphs changed, inferred +{len(added)} -{len(removed)}")
    changes[inferred_iri] = GraphChange(removed, added)
    triples = {str(iri): graph_size(graph) for iri, graph in mapped.graphs.items()}
    triples[ontology_iri] = len(ontology)
    triples[inferred_iri] = previous.counts.get(inferred_iri, 0) + len(added) - len(removed)
    triples = dict(sorted(triples.items()))
    if log is not None:
        changes.update(log.diff())
        metadata["changes"] = log.changes.metadata()
    metadata.update(built_at=_now(), triples=triples)
    subjects = {t.subject for change in changes.values() for t in change.old ^ change.new}
    finish = derived_index_step(source, minter.id_space, subjects, metadata) if config.search_index else None
    location = write_diff(config.store, source, changes, metadata, finish)
    stage("store", f"checkpoint + {sum(len(c.old ^ c.new) for c in changes.values())} changed quads")
    state.counts, state.version = triples, location.name
    return str(location), triples


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _full(config: Config, mapped: MappedGraphs, ontology: Graph, reasoner: str, metadata: dict[str, object],
          stage: Callable[..., None], log: PendingLog | None = None) -> tuple[str, dict[str, int]]:
    """Reason over everything and write a fresh store version (or push to the remote store)."""
    minter = Minter(config.base)
    inferred = inferred_triples(mapped.graphs.values(), ontology, reasoner)
    stage("reason", "full")
    graphs: dict[URIRef, Any] = dict(mapped.graphs)
    graphs[minter.graph("ontology")] = ontology
    graphs[minter.graph("inferred")] = inferred
    triples = {str(iri): len(graph) for iri, graph in sorted(graphs.items())}
    metadata.update(built_at=_now(), triples=triples)
    if config.remote:
        location = push_graphs(config, graphs, metadata)
    else:
        records = log.finish() if log is not None else {}
        if log is not None:
            metadata["changes"] = log.changes.metadata()
        finish = index_step(minter.id_space, metadata) if config.search_index else None
        location = str(write_store(config.store, {**graphs, **{URIRef(g): t for g, t in records.items()}}, metadata,
                                   finish))
    stage("store", "full write" if config.remote else f"full write, optimized in {metadata.get(OPTIMIZE_KEY, 0):.2f} s")
    return location, triples


def push_graphs(config: Config, graphs: dict[URIRef, Any], metadata: dict[str, object]) -> str:
    """Push the graphs into the configured remote store (kg.store.push); returns where they went."""
    from ..store.client import RemoteLocation, SparqlClient
    from ..store.push import push

    client = SparqlClient(RemoteLocation.from_config(config))
    try:
        triples = {str(iri): (ox.Triple(to_ox(s), to_ox(p), to_ox(o)) for s, p, o in graph)
                   for iri, graph in graphs.items()}
        manifest = push(client, config.base, triples, metadata)
    finally:
        client.close()
    return f"{config.store_url} (version {manifest.version})"
