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
from .identifiers import iri as identifier_iri

DEFAULT_GRAPH = "edits"  # /graph/edits: where unnamed writes land, and what the Graph Store calls ?default
MOVED = "moved"  # /graph/changes/moved: replaced and removed IRIs (a build id is hexadecimal, never this word)
SYSTEMS = {  # the agent each downloaded record is attributed to (prov:wasAttributedTo)
    "orcid": ("ORCID", "https://orcid.org/"),
    "dblp": ("dblp computer science bibliography", "https://dblp.org/"),
    "wikidata": ("Wikidata", "https://www.wikidata.org/"),
    "openalex": ("OpenAlex", "https://openalex.org/"),
    "crossref": ("Crossref", "https://www.crossref.org/"),
    "datacite": ("DataCite", "https://datacite.org/"),
    "bibtex": ("a BibTeX file", ""),
    "ris": ("a RIS file", ""),
    "csl": ("a CSL-JSON file", ""),
}
KINDS = ("person", "organization", "work", "venue", "project", "role", "metric")


def ascii_folded(text: str) -> str:
    """Text with accents taken off and every other non-ASCII character dropped ("Zoë Müller" -> "Zoe Muller")."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def slugify(text: str, max_length: int = 80) -> str:
    """Lower-case ASCII slug of text; non-Latin text falls back to a short stable hash."""
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_folded(text).lower()).strip("-")
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

    def changes_graph(self, build_id: str) -> URIRef:
        """The named graph holding one build's change record (kg.changes): outside the default graph's merge."""
        return self.graph(f"changes/{build_id}")

    def moved_graph(self) -> URIRef:
        """The graph of replaced and removed IRIs, carried from build to build (kg.changes.moves)."""
        return self.changes_graph(MOVED)

    def build(self, build_id: str) -> URIRef:
        """The prov:Activity of one build, served at /changes/{build_id}.

        >>> str(Minter("https://kg.example.org").build("ab12"))
        'https://kg.example.org/changes/ab12'
        """
        return URIRef(f"{self.base}/changes/{build_id}")

    def build_version(self, build_id: str) -> URIRef:
        """The store version a build generated (a prov:Entity)."""
        return URIRef(f"{self.build(build_id)}#version")

    def entity_change(self, build_id: str, entity: str) -> URIRef:
        """The record of how one build changed one entity: the build's IRI with the entity's path as fragment."""
        path = self.path_of(entity) or "x" + hashlib.sha256(entity.encode("utf-8")).hexdigest()[:16]
        return URIRef(f"{self.build(build_id)}#{path}")

    def record_graph(self, name: str) -> URIRef:
        """The named graph of one downloaded record file (its slug)."""
        return self.graph(f"record/{name}")

    def quarantine_graph(self, name: str) -> URIRef:
        """The graph of what a build quarantined from one record's graph (its slug); kept beside the store."""
        return self.graph(f"quarantine/{name}")

    def system(self, system: str) -> URIRef:
        """The agent a record's system stands for: its home IRI, or a minted one for a system without one."""
        home = SYSTEMS.get(system, ("", ""))[1]
        return URIRef(home or f"{self.base}/id/source-system/{system}")

    @staticmethod
    def external(scheme: str, value: str) -> URIRef | None:
        """The outward IRI of an identifier (https://orcid.org/…, https://doi.org/…), None for schemes without."""
        found = identifier_iri(scheme, value)
        return URIRef(found) if found else None

    def source(self, relative_path: str) -> URIRef:
        """IRI standing for a source file under data/."""
        return URIRef(f"{self.base}/source/{relative_path}")

    @property
    def id_space(self) -> str:
        """The prefix of every minted entity IRI: {base}/id/."""
        return f"{self.base}/id/"

    def at(self, path: str) -> str:
        """The minted IRI whose path after /id/ is path (what /id/{path} serves)."""
        return self.id_space + path

    def path_of(self, iri: str) -> str | None:
        """The path after /id/ of a minted IRI, or None for an IRI outside this base's /id/ space.

        >>> Minter("https://kg.example.org").path_of("https://kg.example.org/id/person/ada")
        'person/ada'
        """
        return iri[len(self.id_space):] if iri.startswith(self.id_space) and len(iri) > len(self.id_space) else None

    def is_minted(self, iri: str) -> bool:
        """True when the IRI lies in this base's /id/ space."""
        return iri.startswith(self.id_space)



def graph_kind(iri: str) -> str:
    """What a graph IRI minted by kg names, whatever the base: "inferred", "ontology", "reference", "edits",
    "profile", "record", "quarantine", "retracted" or "changes" (a build's change record); "" for any other IRI.

    >>> graph_kind("https://kg.example.org/graph/profile/ada"), graph_kind("https://x.org/graph/inferred")
    ('profile', 'inferred')
    """
    head, found, tail = iri.rpartition("/graph/")
    return tail.split("/", 1)[0] if found and head else ""


@dataclass(frozen=True)
class GraphNames:
    """The graph IRIs writes care about, under one base."""

    base: str

    @property
    def edits(self) -> str:
        """Where triples written to the default graph land (also the Graph Store's ?default)."""
        return str(Minter(self.base).default_graph())

    @property
    def inferred(self) -> str:
        """The reasoner's graph (recomputed after every write, never written directly)."""
        return str(Minter(self.base).graph("inferred"))

    @property
    def ontology(self) -> str:
        """The ontology graph (from ontology/ at build time, never written over HTTP)."""
        return str(Minter(self.base).graph("ontology"))

    @property
    def retracted_prefix(self) -> str:
        """Prefix of the graphs holding retractions in edits.nq."""
        return f"{self.base}/graph/retracted/"

    @property
    def changes_prefix(self) -> str:
        """Prefix of the graphs holding the builds' change records (kg.changes)."""
        return f"{self.base}/graph/changes/"

    def managed(self, iri: str) -> bool:
        """Whether a graph is derived (inferred, ontology, a build's changes) or reserved (retractions): not
        writable."""
        return iri in (self.inferred, self.ontology) or iri.startswith((self.retracted_prefix, self.changes_prefix))

    def is_changes(self, iri: str) -> bool:
        """Whether a graph holds one build's change record (kept outside the default graph's merge)."""
        return iri.startswith(self.changes_prefix)

    def is_inferred(self, iri: str) -> bool:
        """Whether a graph is the reasoner's."""
        return iri == self.inferred

    def is_ontology(self, iri: str) -> bool:
        """Whether a graph is the ontology's."""
        return iri == self.ontology

    def is_record(self, iri: str) -> bool:
        """Whether a graph holds one downloaded record's triples."""
        return iri.startswith(f"{self.base}/graph/record/")

    def is_profile(self, iri: str) -> bool:
        """Whether a graph holds one profile's triples."""
        return iri.startswith(f"{self.base}/graph/profile/")

    def from_yaml(self, iri: str) -> bool:
        """Whether a graph comes from the YAML files (a profile or the reference data)."""
        return iri.startswith((f"{self.base}/graph/profile/", f"{self.base}/graph/record/")) or \
            iri == f"{self.base}/graph/reference"

    def retraction_graph(self, iri: str) -> str:
        """The edits.nq graph recording retractions from a YAML-derived graph."""
        return self.retracted_prefix + iri[len(f"{self.base}/graph/"):]

    def retracted_from(self, iri: str) -> str:
        """The YAML-derived graph a retraction graph stands for."""
        return f"{self.base}/graph/" + iri[len(self.retracted_prefix):]


@dataclass(frozen=True)
class RemoteNames:
    """The IRIs kg uses in a remote store for one base IRI."""

    base: str

    @property
    def root(self) -> str:
        """The base without a trailing slash."""
        return self.base.rstrip("/")

    @property
    def manifest(self) -> str:
        """The graph (and subject) holding the build manifest."""
        return f"{self.root}/kg/manifest"

    def merged(self, version: str) -> str:
        """The graph holding one build's union of the public graphs (the default graph kg queries)."""
        return f"{self.root}/kg/merged/{version}"

    def build(self, version: str) -> str:
        """The subject carrying one build's manifest."""
        return f"{self.manifest}/{version}"

    @property
    def pending(self) -> str:
        """The graph listing staging graphs of a push in progress (so an interrupted push can be cleaned up)."""
        return f"{self.root}/kg/pending"

    @property
    def staging(self) -> str:
        """The prefix of graphs a build uploads into before switching."""
        return f"{self.root}/kg/staging/"

    @property
    def genid(self) -> str:
        """The prefix of skolem IRIs standing for blank nodes."""
        return f"{self.root}/.well-known/genid/"
