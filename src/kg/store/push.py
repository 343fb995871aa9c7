"""Push a build into a remote store: upload changed graphs under fresh names, then switch in one update.

Every changed public graph is uploaded under a staging IRI, and the merge of all graphs (the default graph
kg queries) under a new versioned IRI. A single SPARQL Update request then moves each staging graph onto its
public name, drops graphs the build no longer has, and replaces the manifest, which names the new merge.
Queries on the default graph switch atomically on every engine: they follow the manifest, a one-triple
change, and the previous merge stays until the next push. `GRAPH` queries switch atomically where the
engine runs the update request as one transaction (Oxigraph); Virtuoso commits `DROP GRAPH` row by row,
so there a `GRAPH` query running during the switch may see a graph half-replaced. A graph whose digest
equals the manifest's is not uploaded again, so pushing the same build twice changes nothing but the
manifest. A failed push drops what it uploaded and leaves the previous build serving; a killed one is
cleaned up by the next push, which finds its uploads listed in the pending graph.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import pyoxigraph as ox

from ..errors import BuildError, KgError
from ..iris import RemoteNames
from .client import Response, SparqlClient
from .remote import MANIFEST_PROPERTY, STAGING_PROPERTY, Manifest, Skolem, read_manifest

CHUNK_TRIPLES = 50_000  # per Graph Store request
INSERT_TRIPLES = 2_000  # per INSERT DATA: Virtuoso's SPARQL parser runs out of memory near 5,000


def ntriples_lines(triples: Iterable[ox.Triple], skolem: Skolem) -> list[bytes]:
    """Sorted, distinct N-Triples lines with blank nodes skolemised (the upload body and digest input)."""
    return sorted({f"{skolem.triple_to_iris(t)} .\n".encode() for t in triples})


def _digest(lines: list[bytes]) -> str:
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line)
    return digest.hexdigest()


def _upload(client: SparqlClient, graph: str, lines: list[bytes]) -> None:
    """Fill an empty staging graph in chunks: Graph Store PUT/POST when configured, else INSERT DATA."""
    size = CHUNK_TRIPLES if client.location.gsp_url else INSERT_TRIPLES
    chunks = [lines[i:i + size] for i in range(0, len(lines), size)] or [[]]
    for number, chunk in enumerate(chunks):
        body = b"".join(chunk)
        if client.location.gsp_url:
            client.upload(graph, body, replace=number == 0)
        elif chunk:
            client.update(f"INSERT DATA {{ GRAPH <{graph}> {{\n{body.decode('utf-8')}}} }}")


def staging_graphs(client: SparqlClient, names: RemoteNames) -> list[str]:
    """Every staging graph in the remote store (a full scan: for checks, not for pushes)."""
    query = ("SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } "  # GROUP BY: Virtuoso's DISTINCT ?g is a slow scan
             f"FILTER(STRSTARTS(STR(?g), \"{names.staging}\")) }} GROUP BY ?g")
    return _column(client.query(query, accept="application/sparql-results+json"))


def pending_graphs(client: SparqlClient, names: RemoteNames) -> list[str]:
    """Staging graphs an earlier push announced and never switched in (it failed or was killed)."""
    query = f"SELECT ?g WHERE {{ GRAPH <{names.pending}> {{ <{names.pending}> <{STAGING_PROPERTY}> ?g }} }}"
    return _column(client.query(query, accept="application/sparql-results+json"))


def _column(response: Response) -> list[str]:
    """The first column of a SPARQL JSON answer, as sorted IRIs."""
    results = ox.parse_query_results(response.body, format=ox.QueryResultsFormat.JSON)
    return sorted(row[0].value for row in results)  # type: ignore[union-attr]


def _announce(client: SparqlClient, names: RemoteNames, staged: Iterable[str]) -> None:
    """Record the staging graphs of this push before uploading, so a later push can drop them if this one dies."""
    lines = " ".join(f"<{names.pending}> <{STAGING_PROPERTY}> <{g}> ." for g in staged)
    if lines:
        client.update(f"INSERT DATA {{ GRAPH <{names.pending}> {{ {lines} }} }}")


def _drop(client: SparqlClient, graphs: Iterable[str]) -> None:
    """Drop graphs, ignoring ones that do not exist."""
    statements = [f"DROP SILENT GRAPH <{g}>" for g in graphs]
    if statements:
        client.update(" ;\n".join(statements))


def switch_update(names: RemoteNames, moves: Mapping[str, str], drops: Iterable[str], manifest: Manifest) -> str:
    """The one update that makes a pushed build current: moves, drops and the new manifest.

    The new manifest is inserted before the old one is deleted (one triple each, never DROP, which Virtuoso
    commits row by row), so a reader always finds a manifest; between the two it finds both and takes the
    higher sequence number.
    """
    literal = ox.Literal(manifest.to_json())
    statements = []
    for target, staged in sorted(moves.items()):  # DROP first: MOVE SILENT of an empty (absent) graph is a no-op
        statements += [f"DROP SILENT GRAPH <{target}>", f"MOVE SILENT GRAPH <{staged}> TO GRAPH <{target}>"]
    statements += [f"DROP SILENT GRAPH <{g}>" for g in sorted(drops)]
    build = names.build(manifest.version)
    statements.append(f"INSERT DATA {{ GRAPH <{names.manifest}> {{ <{build}> <{MANIFEST_PROPERTY}> {literal} }} }}")
    statements.append(f"DELETE {{ GRAPH <{names.manifest}> {{ ?old <{MANIFEST_PROPERTY}> ?m }} }} WHERE {{ GRAPH "
                      f"<{names.manifest}> {{ ?old <{MANIFEST_PROPERTY}> ?m }} FILTER(?old != <{build}>) }}")
    statements.append(f"DROP SILENT GRAPH <{names.pending}>")
    return " ;\n".join(statements)


def push(client: SparqlClient, base: str, graphs: Mapping[str, Iterable[ox.Triple]],
         metadata: dict[str, object]) -> Manifest:
    """Make graphs (public IRI to triples) the current build in the remote store; returns the new manifest."""
    names = RemoteNames(base)
    skolem = Skolem(names)
    previous = read_manifest(client, names)
    _drop(client, pending_graphs(client, names) + (previous.retired if previous else []) + [names.pending])
    bodies = {name: ntriples_lines(triples, skolem) for name, triples in graphs.items()}
    merged = sorted(set().union(*bodies.values())) if bodies else []
    entries = {name: {"sha256": _digest(lines), "triples": len(lines)} for name, lines in bodies.items()}
    version = uuid.uuid4().hex
    old_graphs = previous.graphs if previous else {}
    old_merged = previous.merged if previous else {}
    merged_entry: dict[str, Any] = {"sha256": _digest(merged), "triples": len(merged), "graph": names.merged(version)}
    upload_merged = old_merged.get("sha256") != merged_entry["sha256"]
    if not upload_merged:
        merged_entry["graph"] = old_merged["graph"]
    retired = [old_merged["graph"]] if upload_merged and "graph" in old_merged else []
    sequence = previous.sequence + 1 if previous else 1
    manifest = Manifest(version, entries, merged_entry, dict(metadata, pushed_at=_now()), retired, sequence)
    changed = {name: lines for name, lines in bodies.items()
               if old_graphs.get(name, {}).get("sha256") != entries[name]["sha256"]}
    staged = {target: f"{names.staging}{version}/{number}" for number, target in enumerate(sorted(changed))}
    fresh = list(staged.values()) + ([merged_entry["graph"]] if upload_merged else [])
    try:
        _announce(client, names, fresh)
        for target, stage in staged.items():
            _upload(client, stage, changed[target])
        if upload_merged:
            _upload(client, merged_entry["graph"], merged)
        client.update(switch_update(names, staged, set(old_graphs) - set(entries), manifest))
    except (KgError, OSError) as error:
        try:
            _drop(client, [*fresh, names.pending])
        except KgError:
            pass
        raise BuildError(f"pushing the build to {client.location.query_url} failed, the previous build still "
                         f"serves: {error}") from None
    return manifest


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


__all__ = ["pending_graphs", "push", "staging_graphs", "switch_update"]
