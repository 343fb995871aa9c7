"""The build's validation: incremental when the last build's kept validation applies, else full (then kept)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph

from ..config import Config
from ..iris import Minter
from ..mapping import MappedGraphs
from ..validation import ValidationReport, mapped_report
from ..validation.engine import run
from ..validation.incremental import HeldElsewhere, Kept, ValidationCache, files_tag
from .incremental import BuildState, TripleSets, current_version, graph_changes, load_state


def kept_validation(config: Config) -> Path:
    """Where the last build's validation (store, term map, report) is kept (beside the store)."""
    return config.store.absolute().parent / "cache" / "validation" / "kept"


def validate_build(config: Config, mapped: MappedGraphs, shapes: Graph, ontology: Graph, state: BuildState,
                   build_folder: Path, sets: TripleSets | None = None) -> tuple[ValidationReport, str]:
    """The SHACL report of a build's mapped graphs, and how it was computed ("incremental" or "full")."""
    if config.remote:
        return mapped_report(run(list(mapped.graphs.values()), shapes, ontology), mapped), "full"
    cache = ValidationCache(kept_validation(config))
    tag = files_tag(config.shapes, config.ontology)
    previous = load_state(build_folder)
    source = current_version(config.store, previous)
    if previous is not None and source is not None and previous.base == state.base:
        changed = {iri for iri in set(state.graphs) | set(previous.graphs)
                   if state.graphs.get(iri) != previous.graphs.get(iri)}
        minter = Minter(config.base)
        old = ox.Store.read_only(str(source))
        changes = {iri: (c.old, c.new) for iri, c in graph_changes(old, changed, mapped.graphs, sets,
                                                                              str(source)).items()}
        held = HeldElsewhere(old, changed, {str(minter.graph("inferred")), str(minter.graph("ontology"))})
        outcome = cache.update(Kept(tag, previous.build_id), changes, held, shapes, ontology, mapped.graphs.values(),
                               Kept(tag, state.build_id))
        if outcome is not None:
            return mapped_report(outcome, mapped), f"incremental: {len(changed)} graphs changed"
    outcome = run(list(mapped.graphs.values()), shapes, ontology)
    cache.save(outcome, Kept(tag, state.build_id))
    return mapped_report(outcome, mapped), "full"


def validate_full(config: Config, mapped: MappedGraphs, shapes: Graph, ontology: Graph,
                  state: BuildState) -> ValidationReport:
    """A full validation of a build's mapped graphs (after a quarantine), kept for the next build."""
    outcome = run(list(mapped.graphs.values()), shapes, ontology)
    if not config.remote:
        ValidationCache(kept_validation(config)).save(outcome, Kept(files_tag(config.shapes, config.ontology),
                                                                    state.build_id))
    return mapped_report(outcome, mapped)


__all__ = ["kept_validation", "validate_build", "validate_full"]
