"""Guarded writes: apply a change to a copy of the store, validate, re-reason, persist, then swap atomically.

One write, under the store's write lock (``fcntl.flock``, so one writer at a time across processes):

1. read the current version (all quads, with their blank-node labels) and copy it into an in-memory store;
2. apply the change there: a SPARQL 1.1 Update, or a Graph Store Protocol PUT / POST / DELETE;
3. reconcile: the default graph is the merge of the named graphs, so triples the change added to the default
   graph go to ``<base>/graph/edits`` and triples it deleted from the default graph are deleted from every
   named graph that held them; the derived graphs (inferred, ontology) cannot be written and are rebuilt;
4. validate the asserted graphs against the shapes; the write is rejected (422, nothing changes) when it
   introduces a SHACL result of severity Violation that the current version does not have (results already
   present before the write do not block it);
5. re-reason from scratch (the rule engine on all asserted triples, ~50 ms on the seed graph), so the inferred
   graph always equals a full re-reasoning and inferences whose support was deleted disappear;
6. record the difference from the YAML sources in ``<data>/edits/edits.nq`` (see kg.edits), so that
   `kg build` replays it, with a marker that lets the next write undo it if the switch below never happens;
7. write the next store version (a checkpoint of the current one plus the quad difference, and its search index
   with the entities the change touches re-indexed), flush it to disk and switch the store symlink in one rename
   (kg.store.derive_version). Readers see the old version or the new one; a crash leaves a complete version.

A full disk or quota (ENOSPC, EDQUOT, EFBIG) at any step raises DiskFull (507): the edits file is put back,
the half-written version and every temporary file are removed, and the current version keeps serving.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import Graph

from ..config import Config
from ..edits import GraphNames, edits_file, pending_edits, read_edits, recover_edits
from ..errors import BadQuery, DiskFull, GraphNotFound, KgError, NetworkRefused, UpdateTooLarge, WriteRejected
from ..iris import Minter
from ..reasoning import infer
from ..search import derived_index_step
from ..sparql_syntax import explain
from ..store import derive_version
from ..store.lock import write_lock
from ..terms import triple_to_ox
from ..turtle_files import load_turtle_dir
from ..validation import validate_graph
from .result import WriteResult
from .snapshot import (
    Graphs,
    Snapshot,
    WriteForbidden,
    difference,
    introduced_report,
    quads,
    rdflib_graph,
    reconcile,
    split,
    union,
    violation_key,
)

logger = logging.getLogger(__name__)
VIOLATIONS_FILE = "kg-violations.json"
LOCK_TIMEOUT = 60.0
DISK_FULL = "the server's disk is full; nothing was changed; free space and retry"
Triple = ox.Triple


Change = Callable[[ox.Store, Snapshot, GraphNames], bool]


def check_syntax(text: str, base_iri: str | None) -> None:
    """Raise BadQuery when an update request does not parse (run on an empty store, so nothing else happens; in the
    write worker, where a SERVICE or LOAD that got past the guard meets the network filter: NetworkRefused)."""
    try:
        ox.Store().update(text, base_iri=base_iri)
    except PermissionError:
        raise NetworkRefused() from None
    except SyntaxError as error:
        raise BadQuery("the update is not valid SPARQL 1.1 Update: " + explain(text, str(error), {}, update=True)
                       ) from None
    except (OSError, ValueError) as error:
        raise BadQuery(f"the update cannot be applied: {error}") from None


class Stages:
    """Seconds per stage of one write, measured from the previous stage."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.clock = time.perf_counter()

    def stage(self, name: str) -> None:
        """Close a stage: record the seconds since the last one."""
        now = time.perf_counter()
        self.seconds[name] = round(now - self.clock, 4)
        self.clock = now


class Writer:
    """Applies guarded writes to the store of a configuration (thread-safe; one writer at a time across
    processes through the write lock)."""

    def __init__(self, config: Config, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.config = config
        self.lock_timeout = lock_timeout
        self._guard = threading.Lock()
        self._shapes: tuple[tuple[tuple[str, float], ...], Graph] | None = None
        self._before: dict[str, frozenset[str]] = {}
        self._snapshot: Snapshot | None = None

    # --- the operations -----------------------------------------------------------------------------------

    def update(self, text: str, base_iri: str | None = None) -> WriteResult:
        """Apply a SPARQL 1.1 Update as one operation (already checked for LOAD and SERVICE by the caller)."""
        return self.update_operations([text], base_iri)

    def update_operations(self, operations: list[str], base_iri: str | None = None,
                          request: str | None = None) -> WriteResult:
        """Apply the operations of one update request in order, re-merging the default graph between them;
        all are committed together or none. The request's own text, when given, is checked for syntax first, so
        that an error names its line and column."""
        limit = self.config.max_update_operations
        if len(operations) > limit:
            raise UpdateTooLarge(f"the update has {len(operations)} operations, more than the limit of {limit} "
                                 "(KG_MAX_UPDATE_OPERATIONS); send fewer per request, or change data/ and run kg build")
        if request is not None:
            check_syntax(request, base_iri)

        def step(text: str) -> Change:
            def change(work: ox.Store, snapshot: Snapshot, names: GraphNames) -> bool:
                before = len(work)
                try:
                    work.update(text, base_iri=base_iri)
                except PermissionError:  # only the network filter refuses anything here (kg.sandbox)
                    raise NetworkRefused() from None
                except (SyntaxError, ValueError, OSError) as error:
                    raise BadQuery(f"the update cannot be applied: {error}") from None
                self._check_size(abs(len(work) - before))
                return False
            return change
        return self.write(*(step(text) for text in operations))

    def _check_size(self, changed: int) -> None:
        """Refuse a write that changes more triples than max_update_triples (UpdateTooLarge, 413)."""
        limit = self.config.max_update_triples
        if changed > limit:
            raise UpdateTooLarge(f"the write changes at least {changed:,} triples, more than the limit of {limit:,} "
                                 "(KG_MAX_UPDATE_TRIPLES); split it, or change data/ and run kg build")

    def put(self, graph: str | None, triples: Iterable[Triple]) -> WriteResult:
        """Replace a graph (None: the default graph) with the triples; result.created if it did not exist."""
        body = list(triples)

        def change(work: ox.Store, snapshot: Snapshot, names: GraphNames) -> bool:
            target = self._target(graph, names)
            work.clear_graph(target)
            work.extend(ox.Quad(t.subject, t.predicate, t.object, target) for t in body)
            return graph is not None and graph not in snapshot.named
        return self.write(change)

    def post(self, graph: str | None, triples: Iterable[Triple]) -> WriteResult:
        """Merge the triples into a graph (None: the default graph); result.created if it did not exist."""
        body = list(triples)

        def change(work: ox.Store, snapshot: Snapshot, names: GraphNames) -> bool:
            target = self._target(graph, names)
            work.extend(ox.Quad(t.subject, t.predicate, t.object, target) for t in body)
            return graph is not None and graph not in snapshot.named
        return self.write(change)

    def delete(self, graph: str | None) -> WriteResult:
        """Remove a graph (None: empty the default graph, which deletes every asserted triple).

        Raises:
            GraphNotFound: the named graph does not exist.
        """
        def change(work: ox.Store, snapshot: Snapshot, names: GraphNames) -> bool:
            target = self._target(graph, names)
            if graph is not None and graph not in snapshot.named:
                raise GraphNotFound(f"no graph named <{graph}> in the store")
            work.clear_graph(target)
            return False
        return self.write(change)

    @staticmethod
    def _target(graph: str | None, names: GraphNames) -> Any:
        if graph is None:
            return ox.DefaultGraph()
        if names.managed(graph):
            raise WriteForbidden(f"graph <{graph}> is derived and cannot be written: it is rebuilt after every "
                                 "write; write the asserted graphs instead")
        return ox.NamedNode(graph)

    # --- the write path -------------------------------------------------------------------------------------

    def write(self, *changes: Change) -> WriteResult:
        """Run changes through copy, reconcile, validate, reason, persist and commit (module docstring).

        Raises:
            DiskFull: the disk or quota filled up; the edits file and the store were left as they were.
        """
        try:
            return self._write(*changes)
        except OSError as error:
            if not DiskFull.caused(error):
                raise
            logger.warning("write undone, the disk is full: %s", error)
            raise DiskFull(DISK_FULL) from None

    def _derive(self, source: Path, apply: Callable[[ox.Store], None], metadata: dict[str, Any],
                keys: list[str], changed: list[ox.Quad]) -> Path:
        """Write and switch to the next local store version and its index (nothing is left behind on failure)."""
        subjects, space = {q.subject for q in changed}, Minter(str(metadata["base"])).id_space
        finish = derived_index_step(source, space, subjects, metadata) if self.config.search_index else None
        files = {VIOLATIONS_FILE: json.dumps(keys, indent=0)}
        return derive_version(self.config.store.absolute(), source, apply, metadata, files, finish=finish).resolve()

    def _write(self, *changes: Change) -> WriteResult:
        """The steps of a write under the write lock: copy, apply and reconcile, validate, reason, persist, commit."""
        clock = Stages()
        with write_lock(self.config.store, self.lock_timeout):
            clock.stage("lock")
            snapshot = self._current()
            names = GraphNames(Minter(str(snapshot.metadata.get("base") or self.config.base)).base)
            path = edits_file(self.config.data)
            recover_edits(path, snapshot.metadata.get("edits_sha256"))
            asserted_before = {g: ts for g, ts in snapshot.named.items() if not names.managed(g)}
            asserted, created = self._apply(changes, snapshot, names, clock)
            if asserted == asserted_before:
                return WriteResult(False, created=False, seconds=clock.seconds)
            ontology_triples = snapshot.named.get(names.ontology, set())
            keys, inferred = self._check_and_reason(snapshot, asserted_before, asserted, ontology_triples, clock)
            named: Graphs = dict(asserted)
            if ontology_triples:
                named[names.ontology] = ontology_triples
            if inferred:
                named[names.inferred] = inferred
            named.update({g: ts for g, ts in snapshot.named.items() if names.is_changes(g)})  # builds' records
            target = self._persist(snapshot, names, path, asserted_before, named, keys, clock)
            clock.stage("commit")
        return self._result(snapshot, names, asserted_before, asserted, inferred, target, created, clock)

    def _apply(self, changes: tuple[Change, ...], snapshot: Snapshot, names: GraphNames,
               clock: Stages) -> tuple[Graphs, bool]:
        """Apply each change to a working copy and reconcile it into asserted graphs; (asserted, created)."""
        work = snapshot.working_copy()
        clock.stage("copy")
        derived = {g: ts for g, ts in snapshot.named.items() if names.managed(g)}
        asserted = before = {g: ts for g, ts in snapshot.named.items() if not names.managed(g)}
        state, created = snapshot.named, False
        for number, change in enumerate(changes):
            before_default = union(state) if number else snapshot.default
            if number:
                work = ox.Store()
                work.extend(quads(state, before_default))
            created = change(work, snapshot, names) or created
            after_named, after_default = split(work.quads_for_pattern(None, None, None, None))
            asserted = reconcile(state, before_default, after_named, after_default, names)
            state = {**asserted, **derived}
        self._check_size(sum(len(asserted.get(g, set()) ^ before.get(g, set())) for g in set(asserted) | set(before)))
        del work
        clock.stage("apply")
        return asserted, created

    def _check_and_reason(self, snapshot: Snapshot, asserted_before: Graphs, asserted: Graphs,
                          ontology_triples: set[Any], clock: Stages) -> tuple[list[str], set[ox.Triple]]:
        """Validate the new asserted graphs (WriteRejected for any violation the write introduces), then reason;
        (the report's violation keys, the inferred triples)."""
        data, ontology = rdflib_graph(union(asserted)), rdflib_graph(ontology_triples)
        before_keys = self._before_keys(snapshot, asserted_before, ontology)
        report = validate_graph(data, self._shapes_graph(), ontology)
        clock.stage("validate")
        introduced = introduced_report(report, before_keys)
        if not introduced.passes:
            raise WriteRejected(introduced)
        inferred = {triple_to_ox(s, p, o) for s, p, o in infer(data, ontology)}
        clock.stage("reason")
        return sorted(violation_key(v) for v in report.violations), inferred

    def _persist(self, snapshot: Snapshot, names: GraphNames, path: Path, asserted_before: Graphs, named: Graphs,
                 keys: list[str], clock: Stages) -> Path:
        """Record the edits and write the new version (local or remote) as one step; returns the version."""
        previous = path.read_bytes() if path.exists() else None
        edits = read_edits(path, names)
        edits.record(asserted_before, {g: ts for g, ts in named.items() if not names.managed(g)})
        default = union({g: ts for g, ts in named.items() if not names.is_changes(g)})  # records stay unmerged
        removals, additions = difference(snapshot.named, snapshot.default, named, default)
        expected = sum(len(ts) for ts in named.values()) + len(default)
        dropped = sorted(set(snapshot.named) - set(named))

        def apply(store: ox.Store) -> None:
            for quad in removals:
                store.remove(quad)
            for graph in dropped:
                store.remove_graph(ox.NamedNode(graph))
            store.extend(additions)
            if len(store) != expected:
                raise KgError(f"the new store version holds {len(store)} quads, expected {expected}")

        metadata = dict(snapshot.metadata)
        metadata.pop("graph_ids", None)  # the build's per-graph content ids no longer describe this version
        metadata.update(base=names.base, triples={g: len(ts) for g, ts in sorted(named.items())
                                                  if not names.is_changes(g)},
                        written_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        writes=int(metadata.get("writes", 0)) + 1, edits_sha256=edits.digest())
        with pending_edits(path, edits, previous):
            clock.stage("persist")
            if self.config.remote:
                target = self._push_remote(names.base, named, dict(metadata, violation_keys=keys))
            else:
                target = self._derive(snapshot.path, apply, metadata, keys, removals + additions)
        with self._guard:
            self._before = {str(target): frozenset(keys)}
            self._snapshot = Snapshot(target, metadata, named, default)
        return target

    @staticmethod
    def _result(snapshot: Snapshot, names: GraphNames, asserted_before: Graphs, asserted: Graphs,
                inferred: set[ox.Triple], target: Path, created: bool, clock: Stages) -> WriteResult:
        """What the write changed, logged."""
        old_inferred = snapshot.named.get(names.inferred, set())
        changed = sorted(g for g in set(asserted) | set(asserted_before)
                         if asserted.get(g, set()) != asserted_before.get(g, set()))
        result = WriteResult(
            True, target.name,
            added=sum(len(asserted.get(g, set()) - asserted_before.get(g, set())) for g in changed),
            removed=sum(len(asserted_before.get(g, set()) - asserted.get(g, set())) for g in changed),
            inferred_added=len(inferred - old_inferred), inferred_removed=len(old_inferred - inferred),
            graphs=tuple(changed), created=created, seconds=clock.seconds)
        logger.info("write committed %s in %.3f s: %s", target.name, sum(clock.seconds.values()), clock.seconds)
        return result

    def _push_remote(self, base: str, named: Graphs, metadata: dict[str, Any]) -> Path:
        """Commit to the remote store: push the graphs (kg.store.push); returns the version as a path name."""
        from ..store.client import RemoteLocation, SparqlClient
        from ..store.push import push

        client = SparqlClient(RemoteLocation.from_config(self.config))
        try:
            manifest = push(client, base, named, metadata)
        finally:
            client.close()
        return Path(f"remote-{manifest.version}")

    def _current(self) -> Snapshot:
        """The current version: the one this writer committed last if the link still points at it, else read."""
        if self.config.remote:
            from ..store.remote import RemoteStore

            remote = RemoteStore.open(self.config)
            with self._guard:
                if self._snapshot is not None and self._snapshot.path == Path(remote.version):
                    return self._snapshot
            return Snapshot.read_remote(remote)
        current = self.config.store.resolve()
        with self._guard:
            if self._snapshot is not None and self._snapshot.path == current:
                return self._snapshot
        return Snapshot.read(self.config.store)

    def _shapes_graph(self) -> Graph:
        """The shapes (config.shapes), reloaded when a file changes."""
        files = sorted(self.config.shapes.glob("*.ttl")) if self.config.shapes.is_dir() else []
        key = tuple((str(f), f.stat().st_mtime) for f in files)
        with self._guard:
            if self._shapes is not None and self._shapes[0] == key:
                return self._shapes[1]
        shapes = load_turtle_dir(self.config.shapes)
        with self._guard:
            self._shapes = (key, shapes)
        return shapes

    def _before_keys(self, snapshot: Snapshot, asserted: Graphs, ontology: Graph) -> frozenset[str]:
        """The SHACL results of the current version: kept in memory, in the version directory, or computed once."""
        name = str(snapshot.path)
        with self._guard:
            if name in self._before:
                return self._before[name]
        saved = snapshot.path / VIOLATIONS_FILE
        keys: frozenset[str] | None = None
        if "violation_keys" in snapshot.metadata:
            keys = frozenset(snapshot.metadata["violation_keys"])
        elif saved.exists():
            try:
                keys = frozenset(json.loads(saved.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                keys = None
        if keys is None:
            data = rdflib_graph(union(asserted))
            report = validate_graph(data, self._shapes_graph(), ontology)
            keys = frozenset(violation_key(v) for v in report.violations)
        with self._guard:
            self._before = {name: keys}
        return keys
