"""The graphs the app describes itself with (VoID, the service description) as pyoxigraph triples, to serialise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox
from rdflib import Graph

from ...store import to_ox


def ox_triples(graph: Graph) -> Iterator[Any]:
    """The triples of an rdflib graph as pyoxigraph triples, in a stable order."""
    for s, p, o in sorted(graph):
        yield ox.Triple(to_ox(s), to_ox(p), to_ox(o))


__all__ = ["ox_triples"]
