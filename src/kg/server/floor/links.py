"""Links between the surfaces: minted IRIs and their /id/ paths, page URLs, the query listing a class's instances.

A minted IRI ``{base}/id/{path}`` is served at ``/id/{path}``, its page at ``/page/{path}`` (the pages surface);
query results link the IRIs they show to those pages, and the home page links each class to the query page
listing its instances (the SPARQL surface). Only values ``linkable`` allows become an href or src.

>>> iri_for("https://kg.example.org/", "person/ada")
'https://kg.example.org/id/person/ada'
>>> path_for("https://kg.example.org", "https://kg.example.org/id/work/tvm/authorship/1")
'work/tvm/authorship/1'
>>> path_for("https://kg.example.org", "https://example.org/id/person/ada") is None
True
"""

from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import urlencode

from flask import g, url_for
from werkzeug.routing import Map, PathConverter

from ...formats import Format
from ...iris import Minter

FORMAT_LABELS = {Format.SPARQL_JSON: "JSON", Format.SPARQL_XML: "XML", Format.CSV: "CSV", Format.TSV: "TSV",
                 Format.TURTLE: "Turtle", Format.N_TRIPLES: "N-Triples", Format.N_QUADS: "N-Quads",
                 Format.TRIG: "TriG", Format.JSON_LD: "JSON-LD", Format.RDF_XML: "RDF/XML", Format.HTML: "HTML"}
PREFIX_BLOCK = """PREFIX schema: <http://schema.org/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
PREFIX bibo: <http://purl.org/ontology/bibo/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
"""

# Only these become links: http(s) with an authority, mailto, and this app's own absolute paths ("/...", but not
# "//host" or "/\\host", which browsers read as another host). No whitespace or control characters anywhere,
# since browsers drop them from a scheme ("java\tscript:"). Everything else is shown as text.
_LINKABLE = re.compile(r"(?:https?://|mailto:|/(?![/\\]))[^\x00-\x20\x7f]*", re.IGNORECASE)


def linkable(url: Any) -> bool:
    """Whether a value may be rendered as an href or src: an http, https or mailto IRI, or a path of this app.

    >>> linkable("https://orcid.org/0000-0002-1825-0097"), linkable("mailto:ada@example.org"), linkable("/page/x")
    (True, True, True)
    >>> linkable("javascript:alert(1)"), linkable("data:text/html,x"), linkable("//evil.example/")
    (False, False, False)
    """
    return isinstance(url, str) and _LINKABLE.fullmatch(url) is not None


def iri_for(base: str, path: str) -> str:
    """The minted IRI served at /id/{path}."""
    return Minter(base).at(path)


def path_for(base: str, iri: str) -> str | None:
    """The path after /id/ of a minted IRI, or None for an IRI outside the base's /id/ space."""
    return Minter(base).path_of(iri)


# the route's path converter's own quoting, kept per path
_quoted_path = functools.lru_cache(maxsize=16384)(PathConverter(Map()).to_url)


def page_url(path: Any) -> str:
    """url_for("pages.page", path=path), the same string faster: the route's prefix is built once per request,
    then only the path is quoted, as the route's converter does, from a cache (url_for took 17 µs; a page has
    hundreds of links, most to the same few hundred paths)."""
    if not isinstance(path, str) or not path:
        return url_for("pages.page", path=path)
    prefix: str | None = g.get("page_url")
    if prefix is None:
        prefix = g.page_url = url_for("pages.page", path="x")[:-1]
    return prefix + _quoted_path(path)


def instances_query(class_iri: str) -> str:
    """A query listing the instances of a class with a name each (the home page's class table links to it)."""
    return PREFIX_BLOCK + f"""
SELECT ?instance (SAMPLE(?label) AS ?name) WHERE {{
  ?instance a <{class_iri}> .
  OPTIONAL {{ ?instance schema:name ?label }}
}} GROUP BY ?instance ORDER BY ?name ?instance
"""


def instances_href(class_iri: str) -> str:
    """The query page running instances_query for a class."""
    return url_for("sparql.endpoint") + "?" + urlencode({"query": instances_query(class_iri)})


__all__ = ["FORMAT_LABELS", "PREFIX_BLOCK", "instances_href", "instances_query", "iri_for", "linkable",
           "page_url", "path_for"]
