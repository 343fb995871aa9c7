"""RDF files read for ``kg shacl``: any format of the format table, literals kept as written, nothing fetched."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from ..errors import Location, SourceError
from ..formats import Format
from ..namespaces import bind_prefixes

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def rdf_term(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> Node:
    """An rdflib term for a parsed one, a literal's lexical form as written (rdflib would normalise it)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language, normalize=False)
    datatype = term.datatype.value
    return Literal(term.value, normalize=False) if datatype == XSD_STRING else Literal(
        term.value, datatype=URIRef(datatype), normalize=False)


def rdf_files(path: Path) -> list[Path]:
    """The RDF files a path names: the file itself, or a folder's files with an RDF extension (sorted, recursive).

    Raises:
        SourceError: a folder holds no RDF file.
    """
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")
                       and (fmt := Format.from_extension(p.suffix.lstrip(".").lower())) is not None and fmt.is_rdf)
        if not found:
            names = ", ".join(f".{f.extension}" for f in Format if f.is_rdf)
            raise SourceError(Location(path), f"the folder holds no RDF file (none ends in {names})")
        return found
    return [path]  # read_rdf_file says what is wrong with a missing file or an unknown extension


def read_rdf_paths(paths: list[Path]) -> Graph:
    """Every triple of the RDF files the paths name (files, or folders of them), merged with their blank nodes kept
    apart."""
    graph = bind_prefixes(Graph())
    for path in paths:
        for file in rdf_files(path):
            graph += read_rdf_file(file, rename_blank_nodes=len(paths) > 1 or path.is_dir())
    return graph


def read_rdf_file(path: Path, rename_blank_nodes: bool = False) -> Graph:
    """Every triple of an RDF file (the format from its extension; a dataset's graphs are merged).

    Raises:
        SourceError: the file is missing, its extension names no RDF format, or it does not parse (with the
            line and column the parser gives).
    """
    fmt = Format.from_extension(path.suffix.lstrip(".").lower())
    if fmt is None or not fmt.is_rdf:
        names = ", ".join(f".{f.extension}" for f in Format if f.is_rdf)
        raise SourceError(Location(path), f"cannot tell the RDF format from the extension; use one of {names}")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SourceError(Location(path), f"cannot read the file: {error.strerror or error}") from None
    graph = bind_prefixes(Graph())
    try:
        for quad in ox.parse(data, format=fmt.ox, base_iri=path.resolve().as_uri(),
                              rename_blank_nodes=rename_blank_nodes):
            graph.add((rdf_term(quad.subject), rdf_term(quad.predicate), rdf_term(quad.object)))
    except SyntaxError as error:
        kind = fmt.name.replace("_", "-")
        raise SourceError(Location(path, error.lineno), f"{kind} syntax error: {error.msg}") from None
    return graph


__all__ = ["rdf_files", "rdf_term", "read_rdf_file", "read_rdf_paths"]
