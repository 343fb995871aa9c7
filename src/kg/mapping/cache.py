"""Per-profile cache of mapped graphs, so a rebuild maps only the profiles whose mapping can have changed.

An entry is found by a key over everything a profile's mapping reads besides entity resolution: the file's
sha256 and displayed path, the reference data's sha256, the base IRI and the code version (a hash of kg's
sources and the rdflib version). Resolution is corpus-wide (one slug per full name, initials matched to unique
full names, works by title), so an entry also records every resolution lookup the mapping made and its answer;
it is used only when each lookup gives the same answer on the new corpus. That is the narrowest exact key: the
mapping is a deterministic function of the profile and those answers. Entries are pickles written atomically
(temporary file, then one rename); a build that fails leaves only complete, correct entries behind.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import rdflib
from rdflib import Graph, URIRef
from rdflib.namespace import NamespaceManager
from rdflib.plugins.stores.memory import Memory
from rdflib.term import Node

from ..atomic_files import write_atomically
from ..iris import Minter
from ..model import Corpus, Origin, Profile
from ..namespaces import bind_prefixes
from ..resolution import Linking, Resolution
from . import MappedGraphs, ProfileMapper, default_linking, map_records, provenance, with_reference

FORMAT = 2
_MISSING = ("missing",)
_UNASKED, _NO_ANSWER = object(), object()
NetOrigins = dict[URIRef, tuple[bool, Origin]]  # node -> (assigned, origin) (MapCache.net_origins)


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of kg's Python sources and the rdflib version: any code change invalidates every entry."""
    digest = hashlib.sha256(f"{FORMAT} rdflib {rdflib.__version__}".encode())
    root = Path(__file__).resolve().parents[1]  # all of kg, not only this package
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def graph_digest(graph: Iterable[tuple[Any, Any, Any]]) -> str:
    """A content hash of triples (sorted N-Triples lines; blank nodes by label, as the store keeps them)."""
    digest = hashlib.sha256()
    for line in sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in graph):
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


class _RecordingDict:
    """A read-only view of a resolution table that records each key read and its answer."""

    def __init__(self, name: str, table: dict[str, Any], reads: dict[tuple[str, str], Any]) -> None:
        self.name, self.table, self.reads = name, table, reads

    def __getitem__(self, key: str) -> Any:
        value = self.table[key]
        self.reads[(self.name, key)] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """The answer for a key, or default (recorded as missing)."""
        value = self.table.get(key, _MISSING)
        self.reads[(self.name, key)] = value
        return default if value is _MISSING else value


class RecordingResolution:
    """The resolution interface ProfileMapper uses, recording every lookup and its answer."""

    LOOKUPS = ("person", "organization", "venue", "work")
    TABLES = ("person_names", "possible_same_as", "venues", "unlisted_organizations")

    def __init__(self, real: Resolution) -> None:
        self.real = real
        self.reads: dict[tuple[str, str], Any] = {}
        for name in self.TABLES:
            setattr(self, name, _RecordingDict(name, getattr(real, name), self.reads))

    def _lookup(self, name: str, text: str) -> str:
        value = getattr(self.real, name)(text)
        self.reads[(name, text)] = value
        return value

    def person(self, name: str) -> str:
        """Slug of the person node for a name as written."""
        return self._lookup("person", name)

    def organization(self, text: str) -> str:
        """Id of the organisation a text names."""
        return self._lookup("organization", text)

    def venue(self, text: str) -> str:
        """Id of the venue a text names."""
        return self._lookup("venue", text)

    def work(self, title: str) -> str:
        """Slug of the work with a title."""
        return self._lookup("work", title)


def answers_match(reads: dict[tuple[str, str], Any], resolution: Resolution,
                  answers: dict[tuple[str, str], Any] | None = None) -> bool:
    """Whether every recorded lookup gives the same answer on this resolution (answers: those already asked of it,
    shared by the entries of one build, since profiles name the same people, venues and organisations)."""
    known = answers if answers is not None else {}
    for read, value in reads.items():
        current = _ask(resolution, read, known)
        if current is _NO_ANSWER or current != value:
            return False
    return True


def _ask(resolution: Resolution, read: tuple[str, str], known: dict[tuple[str, str], Any]) -> Any:
    """A recorded lookup's answer on this resolution (_NO_ANSWER for a KeyError), asked once per build."""
    current = known.get(read, _UNASKED)
    if current is _UNASKED:
        name, key = read
        try:
            if name in RecordingResolution.TABLES:
                current = getattr(resolution, name).get(key, _MISSING)
            else:
                current = getattr(resolution, name)(key)
        except KeyError:
            current = _NO_ANSWER
        known[read] = current
    return current


class _RecordingOrigins(dict[URIRef, Origin]):
    """An origins table that also records each assignment and setdefault, to replay them in order later."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[tuple[bool, URIRef, Origin]] = []

    def __setitem__(self, key: URIRef, value: Origin) -> None:
        self.ops.append((True, key, value))
        super().__setitem__(key, value)

    def setdefault(self, key: URIRef, value: Origin) -> Origin:
        self.ops.append((False, key, value))
        return super().setdefault(key, value)


@dataclass
class Entry:
    """A mapped profile: its triples, the origin operations, the resolution answers it used."""

    reads: dict[tuple[str, str], Any]
    triples: bytes  # the pickled list of triples, unpickled only when the graph is first used
    origin_ops: list[tuple[bool, Any, tuple[Any, ...], int | None]]  # a URIRef node as its text
    content_id: str
    count: int


@dataclass
class MapStats:
    """What the cached mapping did."""

    profiles: int = 0
    cached: int = 0
    content_ids: dict[URIRef, str] = field(default_factory=dict)


class MapCache:
    """Entries under one folder (``<store parent>/cache/build/map``); None disables caching."""

    def __init__(self, folder: Path | None, resident: bool = False) -> None:
        self.folder = folder
        self.used: set[str] = set()
        self.memory: dict[str, Entry] | None = {} if resident else None  # a resident builder's entries
        self.nets: dict[str, tuple[tuple[str, bool], Any, Entry, NetOrigins]] = {}  # their net origins
        self.answers: dict[tuple[str, str], Any] | None = None  # the last build's resolution answers (resident)
        self.verified: dict[str, Entry] = {}  # the entries whose every answer is among them
        self.graphs: dict[str, tuple[Entry, Graph]] = {}  # the graphs handed out for entries (graph_of)

    def graph_of(self, key: str, entry: Entry) -> Graph:
        """A cached entry's graph, loaded on first use; a resident builder hands out the same one while the entry is
        the same (a build never changes a mapped graph in place: kg.edits copies the graphs it edits)."""
        known = self.graphs.get(key) if self.memory is not None else None
        if known is not None and known[0] is entry:
            return known[1]
        graph = LazyGraph(entry.triples, entry.count)
        if self.memory is not None:
            self.graphs[key] = (entry, graph)
        return graph

    def changed_answers(self, resolution: Resolution, answers: dict[tuple[str, str], Any]
                        ) -> set[tuple[str, str]] | None:
        """The lookups whose answer differs from the last build's (None without a last build in this process);
        answers is filled with this resolution's answers as they are asked."""
        if self.answers is None:
            return None
        return {read for read, value in self.answers.items() if _ask(resolution, read, answers) != value}

    def key(self, profile: Profile, minter: Minter, reference_sha: str) -> str:
        """The entry key of a profile (everything but resolution answers); not where the file lies or how --data was
        written: a saved entry's origins are all in the profile's own file, so they take its path as now shown."""
        parts = (code_version(), minter.base, reference_sha, profile.sha256, profile.id)
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def load(self, key: str) -> Entry | None:
        """The entry under a key, or None (missing or unreadable)."""
        if self.memory is not None and key in self.memory:
            return self.memory[key]
        if self.folder is None:
            return None
        try:
            with open(self.folder / f"{key}.pkl", "rb") as handle:
                entry = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
            return None
        if not isinstance(entry, Entry):
            return None
        if self.memory is not None:
            self.memory[key] = entry
        return entry

    def save(self, key: str, entry: Entry) -> None:
        """Write an entry atomically (temporary file, then one rename)."""
        if self.memory is not None:
            self.memory[key] = entry
        if self.folder is None:
            return
        write_atomically(self.folder / f"{key}.pkl", pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))

    def net_origins(self, key: str, entry: Entry, profile: Profile, cached: bool) -> NetOrigins:
        """What a profile's origin operations do to the origins table: per node, in the order of its first
        operation, (True, its last assignment) when it is assigned at all (that wins over anything before), else
        (False, its first set-by-default origin, kept only where no earlier profile set the node); kept in memory
        for a resident builder while the entry, the profile's file and its lines are the same objects."""
        file, lines = profile.origin.file, profile.origin.lines
        known = self.nets.get(key) if self.memory is not None else None
        if known is not None and known[0] == (file, cached) and known[1] is lines and known[2] is entry:
            return known[3]
        net: NetOrigins = {}
        for assign, text, (written, path), line in entry.origin_ops:
            node = _uri(text) if type(text) is str else text
            if assign or node not in net:  # a key keeps the position of its first insertion
                net[node] = (assign, Origin(file if cached else written, path, line, lines))
        if self.memory is not None:
            self.nets[key] = ((file, cached), lines, entry, net)
        return net

    def prune(self) -> None:
        """Remove the entries the last build did not use (call after a successful build); the next build starts
        counting its own."""
        used, self.used = self.used, set()
        if self.memory is not None:
            for key in set(self.memory) - used:
                del self.memory[key]
            for key in set(self.nets) - used:
                del self.nets[key]
            for key in set(self.graphs) - used:
                del self.graphs[key]
        if self.folder is None or not self.folder.is_dir():
            return
        for path in self.folder.glob("*.pkl"):
            if path.stem not in used:
                path.unlink(missing_ok=True)


Triples = list[tuple[Any, Any, Any]]


class _LazyMemory(Memory):
    """An rdflib Memory store filled from a triple list (or its pickle) the first time it is searched."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: tuple[bytes | Triples, Graph] | None = None

    def listed(self, pending: tuple[bytes | Triples, Graph]) -> Triples:
        """The pending triples as a list (a pickle is read once, then kept as the list)."""
        triples, graph = pending
        if isinstance(triples, bytes):
            triples = pickle.loads(triples)
            self.pending = (triples, graph)
        return triples

    def fill(self) -> None:
        """Load the pending triples (once)."""
        if self.pending is not None:
            triples, graph = self.listed(self.pending), self.pending[1]
            self.pending = None
            Memory.addN(self, ((s, p, o, graph) for s, p, o in triples))


def _filling(name: str) -> Any:
    method = getattr(Memory, name)

    def filled(self: _LazyMemory, *args: Any, **kwargs: Any) -> Any:
        self.fill()
        return method(self, *args, **kwargs)

    filled.__name__ = name
    return filled


for _name in ("add", "addN", "remove", "triples", "triples_choices", "__len__", "contexts", "add_graph",
              "remove_graph", "query", "update"):
    if hasattr(Memory, _name):
        setattr(_LazyMemory, _name, _filling(_name))


class LazyGraph(Graph):
    """A graph held as a triple list (or its pickle) and indexed on the first search; ``size`` is known without
    loading it. Full scans (iterating it, ``subjects()`` with no arguments) read the list and build no index: at
    a million triples the mapped graphs take a fraction of the memory rdflib's indexes would."""

    def __init__(self, triples: bytes | Triples, size: int) -> None:
        store = _LazyMemory()
        self._bound = False  # the project's prefixes are bound on first use of the namespace manager (costly)
        super().__init__(store=store)
        store.pending = (triples, self)
        self.size = size

    @property
    def namespace_manager(self) -> NamespaceManager:
        """This graph's namespace manager, with the project's prefixes bound."""
        manager = Graph.namespace_manager.fget(self)  # type: ignore[attr-defined]
        if not self._bound:
            self._bound = True
            bind_prefixes(self)
        return manager

    @namespace_manager.setter
    def namespace_manager(self, manager: NamespaceManager) -> None:
        Graph.namespace_manager.fset(self, manager)  # type: ignore[attr-defined]

    @property
    def loaded(self) -> bool:
        """Whether the triples have been loaded."""
        return self.store.pending is None  # type: ignore[attr-defined]

    def triples(self, triple: Any) -> Any:
        """Triples matching a pattern; a full scan of an unloaded graph reads its list (a pickle decoded once)."""
        store: _LazyMemory = self.store  # type: ignore[assignment]
        if store.pending is not None and tuple(triple) == (None, None, None):
            return iter(store.listed(store.pending))
        return Graph.triples(self, triple)

    def __len__(self) -> int:
        """Number of triples (known without loading them)."""
        return self.size if not self.loaded else Graph.__len__(self)


class _Collecting(Graph):
    """The graph a profile is mapped into: triples kept in the order first added, without rdflib's indexes (the
    mapper only adds); anything but a full scan or len() indexes them and carries on as an ordinary graph."""

    def __init__(self) -> None:
        super().__init__()
        self.added: dict[tuple[Any, Any, Any], None] | None = {}

    def add(self, triple: tuple[Any, Any, Any]) -> _Collecting:
        """Add one triple (of rdflib nodes)."""
        if self.added is None:
            Graph.add(self, triple)
            return self
        s, p, o = triple
        if not (isinstance(s, Node) and isinstance(p, Node) and isinstance(o, Node)):
            raise TypeError(f"not an RDF triple: {triple!r}")
        self.added[(s, p, o)] = None
        return self

    def triples(self, triple: Any) -> Any:
        """Triples matching a pattern (the first search indexes them)."""
        if self.added is not None:
            if tuple(triple) == (None, None, None):
                return iter(list(self.added))
            added, self.added = self.added, None
            Graph.addN(self, ((s, p, o, self) for s, p, o in added))
        return Graph.triples(self, triple)

    def __len__(self) -> int:
        """Number of triples."""
        return len(self.added) if self.added is not None else Graph.__len__(self)


def graph_size(graph: Graph) -> int:
    """Number of triples, without loading a LazyGraph."""
    return graph.size if isinstance(graph, LazyGraph) and not graph.loaded else len(graph)


def _uri(text: str) -> URIRef:
    """A URIRef of text already checked when it was minted (URIRef() would check it again)."""
    return str.__new__(URIRef, text)


def _map_profile(profile: Profile, minter: Minter, resolution: Resolution, graph_iri: URIRef) -> tuple[Entry, Triples]:
    """Map one profile on its own, recording resolution answers and origin operations; the entry and the triples."""
    recording, origins = RecordingResolution(resolution), _RecordingOrigins()
    mapper = ProfileMapper(minter, recording, profile, origins)  # type: ignore[arg-type]
    mapper.graph = _Collecting()
    graph = mapper.run()
    provenance(graph, minter, graph_iri, f"profiles/{Path(profile.origin.file).name}", profile.sha256)
    ops = [(assign, str(node) if type(node) is URIRef else node, (o.file, o.path), o.line)
           for assign, node, o in origins.ops]  # IRIs as plain text: unpickling a URIRef re-validates it (slow)
    triples = list(graph)
    blob = pickle.dumps(triples, protocol=pickle.HIGHEST_PROTOCOL)
    return Entry(recording.reads, blob, ops, hashlib.sha256(blob).hexdigest(), len(triples)), triples


def map_corpus_cached(corpus: Corpus, minter: Minter, resolution: Resolution, reference_sha256: str,
                      cache: MapCache, linking: Linking | None = None) -> tuple[MappedGraphs, MapStats]:
    """map_corpus (kg.mapping) with unchanged profiles read from the cache; the result is the same."""
    result, stats = with_reference(corpus, minter, reference_sha256), MapStats(profiles=len(corpus.profiles))
    answers: dict[tuple[str, str], Any] = {}
    changed = cache.changed_answers(resolution, answers)
    verified: dict[str, Entry] = {}
    for profile in corpus.profiles:
        graph_iri = minter.graph(f"profile/{profile.id}")
        key = cache.key(profile, minter, reference_sha256)
        entry = cache.load(key)
        if entry is not None and changed is not None and cache.verified.get(key) is entry:
            cached = entry.reads.keys().isdisjoint(changed)  # the last build checked all its answers
        else:
            cached = entry is not None and answers_match(entry.reads, resolution, answers)
        if entry is not None and cached:
            stats.cached += 1
            graph: Graph = cache.graph_of(key, entry)
        else:
            entry, triples = _map_profile(profile, minter, resolution, graph_iri)
            graph = LazyGraph(triples, entry.count)  # a triple list, without rdflib's indexes
            answers.update(entry.reads)  # what mapping it just read: this resolution's answers
            if all(file == profile.origin.file for _, _, (file, _), _ in entry.origin_ops):
                cache.save(key, entry)
        verified[key] = entry
        cache.used.add(key)
        origins = result.origins  # each node once, in the order of its first operation: the table's order too
        origins.update((node, origin) for node, (assign, origin) in cache.net_origins(key, entry, profile, cached)
                       .items() if assign or node not in origins)
        result.graphs[graph_iri] = graph
        result.sources[graph_iri] = profile.origin.file
        stats.content_ids[graph_iri] = entry.content_id
    if cache.memory is not None:  # a resident builder's next build asks only what this one's answers were
        cache.answers, cache.verified = answers, verified
    map_records(corpus, minter, resolution, linking or default_linking(corpus, resolution), result)
    return result, stats
