"""Accepted HTTP edits as a file beside the YAML sources, so that `kg build` replays them.

``<data>/edits/edits.nq`` is the difference between what the YAML files give and what the HTTP writes made of
it, as one deterministic N-Quads file (sorted lines, replaced atomically):

* a quad in any graph ``G`` is an **addition** to ``G`` (``<base>/graph/edits`` for triples written to the
  default graph, a client's own graph IRI for Graph Store writes, or a YAML-derived graph);
* a quad in ``<base>/graph/retracted/profile/<id>`` (or ``…/retracted/reference``) is a **retraction**: the
  triple was deleted over HTTP from ``<base>/graph/profile/<id>`` (or ``…/reference``) and stays deleted
  when the YAML files still produce it.

The rebuilt asserted graphs are ``(YAML graphs − retractions) ∪ additions``. Only YAML-derived graphs have
retractions; every other graph lives entirely in the additions. One file keeps additions and retractions
consistent: it is replaced in one rename, so a crash leaves the old file or the new one. Writers change it under the
store's write lock (kg.store.lock).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph, URIRef
from rdflib.term import Node

from .atomic_files import fsync_path, write_atomically
from .config import Config
from .errors import KgError, Location, SourceError
from .iris import GraphNames, Minter
from .mapping import MappedGraphs
from .namespaces import bind_prefixes
from .store import Store
from .terms import from_ox

EDITS_DIR = "edits"
EDITS_FILE = "edits.nq"
Triple = ox.Triple


@dataclass
class EditSet:
    """Additions and retractions as (graph IRI, triple) pairs; the file is their sorted N-Quads."""

    names: GraphNames
    added: set[tuple[str, Triple]] = field(default_factory=set)
    retracted: set[tuple[str, Triple]] = field(default_factory=set)

    def record(self, before: dict[str, set[Triple]], after: dict[str, set[Triple]]) -> None:
        """Fold one write (asserted graphs before and after it) into the set."""
        for graph in set(before) | set(after):
            old, new = before.get(graph, set()), after.get(graph, set())
            for triple in new - old:
                self.added.add((graph, triple))
                self.retracted.discard((graph, triple))
            for triple in old - new:
                self.added.discard((graph, triple))
                if self.names.from_yaml(graph):
                    self.retracted.add((graph, triple))

    def quads(self) -> list[ox.Quad]:
        """Every addition and retraction as a quad (retractions in their retraction graphs)."""
        found = [ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(g)) for g, t in self.added]
        found += [ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(self.names.retraction_graph(g)))
                  for g, t in self.retracted]
        return found

    def text(self) -> str:
        """The deterministic file content: one N-Quads line per quad, sorted."""
        return "".join(sorted(f"{q} .\n" for q in self.quads()))

    def digest(self) -> str:
        """SHA-256 of the file content."""
        return hashlib.sha256(self.text().encode("utf-8")).hexdigest()


def edits_file(data_dir: Path) -> Path:
    """Where the edits of a data directory are kept."""
    return data_dir / EDITS_DIR / EDITS_FILE


def read_edits(path: Path, names: GraphNames) -> EditSet:
    """The edit set in a file (empty when there is none)."""
    if not path.exists():
        return EditSet(names)
    return parse_edits(path.read_text(encoding="utf-8"), names, path)


def parse_edits(text: str, names: GraphNames, path: Path) -> EditSet:
    """The edit set in the text of an edits file.

    Raises:
        SourceError: the text is not N-Quads, or holds quads in the default, inferred or ontology graph.
    """
    edits = EditSet(names)
    try:
        quads = list(ox.parse(text.encode("utf-8"), format=ox.RdfFormat.N_QUADS))
    except SyntaxError as error:
        raise SourceError(Location(path), f"not valid N-Quads: {error}") from None
    for number, quad in enumerate(quads, 1):
        graph = quad.graph_name
        if not isinstance(graph, ox.NamedNode) or graph.value in (names.inferred, names.ontology):
            raise SourceError(Location(path, number), "edits must name a writable graph (not the default, "
                                                       "inferred or ontology graph)")
        if graph.value.startswith(names.retracted_prefix):
            edits.retracted.add((names.retracted_from(graph.value), quad.triple))
        else:
            edits.added.add((graph.value, quad.triple))
    return edits


def _atomic_write(path: Path, data: bytes) -> None:
    """Replace a file in one rename after flushing its new content (and then its folder) to disk."""
    write_atomically(path, data, durable=True)


def write_edits(path: Path, edits: EditSet) -> None:
    """Replace the edits file atomically (an empty file when no edit is left)."""
    _atomic_write(path, edits.text().encode("utf-8"))


def restore_edits(path: Path, previous: bytes | None) -> None:
    """Put back the edits file as it was before a write that did not commit (None: there was none)."""
    if previous is None:
        path.unlink(missing_ok=True)
    else:
        _atomic_write(path, previous)


# --- a write between persisting its edits and switching the store -----------------------------------------
#
# A write records its edits before it switches the store link, so that no committed write can be missing
# from edits.nq. Until the switch, ``edits.nq.pending`` holds the digest the new version will record and the
# file's previous content. A crash in between leaves the marker; the next write (or build) looks at the
# current version: if it records that digest the write committed, otherwise the previous content is the truth.

def pending_path(path: Path) -> Path:
    """The marker of a write in progress, beside the edits file."""
    return path.parent / f"{path.name}.pending"


def mark_pending(path: Path, digest: str, previous: bytes | None) -> None:
    """Record, before the edits file changes, what it held and what the committed version will record."""
    marker = {"digest": digest, "previous": previous.decode("utf-8") if previous is not None else None}
    _atomic_write(pending_path(path), json.dumps(marker).encode("utf-8"))


def clear_pending(path: Path) -> None:
    """The write committed (or was undone): forget the marker."""
    pending_path(path).unlink(missing_ok=True)


def interrupted_write(path: Path, committed_digest: str | None) -> bytes | None | bool:
    """After a crash between persisting edits and the store switch: the edits file content to go back to
    (bytes, or None for no file). False when there is nothing to undo (no marker, or the write committed)."""
    marker_file = pending_path(path)
    if not marker_file.exists():
        return False
    try:
        marker = json.loads(marker_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if marker.get("digest") == committed_digest:
        return False
    previous = marker.get("previous")
    return previous.encode("utf-8") if previous is not None else None


@contextmanager
def pending_edits(path: Path, edits: EditSet, previous: bytes | None) -> Iterator[None]:
    """Persist a write's edits (marker first, then the file) for a store switch done in the block; if anything
    fails, put the file back as it was and drop the marker, so nothing changed (hold the write lock).

    The previous file is kept as a hard link while the block runs, so that undoing is a rename that needs no
    free space (a full disk must not keep the edits of a write that did not commit). If even that fails, the
    marker stays and the next write or build undoes the edits (recover_edits, current_edits_text).
    """
    backup = path.parent / f".{path.name}.{os.getpid()}.previous"
    for stale in path.parent.glob(f".{path.name}.*") if path.parent.is_dir() else ():
        if stale.suffix in (".tmp", ".previous"):  # left by a writer that was killed (we hold the lock)
            stale.unlink(missing_ok=True)
    try:
        mark_pending(path, edits.digest(), previous)
        if previous is not None:
            try:
                os.link(path, backup)
            except OSError:
                pass  # no hard links here: undoing rewrites the previous content instead
        write_edits(path, edits)
        yield
    except BaseException:
        try:
            if previous is None:
                path.unlink(missing_ok=True)
            elif backup.exists():
                os.replace(backup, path)
                fsync_path(path.parent)
            elif not path.exists() or path.read_bytes() != previous:
                _atomic_write(path, previous)
            clear_pending(path)
        except OSError:
            pass  # the marker stays: recover_edits undoes the edits before the next write or build
        raise
    else:
        clear_pending(path)
    finally:
        backup.unlink(missing_ok=True)


def recover_edits(path: Path, committed_digest: str | None) -> None:
    """Undo the edits of a write that was interrupted before its store switch (hold the write lock)."""
    undo = interrupted_write(path, committed_digest)
    if undo is not False:
        restore_edits(path, undo)  # type: ignore[arg-type]
    clear_pending(path)


def current_edits_text(config: Config) -> str | None:
    """The edits that hold for the current store: edits.nq, unless a write was interrupted before its switch."""
    path = edits_file(config.data)
    committed: str | None = None
    try:
        committed = Store.open(config.store).metadata.get("edits_sha256")
    except KgError:
        committed = None
    undo = interrupted_write(path, committed)
    if undo is not False:
        return undo.decode("utf-8") if isinstance(undo, bytes) else None
    return path.read_text(encoding="utf-8") if path.exists() else None


def replay_edits(config: Config, mapped: MappedGraphs) -> MappedGraphs:
    """The mapped YAML graphs with the persisted HTTP edits applied (the `kg build` hook).

    Retractions remove triples from the YAML-derived graphs, additions add triples (creating graphs such as
    ``<base>/graph/edits``). Graphs left empty are dropped. Without an edits file, ``mapped`` is returned as is.
    """
    text = current_edits_text(config)
    if text is None:
        return mapped
    names = GraphNames(Minter(config.base).base)
    edits = parse_edits(text, names, edits_file(config.data))
    graphs = dict(mapped.graphs)
    sources = dict(mapped.sources)
    for graph in sorted({g for g, _ in edits.retracted} | {g for g, _ in edits.added}):
        iri, copy = URIRef(graph), bind_prefixes(Graph())
        if iri in graphs:
            copy += graphs[iri]
        else:
            sources[iri] = f"{EDITS_DIR}/{EDITS_FILE}"
        graphs[iri] = copy
    for graph, triple in edits.retracted:
        graphs[URIRef(graph)].remove(_rdflib(triple))
    for graph, triple in edits.added:
        graphs[URIRef(graph)].add(_rdflib(triple))
    graphs = {iri: graph for iri, graph in graphs.items() if len(graph)}
    return MappedGraphs(graphs, mapped.origins, {k: v for k, v in sources.items() if k in graphs})


def _rdflib(triple: Triple) -> tuple[Node, Node, Node]:
    return from_ox(triple.subject), from_ox(triple.predicate), from_ox(triple.object)


__all__ = ["EditSet", "GraphNames", "clear_pending", "current_edits_text", "edits_file", "mark_pending", "parse_edits",
           "pending_edits", "read_edits", "recover_edits", "replay_edits", "restore_edits", "write_edits"]
