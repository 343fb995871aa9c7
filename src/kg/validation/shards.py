"""Validation of all mapped graphs: one Oxigraph run over their union, or profile shards across processes.

The default ("union") loads every graph into one Oxigraph store and runs the compiled engine once; at 1M
triples that takes less time than hashing the shards for the cache would (see docs/validation.md), and
cross-profile conflicts are seen directly.

Mode "shards" cuts profile graphs into groups of about 20,000 triples; each group is validated together with
the reference graph, in parallel worker processes. A node described differently by two profiles (a work
listed with different years, say) is a cross-profile conflict: its results come from one extra run over the
union of the graphs that describe it (pyshacl's focus_nodes option is not used: it skips nested shapes on
nodes outside the focus list). Shard reports are cached by a hash of the shard's content, the shapes and the
ontology, so a rebuild after editing one profile validates only that profile. Both modes give the report of
one full run (differential tests check it).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from ..atomic_files import write_atomically
from ..mapping import MappedGraphs
from ..namespaces import bind_prefixes
from . import ValidationReport, _Locator, _report, validate_graphs
from .engine import Outcome, run

_SHARED: dict[str, object] = {}
SHARD_TRIPLES = 20_000
ENGINE_LINE = "# engine: "  # first line of a shard report (an N-Triples comment): the engine that computed it


def _digest(*graphs: Graph) -> str:
    """A content hash of graphs (sorted N-Triples lines), independent of blank-node labels only for IRIs."""
    digest = hashlib.sha256()
    for graph in graphs:
        for line in sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in graph):
            digest.update(line.encode("utf-8"))
            digest.update(b"\n")
        digest.update(b"\x00")
    return digest.hexdigest()


def _conflicts(mapped: MappedGraphs, reference: URIRef) -> dict[Node, list[URIRef]]:
    """IRI subjects described with different triples by two or more profile graphs, with those graphs.

    Blank nodes (author-list cells) differ only when their work's author list differs, and their results
    are reported on that work, which is a conflict itself.
    """
    seen: dict[Node, dict[str, URIRef]] = defaultdict(dict)
    for iri, graph in mapped.graphs.items():
        if iri == reference:
            continue
        outgoing: dict[Node, list[str]] = defaultdict(list)
        for s, p, o in graph:
            outgoing[s].append(f"{p.n3()} {o.n3()}")
        for subject, lines in outgoing.items():
            seen[subject]["\n".join(sorted(lines))] = iri
    return {s: sorted(set(v.values())) for s, v in seen.items() if len(v) > 1 and isinstance(s, URIRef)}


def _validate_shard(index: int) -> str:
    """Worker: validate one shard (held in _SHARED before the fork); its report as N-Triples, engine first."""
    shards: list[Graph] = _SHARED["shards"]  # type: ignore[assignment]
    outcome = run([shards[index]], _SHARED["shapes"], _SHARED["ontology"])  # type: ignore[arg-type]
    return f"{ENGINE_LINE}{outcome.engine}\n" + outcome.graph.serialize(format="nt")


def _merge(reports: Iterable[Graph], conflicts: set[Node]) -> Graph:
    """One SHACL report from several: conflict nodes' results from the first (union) report, others from the rest."""
    has_conflicts = bool(conflicts)
    merged = bind_prefixes(Graph())
    root = BNode("report")
    conforms = True
    merged.add((root, RDF.type, SH.ValidationReport))
    seen: set[tuple[str, ...]] = set()
    for number, report in enumerate(reports):
        for result in report.objects(None, SH.result):
            focus = report.value(result, SH.focusNode)
            key = tuple(str(report.value(result, p)) for p in (SH.focusNode, SH.resultPath, SH.sourceShape,
                                                                 SH.value, SH.resultMessage))
            if (focus in conflicts) != (number == 0 and has_conflicts) or key in seen:
                continue
            seen.add(key)
            _copy_node(report, result, merged, f"r{number}-")
            merged.add((root, SH.result, BNode(f"r{number}-{result}")))
            conforms = False
    merged.add((root, SH.conforms, Literal(conforms)))
    return merged


def _copy_node(source: Graph, node: Node, target: Graph, prefix: str) -> None:
    """Copy a blank node's description (recursively for nested blank nodes), renaming blank nodes."""
    def rename(term: Node) -> Node:
        return BNode(f"{prefix}{term}") if isinstance(term, BNode) else term

    stack, done = [node], set()
    while stack:
        current = stack.pop()
        if current in done:
            continue
        done.add(current)
        for p, o in source.predicate_objects(current):
            target.add((rename(current), p, rename(o)))
            if isinstance(o, BNode):
                stack.append(o)


def _groups(mapped: MappedGraphs, reference: URIRef, shard_triples: int) -> list[list[URIRef]]:
    """Profile graphs in sorted order, cut into groups of about shard_triples triples."""
    groups: list[list[URIRef]] = [[]]
    size = 0
    for iri in sorted(i for i in mapped.graphs if i != reference):
        if groups[-1] and size + len(mapped.graphs[iri]) > shard_triples:
            groups.append([])
            size = 0
        groups[-1].append(iri)
        size += len(mapped.graphs[iri])
    return [g for g in groups if g] or [[]]


def validate_sharded(mapped: MappedGraphs, shapes: Graph, ontology: Graph, *, reference: URIRef,
                     cache_dir: Path | None = None, processes: int | None = None,
                     shard_triples: int = SHARD_TRIPLES, mode: str = "union") -> ValidationReport:
    """Validate all graphs: one run over the union (cache_dir unused), or mode "shards" (in parallel, cached)."""
    if mode == "union":
        return validate_graphs(mapped, shapes, ontology)
    if mode != "shards":
        raise ValueError(f"unknown validation mode {mode!r}; use union or shards")
    conflicts = _conflicts(mapped, reference)
    ref_graph = mapped.graphs.get(reference, Graph())
    shards: list[Graph] = []
    if conflicts:
        union = bind_prefixes(Graph())
        for iri in sorted({g for graphs in conflicts.values() for g in graphs}):
            union += mapped.graphs[iri]
        union += ref_graph
        shards.append(union)
    for group in _groups(mapped, reference, shard_triples):
        data = bind_prefixes(Graph())
        for iri in group:
            data += mapped.graphs[iri]
        shards.append(data + ref_graph)
    tag = _digest(shapes, ontology)
    keys = [hashlib.sha256((tag + _digest(data)).encode()).hexdigest() for data in shards]
    texts: dict[int, str] = {}
    missing = []
    for index, key in enumerate(keys):
        cached = cache_dir / f"{key}.nt" if cache_dir else None
        if cached is not None and cached.exists():
            texts[index] = cached.read_text(encoding="utf-8")
        else:
            missing.append(index)
    texts.update(zip(missing, _run_shards(shards, shapes, ontology, missing, processes), strict=True))
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for index in missing:
            write_atomically(cache_dir / f"{keys[index]}.nt", texts[index])
    reports = [Graph().parse(data=texts[i], format="nt") for i in range(len(shards))]
    merged = _merge(reports, set(conflicts))
    engine = "pyshacl" if any(text.startswith(f"{ENGINE_LINE}pyshacl") for text in texts.values()) else "oxigraph"
    return _report(Outcome(merged, engine), _Locator(mapped.origins, mapped.graphs, mapped.sources))


def _run_shards(shards: list[Graph], shapes: Graph, ontology: Graph,
                indexes: list[int], processes: int | None) -> list[str]:
    """Validate the given shards, in forked worker processes when there are several."""
    _SHARED.update(shards=shards, shapes=shapes, ontology=ontology)
    try:
        workers = min(processes or os.cpu_count() or 1, len(indexes))
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            return [_validate_shard(i) for i in indexes]
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return pool.map(_validate_shard, indexes, chunksize=max(1, len(indexes) // (workers * 8)))
    finally:
        _SHARED.clear()
