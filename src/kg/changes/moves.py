"""Old IRIs that keep answering: which entities a build replaced by another and which it removed, carried from
build to build in one graph (``<base>/graph/changes/moved``, outside the default graph's merge like the change
records), so that a link to a retitled work or a renamed person still leads somewhere.

A build replaces an entity when it removes it and adds one of the same kind that is recognisably the same: the
two share an identifier (``schema:sameAs``, ``schema:identifier`` or ``bibo:doi``: a DOI, an ORCID iD, an arXiv or
dblp key); or, for a work, the same year and the same ranked authors under a title at least ``SIMILAR`` alike (a
corrected title); or, for a person, the same authorships (a corrected name). Only one-to-one matches count. The
graph says ``<old> dcterms:isReplacedBy <new>`` (a chain collapses: every old IRI points at the newest) and
``<old> prov:invalidatedAtTime "…"`` for a minted IRI removed with no successor; an IRI that comes back loses
both. The server answers the first with 301 and the second with 410 (kg.server.pages.moved).
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import Any

import pyoxigraph as ox

from ..iris import Minter
from ..namespaces import BIBO, DCTERMS, KG, PROV, SDO, XSD
from . import EntityChange
from .diff import Side

SIMILAR = 0.75  # how alike (difflib's ratio, case folded) a work's old and new titles must be without an identifier
REPLACED_BY, INVALIDATED = ox.NamedNode(str(DCTERMS.isReplacedBy)), ox.NamedNode(str(PROV.invalidatedAtTime))
IDENTIFYING = tuple(ox.NamedNode(str(p)) for p in (SDO.sameAs, SDO.identifier, BIBO.doi))
AUTHORSHIP, AGENT, RANK = (ox.NamedNode(str(p)) for p in (KG.authorship, KG.agent, KG.rank))
YEAR = ox.NamedNode(str(SDO.datePublished))
DATE_TIME = ox.NamedNode(str(XSD.dateTime))


def _identifiers(side: Side, node: Any) -> set[tuple[str, str]]:
    """A node's identifying values, as (property, value) with a DOI's case folded."""
    return {(p.value, v.value.casefold() if p.value == str(BIBO.doi) else v.value)
            for p in IDENTIFYING for v in side.objects(node, p) if not isinstance(v, ox.BlankNode)}


def _ranked_authors(side: Side, work: Any) -> tuple[str, ...]:
    """A work's author IRIs (or names as written) in rank order."""
    ranked = []
    for authorship in side.objects(work, AUTHORSHIP):
        rank = next((int(r.value) for r in side.objects(authorship, RANK) if r.value.isdigit()), 0)
        agent = min((a.value for a in side.objects(authorship, AGENT)), default="")
        ranked.append((rank, agent))
    return tuple(agent for _, agent in sorted(ranked))


def _year(side: Side, work: Any) -> str:
    return min((y.value for y in side.objects(work, YEAR)), default="")


def _alike(old: str, new: str) -> bool:
    return SequenceMatcher(None, old.casefold(), new.casefold()).ratio() >= SIMILAR


def _signature(side: Side, kind: str, node: Any) -> tuple[Any, ...] | None:
    """What must be equal for two entities that share no identifier to be one (the module docstring), or None."""
    if kind == "work":
        authors = _ranked_authors(side, node)
        return (_year(side, node), authors) if authors else None
    if kind == "person":
        authorships = frozenset(a.value for a in side.subjects(AGENT, node))
        return (authorships,) if authorships else None
    return None


def successors(old: Side, new: Side, entities: Iterable[EntityChange]) -> dict[str, str]:
    """The entities a build removed that it replaced by one it added, as old IRI -> new IRI (each entity's keys
    are computed once: the cost grows with the entities changed, not with their product)."""
    removed: dict[str, list[Any]] = {}
    added: dict[str, list[Any]] = {}
    for change in entities:
        if change.status in ("removed", "added"):
            (removed if change.status == "removed" else added).setdefault(change.kind, []).append(
                ox.NamedNode(change.iri))
    matches: dict[Any, Any] = {}
    for kind, gone_nodes in removed.items():
        by_identifier: dict[tuple[str, str], set[Any]] = {}
        by_signature: dict[tuple[Any, ...], set[Any]] = {}
        for came in added.get(kind, []):
            for key in _identifiers(new, came):
                by_identifier.setdefault(key, set()).add(came)
            signature = _signature(new, kind, came)
            if signature is not None:
                by_signature.setdefault(signature, set()).add(came)
        for gone in gone_nodes:
            candidates = set().union(*(by_identifier.get(k, set()) for k in _identifiers(old, gone)))
            if not candidates:
                signature = _signature(old, kind, gone)
                alike = by_signature.get(signature, set()) if signature is not None else set()
                candidates = {came for came in alike if kind != "work" or _alike(old.label(gone), new.label(came))}
            if len(candidates) == 1:
                matches[gone] = candidates.pop()
    claimed: dict[Any, int] = {}
    for came in matches.values():
        claimed[came] = claimed.get(came, 0) + 1
    return {gone.value: came.value for gone, came in matches.items() if claimed[came] == 1}


def read_moved(triples: Iterable[ox.Triple]) -> tuple[dict[str, str], dict[str, ox.Literal]]:
    """A moved graph's entries: old IRI -> the IRI that replaced it, and removed IRI -> when."""
    targets: dict[str, str] = {}
    invalid: dict[str, ox.Literal] = {}
    for triple in triples:
        subject, value = triple.subject, triple.object
        if not isinstance(subject, ox.NamedNode):
            continue
        if triple.predicate == REPLACED_BY and isinstance(value, ox.NamedNode):
            targets[subject.value] = value.value
        elif triple.predicate == INVALIDATED and isinstance(value, ox.Literal):
            invalid[subject.value] = value
    return targets, invalid


def carry(previous: Iterable[ox.Triple], moved: dict[str, str], removed: Iterable[str], added: Iterable[str],
          stamp: str, base: str) -> set[ox.Triple]:
    """The moved graph after a build: the previous one's entries with this build's replacements (chains followed
    to the newest IRI), its minted IRIs removed without successor stamped invalid, and IRIs that came back dropped."""
    targets, invalid = read_moved(previous)
    targets.update(moved)
    now = ox.Literal(stamp, datatype=DATE_TIME)
    minter = Minter(base)
    for iri in removed:
        if iri not in moved and minter.is_minted(iri):
            invalid.setdefault(iri, now)
    for old in list(targets):
        seen, target = {old}, targets[old]
        while target in targets and target not in seen:
            seen.add(target)
            target = targets[target]
        if target in invalid:
            invalid.setdefault(old, invalid[target])
            del targets[old]
        else:
            targets[old] = target
    for iri in added:
        targets.pop(iri, None)
        invalid.pop(iri, None)
    found = {ox.Triple(ox.NamedNode(old), REPLACED_BY, ox.NamedNode(new)) for old, new in targets.items() if old != new}
    found |= {ox.Triple(ox.NamedNode(iri), INVALIDATED, when) for iri, when in invalid.items() if iri not in targets}
    return found


__all__ = ["INVALIDATED", "REPLACED_BY", "SIMILAR", "carry", "read_moved", "successors"]
