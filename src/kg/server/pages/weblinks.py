"""Links out as pages show them: each labelled once (a profile's links, its homepage, its identifiers), a work's
DOI, and the links a source gives with their labels (``rdfs:seeAlso`` nodes holding ``schema:name`` and
``schema:url``, kg.mapping.works.link_triples).

>>> scheme_label("https://dblp.org/pid/123/456"), scheme_label("https://example.org/")
('dblp', None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from ...identifiers import from_iri
from ...namespaces import BIBO_IRIS as B
from ...namespaces import FOAF_IRIS as F
from ...namespaces import PREFIXES
from ...namespaces import SCHEMA_IRIS as S
from ...store import Store, solutions
from ..floor.links import linkable

if TYPE_CHECKING:
    from .resources import Reader

SEE_ALSO = PREFIXES["rdfs"] + "seeAlso"
LINK_PROPS = (S.name, S.url)
# The short labels of identifier IRIs shown among a page's links (an ORCID iD has a badge of its own).
SCHEMES = {"doi": "DOI", "orcid": "ORCID", "dblp": "dblp", "dblp-record": "dblp", "wikidata": "Wikidata",
           "openalex": "OpenAlex", "ror": "ROR", "isni": "ISNI", "grid": "GRID", "scholar": "Google Scholar",
           "arxiv": "arXiv", "pmid": "PubMed", "pmcid": "PubMed Central"}


def scheme_label(url: str) -> str | None:
    """The name of the system an identifier IRI belongs to, None for any other address."""
    found = from_iri(url)
    return SCHEMES.get(found[0]) if found else None


def load_links(reader: Reader, owners: Iterable[Any]) -> None:
    """Fetch the link nodes of many resources with their labels and addresses in one query (embedded store; the
    Reader asks lazily otherwise)."""
    named = sorted({o for o in owners if isinstance(o, ox.NamedNode) and not reader.knows(o, SEE_ALSO)}, key=str)
    if not named or not isinstance(reader.store, Store):
        return
    found: dict[tuple[Any, str], list[Any]] = {(o, SEE_ALSO): [] for o in named}
    listed = ", ".join(f"<{p}>" for p in LINK_PROPS)
    sparql = (f"SELECT ?o ?l ?p ?v WHERE {{ VALUES ?o {{ {' '.join(str(o) for o in named)} }} ?o <{SEE_ALSO}> ?l "
              f"OPTIONAL {{ ?l ?p ?v FILTER(?p IN ({listed})) }} }}")
    for row in solutions(reader.store.query(sparql)):
        owner, node, prop, value = row[0], row[1], row[2], row[3]
        if node not in found[(owner, SEE_ALSO)]:
            found[(owner, SEE_ALSO)].append(node)
        if isinstance(node, ox.BlankNode):
            for key in ((node, p) for p in LINK_PROPS):
                found.setdefault(key, [])
            if prop is not None and value not in found[(node, prop.value)]:
                found[(node, prop.value)].append(value)
    reader.fill(found)


def labelled_links(reader: Reader, node: Any) -> list[dict[str, Any]]:
    """The links a source gives for a resource: label and address (None when the source gives none), by label."""
    rows: list[dict[str, Any]] = []
    for value in reader.values(node, SEE_ALSO):
        if isinstance(value, ox.NamedNode):  # a record's bare address (kg.mapping.records)
            rows.append({"label": scheme_label(value.value) or value.value, "url": value.value})
        elif isinstance(value, ox.BlankNode):
            address = reader.first(value, S.url)
            rows.append({"label": reader.text(value, S.name) or "link",
                         "url": address.value if isinstance(address, ox.NamedNode) else None})
    return sorted(rows, key=lambda row: (row["label"].casefold(), row["url"] or ""))


def doi(reader: Reader, work: Any) -> dict[str, str] | None:
    """A work's DOI and its https://doi.org/ address (from bibo:doi, else from a DOI among its schema:sameAs)."""
    value = reader.text(work, B.doi)
    if value is None:
        value = next((f[1] for v in reader.values(work, S.sameAs) if (f := from_iri(v.value)) and f[0] == "doi"),
                     None)
    return {"value": value, "url": f"https://doi.org/{value}"} if value else None


def orcid(reader: Reader, person: Any) -> dict[str, str] | None:
    """A person's ORCID iD (the first of their schema:sameAs that is one) and its address."""
    for value in reader.values(person, S.sameAs):
        found = from_iri(value.value)
        if found and found[0] == "orcid":
            return {"value": found[1], "url": f"https://orcid.org/{found[1]}"}
    return None


def _same(url: str) -> str:
    return url.rstrip("/").casefold()


def links_out(reader: Reader, node: Any, hidden: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Every link out of a resource once, each with a label: the source's labelled links (an address the source
    labels takes that label), the homepage, then identifiers and other addresses; addresses in hidden (shown
    elsewhere on the page, such as the ORCID badge) are left out."""
    shown = {_same(u) for u in hidden}
    rows: list[dict[str, Any]] = []
    for row in labelled_links(reader, node):
        if row["url"] is None or _same(row["url"]) not in shown:
            rows.append(row)
            if row["url"]:
                shown.add(_same(row["url"]))
    homepages = [v.value for prop in (F.homepage, S.url) for v in reader.values(node, prop)]
    others = [v.value for v in reader.values(node, S.sameAs)]
    for url, label in [(u, "Homepage") for u in homepages] + [(u, scheme_label(u) or u) for u in others]:
        if _same(url) not in shown:
            shown.add(_same(url))
            rows.append({"label": label, "url": url})
    for row in rows:
        row["linkable"] = row["url"] is not None and linkable(row["url"])
    return sorted(rows, key=lambda row: row["label"].casefold() != "homepage")


def best_url(links: list[dict[str, Any]]) -> str | None:
    """The address a citation gives for a work: its paper or PDF link, else its first link with an address."""
    addressed = [link for link in links if link["url"] and linkable(link["url"])]
    preferred = [link for link in addressed if link["label"].casefold() in ("pdf", "paper")]
    chosen = preferred or addressed
    return str(chosen[0]["url"]) if chosen else None


__all__ = ["best_url", "doi", "labelled_links", "links_out", "load_links", "orcid", "scheme_label"]
