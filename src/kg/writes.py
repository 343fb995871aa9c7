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
6. record the difference from the YAML sources in ``<data>/edits/edits.nq`` (see kg.writes_edits), so that
   `kg build` replays it;
7. write the next store version as a checkpoint of the current one plus the quad difference, flush it to disk
   and switch the store symlink in one rename (kg.store.derive_version). Readers see the old version or the
   new one; a crash at any moment leaves a complete version behind the link.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal
from rdflib.namespace import RDF, SH

from .config import Config
from .errors import BadQuery, KgError
from .iris import Minter
from .namespaces import bind_prefixes
from .reasoning import infer
from .sources import load_turtle_dir
from .store import Store, derive_version, from_ox, to_ox
from .validation import ValidationReport, Violation, _message, _path_text, _value_text, validate_graph
from .writes_edits import GraphNames, WriteBusy, edits_file, read_edits, write_edits, write_lock

logger = logging.getLogger(__name__)
VIOLATIONS_FILE = "kg-violations.json"
LOCK_TIMEOUT = 60.0
Triple = ox.Triple
Graphs = dict[str, set[Triple]]


class WriteForbidden(KgError):
    """The write targets a graph that cannot be written (inferred, ontology, retractions)."""

    status = 403


class GraphNotFound(KgError):
    """The write names a graph the store does not hold."""

    status = 404


class WriteRejected(KgError):
    """The write would introduce SHACL violations; .report holds them. Nothing was changed."""

    status = 422

    def __init__(self, report: ValidationReport) -> None:
        self.report = report
        super().__init__(report.text())


@dataclass(frozen=True)
class WriteResult:
    """What a write changed: asserted and inferred triples added and removed, the graphs touched, the version."""

    changed: bool
    version: str | None = None
    added: int = 0
    removed: int = 0
    inferred_added: int = 0
    inferred_removed: int = 0
    graphs: tuple[str, ...] = ()
    created: bool = False
    seconds: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    def text(self) -> str:
        """One line for people."""
        if not self.changed:
            return "No change: the data already says this.\n"
        return (f"Committed {self.version}: {self.added} triples added, {self.removed} removed in "
                f"{len(self.graphs)} graph(s); inferred +{self.inferred_added} -{self.inferred_removed}.\n")


@dataclass
class Snapshot:
    """One store version read into memory: its named graphs and its default graph, as pyoxigraph triples."""

    path: Path
    metadata: dict[str, Any]
    named: Graphs
    default: set[Triple]

    @classmethod
    def read(cls, store_dir: Path) -> Snapshot:
        """Read the current version behind the store link."""
        store = Store.open(store_dir)
        named, default = _split(store.ox.quads_for_pattern(None, None, None, None))
        return cls(store.path or store_dir, store.metadata, named, default)

    def working_copy(self) -> ox.Store:
        """An in-memory store with the same quads (blank-node labels kept)."""
        work = ox.Store()
        work.extend(_quads(self.named, self.default))
        return work


def _split(quads: Iterable[ox.Quad]) -> tuple[Graphs, set[Triple]]:
    named: Graphs = {}
    default: set[Triple] = set()
    for quad in quads:
        graph = quad.graph_name
        if isinstance(graph, ox.DefaultGraph):
            default.add(quad.triple)
        elif isinstance(graph, ox.NamedNode):
            named.setdefault(graph.value, set()).add(quad.triple)
    return named, default


def _quads(named: Graphs, default: set[Triple]) -> set[ox.Quad]:
    quads = {ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(g)) for g, ts in named.items() for t in ts}
    quads.update(ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in default)
    return quads


def _difference(old_named: Graphs, old_default: set[Triple], new_named: Graphs,
                new_default: set[Triple]) -> tuple[list[ox.Quad], list[ox.Quad]]:
    """(quads to remove, quads to add) to turn one version into the next, graph by graph."""
    removals: list[ox.Quad] = []
    additions: list[ox.Quad] = []
    pairs: list[tuple[Any, set[Triple], set[Triple]]] = [(ox.DefaultGraph(), old_default, new_default)]
    for graph in set(old_named) | set(new_named):
        old, new = old_named.get(graph, set()), new_named.get(graph, set())
        if old is not new:
            pairs.append((ox.NamedNode(graph), old, new))
    for name, old, new in pairs:
        removals.extend(ox.Quad(t.subject, t.predicate, t.object, name) for t in old - new)
        additions.extend(ox.Quad(t.subject, t.predicate, t.object, name) for t in new - old)
    return removals, additions


def _union(graphs: Graphs) -> set[Triple]:
    return set().union(*graphs.values()) if graphs else set()


def _rdflib(triples: Iterable[Triple]) -> Graph:
    graph = bind_prefixes(Graph())
    for t in triples:
        graph.add((from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)))
    return graph


def reconcile(before_named: Graphs, before_default: set[Triple], after_named: Graphs, after_default: set[Triple],
              names: GraphNames) -> Graphs:
    """The asserted graphs after a change applied to a working copy (see the module docstring, step 3).

    Raises:
        WriteForbidden: the change added triples to a derived graph.
    """
    for graph, triples in after_named.items():
        if names.managed(graph) and triples - before_named.get(graph, set()):
            raise WriteForbidden(f"graph <{graph}> is derived and cannot be written: it is rebuilt after every "
                                 "write; change the asserted data instead")
    removed_default = before_default - after_default
    final: Graphs = {}
    for graph, triples in after_named.items():
        if names.managed(graph):
            continue
        kept = triples - (removed_default & before_named.get(graph, set()))
        if kept:
            final[graph] = kept
    union = _union(final)
    extra = (after_default - before_default) - union
    if extra:
        final[names.edits] = final.get(names.edits, set()) | extra
    return final


def _key(focus: str, path: str | None, severity: str, message: str, value: str | None) -> str:
    return json.dumps([focus, path, severity, message, value])


def violation_key(violation: Violation) -> str:
    """What identifies a SHACL result across versions (shape IRIs of blank-node shapes vary per parse)."""
    return _key(violation.focus, violation.path, violation.severity, violation.message, violation.value)


def introduced_report(after: ValidationReport, before: frozenset[str]) -> ValidationReport:
    """The results of a report that were not in the keys of the previous version's report."""
    new = tuple(v for v in after.violations if violation_key(v) not in before)
    graph = bind_prefixes(Graph())
    root = BNode("report")
    graph.add((root, RDF.type, SH.ValidationReport))
    source = after.graph
    for result in source.objects(None, SH.result):
        focus = source.value(result, SH.focusNode)
        severity = source.value(result, SH.resultSeverity)
        key = _key(str(focus), _path_text(source, source.value(result, SH.resultPath)),
                   str(severity).rsplit("#", 1)[-1], _message(source, result),
                   _value_text(source.value(result, SH.value)))
        if key in before:
            continue
        graph.add((root, SH.result, result))
        for p, o in source.predicate_objects(result):
            graph.add((result, p, o))
        stack = [o for o in source.objects(result, SH.resultPath) if isinstance(o, BNode)]
        while stack:
            node = stack.pop()
            for p, o in source.predicate_objects(node):
                graph.add((node, p, o))
                if isinstance(o, BNode):
                    stack.append(o)
    conforms = not any(v.severity == "Violation" for v in new)
    graph.add((root, SH.conforms, Literal(conforms)))
    return ValidationReport(conforms, new, graph)


Change = Callable[[ox.Store, Snapshot, GraphNames], bool]


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

    def update_operations(self, operations: list[str], base_iri: str | None = None) -> WriteResult:
        """Apply the operations of one update request in order, re-merging the default graph between them;
        all are committed together or none."""
        def step(text: str) -> Change:
            def change(work: ox.Store, snapshot: Snapshot, names: GraphNames) -> bool:
                try:
                    work.update(text, base_iri=base_iri)
                except (SyntaxError, ValueError, OSError) as error:
                    raise BadQuery(f"the update cannot be applied: {error}") from None
                return False
            return change
        return self.write(*(step(text) for text in operations))

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

    def exists(self, graph: str) -> bool:
        """Whether the current version holds a named graph."""
        store = Store.open(self.config.store)
        return graph in store.graph_names()

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
        """Run changes through copy, reconcile, validate, reason, persist and commit (module docstring)."""
        seconds: dict[str, float] = {}
        clock = time.perf_counter()

        def stage(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            seconds[name] = round(now - clock, 4)
            clock = now

        with write_lock(self.config.store, self.lock_timeout):
            stage("lock")
            snapshot = self._current()
            names = GraphNames(Minter(str(snapshot.metadata.get("base") or self.config.base)).base)
            work = snapshot.working_copy()
            stage("copy")
            asserted_before = {g: ts for g, ts in snapshot.named.items() if not names.managed(g)}
            derived = {g: ts for g, ts in snapshot.named.items() if names.managed(g)}
            asserted, state, created = asserted_before, snapshot.named, False
            for number, change in enumerate(changes):
                before_default = _union(state) if number else snapshot.default
                if number:
                    work = ox.Store()
                    work.extend(_quads(state, before_default))
                created = change(work, snapshot, names) or created
                after_named, after_default = _split(work.quads_for_pattern(None, None, None, None))
                asserted = reconcile(state, before_default, after_named, after_default, names)
                state = {**asserted, **derived}
            del work
            stage("apply")
            if asserted == asserted_before:
                return WriteResult(False, created=False, seconds=seconds)
            ontology_triples = snapshot.named.get(names.ontology, set())
            data, ontology = _rdflib(_union(asserted)), _rdflib(ontology_triples)
            before_keys = self._before_keys(snapshot, asserted_before, ontology)
            report = validate_graph(data, self._shapes_graph(), ontology)
            stage("validate")
            introduced = introduced_report(report, before_keys)
            if not introduced.conforms:
                raise WriteRejected(introduced)
            inferred = {ox.Triple(to_ox(s), to_ox(p), to_ox(o)) for s, p, o in infer(data, ontology)}
            stage("reason")
            path = edits_file(self.config.data)
            edits = read_edits(path, names)
            edits.record(asserted_before, asserted)
            write_edits(path, edits)
            stage("persist")
            named: Graphs = dict(asserted)
            if ontology_triples:
                named[names.ontology] = ontology_triples
            if inferred:
                named[names.inferred] = inferred
            default = _union(named)
            removals, additions = _difference(snapshot.named, snapshot.default, named, default)
            expected = sum(len(ts) for ts in named.values()) + len(default)

            def apply(store: ox.Store) -> None:
                for quad in removals:
                    store.remove(quad)
                store.extend(additions)
                if len(store) != expected:
                    raise KgError(f"the new store version holds {len(store)} quads, expected {expected}")

            keys = sorted(violation_key(v) for v in report.violations)
            metadata = dict(snapshot.metadata)
            metadata.update(base=names.base, triples={g: len(ts) for g, ts in sorted(named.items())},
                            written_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            writes=int(metadata.get("writes", 0)) + 1, edits_sha256=edits.digest())
            target = derive_version(self.config.store, snapshot.path, apply, metadata,
                                    {VIOLATIONS_FILE: json.dumps(keys, indent=0)}).resolve()
            with self._guard:
                self._before = {str(target): frozenset(keys)}
                self._snapshot = Snapshot(target, metadata, named, default)
            stage("commit")
        old_inferred = snapshot.named.get(names.inferred, set())
        changed = sorted(g for g in set(asserted) | set(asserted_before)
                         if asserted.get(g, set()) != asserted_before.get(g, set()))
        result = WriteResult(
            True, target.name,
            added=sum(len(asserted.get(g, set()) - asserted_before.get(g, set())) for g in changed),
            removed=sum(len(asserted_before.get(g, set()) - asserted.get(g, set())) for g in changed),
            inferred_added=len(inferred - old_inferred), inferred_removed=len(old_inferred - inferred),
            graphs=tuple(changed), created=created, seconds=seconds)
        logger.info("write committed %s in %.3f s: %s", target.name, sum(seconds.values()), seconds)
        return result

    def _current(self) -> Snapshot:
        """The current version: the one this writer committed last if the link still points at it, else read."""
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
        if saved.exists():
            try:
                keys = frozenset(json.loads(saved.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                keys = None
        if keys is None:
            data = _rdflib(_union(asserted))
            report = validate_graph(data, self._shapes_graph(), ontology)
            keys = frozenset(violation_key(v) for v in report.violations)
        with self._guard:
            self._before = {name: keys}
        return keys


def inferred_matches(store_dir: Path, reasoner: str = "rules") -> tuple[set[Any], set[Any]]:
    """(missing, extra): how the stored inferred graph differs from a full re-reasoning of the stored asserted
    graphs with the stored ontology. Both empty when the store is consistent."""
    snapshot = Snapshot.read(store_dir)
    names = GraphNames(Minter(str(snapshot.metadata.get("base") or Config().base)).base)
    asserted = set().union(*(ts for g, ts in snapshot.named.items() if not names.managed(g)))
    ontology = _rdflib(snapshot.named.get(names.ontology, set()))
    expected = {ox.Triple(to_ox(s), to_ox(p), to_ox(o)) for s, p, o in infer(_rdflib(asserted), ontology, reasoner)}
    stored = snapshot.named.get(names.inferred, set())
    return expected - stored, stored - expected


__all__ = ["GraphNotFound", "Snapshot", "WriteBusy", "WriteForbidden", "WriteRejected", "WriteResult", "Writer",
           "inferred_matches", "reconcile", "violation_key"]
