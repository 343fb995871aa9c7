"""Which engine validates: the Oxigraph engine (core and SHACL-SPARQL shapes on one store) or pyshacl.

``run`` gives the report graph and the name of the engine that produced its core results: "oxigraph" when
the compiled engine evaluated every core shape, "pyshacl" when it could not (``Unsupported``: SHACL-SPARQL
constraints outside the supported pattern, a recursive shape, a graph Oxigraph cannot load) and pyshacl ran
the core shapes instead. Either way the report is the one SHACL defines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain
from typing import cast

import pyoxigraph as ox
from pyshacl import validate
from pyshacl.rdfutil.inoculate import inoculate
from rdflib import Graph, URIRef
from rdflib.graph import ReadOnlyGraphAggregate
from rdflib.namespace import RDF, SH

from ..namespaces import bind_prefixes
from .core import core_results
from .sparql import describe, report, run_sparql_constraints, sparql_shape_nodes
from .terms import TermMap, load_store
from .values import Unsupported

ENGINES = ("oxigraph", "hybrid", "pyshacl")


@dataclass(frozen=True)
class Outcome:
    """A report graph and the engine that computed it ("oxigraph" or "pyshacl"); for an Oxigraph run, the store it
    validated (data plus schema in the default graph) and its term map, which incremental validation keeps."""

    graph: Graph
    engine: str
    store: ox.Store | None = field(default=None, compare=False, repr=False)
    terms: TermMap | None = field(default=None, compare=False, repr=False)
    schema: Graph | None = field(default=None, compare=False, repr=False)


def run_pyshacl(data: Graph, shapes: Graph, ontology: Graph, focus_nodes: list[str | URIRef] | None = None) -> Graph:
    """Run pySHACL on in-memory graphs only: no inference, no owl:imports, SPARQL constraints on."""
    _, report, _ = validate(data, shacl_graph=shapes, ont_graph=ontology, inference="none", advanced=True,
                            do_owl_imports=False, allow_warnings=True, allow_infos=True, abort_on_first=False,
                            focus_nodes=focus_nodes)
    return bind_prefixes(report)


def core_shapes(shapes: Graph) -> Graph:
    """The shapes graph without the targets of the shapes shacl_sparql runs (so the core engines skip them)."""
    core = Graph()
    core += shapes
    for node_shape in sparql_shape_nodes(shapes):
        core.remove((node_shape, SH.target, None))
    return core


def _results_only(report: Graph) -> Graph:
    """A report graph without its sh:ValidationReport node (the results, those under sh:detail, what they name)."""
    results = Graph()
    roots = set(report.subjects(RDF.type, SH.ValidationReport))
    for triple in report:
        if triple[0] not in roots:
            results.add(triple)
    return results


def schema_of(ontology: Graph) -> Graph:
    """The part of an ontology mixed into the data, as pyshacl mixes its ont_graph in."""
    # pyshacl annotates inoculate with its DataGraph; it takes and returns the plain rdflib Graph given it
    return cast(Graph, inoculate(Graph(), ontology))  # type: ignore[arg-type]


def _as_specified(pyshacl_report: Graph) -> Graph:
    """pyshacl's report with sh:conforms as SHACL defines it (pyshacl, allowing warnings, says true for them)."""
    return bind_prefixes(report(_results_only(pyshacl_report)))


def run(graphs: list[Graph], shapes: Graph, ontology: Graph | None = None, engine: str = "oxigraph",
        focus_nodes: list[str | URIRef] | None = None) -> Outcome:
    """The SHACL report on the union of graphs (loaded into Oxigraph without an rdflib union) and its engine.

    engine "oxigraph": core and SHACL-SPARQL shapes on one Oxigraph store (pyshacl for the core shapes when the
    compiled engine cannot evaluate them); "hybrid": pyshacl for the core shapes, Oxigraph for the SHACL-SPARQL
    ones; "pyshacl": pyshacl for everything (the reference), as is any run restricted to focus_nodes.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown validation engine {engine!r}; use one of {', '.join(ENGINES)}")
    ontology = ontology if ontology is not None else Graph()
    if engine == "pyshacl" or focus_nodes is not None:
        return Outcome(_as_specified(run_pyshacl(union(graphs), shapes, ontology, focus_nodes)), "pyshacl")
    data = graphs[0] if len(graphs) == 1 else ReadOnlyGraphAggregate(graphs)
    try:
        schema = schema_of(ontology)
        store, terms = load_store(chain(*graphs, schema))
    except ValueError:
        return Outcome(_as_specified(run_pyshacl(union(graphs), shapes, ontology)), "pyshacl")
    core = core_shapes(shapes)
    results = run_sparql_constraints(store, shapes)
    used = "oxigraph"
    try:
        if engine != "oxigraph":
            raise Unsupported("core shapes in pyshacl")
        results += core_results(store, core, terms)
        describe(results, shapes, data)
    except Unsupported:
        describe(results, shapes, data)
        results += _results_only(run_pyshacl(union(graphs), core, ontology))
        used = "pyshacl"
    return Outcome(bind_prefixes(report(results)), used, store, terms, schema)


def union(graphs: Iterable[Graph]) -> Graph:
    """One rdflib graph holding every triple of the graphs."""
    graphs = list(graphs)
    if len(graphs) == 1:
        return graphs[0]
    merged = bind_prefixes(Graph())
    for graph in graphs:
        merged += graph
    return merged




__all__ = ["ENGINES", "Outcome", "core_shapes", "run", "run_pyshacl", "schema_of", "union"]
