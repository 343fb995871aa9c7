"""The W3C SHACL Core test suite read from its manifests, and reports compared as the suite defines them."""

from __future__ import annotations

import logging
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import rdflib
from rdflib import BNode, Graph, Literal, Namespace
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node

from .conftest import assert_isomorphic
from .shared import shared_path

SUITE = shared_path("w3c-shacl-tests", "core")
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = Namespace("http://www.w3.org/ns/shacl-test#")
NATIVE: Counter[str] = Counter()  # tests run per engine, for the terminal summary
RESULT_KEYS = (SH.focusNode, SH.resultPath, SH.value, SH.sourceShape, SH.sourceConstraintComponent,
               SH.resultSeverity)


@dataclass(frozen=True)
class SuiteTest:
    """One sht:Validate entry: its name, data and shapes graphs, and the expected report."""

    name: str
    label: str
    data: Graph
    shapes: Graph
    expected: Graph


@contextmanager
def literals_as_written() -> Iterator[None]:
    """Parse literals with their lexical forms kept ("1"^^xsd:boolean stays "1"), without rdflib's conversion noise."""
    logger = logging.getLogger("rdflib.term")
    level, normalize = logger.level, rdflib.NORMALIZE_LITERALS
    logger.setLevel(logging.CRITICAL)
    rdflib.NORMALIZE_LITERALS = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            yield
    finally:
        rdflib.NORMALIZE_LITERALS = normalize
        logger.setLevel(level)


def _load(path: Path, cache: dict[Path, Graph]) -> Graph:
    if path not in cache:
        with literals_as_written():
            cache[path] = Graph().parse(path, format="turtle", publicID=path.as_uri())
    return cache[path]


def _file(iri: Node) -> Path:
    return Path(str(iri).removeprefix("file://"))


def suite_tests(manifest: Path = SUITE / "manifest.ttl") -> list[SuiteTest]:
    """Every sht:Validate test reachable from the manifest through mf:include, in a stable order."""
    cache: dict[Path, Graph] = {}
    found: list[SuiteTest] = []
    pending, seen = [manifest], set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        graph = _load(path, cache)
        pending.extend(_file(i) for i in graph.objects(None, MF.include))
        for entries in graph.objects(None, MF.entries):
            for entry in Collection(graph, entries):
                if (entry, RDF.type, SHT.Validate) not in graph:
                    continue
                action = graph.value(entry, MF.action)
                data = _load(_file(graph.value(action, SHT.dataGraph)), cache)
                shapes = _load(_file(graph.value(action, SHT.shapesGraph)), cache)
                expected = Graph()
                _copy_tree(graph, graph.value(entry, MF.result), expected)
                name = str(entry).removeprefix(SUITE.as_uri() + "/")
                found.append(SuiteTest(name, str(graph.value(entry, RDFS.label) or name), data, shapes, expected))
    return sorted(found, key=lambda t: t.name)


def _copy_tree(source: Graph, node: Node, target: Graph) -> None:
    """Copy node's triples and, recursively, those of the blank nodes it points at."""
    for p, o in source.predicate_objects(node):
        target.add((node, p, o))
        if isinstance(o, BNode):
            _copy_tree(source, o, target)


def _shape_key(graph: Graph, node: Node, depth: int = 0) -> object:
    """A term as compared: IRIs and literals as they are, blank nodes by their structure (as pySHACL's runner)."""
    if not isinstance(node, BNode) or depth > 6:
        return node
    if (node, RDF.first, None) in graph:
        return ("list", tuple(_shape_key(graph, i, depth + 1) for i in Collection(graph, node)))
    return ("bnode", tuple(sorted(((str(p), repr(_shape_key(graph, o, depth + 1)))
                                   for p, o in graph.predicate_objects(node)
                                   if p not in (SH.message, SH.name, SH.description, RDFS.comment)),
                                  key=str)))


def conforms(report: Graph) -> bool:
    """The sh:conforms value of a report."""
    value = next(report.objects(None, SH.conforms))
    return bool(value.toPython()) if isinstance(value, Literal) else False


def result_keys(report: Graph, context: Graph) -> Counter[tuple[object, ...]]:
    """The top-level results of a report as a multiset of (focus, path, value, shape, component, severity).

    Blank nodes compare by structure, read from the report itself or from context (the shapes and data).
    """
    keys: Counter[tuple[object, ...]] = Counter()
    for root in report.subjects(RDF.type, SH.ValidationReport):
        for result in report.objects(root, SH.result):
            key = []
            for predicate in RESULT_KEYS:
                term = report.value(result, predicate)
                described = report if (term, None, None) in report else context
                key.append(None if term is None else _shape_key(described, term))
            keys[tuple(key)] += 1
    return keys


def describe_keys(keys: Counter[tuple[object, ...]]) -> list[str]:
    """Readable lines for a set of result keys, for assertion messages."""
    names = ("focus", "path", "value", "shape", "component", "severity")
    lines = []
    for key, count in sorted(keys.items(), key=str):
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, key, strict=True) if v is not None)
        lines.append(f"{count} x {shown}")
    return lines



def results_only(report: Graph, shapes: Graph | None = None) -> Graph:
    """A report without its sh:conforms triple (pyshacl, allowing warnings, calls a report with only warnings
    conforming; SHACL does not) and without the messages engines make up for shapes that have no sh:message."""
    made_up = set() if shapes is None else {
        r for r in report.subjects(SH.sourceShape, None)
        if (report.value(r, SH.sourceShape), SH.message, None) not in shapes}
    copy = Graph()
    for s, p, o in report:
        if p != SH.conforms and not (p == SH.resultMessage and s in made_up):
            copy.add((s, p, o))
    return copy


def assert_same_results(actual: Graph, expected: Graph, shapes: Graph | None = None) -> None:
    """The two reports hold isomorphic results (messages compared where the shapes give them), and the actual one
    conforms exactly when it has none."""
    assert_isomorphic(results_only(actual, shapes), results_only(expected, shapes))
    assert conforms(actual) is not any(actual.objects(None, SH.result))


def passes(report: Graph) -> bool:
    """Whether no result of a report is a sh:Violation (the build's criterion)."""
    return not any(report.value(r, SH.resultSeverity) == SH.Violation for r in report.objects(None, SH.result))
