"""A resource in schema.org terms, as JSON-LD embedded in its HTML page for structured-data consumers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from ...namespaces import KG_IRIS as K
from ...namespaces import SDO
from .resources import RDF_TYPE, SCHEMA, XSD, Description

if TYPE_CHECKING:
    from .resources import Reader

# The embedded JSON-LD names schema.org terms in the data's own namespace, with nothing to fetch.
SCHEMA_CONTEXT = {"@vocab": SCHEMA}
EMBEDDED_TYPES = frozenset(SCHEMA + t for t in ("Role", "PropertyValue", "EducationalOccupationalCredential"))
NUMBER_TYPES = frozenset(XSD + t for t in ("integer", "decimal", "double", "float", "int", "long",
                                           "nonNegativeInteger", "positiveInteger"))


def _json_literal(term: ox.Literal) -> str | int | float | bool | dict[str, str]:
    """A literal as structured-data consumers read it: text, dates as plain strings, numbers and booleans as JSON."""
    if term.language:
        return {"@value": term.value, "@language": term.language}
    datatype = term.datatype.value
    if datatype in NUMBER_TYPES:
        number = float(term.value)
        return int(number) if number.is_integer() and "." not in term.value else number
    if datatype == XSD + "boolean":
        return term.value == "true"
    return term.value


def _schema_node(reader: Reader, node: Any, triples: Iterable[ox.Triple], nested: bool) -> dict[str, Any]:
    """A node's @id (IRIs only), schema.org @type and schema.org properties; structured values (role nodes,
    credentials, property values, blank nodes) are embedded with their properties when nested, else left out,
    and other IRIs are referenced by @id and name."""
    document: dict[str, Any] = {"@id": node.value} if isinstance(node, ox.NamedNode) else {}
    triples = list(triples)
    classes = [str(t.object.value) for t in triples
               if t.predicate.value == RDF_TYPE and isinstance(t.object, ox.NamedNode)]
    types = sorted(c[len(SCHEMA):] for c in classes if c.startswith(SCHEMA))
    if types:
        document["@type"] = types[0] if len(types) == 1 else types
    grouped: dict[str, list[Any]] = {}
    for triple in triples:
        prop, obj = triple.predicate.value, triple.object
        if not prop.startswith(SCHEMA) or triple.subject != node:
            continue
        name = None if isinstance(obj, ox.Literal) else reader.text(obj, str(SDO.name))
        if isinstance(obj, ox.Literal):
            value: Any = _json_literal(obj)
        elif nested and (isinstance(obj, ox.BlankNode) or EMBEDDED_TYPES & reader.types(obj)):
            value = _schema_node(reader, obj, reader.triples(obj), nested=False)
            if not set(value) - {"@id", "@type"}:
                continue
        elif isinstance(obj, ox.NamedNode):
            value = {"@id": obj.value} if name is None else {"@id": obj.value, "name": name}
        else:
            continue
        grouped.setdefault(prop[len(SCHEMA):], []).append(value)
    if len(grouped.get("author", ())) > 1:  # consumers read the array's order as the author order
        ranks = _author_ranks(reader, node)
        grouped["author"].sort(key=lambda value: ranks.get(value.get("@id", ""), len(ranks) + 1))
    for term_name in sorted(grouped):
        values = grouped[term_name]
        document[term_name] = values[0] if len(values) == 1 else values
    return document


def _author_ranks(reader: Reader, work: Any) -> dict[str, int]:
    """Each author's place in a work's author list (kg:authorship rank), by the author's IRI."""
    ranks: dict[str, int] = {}
    for authorship in reader.values(work, K.authorship):
        agent, rank = reader.first(authorship, K.agent), reader.text(authorship, K.rank)
        if isinstance(agent, ox.NamedNode) and rank is not None and rank.isdigit():
            ranks.setdefault(agent.value, int(rank))
    return ranks


def schema_jsonld(reader: Reader, description: Description) -> dict[str, Any]:
    """The resource in schema.org terms (http://schema.org/, as the data) for structured-data consumers: plain
    date strings, role nodes embedded with their properties (or left out when they have none)."""
    root = ox.NamedNode(description.iri)
    return {"@context": SCHEMA_CONTEXT, **_schema_node(reader, root, description.about(root), nested=True)}
