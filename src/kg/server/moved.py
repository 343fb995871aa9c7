"""Answers for minted IRIs the graph no longer has, from the moved graph the builds keep (kg.changes.moves): 301
Moved Permanently to the IRI that replaced one (the same route, the rest of the path and the query kept), 410 Gone
for one a build removed."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from ..changes.moves import INVALIDATED, REPLACED_BY
from ..iris import Minter
from ..store import Store

LEVELS = 4  # how far above an IRI to look for a moved entity (a work's authorship is two steps below it)


@dataclass(frozen=True)
class Moves:
    """A store version's replaced IRIs (old -> new) and removed ones (IRI -> when)."""

    replaced: dict[str, str]
    removed: dict[str, str]

    def find(self, iri: str) -> tuple[str, str] | None:
        """("moved", the new IRI) or ("gone", when) for an IRI or for the entity it lies under, else None."""
        head, tail = iri, ""
        for _ in range(LEVELS):
            if head in self.replaced:
                return "moved", self.replaced[head] + tail
            if head in self.removed:
                return "gone", self.removed[head]
            head, slash, last = head.rpartition("/")
            if not slash:
                return None
            tail = f"/{last}{tail}"
        return None


_MOVES: weakref.WeakKeyDictionary[Any, Moves] = weakref.WeakKeyDictionary()


def moves_of(store: Any, base: str) -> Moves:
    """The moved graph of an embedded store version, read once per version (a remote store keeps none)."""
    if not isinstance(store, Store):
        return Moves({}, {})
    found = _MOVES.get(store)
    if found is None:
        replaced, removed = {}, {}
        graph = ox.NamedNode(str(Minter(base).moved_graph()))
        for quad in store.ox.quads_for_pattern(None, None, None, graph):
            subject, value = quad.subject, quad.object
            if isinstance(subject, ox.NamedNode) and quad.predicate == REPLACED_BY and isinstance(value, ox.NamedNode):
                replaced[subject.value] = value.value
            elif isinstance(subject, ox.NamedNode) and quad.predicate == INVALIDATED and isinstance(value, ox.Literal):
                removed[subject.value] = value.value
        found = _MOVES[store] = Moves(replaced, removed)
    return found


__all__ = ["Moves", "moves_of"]
