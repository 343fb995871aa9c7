"""Folders of local Turtle files (the ontology, the shapes) read into one rdflib graph; nothing is fetched."""

from __future__ import annotations

from pathlib import Path

from rdflib import Graph

from .errors import Location, SourceError
from .namespaces import bind_prefixes


def load_turtle_dir(directory: Path) -> Graph:
    """Parse every *.ttl file of a local directory into one graph (never fetches anything)."""
    files = sorted(directory.glob("*.ttl")) if directory.is_dir() else []
    if not files:
        raise SourceError(Location(directory), "no *.ttl files found; point the setting at a folder of Turtle files")
    graph = bind_prefixes(Graph())
    for file in files:
        try:
            graph.parse(source=str(file), format="turtle")
        except SyntaxError as exc:
            raise SourceError(Location(file), f"Turtle syntax error: {exc}") from None
    return graph
