"""The embedded pyoxigraph store: named graphs plus their merge as default graph, swapped in atomically.

Layout: ``STORE`` is a symlink to ``STORE.v<N>``; a full build writes ``STORE.v<N+1>`` completely, compacts it
(``optimize``), then replaces the symlink in one rename, so readers see the old store or the new one, never a
mix. Versions derived from another (incremental builds, HTTP writes) share its files by hard links and are not
compacted: that would rewrite every file. The
default graph holds the set union of all named graphs, so queries without a dataset see each
triple once (pyoxigraph's union-default-graph mode would repeat triples present in two graphs).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import Graph, URIRef

from ..atomic_files import fsync_path, swap_symlink
from ..errors import BuildError, StoreMissing
from ..terms import OxGraphName, OxObject, OxSubject, bulk_extend_chunked, from_ox, to_ox
from .protocol import DefaultGraphs, GraphStore, NamedGraphs

METADATA_FILE = "kg-build.json"
KEEP_VERSIONS = 2
OPTIMIZE_KEY = "optimize_seconds"


def graph_quads(graph_iri: URIRef, graph: Iterable[Any]) -> Iterator[ox.Quad]:
    """The triples of an rdflib graph (or any iterable of rdflib triples) as quads in a named graph."""
    name = ox.NamedNode(str(graph_iri))
    for s, p, o in graph:
        yield ox.Quad(to_ox(s), to_ox(p), to_ox(o), name)


def is_log_graph(iri: str) -> bool:
    """Whether a named graph is a build's change record (kept out of the default graph and of graph_names).

    The rule of kg.iris.graph_kind, kept here so that query workers load no more of kg than they need.

    >>> is_log_graph("https://kg.example.org/graph/changes/ab12"), is_log_graph("https://x.org/graph/profile/ada")
    (True, False)
    """
    head, found, tail = iri.rpartition("/graph/")
    return bool(found and head) and tail.startswith("changes/")


def log_graphs(oxstore: ox.Store) -> list[str]:
    """IRIs of the change-record graphs in a pyoxigraph store (one per build, and the moved IRIs'), sorted."""
    return sorted(g.value for g in oxstore.named_graphs() if isinstance(g, ox.NamedNode) and is_log_graph(g.value))


def store_versions(store_dir: Path) -> list[tuple[int, Path]]:
    """The kept versions ``STORE.v<N>`` beside a store link, oldest first, as (N, directory)."""
    return _versions(store_dir)


def _versions(store_dir: Path) -> list[tuple[int, Path]]:
    pattern = re.compile(re.escape(store_dir.name) + r"\.v(\d+)$")
    found = []
    if store_dir.parent.is_dir():
        for child in store_dir.parent.iterdir():
            match = pattern.match(child.name)
            if match and child.is_dir():
                found.append((int(match.group(1)), child))
    return sorted(found)


class Store:
    """A built knowledge-graph store: query it, list its graphs, read its build metadata."""

    def __init__(self, oxstore: ox.Store, path: Path | None = None, metadata: dict[str, Any] | None = None) -> None:
        self.ox = oxstore
        self.path = path
        self.metadata = metadata or {}

    @classmethod
    def open(cls, store_dir: Path, *, read_only: bool = True) -> Store:
        """Open the current version of a built store."""
        target = store_dir.resolve()
        if not (target / METADATA_FILE).exists():
            raise StoreMissing(f"no built store at {store_dir}; run 'kg build' first")
        metadata = json.loads((target / METADATA_FILE).read_text(encoding="utf-8"))
        oxstore = ox.Store.read_only(str(target)) if read_only else ox.Store(str(target))
        return cls(oxstore, target, metadata)

    @classmethod
    def in_memory(cls, graphs: dict[URIRef, Graph], metadata: dict[str, Any] | None = None) -> Store:
        """A store held in memory, filled with named graphs and their merge as default graph."""
        oxstore = ox.Store()
        _fill(oxstore, graphs)
        return cls(oxstore, None, metadata)

    @property
    def version(self) -> str:
        """What identifies this version of the data (for cache keys)."""
        return str(self.path) if self.path is not None else f"memory-{id(self)}"

    def quads_for_pattern(self, subject: OxSubject | None, predicate: ox.NamedNode | None, obj: OxObject | None,
                          graph_name: OxGraphName | None = None) -> Iterator[ox.Quad]:
        """Quads matching a pattern (None matches anything; the default graph is the merge)."""
        return self.ox.quads_for_pattern(subject, predicate, obj, graph_name)

    def query(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None,
              default_graph: DefaultGraphs | None = None, named_graphs: NamedGraphs | None = None
              ) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        """Run a SPARQL query (the default graph is the merge of all graphs unless a dataset is given)."""
        return self.ox.query(sparql, base_iri=base_iri, prefixes=prefixes, default_graph=default_graph,
                             named_graphs=named_graphs)

    def graph_names(self) -> list[str]:
        """IRIs of the data's named graphs (not the builds' change records), sorted."""
        return sorted(g.value for g in self.ox.named_graphs() if isinstance(g, ox.NamedNode)
                      and not is_log_graph(g.value))

    def log_graph_names(self) -> list[str]:
        """IRIs of the builds' change-record graphs (kg.changes), sorted."""
        return log_graphs(self.ox)

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """Quads of one named graph, or of all named graphs."""
        if graph is None:
            for name in self.graph_names():
                yield from self.ox.quads_for_pattern(None, None, None, ox.NamedNode(name))
        else:
            yield from self.ox.quads_for_pattern(None, None, None, ox.NamedNode(graph))

    def triple_count(self, graph: str) -> int:
        """How many triples one named graph holds."""
        return sum(1 for _ in self.ox.quads_for_pattern(None, None, None, ox.NamedNode(graph)))

    def default_triples(self) -> Iterator[ox.Triple]:
        """Triples of the default graph (the merge of all named graphs)."""
        for quad in self.ox.quads_for_pattern(None, None, None, ox.DefaultGraph()):
            yield quad.triple

    def rdflib_graph(self, graph: str | None = None) -> Graph:
        """One named graph, or the merge of all, as an rdflib Graph."""
        return rdflib_graph_of(self.default_triples() if graph is None else (q.triple for q in self.quads(graph)))


def log_graph_names_of(store: GraphStore) -> list[str]:
    """The builds' change-record graphs of a store, sorted: an embedded store keeps them, a remote one none."""
    return store.log_graph_names() if isinstance(store, Store) else []


def rdflib_graph_of(triples: Iterable[ox.Triple]) -> Graph:
    """pyoxigraph triples as an rdflib Graph."""
    result = Graph()
    for t in triples:
        result.add((from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)))
    return result


def _all_quads(graphs: dict[URIRef, Any]) -> Iterator[ox.Quad]:
    """Every named-graph quad, each followed by its copy in the default graph (the merge; not for change records)."""
    default = ox.DefaultGraph()
    for graph_iri in sorted(graphs):
        merged = not is_log_graph(str(graph_iri))
        for quad in graph_quads(graph_iri, graphs[graph_iri]):
            yield quad
            if merged:
                yield ox.Quad(quad.subject, quad.predicate, quad.object, default)


def _fill(oxstore: ox.Store, graphs: dict[URIRef, Any], bulk: bool = False) -> None:
    """Load graphs and their merge; bulk loading (no transaction) is for fresh on-disk versions."""
    if bulk:
        bulk_extend_chunked(oxstore, _all_quads(graphs))
    else:
        oxstore.extend(_all_quads(graphs))


def optimize(oxstore: ox.Store, metadata: dict[str, Any]) -> None:
    """Compact a finished version before readers see it (RocksDB compaction, as ``oxigraph optimize`` does).

    A bulk load leaves unmerged files behind; compacting made a name lookup 1.7x and a text filter 1.45x faster at
    1M, a GROUP BY no faster (docs/benchmarks.md). Records the seconds it took as ``metadata[OPTIMIZE_KEY]``.
    """
    start = time.perf_counter()
    oxstore.flush()
    oxstore.optimize()
    metadata[OPTIMIZE_KEY] = round(time.perf_counter() - start, 3)


Finish = Callable[[ox.Store, Path], None]  # adds files to a version before it becomes current (the search index)


def write_store(store_dir: Path, graphs: dict[URIRef, Any], metadata: dict[str, Any],
                finish: Finish | None = None) -> Path:
    """Write graphs into a fresh store version, compact it, run finish(store, version directory) and switch the
    store symlink to it atomically.

    The metadata written with it gains ``OPTIMIZE_KEY`` (the dictionary passed in is updated).
    """
    store_dir = store_dir.absolute()
    store_dir.parent.mkdir(parents=True, exist_ok=True)
    if store_dir.exists() and not store_dir.is_symlink():
        raise BuildError(f"{store_dir} exists and is not a kg store link; move it away or choose --store")
    versions = _versions(store_dir)
    number = versions[-1][0] + 1 if versions else 1
    target = store_dir.parent / f"{store_dir.name}.v{number}"
    try:
        oxstore = ox.Store(str(target))
        _fill(oxstore, graphs, bulk=True)
        optimize(oxstore, metadata)
        if finish is not None:
            finish(oxstore, target)
        del oxstore
        (target / METADATA_FILE).write_text(json.dumps(metadata, indent=2, sort_keys=True), encoding="utf-8")
        swap_symlink(store_dir, target.name)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    for _, old in _versions(store_dir)[:-KEEP_VERSIONS]:
        shutil.rmtree(old, ignore_errors=True)
    return target


# --- derived versions: a copy of the current version with a change applied (used by kg.writes) ----------

RECENT_SECONDS = 300.0


def fsync_tree(root: Path, skip_shared: bool = False) -> None:
    """Flush every file under root, then the directories, so a crash cannot leave them half on disk.

    With skip_shared, files with other hard links (shared with the version a checkpoint was taken from, and
    flushed with it) are skipped.
    """
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if not (skip_shared and path.stat().st_nlink > 1):
                fsync_path(path)
        fsync_path(Path(folder))


def derive_version(store_dir: Path, source: Path, apply: Callable[[ox.Store], object], metadata: dict[str, Any],
                   files: dict[str, str] | None = None, keep_seconds: float = RECENT_SECONDS,
                   finish: Finish | None = None) -> Path:
    """Write ``STORE.v<N+1>`` as a checkpoint of the version ``source`` (hard links, not a rewrite) changed by
    ``apply(ox.Store)`` and completed by ``finish(ox.Store, directory)``, flush it to disk, then switch the store
    symlink to it in one rename. It is not compacted:
    compacting rewrites the shared files (0.4 s at 100k, seconds at 1M, and a full copy on disk per version).

    Until the rename nothing is visible; a failure or a crash before it leaves the current version serving.
    Old versions are removed except the newest KEEP_VERSIONS and any changed in the last keep_seconds
    (a server may still be reading those). Returns the new version directory.
    """
    store_dir = store_dir.absolute()
    versions = _versions(store_dir)
    number = versions[-1][0] + 1 if versions else 1
    target = store_dir.parent / f"{store_dir.name}.v{number}"
    try:
        ox.Store.read_only(str(source)).backup(str(target))
        oxstore = ox.Store(str(target))
        apply(oxstore)
        oxstore.flush()
        if finish is not None:
            finish(oxstore, target)
        del oxstore
        (target / METADATA_FILE).write_text(json.dumps(metadata, indent=2, sort_keys=True), encoding="utf-8")
        for name, text in (files or {}).items():
            (target / name).write_text(text, encoding="utf-8")
        fsync_tree(target, skip_shared=True)
        swap_symlink(store_dir, target.name, durable=True)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    now = time.time()
    for _, old in _versions(store_dir)[:-KEEP_VERSIONS]:
        try:
            if old != target and now - old.stat().st_mtime > keep_seconds:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue
    return target
