"""Resource descriptions: concise bounded descriptions and RDF twins (JSON-LD: structured.py; paths: floor.links).

A minted IRI ``{base}/id/{path}`` is served at ``/id/{path}`` on any host: ``/page/{path}`` is its HTML
page and ``/data/{path}.{ttl,jsonld,nt,rdf}`` its RDF documents. A description is the resource's concise
bounded description (its statements, following blank nodes) in the merged default graph, plus the works that
name it as ``schema:author`` (what a person's page lists), plus the ``schema:name`` and ``rdfs:label`` of every
IRI it points to and of those works; a statement found only in the inferred graph is
marked inferred.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox
from rdflib import Graph, URIRef

from ...exports import Selection, export, selected_graphs
from ...formats import Format
from ...iris import Minter
from ...namespaces import KG, PREFIXES, RDFS, SDO
from ...query.results import serialize_rdf
from ...store import GraphStore, Store, solutions
from ...terms import OxObject, OxSubject, from_ox

SCHEMA = str(SDO._NS)
RDF_TYPE = PREFIXES["rdf"] + "type"
RDF_FIRST = PREFIXES["rdf"] + "first"
LABEL_PROPERTIES = (str(SDO.name), str(RDFS.label))
DISPLAY_LABELS = LABEL_PROPERTIES + (str(SDO.roleName), str(KG.nameAsWritten), str(SDO.propertyID))
# Statements pointing at the resource that its page lists, so that its RDF twin carries them too (a person's works).
INCOMING = (str(SDO.author),)
TWIN_FORMATS: tuple[Format, ...] = (Format.TURTLE, Format.JSON_LD, Format.N_TRIPLES, Format.RDF_XML)
PAGE_FORMATS: tuple[Format, ...] = (Format.HTML,) + TWIN_FORMATS
XSD = PREFIXES["xsd"]
LOAD_BATCH = 400  # IRIs per Reader.load query
BIBTEX_TYPE = "application/x-bibtex"  # a person's or a work's BibTeX twin (kg.server.pages.citations)


def compact(iri: str) -> str:
    """A prefixed name for an IRI in a known namespace, else the IRI itself.

    >>> compact("http://schema.org/Person"), compact("https://example.org/x")
    ('schema:Person', 'https://example.org/x')
    """
    for prefix, namespace in sorted(PREFIXES.items(), key=lambda item: -len(item[1])):
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace):]}"
    return iri


def _node(term: str | OxSubject) -> OxSubject:
    return ox.NamedNode(term) if isinstance(term, str) else term


_INFERRED_GRAPHS: weakref.WeakKeyDictionary[GraphStore, list[ox.NamedNode]] = weakref.WeakKeyDictionary()


def _sort_key(term: OxObject) -> tuple[str, str]:
    return (type(term).__name__, str(term))


def _sorted_triples(triples: Iterable[ox.Triple]) -> list[ox.Triple]:
    return sorted(triples, key=lambda t: (t.predicate.value, _sort_key(t.object)))


class Reader:
    """Read access to a store's merged default graph: outgoing values, incoming subjects, labels, inference.

    Each look-up is made once per Reader (a page asks the same questions of a co-author many times)."""

    def __init__(self, store: GraphStore, base: str) -> None:
        self.store = store
        self.base = base.rstrip("/")
        self._minter = Minter(self.base)
        self._labels: dict[str, str] = {}
        self._values: dict[tuple[OxSubject, str], list[OxObject]] = {}
        self._incoming: dict[tuple[OxObject, str], list[OxSubject]] = {}
        self._inferred: dict[OxSubject, set[ox.Triple]] = {}
        self._inferred_values: dict[tuple[OxSubject, str], set[OxObject]] = {}
        self._triples: dict[OxSubject, list[ox.Triple]] = {}
        self._loaded: set[OxSubject] = set()
        self._covered: set[tuple[OxSubject, tuple[str, ...]]] = set()  # (subject, props) whose values are all known

    @functools.cached_property
    def inferred_graphs(self) -> list[ox.NamedNode]:
        """The inferred named graphs, listed once per store version (listing every graph took 5 ms at 1M
        triples, a store version's graphs never change)."""
        found = _INFERRED_GRAPHS.get(self.store)
        if found is None:
            found = _INFERRED_GRAPHS[self.store] = [ox.NamedNode(g) for g in selected_graphs(self.store,
                                                                                           Selection.INFERRED)]
        return list(found)

    def triples(self, subject: str | Any) -> list[ox.Triple]:
        """The statements about a subject in the merged graph, sorted."""
        node = _node(subject)
        found = self._triples.get(node)
        if found is None:
            quads = self.store.quads_for_pattern(node, None, None, ox.DefaultGraph())
            found = self._triples[node] = _sorted_triples(q.triple for q in quads)
        return list(found)

    def knows(self, subject: Any, prop: str) -> bool:
        """Whether values(subject, prop) is answered without asking the store."""
        return subject in self._loaded or (subject, prop) in self._values

    def fill(self, found: dict[tuple[Any, str], list[Any]]) -> None:
        """Record every object of each (subject, prop) (from a prefetch query) not known yet, so that values()
        asks nothing about them."""
        known, loaded = self._values, self._loaded
        for key, objects in found.items():
            if key not in known and key[0] not in loaded:
                known[key] = objects if len(objects) < 2 else sorted(set(objects), key=_sort_key)

    def cover(self, subjects: Iterable[Any], props: Sequence[str]) -> None:
        """Note that every value of these subjects by these props is known (so load() need not check each)."""
        self._covered.update((s, tuple(props)) for s in subjects)

    def fill_triples(self, subject: Any, triples: Iterable[ox.Triple]) -> None:
        """Record every statement about a subject (from a prefetch query), so that triples() and values() ask
        nothing."""
        found = self._triples[subject] = _sorted_triples(set(triples))
        grouped: dict[str, list[OxObject]] = {}
        for t in found:
            grouped.setdefault(t.predicate.value, []).append(t.object)
        for prop, objects in grouped.items():
            self._values[(subject, prop)] = objects
        self._loaded.add(subject)

    def fill_incoming(self, obj: Any, prop: str, subjects: Iterable[Any]) -> None:
        """Record every subject that points at obj by prop (from a prefetch query)."""
        self._incoming[(obj, prop)] = sorted(set(subjects), key=_sort_key)

    def fill_inferred(self, subject: Any, prop: str | None, objects: Iterable[Any]) -> None:
        """Record the objects of subject prop found in the inferred graphs (prop None: of every property, given
        as triples), so that is_inferred() asks nothing about them."""
        if prop is None:
            self._inferred[subject] = set(objects)
        else:
            self._inferred_values[(subject, prop)] = set(objects)

    def values(self, subject: str | Any, prop: str) -> list[Any]:
        """The objects of subject prop, sorted."""
        key = (_node(subject), prop)
        found = self._values.get(key)
        if found is None and key[0] in self._loaded:
            return []
        if found is None:
            quads = self.store.quads_for_pattern(key[0], ox.NamedNode(prop), None, ox.DefaultGraph())
            found = self._values[key] = sorted((q.object for q in quads), key=_sort_key)
        return list(found)

    def load(self, subjects: Iterable[Any], props: Sequence[str] | None = None) -> list[Any]:
        """Fetch what the given IRIs say (by the given properties only, when props is given) in one query per
        LOAD_BATCH (embedded store; elsewhere values() looks up lazily), so that later values() about them ask
        nothing; what is known already is not asked again; returns the subjects."""
        subjects = list(subjects)
        if not isinstance(self.store, Store):
            return subjects
        named = None if props is None else tuple(props)
        pending = sorted({s for s in subjects if isinstance(s, ox.NamedNode) and s not in self._loaded
                          and (named is None or (s, named) not in self._covered
                               and not all(self.knows(s, p) for p in named))}, key=str)
        for start in range(0, len(pending), LOAD_BATCH):
            batch = pending[start:start + LOAD_BATCH]
            found: dict[tuple[OxSubject, str], list[OxObject]] = {}
            values = " ".join(str(s) for s in batch)
            if props is None:
                sparql = f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o }}"
            else:
                found = {(s, p): [] for s in batch for p in props}
                listed = ", ".join(f"<{p}>" for p in props)  # (a VALUES block for ?p made the store scan everything)
                sparql = f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o FILTER(?p IN ({listed})) }}"
            for row in solutions(self.store.query(sparql)):
                found.setdefault((row[0], row[1].value), []).append(row[2])
            for key, objects in found.items():
                self._values[key] = sorted(objects, key=_sort_key)
            if named is None:
                self._loaded.update(batch)
            else:
                self.cover(batch, named)
        return subjects

    def first(self, subject: str | Any, prop: str) -> Any | None:
        """One object of subject prop (the least in sort order), or None."""
        found = self._values.get((subject, prop)) if isinstance(subject, ox.NamedNode) else None
        if found is None:  # not known yet (or a str subject): values() asks or answers from _loaded
            found = self.values(subject, prop)
        return found[0] if found else None

    def text(self, subject: str | Any, prop: str) -> str | None:
        """The lexical value of one object of subject prop, or None."""
        value = self.first(subject, prop)
        return None if value is None else str(value.value)

    def texts(self, subject: str | Any, prop: str) -> list[str]:
        """The lexical values of every object of subject prop."""
        return [str(v.value) for v in self.values(subject, prop)]

    def incoming(self, obj: str | Any, prop: str) -> list[Any]:
        """The subjects that point at obj by prop, sorted."""
        key = (_node(obj), prop)
        if key not in self._incoming:
            quads = self.store.quads_for_pattern(None, ox.NamedNode(prop), key[0], ox.DefaultGraph())
            self._incoming[key] = sorted({q.subject for q in quads}, key=_sort_key)
        return list(self._incoming[key])

    def types(self, subject: str | Any) -> set[str]:
        """The rdf:type IRIs of a subject."""
        return {t.value for t in self.values(subject, RDF_TYPE)}

    def exists(self, iri: str) -> bool:
        """Whether the IRI occurs as subject or object in the store."""
        node, default = ox.NamedNode(iri), ox.DefaultGraph()
        if self._triples.get(node):
            return True
        as_subject = self.store.quads_for_pattern(node, None, None, default)
        as_object = self.store.quads_for_pattern(None, None, node, default)
        return any(next(iter(found), None) is not None for found in (as_subject, as_object))

    def is_inferred(self, triple: ox.Triple) -> bool:
        """Whether a statement is only in the inferred graph (the build keeps only new triples there): the inferred
        statements about its subject are fetched once."""
        found = self._inferred.get(triple.subject)
        if found is None:
            known = self._inferred_values.get((triple.subject, triple.predicate.value))
            if known is not None:
                return triple.object in known
            found = self._inferred[triple.subject] = {q.triple for g in self.inferred_graphs
                                                      for q in self.store.quads_for_pattern(triple.subject, None,
                                                                                            None, g)}
        return triple in found

    def label(self, term: Any) -> str:
        """A human label: schema:name, rdfs:label, role name, name as written, else a short form of the IRI."""
        if isinstance(term, ox.Literal):
            return str(term.value)
        if isinstance(term, ox.BlankNode):
            return "(anonymous node)"
        iri = str(term.value) if isinstance(term, ox.NamedNode) else str(term)
        if iri not in self._labels:
            self._labels[iri] = next((self.text(iri, p) for p in DISPLAY_LABELS if self.text(iri, p)),
                                     None) or compact(iri)
        return self._labels[iri]

    def href(self, term: Any) -> str | None:
        """The path after /id/ when the term is a minted IRI, else None."""
        return self._minter.path_of(term.value) if isinstance(term, ox.NamedNode) else None


@dataclass
class Description:
    """A resource's concise bounded description plus its neighbours' labels; inferred statements marked."""

    iri: str
    triples: list[ox.Triple] = field(default_factory=list)
    inferred: set[ox.Triple] = field(default_factory=set)

    def add(self, triple: ox.Triple, inferred: bool) -> None:
        """Add a statement, marked when it is inferred."""
        self.triples.append(triple)
        if inferred:
            self.inferred.add(triple)

    def about(self, subject: Any) -> list[ox.Triple]:
        """The statements of the description whose subject is the given term."""
        return [t for t in self.triples if t.subject == subject]

    def rdflib_graph(self) -> Graph:
        """The description as an rdflib Graph."""
        graph = Graph()
        for t in self.triples:
            graph.add((from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)))
        return graph


def describe(reader: Reader, iri: str) -> Description:
    """The concise bounded description of an IRI (blank nodes followed), the INCOMING statements about it, and the
    labels of the IRIs on either side."""
    root = ox.NamedNode(iri)
    description = Description(iri)
    pending: list[OxSubject] = [root]
    seen: set[OxSubject] = {root}
    neighbours: list[OxSubject] = []
    while pending:
        subject = pending.pop(0)
        for triple in reader.triples(subject):
            description.add(triple, reader.is_inferred(triple))
            obj = triple.object
            if isinstance(obj, ox.BlankNode) and obj not in seen:
                seen.add(obj)
                pending.append(obj)
            elif isinstance(obj, ox.NamedNode) and obj != root and triple.predicate.value != RDF_TYPE:
                neighbours.append(obj)
    for prop in INCOMING:
        for subject in reader.incoming(root, prop):
            triple = ox.Triple(subject, ox.NamedNode(prop), root)
            description.add(triple, reader.is_inferred(triple))
            neighbours.append(subject)
    for neighbour in sorted(set(neighbours), key=_sort_key):
        for prop in LABEL_PROPERTIES:
            for value in reader.values(neighbour, prop):
                triple = ox.Triple(neighbour, ox.NamedNode(prop), value)
                description.add(triple, reader.is_inferred(triple))
    return description


def twin(description: Description, fmt: Format, context: dict[str, Any]) -> bytes:
    """The description serialised as an RDF document (JSON-LD compacted with the project's context)."""
    if fmt is Format.JSON_LD:
        holder = Store.in_memory({URIRef(description.iri): description.rdflib_graph()})
        return export(holder, "jsonld", Selection.ALL, context=context)
    return serialize_rdf(description.triples, fmt)


def statement_rows(reader: Reader, description: Description) -> list[dict[str, Any]]:
    """Rows for the HTML statements table: subject, property, value (with page link) and whether inferred."""
    rows = []
    for triple in description.triples:
        obj: Any = triple.object
        rows.append({
            "subject": None if triple.subject == ox.NamedNode(description.iri) else reader.label(triple.subject),
            "subject_href": reader.href(triple.subject) if triple.subject != ox.NamedNode(description.iri) else None,
            "property": compact(triple.predicate.value),
            "property_iri": triple.predicate.value,
            "value": str(obj.value) if isinstance(obj, ox.Literal) else compact(obj.value)
            if triple.predicate.value == RDF_TYPE else reader.label(obj),
            "value_iri": obj.value if isinstance(obj, ox.NamedNode) else None,
            "href": reader.href(obj),
            "language": obj.language if isinstance(obj, ox.Literal) else None,
            "datatype": compact(obj.datatype.value) if isinstance(obj, ox.Literal) and not obj.language
            and obj.datatype.value != XSD + "string" else None,
            "inferred": triple in description.inferred,
            "explain": {"s": str(triple.subject), "p": str(triple.predicate), "o": str(obj)},
        })
    return rows


def minted_iris(store: GraphStore, base: str) -> Iterable[str]:
    """Every minted IRI that occurs as a subject in the store, sorted."""
    prefix = f"{base.rstrip('/')}/id/"
    subjects: set[OxSubject] = {q.subject for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph())}
    return sorted(s.value for s in subjects if isinstance(s, ox.NamedNode) and s.value.startswith(prefix))
