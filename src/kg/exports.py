"""Deterministic dumps: the same data gives byte-identical output in every format."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox
from rdflib import Graph, URIRef

from .atomic_files import write_atomically
from .config import Config
from .iris import graph_kind
from .namespaces import PREFIXES, bind_prefixes
from .store import GraphStore, log_graph_names_of
from .terms import OxObject, from_ox


class Selection(str, Enum):  # noqa: UP042 - a StrEnum would change what str() of a member gives
    """Which graphs an export includes."""

    ALL = "all"
    ASSERTED = "asserted"
    INFERRED = "inferred"
    CHANGES = "changes"  # the builds' change records (kg.changes), which the other selections leave out


EXPORT_FORMATS = {"turtle": ox.RdfFormat.TURTLE, "nt": ox.RdfFormat.N_TRIPLES, "nq": ox.RdfFormat.N_QUADS,
                  "trig": ox.RdfFormat.TRIG, "jsonld": ox.RdfFormat.JSON_LD}
QUAD_FORMATS = {"nq", "trig"}


def load_context(config: Config | None = None) -> dict[str, Any]:
    """The local JSON-LD context (ontology/context.jsonld); never fetched from the network."""
    path = (config or Config()).ontology / "context.jsonld"
    return json.loads(path.read_text(encoding="utf-8"))["@context"]


def selected_graphs(store: GraphStore, selection: Selection) -> list[str]:
    """Named graphs in a selection: inferred is the inferred graph, asserted every other data graph, changes the
    builds' change records (never part of all: they differ between two builds of the same data)."""
    if selection is Selection.CHANGES:
        return log_graph_names_of(store)
    names = store.graph_names()
    inferred = [g for g in names if graph_kind(g) == "inferred"]
    if selection is Selection.INFERRED:
        return inferred
    if selection is Selection.ASSERTED:
        return [g for g in names if g not in inferred]
    return names


def _sorted_quads(store: GraphStore, graphs: list[str]) -> list[ox.Quad]:
    quads = [q for g in graphs for q in store.quads(g)]
    return sorted(quads, key=str)


def _sorted_triples(store: GraphStore, graphs: list[str], selection: Selection) -> list[ox.Triple]:
    if selection is Selection.ALL:
        return sorted(store.default_triples(), key=str)
    return sorted({q.triple for q in _sorted_quads(store, graphs)}, key=str)


RDF_NS = PREFIXES["rdf"]
FIRST, REST, NIL = ox.NamedNode(RDF_NS + "first"), ox.NamedNode(RDF_NS + "rest"), ox.NamedNode(RDF_NS + "nil")
LIST_TYPE = (ox.NamedNode(RDF_NS + "type"), ox.NamedNode(RDF_NS + "List"))
PLACEHOLDER = "urn:kg:blank-node:"


def _list_nodes(triples: list[ox.Triple]) -> set[ox.BlankNode]:
    """The nodes of the RDF lists to write as JSON-LD @list: well-formed chains of blank nodes (one rdf:first,
    one rdf:rest, at most rdf:type rdf:List, ending in rdf:nil) whose inner nodes nothing else points at and
    whose head is no item of a list, so that no @list nests in another."""
    about: dict[ox.BlankNode, list[tuple[ox.NamedNode, OxObject]]] = {}
    incoming: dict[ox.BlankNode, int] = {}
    rests: set[ox.BlankNode] = set()
    items: set[ox.BlankNode] = set()
    for t in triples:
        if isinstance(t.subject, ox.BlankNode):
            about.setdefault(t.subject, []).append((t.predicate, t.object))
        if isinstance(t.object, ox.BlankNode):
            incoming[t.object] = incoming.get(t.object, 0) + 1
            (rests if t.predicate == REST else items if t.predicate == FIRST else set()).add(t.object)
    kept: set[ox.BlankNode] = set()
    for head in about:
        if head in rests or head in items:
            continue
        chain: list[ox.BlankNode] = []
        node: object = head
        while isinstance(node, ox.BlankNode) and node not in kept and (node is head or (
                incoming.get(node) == 1 and node not in items)):
            pairs = [pair for pair in about.get(node, []) if pair != LIST_TYPE]
            first = [o for p, o in pairs if p == FIRST]
            rest = [o for p, o in pairs if p == REST]
            if len(pairs) != 2 or len(first) != 1 or len(rest) != 1 or (node is head and not from_ox(first[0])):
                break
            chain.append(node)
            node = rest[0]
        if node == NIL and len(set(chain)) == len(chain):
            kept.update(chain)
    return kept


def _placeholder(triples: list[ox.Triple]) -> str:
    """An IRI prefix that occurs in no term of the triples (the same one for the same data)."""
    texts = {str(term.value) for t in triples for term in (t.subject, t.object) if not isinstance(term, ox.Triple)}
    prefix, number = PLACEHOLDER, 0
    while any(prefix in text for text in texts):
        number += 1
        prefix = f"{PLACEHOLDER}{number}:"
    return prefix


def _relabel(document: Any, prefix: str) -> Any:
    """Turn every placeholder IRI string back into its blank node identifier, without recursion."""
    stack = [document]
    while stack:
        value = stack.pop()
        pairs = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for key, item in pairs:
            if isinstance(item, str) and item.startswith(prefix):
                value[key] = "_:" + item[len(prefix):]
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return document


def compact_jsonld(triples: list[ox.Triple], context: dict[str, Any]) -> bytes:
    """Compacted, sorted JSON-LD. rdflib's writer follows blank nodes by recursion, so every blank node but
    those of flat lists is handed to it as a placeholder IRI (written flat, as a reference) and renamed back."""
    lists, prefix = _list_nodes(triples), _placeholder(triples)

    def term(node: Any) -> Any:
        if isinstance(node, ox.BlankNode) and node not in lists:
            return URIRef(prefix + node.value)
        return from_ox(node)

    graph = bind_prefixes(Graph())
    for t in triples:
        graph.add((term(t.subject), from_ox(t.predicate), term(t.object)))
    try:
        written = graph.serialize(format="json-ld", context=context, auto_compact=True)
    except TypeError:  # rdflib fails on a @list term whose value is no list (a CONSTRUCT giving part of a list)
        context = {k: v for k, v in context.items() if not _is_list_container(context, k)}
        written = graph.serialize(format="json-ld", context=context, auto_compact=True)
    document = _relabel(json.loads(written), prefix)
    nodes = document.get("@graph", [document] if "@id" in document else [])
    nodes = [{k: v for k, v in node.items() if k != "@context"} for node in nodes]
    for node in nodes:
        for key, value in node.items():
            if isinstance(value, list) and key != "authorList" and not _is_list_container(context, key):
                node[key] = sorted(value, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    nodes.sort(key=lambda n: str(n.get("@id", "")))
    output = {"@context": context, "@graph": nodes}
    return (json.dumps(output, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _is_list_container(context: dict[str, Any], key: str) -> bool:
    term = context.get(key)
    return isinstance(term, dict) and term.get("@container") == "@list"


def export(store: GraphStore, fmt: str, selection: Selection = Selection.ALL, output: IO[bytes] | None = None,
           context: dict[str, Any] | None = None) -> bytes:
    """Serialise the selected graphs in a format; returns the bytes and writes them to output if given."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    graphs = selected_graphs(store, selection)
    if fmt in QUAD_FORMATS:
        data = ox.serialize(_sorted_quads(store, graphs), format=EXPORT_FORMATS[fmt], prefixes=PREFIXES)
    elif fmt == "jsonld":
        data = compact_jsonld(_sorted_triples(store, graphs, selection), context or load_context())
    else:
        data = ox.serialize(_sorted_triples(store, graphs, selection), format=EXPORT_FORMATS[fmt], prefixes=PREFIXES)
    assert data is not None  # ox.serialize returns the bytes when it is given no output
    if output is not None:
        output.write(data)
    return data


def export_to_file(store: GraphStore, fmt: str, selection: Selection, path: Path) -> int:
    """Write an export to a file atomically; returns the number of bytes written."""
    data = export(store, fmt, selection)
    write_atomically(path, data)
    return len(data)
