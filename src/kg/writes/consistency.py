"""A store's inferred graph checked against a full re-reasoning of its asserted graphs (for tests and audits)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import Config
from ..edits import GraphNames
from ..iris import Minter
from ..reasoning import infer
from ..terms import triple_to_ox
from .snapshot import Snapshot, rdflib_graph


def inferred_matches(store_dir: Path, reasoner: str = "rules") -> tuple[set[Any], set[Any]]:
    """(missing, extra): how the stored inferred graph differs from a full re-reasoning of the stored asserted
    graphs with the stored ontology. Both empty when the store is consistent."""
    snapshot = Snapshot.read(store_dir)
    names = GraphNames(Minter(str(snapshot.metadata.get("base") or Config().base)).base)
    asserted = set().union(*(ts for g, ts in snapshot.named.items() if not names.managed(g)))
    ontology = rdflib_graph(snapshot.named.get(names.ontology, set()))
    inferred = infer(rdflib_graph(asserted), ontology, reasoner)
    expected = {triple_to_ox(s, p, o) for s, p, o in inferred}
    stored = snapshot.named.get(names.inferred, set())
    return expected - stored, stored - expected
