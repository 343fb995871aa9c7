"""What a page needs from the store, fetched up front in a few SPARQL queries that fill a Reader's caches.

A page asks its Reader hundreds of small questions (a person's page: the person's statements, the names and
types of what they point to, their works, the works' authors and venues, which statements are inferred). Asked
one by one they were about 220 store calls; here they are three or four queries, one per hop: the resource
itself and what points to it; what it points to and its works with their authorships and venues (joined in
the store); the authors, the venues' series and the names of what the first hop points to; whom the authors
may be (only when someone may be someone else). Each query returns only the properties the page reads, the
property and a known subject as small numbers (decoding a term is most of what a row costs). A question
nobody thought of still works: the Reader asks the store, as without a prefetch. Only the embedded store is
prefetched (a remote one is asked lazily).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from ...namespaces import BIBO_IRIS as B
from ...namespaces import KG_IRIS as K
from ...namespaces import PREFIXES
from ...namespaces import SCHEMA_IRIS as S
from ...store import Store, solutions
from .pictures import AGENT, AUTHORSHIP, NAMED, VENUE, WORK
from .resources import DISPLAY_LABELS, INCOMING, LABEL_PROPERTIES, RDF_TYPE, Reader
from .structured import EMBEDDED_TYPES

# What a page reads of what a resource points to (a property left out costs a store call, not a wrong page):
# names, types, role and degree details, an advisor's affiliations, a metric's value, a work's authorships and
# venue; and of what those point to, names.
LINKED = DISPLAY_LABELS + (RDF_TYPE, S.honorificPrefix, S.affiliation, S.educationalLevel, S.startDate, S.endDate,
                           S.description, K.durationAsWritten, K.valueAsWritten, S.value, S.minValue) + AUTHORSHIP[
                               len(DISPLAY_LABELS):] + (S.superEvent, S.alternateName)
FURTHER = DISPLAY_LABELS + (S.alternateName,)
RDF_REST = PREFIXES["rdf"] + "rest"
_SUBJECT = re.compile(r"<[^>]*>|\?s\b")  # the variable ?s, outside IRIs


@dataclass
class Branch:
    """One part of a prefetch query: the subjects it answers for (None: found by the query) and their props."""

    pattern: str
    props: Sequence[str] | None = None
    subjects: set[Any] | None = None
    inferred: bool = False  # the rows are the statements found in the inferred graphs
    rows: list[tuple[Any, Any, Any]] = field(default_factory=list)


def _iris(nodes: Iterable[Any]) -> str:
    return " ".join(str(n) for n in nodes)


def _props(branch_props: Sequence[str], table: list[str]) -> str:
    """Keep ?q to the given properties and bind ?i to its index in the table (a number costs nothing to decode;
    a second VALUES block made the store scan every triple)."""
    for prop in branch_props:
        if prop not in table:
            table.append(prop)
    listed = ", ".join(f"<{p}>" for p in branch_props)
    index = "".join(f"IF(?q = <{p}>, {table.index(p)}, " for p in branch_props) + "-1" + ")" * len(branch_props)
    return f"FILTER(?q IN ({listed})) BIND({index} AS ?i)"


def _seek(branch_props: Sequence[str], table: list[str]) -> str:
    """?s's objects of each property, looked up one by one (cheaper than a scan of a node with many statements
    when few properties are wanted), ?i the property's index in the table."""
    for prop in branch_props:
        if prop not in table:
            table.append(prop)
    return "{ " + " UNION ".join(f"{{ ?s <{p}> ?o BIND({table.index(p)} AS ?i) }}" for p in branch_props) + " }"


def run(reader: Reader, branches: list[Branch]) -> None:
    """Answer every branch in one query (a UNION, the branch number in ?k) and record the rows in the branches.

    A branch whose pattern starts with $SUBJECTS names its subjects by number (?j), not by IRI: decoding an IRI
    from the store costs more than finding it."""
    table: list[str] = []
    parts, orders = [], []
    for number, branch in enumerate(branches):
        body = branch.pattern.replace("$PROPS", _props(branch.props, table)) if branch.props else branch.pattern
        body = body.replace("$SEEK", _seek(branch.props or (), table))
        order = sorted(branch.subjects or (), key=str) if "$SUBJECTS" in body else []
        if "$SUBJECTS" in body:
            listed = " ".join(f"({node} {j})" for j, node in enumerate(order))
            body = _SUBJECT.sub(lambda m: m.group(0) if m.group(0).startswith("<") else "?x", body)
            body = body.replace("$SUBJECTS", f"VALUES (?x ?j) {{ {listed} }}" if order else "FILTER(false)")
        parts.append(f"{{ {body} BIND({number} AS ?k) }}")
        orders.append(order)
    sparql = "SELECT ?k ?s ?j ?p ?i ?o WHERE { " + " UNION ".join(parts) + " }"
    for k, s, j, p, i, o in solutions(reader.store.query(sparql)):
        prop = p.value if p is not None else table[int(i.value)] if i is not None else None
        number = int(k.value)
        branches[number].rows.append((orders[number][int(j.value)] if j is not None else s, prop, o))


def record(reader: Reader, branch: Branch) -> None:
    """Fill the reader with a props branch: every (subject, prop) it covers, empty when the store had none."""
    assert branch.props is not None
    subjects = branch.subjects if branch.subjects is not None else {s for s, _, _ in branch.rows}
    found: dict[tuple[Any, str], list[Any]] = {(s, prop): [] for s in subjects for prop in branch.props}
    for s, prop, o in branch.rows:
        found.setdefault((s, prop), []).append(o)
    if branch.inferred:
        for (s, prop), objects in found.items():
            reader.fill_inferred(s, prop, objects)
    else:
        reader.fill(found)
        reader.cover({s for s, _ in found}, branch.props)


def objects_of(branch: Branch) -> set[Any]:
    """The IRIs a branch's rows point to, other than classes."""
    return {o for _, prop, o in branch.rows if isinstance(o, ox.NamedNode) and prop != RDF_TYPE}


def prefetch(reader: Reader, iri: str, page: bool = True) -> None:
    """Fill the reader with what the page (or, page False, the description) of a resource reads."""
    if not isinstance(reader.store, Store):
        return
    root = ox.NamedNode(iri)
    incoming = [f"?s <{p}> {root}" for p in INCOMING]
    own, inferred_own = Branch(f"{root} ?p ?o"), Branch(_inferred(reader, f"{root} ?p ?o"))
    pointing = [Branch(pattern) for pattern in incoming]
    inferred_pointing = [Branch(_inferred(reader, pattern)) for pattern in incoming]
    run(reader, [own, inferred_own, *pointing, *inferred_pointing])
    reader.fill_triples(root, (ox.Triple(root, ox.NamedNode(p), o) for _, p, o in own.rows))
    reader.fill_inferred(root, None, (ox.Triple(root, ox.NamedNode(p), o) for _, p, o in inferred_own.rows))
    works: set[Any] = set()
    for prop, found, marks in zip(INCOMING, pointing, inferred_pointing, strict=True):
        subjects = {s for s, _, _ in found.rows}
        works |= subjects
        reader.fill_incoming(root, prop, subjects)
        for subject in subjects:
            reader.fill_inferred(subject, prop, [root] if subject in {s for s, _, _ in marks.rows} else [])
    if not own.rows:
        return
    second(reader, root, works, page)


def _inferred(reader: Reader, pattern: str, tail: str = "") -> str:
    """A pattern matched in the inferred graphs only (never matched when there are none)."""
    graphs = [f"{{ GRAPH {g} {{ {pattern} }} {tail} }}" for g in reader.inferred_graphs]
    return " UNION ".join(graphs) if graphs else "FILTER(false)"


def second(reader: Reader, root: Any, works: set[Any], page: bool) -> None:
    """The later queries: what the resource points to, its works with their authorships and venues; then the
    authors, the venues' series and the names of what the first hop points to; then whom the authors may be."""
    linked = {t.object for t in reader.triples(root) if isinstance(t.object, ox.NamedNode)
              and t.object != root and t.predicate.value != RDF_TYPE}
    neighbours = linked | works
    if not neighbours:
        return
    marks = Branch("$SUBJECTS " + _inferred(reader, "?s ?q ?o", "$PROPS"), LABEL_PROPERTIES, neighbours, True)
    embedded = ", ".join(f"<{t}>" for t in sorted(EMBEDDED_TYPES))
    near = Branch("$SUBJECTS ?s ?q ?o $PROPS", LINKED if page else LABEL_PROPERTIES, linked)
    full = Branch(f"$SUBJECTS ?s a ?t . FILTER(?t IN ({embedded})) ?s ?p ?o", None, linked)
    own = Branch("$SUBJECTS ?s ?q ?o $PROPS", WORK if page else LABEL_PROPERTIES, works)
    w = f"VALUES ?w {{ {_iris(works)} }}"
    authorships = Branch(f"{w} ?w <{K.authorship}> ?s . ?s ?q ?o $PROPS", AUTHORSHIP)
    places = Branch(f"{w} {{ ?w <{B.presentedAt}> ?s }} UNION {{ ?w <{S.isPartOf}> ?s }} ?s ?q ?o $PROPS", VENUE)
    chain = [authorships, places] if page and works else []
    # Blank nodes the description follows: the lists the resource points to (a work's author list), whole.
    lists = f"{root} ?r ?b . FILTER(isBlank(?b)) ?b <{RDF_REST}>* ?s ."
    blank = [Branch(f"{lists} ?s ?p ?o"), Branch(f"{lists} " + _inferred(reader, "?s ?p ?o"))] if any(
        isinstance(t.object, ox.BlankNode) for t in reader.triples(root)) else []
    run(reader, [marks] + ([near] if linked else []) + ([full] if page and linked else [])
        + ([own] if works else []) + chain + blank)
    record(reader, marks)
    for subject, triples in _grouped(full.rows).items():
        reader.fill_triples(subject, triples)
    if blank:
        inferred = _grouped(blank[1].rows)
        for subject, triples in _grouped(blank[0].rows).items():
            reader.fill_triples(subject, triples)
            reader.fill_inferred(subject, None, inferred.get(subject, []))
    for branch in (near, own):
        if branch.subjects:
            record(reader, branch)
    later: list[Branch] = []
    if chain:
        authorships.subjects = _along(reader, works, K.authorship)
        places.subjects = _along(reader, works, B.presentedAt) | _along(reader, works, S.isPartOf)
        record(reader, authorships)
        record(reader, places)
        later += [Branch("$SUBJECTS $SEEK", AGENT, _along(reader, authorships.subjects, K.agent)),
                  Branch("$SUBJECTS ?s ?q ?o $PROPS", VENUE,
                         _along(reader, _along(reader, works, B.presentedAt), S.superEvent))]
    listed = {o for branch in blank[:1] for o in objects_of(branch)} - neighbours  # the description names them
    further = {n for n in (objects_of(near) | objects_of(full)) - neighbours
               if not all(reader.knows(n, p) for p in FURTHER)} if page else set()
    if further | listed:
        later.append(Branch("$SUBJECTS ?s ?q ?o $PROPS", FURTHER, further | listed))
    if listed:
        later.append(Branch("$SUBJECTS " + _inferred(reader, "?s ?q ?o", "$PROPS"), LABEL_PROPERTIES, listed, True))
    later = [b for b in later if b.subjects]
    if later:
        run(reader, later)
        for branch in later:
            record(reader, branch)
    if chain and later and later[0].props is AGENT:
        same = Branch("$SUBJECTS $SEEK", NAMED, _along(reader, later[0].subjects or (), K.possibleSameAs))
        if same.subjects:
            run(reader, [same])
            record(reader, same)


def _grouped(rows: list[tuple[Any, Any, Any]]) -> dict[Any, list[ox.Triple]]:
    """Rows of whole statements (subject, property, object) as triples by subject."""
    grouped: dict[Any, list[ox.Triple]] = {}
    for s, p, o in rows:
        grouped.setdefault(s, []).append(ox.Triple(s, ox.NamedNode(p), o))
    return grouped


def _along(reader: Reader, nodes: Iterable[Any], prop: str) -> set[Any]:
    """The IRIs the given nodes point to by prop (known to the reader already)."""
    return {o for n in nodes for o in reader.values(n, prop) if isinstance(o, ox.NamedNode)}
