"""One table of RDF and SPARQL results formats (content negotiation over it: kg.negotiation).

>>> Format.TURTLE.media_type, Format.TURTLE.extension
('text/turtle', 'ttl')
>>> Format.from_media_type("application/sparql-results+json; charset=utf-8")
<Format.SPARQL_JSON: 'application/sparql-results+json'>
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

import pyoxigraph as ox

# (name, media type, extension, pyoxigraph format, rdflib format name, aliases for format=, other media types)
_TABLE: dict[str, tuple[str, str, Any, str | None, tuple[str, ...], tuple[str, ...]]] = {
    "SPARQL_JSON": ("application/sparql-results+json", "srj", ox.QueryResultsFormat.JSON, None,
                    ("json", "srj", "sparql-json"), ("application/json",)),
    "SPARQL_XML": ("application/sparql-results+xml", "srx", ox.QueryResultsFormat.XML, None,
                   ("xml", "srx", "sparql-xml"), ("application/xml", "text/xml")),
    "CSV": ("text/csv", "csv", ox.QueryResultsFormat.CSV, None, ("csv",), ()),
    "TSV": ("text/tab-separated-values", "tsv", ox.QueryResultsFormat.TSV, None, ("tsv",), ()),
    "TURTLE": ("text/turtle", "ttl", ox.RdfFormat.TURTLE, "turtle", ("ttl", "turtle", "n3"), ("application/x-turtle", "text/n3", "text/rdf+n3")),
    "N_TRIPLES": ("application/n-triples", "nt", ox.RdfFormat.N_TRIPLES, "nt", ("nt", "ntriples", "n-triples"), ()),
    "N_QUADS": ("application/n-quads", "nq", ox.RdfFormat.N_QUADS, "nquads", ("nq", "nquads", "n-quads"), ()),
    "TRIG": ("application/trig", "trig", ox.RdfFormat.TRIG, "trig", ("trig",), ()),
    "JSON_LD": ("application/ld+json", "jsonld", ox.RdfFormat.JSON_LD, "json-ld", ("jsonld", "json-ld", "ld+json", "json"),
                ("application/json",)),
    "RDF_XML": ("application/rdf+xml", "rdf", ox.RdfFormat.RDF_XML, "xml", ("rdf", "rdfxml", "rdf-xml", "rdf+xml", "owl", "xml"),
                ("application/xml", "text/xml")),
    "HTML": ("text/html", "html", None, None, ("html",), ("application/xhtml+xml",)),
}


W3C_FORMATS = "http://www.w3.org/ns/formats/"


class Format(Enum):
    """A serialisation format: its media type, file extension, pyoxigraph and rdflib names, and aliases."""

    SPARQL_JSON = "application/sparql-results+json"
    SPARQL_XML = "application/sparql-results+xml"
    CSV = "text/csv"
    TSV = "text/tab-separated-values"
    TURTLE = "text/turtle"
    N_TRIPLES = "application/n-triples"
    N_QUADS = "application/n-quads"
    TRIG = "application/trig"
    JSON_LD = "application/ld+json"
    RDF_XML = "application/rdf+xml"
    HTML = "text/html"

    @property
    def media_type(self) -> str:
        """The canonical media type, without parameters."""
        return str(self.value)

    @property
    def media_types(self) -> tuple[str, ...]:
        """The canonical media type followed by the other types clients use for this format."""
        return (self.media_type,) + _TABLE[self.name][5]

    @property
    def content_type(self) -> str:
        """The Content-Type header value for a response in this format (text types say UTF-8)."""
        return f"{self.media_type}; charset=utf-8" if self.media_type.startswith("text/") else self.media_type

    @property
    def extension(self) -> str:
        """The usual file extension, without the dot."""
        return _TABLE[self.name][1]

    @property
    def ox(self) -> Any:
        """The pyoxigraph RdfFormat or QueryResultsFormat, or None (HTML)."""
        return _TABLE[self.name][2]

    @property
    def rdflib_name(self) -> str | None:
        """The rdflib parser/serializer plugin name, for RDF formats."""
        return _TABLE[self.name][3]

    @property
    def aliases(self) -> tuple[str, ...]:
        """Short names accepted by the format= parameter."""
        return _TABLE[self.name][4]

    @property
    def iri(self) -> str | None:
        """The W3C formats IRI (http://www.w3.org/ns/formats/...), if there is one.

        >>> Format.JSON_LD.iri, Format.SPARQL_JSON.iri
        ('http://www.w3.org/ns/formats/JSON-LD', 'http://www.w3.org/ns/formats/SPARQL_Results_JSON')
        """
        if self.ox is None:
            return None
        return W3C_FORMATS + "JSON-LD" if self is Format.JSON_LD else str(self.ox.iri)

    @property
    def is_results(self) -> bool:
        """Whether this is a SPARQL query results format (SELECT/ASK)."""
        return isinstance(self.ox, ox.QueryResultsFormat)

    @property
    def is_rdf(self) -> bool:
        """Whether this is an RDF graph or dataset format (CONSTRUCT/DESCRIBE)."""
        return isinstance(self.ox, ox.RdfFormat)

    @property
    def supports_datasets(self) -> bool:
        """Whether the format can carry named graphs (N-Quads, TriG).

        >>> Format.TRIG.supports_datasets, Format.TURTLE.supports_datasets
        (True, False)
        """
        return self.is_rdf and bool(self.ox.supports_datasets)

    @classmethod
    def from_media_type(cls, media_type: str) -> Format | None:
        """The format whose canonical media type this is (parameters such as charset are ignored)."""
        bare = media_type.split(";", 1)[0].strip().lower()
        return next((f for f in cls if f.media_type == bare), None)

    @classmethod
    def from_extension(cls, extension: str) -> Format | None:
        """The format with this file extension (with or without the dot).

        >>> Format.from_extension(".jsonld")
        <Format.JSON_LD: 'application/ld+json'>
        """
        bare = extension.lower().lstrip(".")
        return next((f for f in cls if f.extension == bare), None)

    @classmethod
    def from_name(cls, name: str, candidates: Iterable[Format] | None = None) -> Format | None:
        """The first candidate named by an alias, extension, enum name or media type (for format=).

        >>> Format.from_name("xml", RESULTS_FORMATS), Format.from_name("xml", GRAPH_FORMATS)
        (<Format.SPARQL_XML: 'application/sparql-results+xml'>, <Format.RDF_XML: 'application/rdf+xml'>)
        """
        key = name.strip().lower()
        for fmt in cls if candidates is None else candidates:
            if key in fmt.aliases or key == fmt.extension or key == fmt.name.lower() or key in fmt.media_types:
                return fmt
        return None


RESULTS_FORMATS: tuple[Format, ...] = (Format.SPARQL_JSON, Format.SPARQL_XML, Format.CSV, Format.TSV)
BOOLEAN_FORMATS: tuple[Format, ...] = RESULTS_FORMATS
GRAPH_FORMATS: tuple[Format, ...] = (Format.TURTLE, Format.N_TRIPLES, Format.N_QUADS, Format.TRIG,
                                     Format.JSON_LD, Format.RDF_XML)


__all__ = ["BOOLEAN_FORMATS", "GRAPH_FORMATS", "RESULTS_FORMATS", "Format"]
