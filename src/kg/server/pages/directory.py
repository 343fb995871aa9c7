"""The people directory (/people) and the home page's counts: entities counted as ``kg build`` counts them.

``kg build`` prints "153 people, 20 works, 14 organisations, 27 venues" (kg.changes): a node is an entity of the
first kind (kg.changes.diff.KIND_CLASSES) whose class it has in an asserted data graph. The counts here use that
definition, so the home page and the build agree; people with a profile are those with a profile graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import pyoxigraph as ox
from flask import url_for

from ...changes.diff import CLASS_KIND, KIND_CLASSES, KIND_ORDER, is_data_graph
from ...iris import ascii_folded
from ...namespaces import SCHEMA_IRIS as S
from ...store import GraphStore, solutions
from ..floor.caches import CACHE
from ..floor.links import PREFIX_BLOCK
from .resources import RDF_TYPE, Reader

# How a person is tied to an organisation, directly or through a role node (a past position, a degree).
TIES = (S.affiliation, S.worksFor, S.alumniOf, S.memberOf)


@dataclass(frozen=True)
class Entities:
    """The entities of the data by kind (person, work, organization, venue, project), as IRIs."""

    by_kind: dict[str, list[str]] = field(default_factory=dict)

    def count(self, kind: str) -> int:
        """How many entities of a kind there are."""
        return len(self.by_kind.get(kind, []))


def _data_graphs(store: GraphStore) -> list[str]:
    return [g for g in store.graph_names() if is_data_graph(g)]


def compute_entities(store: GraphStore) -> Entities:
    """Every node typed in a data graph with a class of an entity kind, under its first kind."""
    classes = " ".join(f"<{c}>" for c in CLASS_KIND)
    graphs = " ".join(f"<{g}>" for g in _data_graphs(store))
    kinds: dict[str, set[str]] = {}
    sparql = (f"SELECT DISTINCT ?s ?c WHERE {{ VALUES ?g {{ {graphs} }} VALUES ?c {{ {classes} }} "
              f"GRAPH ?g {{ ?s <{RDF_TYPE}> ?c }} }}")
    for row in solutions(store.query(sparql)):
        kinds.setdefault(row[0].value, set()).add(CLASS_KIND[row[1].value])
    found: dict[str, list[str]] = {kind: [] for kind in KIND_ORDER}
    for iri, of in kinds.items():
        found[next(k for k in KIND_ORDER if k in of)].append(iri)
    return Entities({kind: sorted(iris) for kind, iris in found.items()})


def entities(store: GraphStore) -> Entities:
    """The entities of the current store version (computed once)."""
    found: Entities = CACHE.get(store, "entities", lambda: compute_entities(store))
    return found


def kind_href(store: GraphStore, kind: str) -> str:
    """The query page listing the entities of a kind, counted as the build counts them."""
    classes = " ".join(f"<{c}>" for k, cs in KIND_CLASSES if k == kind for c in cs)
    graphs = " ".join(f"<{g}>" for g in _data_graphs(store))
    query = PREFIX_BLOCK + f"""
SELECT ?entity (SAMPLE(?label) AS ?name) WHERE {{
  VALUES ?g {{ {graphs} }}
  VALUES ?class {{ {classes} }}
  GRAPH ?g {{ ?entity a ?class }}
  OPTIONAL {{ ?entity schema:name ?label }}
}} GROUP BY ?entity ORDER BY ?name ?entity
"""
    return url_for("sparql.endpoint") + "?" + urlencode({"query": query})


def sort_key(name: str, family: str | None) -> tuple[str, str]:
    """People sort by family name (the last word of the name when none is given), then by full name.

    >>> sort_key("Ziheng Jiang", None), sort_key("Zoë Müller", "Müller")
    (('jiang', 'ziheng jiang'), ('muller', 'zoe muller'))
    """
    last = family or (name.split() or [""])[-1]
    return ascii_folded(last).casefold(), ascii_folded(name).casefold()


def letter(key: str) -> str:
    """The directory letter of a sort key: A to Z, else '#'."""
    first = key[:1].upper()
    return first if "A" <= first <= "Z" else "#"


def _papers(store: GraphStore) -> dict[str, int]:
    return {row[0].value: int(row[1].value) for row in solutions(store.query(
        f"SELECT ?p (COUNT(DISTINCT ?w) AS ?n) WHERE {{ ?w <{S.author}> ?p }} GROUP BY ?p"))}


def people_directory(store: GraphStore, r: Reader, profiles: list[str]) -> dict[str, Any]:
    """People with profiles, organisations with their people, and everyone A to Z, with counts."""
    found = entities(store)
    people = found.by_kind.get("person", [])
    papers = _papers(store)
    nodes = r.load((ox.NamedNode(p) for p in people), (S.name, S.familyName, S.jobTitle, S.affiliation))
    rows = []
    for node in nodes:
        key = sort_key(r.label(node), r.text(node, S.familyName))
        rows.append({"label": r.label(node), "path": r.href(node), "iri": node.value, "key": key,
                     "papers": papers.get(node.value, 0), "profile": node.value in profiles})
    rows.sort(key=lambda row: (row["key"], row["iri"]))
    letters: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        letters.setdefault(letter(row["key"][0]), []).append(row)
    with_profile = [dict(row, title=r.text(ox.NamedNode(row["iri"]), S.jobTitle), affiliations=[
        {"label": r.label(a), "path": r.href(a), "iri": a.value} for a in r.values(row["iri"], S.affiliation)])
        for row in rows if row["profile"]]
    return {"profiles": with_profile, "everyone": rows, "letters": [{"letter": k, "people": v} for k, v in
                                                                     sorted(letters.items())],
            "organisations": organisations(store, r, found, {row["iri"]: row for row in rows})}


def organisations(store: GraphStore, r: Reader, found: Entities,
                  people: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every organisation with the people tied to it directly or through a role (affiliation, work, study,
    membership)."""
    orgs = set(found.by_kind.get("organization", []))
    tied: dict[str, set[str]] = {org: set() for org in orgs}
    ties = ", ".join(f"<{t}>" for t in TIES)
    for row in solutions(store.query(f"SELECT DISTINCT ?p ?o WHERE {{ {{ ?p ?t ?o }} UNION {{ ?p ?t ?role . "
                                     f"?role ?t ?o }} FILTER(?t IN ({ties})) FILTER(isIRI(?o)) }}")):
        if row[1].value in orgs and row[0].value in people:
            tied[row[1].value].add(row[0].value)
    rows = []
    for org in r.load(ox.NamedNode(o) for o in orgs):
        members = sorted((people[p] for p in tied[org.value]), key=lambda p: (not p["profile"], p["key"]))
        rows.append({"label": r.label(org), "path": r.href(org), "iri": org.value, "people": members})
    return sorted(rows, key=lambda row: (row["label"].casefold(), row["iri"]))


__all__ = ["Entities", "entities", "kind_href", "people_directory", "sort_key"]
