"""SHACL validation of the mapped graphs, with every problem traced back to its source file and field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from ..mapping import MappedGraphs
from ..model import Origin
from ..namespaces import bind_prefixes
from ..sources import format_path
from .engine import ENGINES, Outcome, run

SEVERITIES = {SH.Violation: "Violation", SH.Warning: "Warning", SH.Info: "Info"}
SEVERITY_ORDER = {"Violation": 0, "Warning": 1, "Info": 2}
_NAMES = bind_prefixes(Graph()).namespace_manager

# The YAML key an RDF property comes from, by the kind of record a node was mapped from.
FIELD_KEYS: dict[str, dict[str, str]] = {
    "profile": {
        "schema:name": "name", "schema:givenName": "given_name", "schema:familyName": "family_name",
        "schema:alternateName": "other_names", "schema:jobTitle": "title", "schema:description": "summary",
        "schema:email": "email", "foaf:mbox": "email", "schema:url": "homepage", "foaf:homepage": "homepage",
        "schema:affiliation": "affiliation", "schema:sameAs": "same_as", "schema:knowsAbout": "research_areas",
        "rdfs:seeAlso": "links", "foaf:currentProject": "projects", "foaf:pastProject": "projects",
        "schema:additionalProperty": "metrics", "schema:hasCredential": "education",
        "schema:worksFor": "experience", "schema:alumniOf": "education", "kg:advisor": "education",
        "kg:workedWith": "education",
    },
    "reference": {
        "schema:name": "name", "schema:alternateName": "aliases", "schema:parentOrganization": "parent",
        "schema:sameAs": "same_as", "schema:url": "url",
    },
    "publications": {
        "schema:name": "title", "dcterms:title": "title", "schema:datePublished": "year",
        "schema:author": "authors", "bibo:authorList": "authors", "kg:authorship": "authors",
        "kg:authorListComplete": "authors", "bibo:presentedAt": "venue", "schema:isPartOf": "venue",
        "bibo:presentedAt|schema:isPartOf": "venue", "kg:venueAsWritten": "venue_as_written",
        "schema:creativeWorkStatus": "status", "bibo:status": "status", "schema:award": "awards",
        "kg:note": "notes", "rdfs:seeAlso": "links", "bibo:doi": "doi", "schema:sameAs": "same_as",
    },
    "experience": {
        "schema:roleName": "role", "schema:startDate": "start", "schema:endDate": "end",
        "schema:worksFor": "organizations", "schema:description": "description",
        "kg:durationAsWritten": "duration_as_written",
    },
    "education": {
        "schema:roleName": "degree", "schema:startDate": "start", "schema:endDate": "end",
        "schema:alumniOf": "institution", "schema:description": "focus", "kg:programPartner": "partner",
        "kg:advisorLabel": "advisor_label", "schema:memberOf": "lab", "schema:name": "degree_name",
        "schema:educationalLevel": "degree", "schema:about": "field", "schema:recognizedBy": "institution",
    },
    "metrics": {
        "schema:propertyID": "kind", "schema:value": "value", "schema:minValue": "min_value",
        "kg:valueAsWritten": "as_written", "schema:name": "kind",
    },
}


@dataclass(frozen=True)
class Violation:
    """One SHACL result, located in the source data when possible."""

    focus: str
    path: str | None
    message: str
    severity: str
    shape: str
    value: str | None = None
    file: str | None = None
    line: int | None = None
    field: str | None = None

    def sort_key(self) -> tuple[Any, ...]:
        """Deterministic order: by file, line, field, focus, path, severity, message, value."""
        return (self.file is None, self.file or "", self.line or 0, self.field or "", self.focus,
                self.path or "", SEVERITY_ORDER.get(self.severity, 9), self.message, self.value or "")

    def text(self) -> str:
        """One report line: file:line: [severity:] field (focus): path: message."""
        place = self.file or "(no source file)"
        if self.line is not None:
            place += f":{self.line}"
        tag = "" if self.severity == "Violation" else f"{self.severity.lower()}: "
        where = f"{self.field} ({self.focus})" if self.field else f"({self.focus})"
        path = f"{self.path}: " if self.path else ""
        words = {word.strip(",.;:()'\"") for word in self.message.split()}
        shown = f" (value: {self.value})" if self.value is not None and self.value not in words else ""
        return f"{place}: {tag}{where}: {path}{self.message}{shown}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class ValidationReport:
    """The outcome of validating graphs against the shapes.

    conforms is SHACL's sh:conforms: true exactly when there is no result of any severity. passes is the build's
    policy: true unless a result is a sh:Violation (warnings and notes are reported but do not stop a build).
    engine names what computed the core results: "oxigraph" (the compiled engine) or "pyshacl".
    """

    conforms: bool
    violations: tuple[Violation, ...]
    graph: Graph = field(compare=False, repr=False)
    engine: str = field(default="oxigraph", compare=False)

    @property
    def passes(self) -> bool:
        """Whether no result is a sh:Violation (the build's criterion)."""
        return not self.errors

    @property
    def errors(self) -> tuple[Violation, ...]:
        """The results of severity sh:Violation."""
        return tuple(v for v in self.violations if v.severity == "Violation")

    @property
    def warnings(self) -> tuple[Violation, ...]:
        """The results of severity sh:Warning."""
        return tuple(v for v in self.violations if v.severity == "Warning")

    @property
    def infos(self) -> tuple[Violation, ...]:
        """The results of severity sh:Info."""
        return tuple(v for v in self.violations if v.severity == "Info")

    def summary(self) -> str:
        """One line counting the results by severity."""
        if not self.violations:
            return "Validation passed: no problems found."
        files = {v.file for v in self.violations}
        counts = [_plural(len(self.errors), "violation"), _plural(len(self.warnings), "warning")]
        if self.infos:
            counts.append(_plural(len(self.infos), "note"))
        verdict = "passed" if self.passes else "failed"
        return f"Validation {verdict}: {', '.join(counts)} in {_plural(len(files), 'source')}."

    def text(self) -> str:
        """A human report grouped by source file, one line per result, ending with a summary."""
        blocks: list[str] = []
        current: str | None | bool = False
        for violation in self.violations:
            if violation.file != current:
                if blocks:
                    blocks.append("")
                current = violation.file
            blocks.append(violation.text())
        if blocks:
            blocks.append("")
        blocks.append(self.summary())
        return "\n".join(blocks)

    def turtle(self) -> str:
        """The standard SHACL validation report as Turtle."""
        return self.graph.serialize(format="turtle")

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict: conforms (SHACL's), passes (no violation), the engine, counts, and the results by
        severity (violations, warnings, infos), each list holding only its own severity."""
        return {"conforms": self.conforms, "passes": self.passes, "engine": self.engine,
                "counts": {"violations": len(self.errors), "warnings": len(self.warnings),
                           "infos": len(self.infos)},
                "violations": [asdict(v) for v in self.errors], "warnings": [asdict(v) for v in self.warnings],
                "infos": [asdict(v) for v in self.infos]}


class _Locator:
    """Finds the source (file, line, field path) of a focus node."""

    def __init__(self, origins: Mapping[URIRef, Origin] | None, graphs: Mapping[URIRef, Graph] | None = None,
                 sources: Mapping[URIRef, str] | None = None) -> None:
        self.origins = dict(origins or {})
        self.graphs = dict(graphs or {})
        self.sources = dict(sources or {})

    def origin(self, node: Node) -> Origin | None:
        """The origin of a node, or of the minted node its IRI extends (a work's list cell, a role's degree)."""
        if not isinstance(node, URIRef):
            return None
        if node in self.origins:
            return self.origins[node]
        text = str(node)
        parents = [iri for iri in self.origins if text.startswith(str(iri) + "/")]
        return self.origins[max(parents, key=len)] if parents else None

    def fallback_file(self, node: Node) -> str | None:
        """The source file of the first graph (by IRI) holding the node as subject, else as object."""
        for position in ("subject", "object"):
            for iri in sorted(self.graphs):
                graph = self.graphs[iri]
                found = (node, None, None) in graph if position == "subject" else (None, None, node) in graph
                if found and iri in self.sources:
                    return self.sources[iri]
        return None

    def locate(self, node: Node, path: str | None) -> tuple[str | None, int | None, str | None]:
        """(file, line, field) for a focus node and the property path of the result."""
        origin = self.origin(node)
        if origin is None:
            return self.fallback_file(node), None, None
        parts = _field_parts(origin, path)
        return origin.file, origin.line_of(parts), format_path(parts) or None


def _context(path: tuple[str | int, ...]) -> str:
    if not path:
        return "profile"
    if isinstance(path[0], int):
        return "reference"
    if len(path) > 2 and path[-2] == "authors":
        return "authors"
    return str(path[0])


def _field_parts(origin: Origin, path: str | None) -> tuple[str | int, ...]:
    """The field path of a result: the record's path, plus the key the property comes from when known."""
    if not origin.path and not origin.lines:  # a downloaded record located by line (RIS, BibTeX, XML): no YAML key
        return ()
    key = FIELD_KEYS.get(_context(origin.path), {}).get(path or "")
    return origin.path + ((key,) if key else ())


def _path_text(graph: Graph, node: Node | None) -> str | None:
    """A SHACL property path as text: prefixed names, ^inverse, a/b sequences, a|b alternatives."""
    if node is None:
        return None
    if isinstance(node, URIRef):
        try:
            return _NAMES.curie(node, generate=False)
        except (KeyError, ValueError):
            return str(node)
    if (node, RDF.first, None) in graph:
        return "/".join(_path_text(graph, item) or "?" for item in Collection(graph, node))
    unary = {SH.inversePath: "^{}", SH.zeroOrMorePath: "{}*", SH.oneOrMorePath: "{}+", SH.zeroOrOnePath: "{}?"}
    for predicate, template in unary.items():
        inner = graph.value(node, predicate)
        if inner is not None:
            return template.format(_path_text(graph, inner))
    alternatives = graph.value(node, SH.alternativePath)
    if alternatives is not None:
        return "|".join(_path_text(graph, item) or "?" for item in Collection(graph, alternatives))
    return None


def _value_text(node: Node | None) -> str | None:
    if node is None or isinstance(node, BNode):
        return None
    return str(node)


def _message(graph: Graph, result: Node) -> str:
    messages = sorted(str(m) for m in graph.objects(result, SH.resultMessage))
    if messages:
        return " ".join(messages)
    component = graph.value(result, SH.sourceConstraintComponent)
    return f"fails {str(component).rsplit('#', 1)[-1]}" if component is not None else "fails a shape"


def _violations(graph: Graph, locator: _Locator) -> tuple[Violation, ...]:
    found: list[Violation] = []
    results = {r for report in graph.subjects(RDF.type, SH.ValidationReport) for r in graph.objects(report, SH.result)}
    for result in results:
        focus = graph.value(result, SH.focusNode)
        if focus is None:
            continue
        path = _path_text(graph, graph.value(result, SH.resultPath))
        file, line, field_path = locator.locate(focus, path)
        severity = graph.value(result, SH.resultSeverity)
        found.append(Violation(
            focus=str(focus), path=path, message=_message(graph, result),
            severity=SEVERITIES.get(severity, str(severity)) if isinstance(severity, URIRef) else "Violation",
            shape=str(graph.value(result, SH.sourceShape)), value=_value_text(graph.value(result, SH.value)),
            file=file, line=line, field=field_path))
    return tuple(sorted(dict.fromkeys(found), key=Violation.sort_key))


def _report(outcome: Outcome, locator: _Locator) -> ValidationReport:
    graph = outcome.graph
    flags = [value for value in graph.objects(None, SH.conforms) if isinstance(value, Literal)]
    return ValidationReport(bool(flags) and all(f.toPython() is True for f in flags), _violations(graph, locator),
                            graph, outcome.engine)


def validate_graph(data: Graph, shapes: Graph, ontology: Graph | None = None,
                   origins: Mapping[URIRef, Origin] | None = None, engine: str = "oxigraph",
                   source: str | None = None) -> ValidationReport:
    """Validate one rdflib graph against a shapes graph: the report SHACL defines, as pyshacl writes it.

    The results are located through origins when given, else in source (the data's file name) when given;
    ontology (optional) is mixed in as pyshacl's ont_graph is, for sh:class and class targets.
    """
    whole = URIRef("urn:kg:validated-graph")
    locator = _Locator(origins, {whole: data}, {whole: source}) if source is not None else _Locator(origins)
    return _report(run([data], shapes, ontology, engine), locator)


def validate_graphs(mapped: MappedGraphs, shapes: Graph, ontology: Graph, engine: str = "oxigraph") -> ValidationReport:
    """Validate the union of the mapped graphs, attributing each result to its source file and field."""
    return mapped_report(run(list(mapped.graphs.values()), shapes, ontology, engine), mapped)


def mapped_report(outcome: Outcome, mapped: MappedGraphs) -> ValidationReport:
    """The report of a validation of mapped graphs, each result attributed to its source file and field."""
    return _report(outcome, _Locator(mapped.origins, mapped.graphs, mapped.sources))


__all__ = ["ENGINES", "ValidationReport", "Violation", "mapped_report", "validate_graph", "validate_graphs"]
