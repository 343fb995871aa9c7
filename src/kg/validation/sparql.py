"""SHACL-SPARQL shapes evaluated by Oxigraph's query engine instead of rdflib's (orders of magnitude faster).

The shapes use one pattern: a node shape with a ``sh:SPARQLTarget`` (a query that selects only suspect
nodes) whose constraints are ``sh:sparql`` SELECT queries, on the node shape itself or on its property
shapes. This module finds those shapes, runs targets and constraints on a pyoxigraph store, and writes
results exactly as pyshacl does (focus node, path, value, message, severity, source shape, constraint and
component), so the merged report equals a full pyshacl run (a differential test checks it). Core shapes run in
shacl_core (or pyshacl). Loading the store and assembling the report as pyshacl does are here too, for both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import pyoxigraph as ox
from pyshacl.rdfutil.clone import clone_blank_node
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from ..terms import from_ox

FEW_FOCUS_NODES = 2_000  # below this many allowed focus nodes, a SPARQL target is asked per node
TEMPLATE = re.compile(r"\{[?$]([A-Za-z_][A-Za-z0-9_]*)\}")


Substitutions = dict[ox.Variable, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple]


def select(store: ox.Store, query: str, substitutions: Substitutions | None = None) -> ox.QuerySolutions:
    """The solutions of a SELECT query (a TypeError for an ASK, CONSTRUCT or DESCRIBE query)."""
    result = store.query(query, substitutions=substitutions)
    if not isinstance(result, ox.QuerySolutions):
        raise TypeError(f"expected a SELECT query, got one answering {type(result).__name__}: {query[:200]}")
    return result


@dataclass(frozen=True)
class SparqlConstraint:
    """One sh:sparql constraint with the shape it belongs to and the target of its node shape."""

    node_shape: Node
    shape: Node
    constraint: Node
    path: URIRef | None
    target: str
    select: str
    messages: tuple[Literal, ...]
    severity: Node


def _prefixes(shapes: Graph, constraint: Node) -> str:
    lines = []
    for holder in shapes.objects(constraint, SH.prefixes):
        for declaration in shapes.objects(holder, SH.declare):
            prefix = shapes.value(declaration, SH.prefix)
            namespace = shapes.value(declaration, SH.namespace)
            lines.append(f"PREFIX {prefix}: <{namespace}>")
    return "\n".join(sorted(set(lines))) + "\n"


def sparql_constraints(shapes: Graph) -> list[SparqlConstraint]:
    """Every sh:sparql constraint under a node shape with a SPARQL target, in a stable order."""
    found = []
    for node_shape, target in shapes.subject_objects(SH.target):
        if (target, RDF.type, SH.SPARQLTarget) not in shapes:
            continue
        target_query = _prefixes(shapes, target) + str(shapes.value(target, SH.select))
        owners = [(node_shape, None)] + [(s, shapes.value(s, SH.path)) for s in shapes.objects(node_shape, SH.property)]
        for shape, path in owners:
            for constraint in shapes.objects(shape, SH.sparql):
                found.append(SparqlConstraint(
                    node_shape, shape, constraint, path if isinstance(path, URIRef) else None, target_query,
                    _prefixes(shapes, constraint) + str(shapes.value(constraint, SH.select)),
                    cast("tuple[Literal, ...]",  # sh:message values are literals; rdflib types objects() as Node
                         tuple(shapes.objects(constraint, SH.message)) or tuple(shapes.objects(shape, SH.message))),
                    shapes.value(shape, SH.severity) or SH.Violation))
    return sorted(found, key=lambda c: (str(c.node_shape), str(c.shape), str(c.constraint)))


def sparql_shape_nodes(shapes: Graph) -> set[Node]:
    """Node shapes handled here (their property shapes go with them)."""
    return {c.node_shape for c in sparql_constraints(shapes)}


def _fill(template: Literal, row: ox.QuerySolution, names: list[str]) -> Literal:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        term = row[name] if name in names else None
        return match.group(0) if term is None else str(from_ox(term))

    return Literal(TEMPLATE.sub(value, str(template)), lang=template.language)


def _results(store: ox.Store, check: SparqlConstraint,
             only: set[Any] | None = None) -> Iterator[tuple[Node, ox.QuerySolution, list[str]]]:
    if only is not None and len(only) <= FEW_FOCUS_NODES:  # ask the target of each node rather than of all
        this = ox.Variable("this")
        focus_nodes = [node for node in only if next(iter(select(store, check.target, {this: node})), None)]
    else:
        focus_nodes = [row["this"] for row in select(store, check.target) if only is None or row["this"] in only]
    query = check.select if check.path is None else check.select.replace("$PATH", f"<{check.path}>")
    for focus in sorted(focus_nodes, key=str):
        solutions = select(store, query, substitutions={ox.Variable("this"): focus})
        names = [v.value for v in solutions.variables]
        for row in solutions:
            yield from_ox(focus), row, names


def run_sparql_constraints(store: ox.Store, shapes: Graph, only: set[Any] | None = None) -> Graph:
    """SHACL results (sh:ValidationResult nodes, not yet attached to a report) of the SPARQL constraints (on the
    focus nodes in only, when given: stored terms)."""
    results = Graph()
    for number, check in enumerate(sparql_constraints(shapes)):
        for index, (focus, row, names) in enumerate(_results(store, check, only)):
            node = BNode(f"sparql-{number}-{index}")
            results.add((node, RDF.type, SH.ValidationResult))
            results.add((node, SH.focusNode, focus))
            value = row["value"] if "value" in names and row["value"] is not None else None
            if value is not None:
                results.add((node, SH.value, from_ox(value)))
            elif check.path is None:  # SHACL 5.3.2: an unbound ?value is the focus node for node shapes only
                results.add((node, SH.value, focus))
            if check.path is not None:
                results.add((node, SH.resultPath, check.path))
            for message in check.messages:
                results.add((node, SH.resultMessage, _fill(message, row, names)))
            results.add((node, SH.resultSeverity, check.severity))
            results.add((node, SH.sourceShape, check.shape))
            results.add((node, SH.sourceConstraint, check.constraint))
            results.add((node, SH.sourceConstraintComponent, SH.SPARQLConstraintComponent))
    return results


def describe(results: Graph, shapes: Graph, data: Graph) -> None:
    """Copy the description of blank nodes the results name, as pyshacl does (its clone, ids kept, once each)."""
    sources = {SH.sourceShape: shapes, SH.resultPath: shapes, SH.sourceConstraint: shapes, SH.focusNode: data,
               SH.value: data}
    done: set[tuple[int, Node]] = set()
    for predicate, source in sources.items():
        for node in set(results.objects(None, predicate)):
            if isinstance(node, BNode) and (id(source), node) not in done:
                done.add((id(source), node))
                clone_blank_node(source, node, results, keepid=True)


def report(results: Graph) -> Graph:
    """A validation report of a results graph's top-level results (not those nested under sh:detail).

    sh:conforms is true exactly when there is no result at all, of any severity, as SHACL defines it.
    """
    graph = Graph()
    graph += results
    root = BNode()
    graph.add((root, RDF.type, SH.ValidationReport))
    conforms = True
    for result in results.subjects(RDF.type, SH.ValidationResult):
        if (None, SH.detail, result) not in results:
            graph.add((root, SH.result, result))
            conforms = False
    graph.add((root, SH.conforms, Literal(conforms)))
    return graph
