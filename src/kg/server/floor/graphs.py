"""The graphs the app describes itself with (VoID, the service description) as pyoxigraph triples, to serialise."""

from __future__ import annotations

from collections.abc import Iterator

import pyoxigraph as ox
from rdflib import Graph

from ...terms import triple_to_ox


def ox_triples(graph: Graph) -> Iterator[ox.Triple]:
    """The triples of an rdflib graph as pyoxigraph triples, in a stable order."""
    for s, p, o in sorted(graph):
        yield triple_to_ox(s, p, o)


__all__ = ["ox_triples"]
