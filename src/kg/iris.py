"""The only place IRIs are minted: deterministic, stable across rebuilds.

>>> m = Minter("https://kg.example.org")
>>> str(m.person("ziheng-jiang"))
'https://kg.example.org/id/person/ziheng-jiang'
>>> str(m.edition("nsdi", 2024))
'https://kg.example.org/id/venue/nsdi-2024'
>>> slugify("TuX²: Distributed Graph Computation")
'tux2-distributed-graph-computation'
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from rdflib import URIRef

from .config import DEFAULT_BASE

DEFAULT_GRAPH = "edits"  # /graph/edits: where unnamed writes land, and what the Graph Store calls ?default
KINDS = ("person", "organization", "work", "venue", "project", "role", "metric")


def slugify(text: str, max_length: int = 80) -> str:
    """Lower-case ASCII slug of text; non-Latin text falls back to a short stable hash."""
    folded = unicodedata.normalize("NFKD", text)
    ascii_text = folded.encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug or "x" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


@dataclass(frozen=True)
class Minter:
    """Mints IRIs under one base (no trailing slash)."""

    base: str = DEFAULT_BASE

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", self.base.rstrip("/"))

    def entity(self, kind: str, slug: str) -> URIRef:
        """IRI of an entity of a kind (person, organization, …) by slug."""
        if kind not in KINDS:
            raise ValueError(f"unknown entity kind {kind!r}")
        return URIRef(f"{self.base}/id/{kind}/{slug}")

    def person(self, slug: str) -> URIRef:
        """IRI of a person."""
        return self.entity("person", slug)

    def organization(self, slug: str) -> URIRef:
        """IRI of an organisation."""
        return self.entity("organization", slug)

    def venue(self, slug: str) -> URIRef:
        """IRI of a venue series."""
        return self.entity("venue", slug)

    def edition(self, venue_slug: str, year: int) -> URIRef:
        """IRI of one year's edition of a venue."""
        return self.entity("venue", f"{venue_slug}-{year}")

    def work(self, slug: str) -> URIRef:
        """IRI of a publication."""
        return self.entity("work", slug)

    def authorship(self, work_slug: str, rank: int) -> URIRef:
        """IRI of the authorship at a 1-based rank of a publication."""
        return URIRef(f"{self.work(work_slug)}/authorship/{rank}")

    def project(self, slug: str) -> URIRef:
        """IRI of a project."""
        return self.entity("project", slug)

    def role(self, person_slug: str, kind: str, index: int) -> URIRef:
        """IRI of a dated role (employment, education, membership) of a person."""
        return self.entity("role", f"{person_slug}-{kind}-{index}")

    def credential(self, person_slug: str, index: int) -> URIRef:
        """IRI of a degree a person holds."""
        return URIRef(f"{self.role(person_slug, 'education', index)}/credential")

    def metric(self, person_slug: str, kind: str) -> URIRef:
        """IRI of a metric (citation count, publication count) about a person."""
        return self.entity("metric", f"{person_slug}-{kind}")

    def graph(self, name: str) -> URIRef:
        """IRI of a named graph, such as profile/ada, reference, ontology or inferred."""
        return URIRef(f"{self.base}/graph/{name}")

    def default_graph(self) -> URIRef:
        """IRI of the graph that stands for the default graph in writes and in the Graph Store's ?default.

        >>> str(Minter("https://kg.example.org").default_graph())
        'https://kg.example.org/graph/edits'
        """
        return self.graph(DEFAULT_GRAPH)

    def source(self, relative_path: str) -> URIRef:
        """IRI standing for a source file under data/."""
        return URIRef(f"{self.base}/source/{relative_path}")

    def is_minted(self, iri: str) -> bool:
        """True when the IRI lies in this base's /id/ space."""
        return iri.startswith(f"{self.base}/id/")
