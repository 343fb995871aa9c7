"""dblp RDF (N-Triples or Turtle) in the 2024 schema (`https://dblp.org/rdf/schema#`) or the dated older ones.

Persons (`dblp:Person`, `dblp:Creator`) become people and publications become works. Identifier links
(`dblp:orcid`, `dblp:wikidata`, `dblp:doi`, `owl:sameAs`, electronic editions) become ids, never passed on as
`owl:sameAs`: the mapper states identity with schema:sameAs only.

Author order comes from the signatures' `dblp:signatureOrdinal`. The 2017 schema has no signatures, only
`dblp:authoredBy`, whose triples carry no order: such authors are put in the order the file writes them after
the publication (dblp's own exports write them in byline order), the list still counts as complete, and the
file gets one warning that the order is not stated. A `dblp:AmbiguousCreator` is a disambiguation bucket, read
like the dblp XML disambiguation page: no dblp id and no works for it. Lines are the first line naming a subject.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..errors import Location, SourceError
from ..identifiers import from_iri, looks_like
from ..model import ExternalId, Origin, RecordAuthor, RecordOrg, RecordPerson, RecordRole, RecordWork
from .dblp import plain_name
from .reading import RecordReader, Shape, clean, year_of

SCHEMA = "https://dblp.org/rdf/schema"  # schema#, schema-2017-04-18#, schema-2020-07-01#
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
OTHER_TERMS = {"http://www.w3.org/2002/07/owl#sameAs": "sameAs", "http://www.w3.org/2000/01/rdf-schema#label": "label",
               RDF_TYPE: "type"}
PERSON_CLASSES = {"Person", "Creator", "Group", "AmbiguousCreator"}
WORK_CLASSES = {"Publication", "Article", "Inproceedings", "Book", "Incollection", "Editorship", "Reference", "Data",
                "Informal", "Withdrawn", "Proceedings", "PhdThesis", "MastersThesis"}
NAME_TERMS = ("primaryCreatorName", "primaryFullCreatorName", "primaryFullPersonName", "creatorName",
              "otherFullPersonName", "otherCreatorName", "label")
VENUE_TERMS = ("publishedIn", "publishedInBook", "publishedInJournal", "publishedInSeries")
PERSON_ID_SCHEMES = ("orcid", "wikidata", "scholar", "isni")
WORK_ID_SCHEMES = ("doi", "wikidata", "arxiv")
Node = dict[str, list[Any]]


def _is_rdf(text: str, syntax: str) -> bool:
    if SCHEMA not in text:
        return False
    prefixed = re.search(r"^\s*(?:@prefix|@base|PREFIX|BASE)\b", text, re.M | re.I) is not None
    return prefixed == (syntax == "turtle")


def is_ntriples(document: Any) -> bool:
    """N-Triples text using a dblp RDF schema."""
    return isinstance(document, str) and _is_rdf(document, "nt")


def is_turtle(document: Any) -> bool:
    """Turtle text (with prefixes) using a dblp RDF schema."""
    return isinstance(document, str) and _is_rdf(document, "turtle")


def _term(predicate: str) -> str | None:
    if predicate.startswith(SCHEMA) and "#" in predicate:
        return predicate.split("#", 1)[1]
    return OTHER_TERMS.get(predicate)


def _graph(text: str, reader: RecordReader) -> Any:
    """The parsed graph; a syntax error names the file and line."""
    import rdflib
    from rdflib.plugins.parsers.notation3 import BadSyntax

    graph = rdflib.Graph()
    try:
        graph.parse(data=text, format="turtle")
    except BadSyntax as error:
        line = error.lines + 1 if isinstance(error.lines, int) else None
        why = getattr(error, "_why", "") or "syntax error"
        raise SourceError(Location(Path(reader.file), line),
                          f"malformed dblp RDF ({why}); download the record again") from None
    except Exception as error:  # rdflib raises plain exceptions for bad IRIs and literals
        raise SourceError(Location(Path(reader.file)),
                          f"malformed dblp RDF ({error}); download the record again") from None
    return graph


def _nodes(graph: Any) -> dict[Any, Node]:
    nodes: dict[Any, Node] = defaultdict(lambda: defaultdict(list))
    for subject, predicate, value in sorted(graph):
        term = _term(str(predicate))
        if term is not None:
            nodes[subject][term].append(value)
    return nodes


def _types(node: Node) -> set[str]:
    return {str(t).split("#", 1)[1] for t in node.get("type", []) if str(t).startswith(SCHEMA) and "#" in str(t)}


def _first(node: Node, *terms: str) -> str | None:
    return next((c for t in terms for v in node.get(t, []) if (c := clean(str(v)))), None)


class _Lines:
    """The first line naming each subject, by its full IRI or a prefixed name."""

    def __init__(self, text: str, graph: Any) -> None:
        self.text = text
        self.prefixes = [(str(p), str(ns)) for p, ns in graph.namespaces()]
        self.starts: dict[str, int] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if line[:1] not in ("", " ", "\t", "#", "@"):
                self.starts.setdefault(line.split(None, 1)[0], number)

    def forms(self, iri: str) -> list[str]:
        """The ways the file may write an IRI."""
        forms = [f"<{iri}>"]
        forms += [f"{p}:{iri[len(ns):]}" for p, ns in self.prefixes if iri.startswith(ns) and len(iri) > len(ns)]
        return forms

    def position(self, iri: str, start: int = 0) -> int | None:
        """Where the file first writes an IRI at or after a position."""
        found = [i for f in self.forms(iri) if (i := self.text.find(f, start)) >= 0]
        return min(found) if found else None

    def line(self, iri: str) -> int | None:
        """The first line starting with an IRI (as a subject), else the first naming it."""
        starts = [self.starts[f] for f in self.forms(iri) if f in self.starts]
        if starts:
            return min(starts)
        at = self.position(iri)
        return self.text.count("\n", 0, at) + 1 if at is not None else None


def _link_ids(values: list[Any], origin: Origin, schemes: tuple[str, ...], reader: RecordReader) -> list[ExternalId]:
    ids = []
    for value in values:
        found = from_iri(str(value))
        scheme = found[0] if found else looks_like(str(value))
        if scheme in schemes:
            ident = ExternalId(*found) if found else reader.identifier(scheme, str(value), origin)
            if ident is not None:
                ids.append(ident)
    return ids


class _Reading:
    """One dblp RDF file being read."""

    def __init__(self, text: str, reader: RecordReader) -> None:
        self.reader = reader
        graph = _graph(text, reader)
        self.lines = _Lines(text, graph)
        self.nodes = _nodes(graph)
        self.unordered = False

    def at(self, subject: Any) -> Origin:
        """The origin of a subject: its first line in the file."""
        return self.reader.at(line=self.lines.line(str(subject)))

    def name_of(self, subject: Any) -> str | None:
        """A creator's primary name without its homonym suffix."""
        name = _first(self.nodes.get(subject, {}), *NAME_TERMS)
        return plain_name(name) if name else None

    def creator(self, subject: Any, name: str | None, orcids: list[Any], origin: Origin) -> RecordAuthor | None:
        """An author from a creator IRI, a name as written and the ORCIDs stated for the byline."""
        name = name or self.name_of(subject)
        if name is None:
            self.reader.warn(origin, f"an author without a name ({subject}) is left out")
            return None
        pairs = [("dblp", str(subject), origin)] if subject is not None and looks_like(str(subject)) == "dblp" else []
        pairs += [("orcid", str(o), origin) for o in orcids]
        pairs += [("orcid", str(o), origin) for o in self.nodes.get(subject, {}).get("orcid", [])]
        return RecordAuthor(name, self.reader.identifiers(pairs), origin)

    def signed(self, work: Node, origin: Origin) -> list[RecordAuthor]:
        """Authors from signatures, by ordinal; editor signatures only when there are no author signatures."""
        signatures = [(s, self.nodes.get(s, {})) for s in work.get("hasSignature", [])]
        authors = [(s, n) for s, n in signatures if "EditorSignature" not in _types(n)]
        chosen = authors or signatures

        def ordinal(item: tuple[Any, Node]) -> tuple[int, str]:
            value = _first(item[1], "signatureOrdinal")
            return (int(value) if value and value.isdigit() else 10**9, _first(item[1], "signatureDblpName") or "")

        found = []
        for _, node in sorted(chosen, key=ordinal):
            subject = next(iter(node.get("signatureCreator", [])), None)
            written = _first(node, "signatureDblpName")
            author = self.creator(subject, plain_name(written) if written else None,
                                  node.get("signatureOrcid", []), origin)
            if author is not None:
                found.append(author)
        return found

    def listed(self, subject: Any, work: Node, origin: Origin) -> list[RecordAuthor]:
        """Authors from dblp:authoredBy (older schema): in the order the file writes them after the work."""
        creators = work.get("authoredBy", []) or work.get("editedBy", [])
        if creators:
            self.unordered = True
        start = self.lines.position(str(subject)) or 0
        placed = sorted(creators, key=lambda c: (self.lines.position(str(c), start) or len(self.lines.text),
                                                 self.name_of(c) or ""))
        return [a for c in placed if (a := self.creator(c, None, [], origin))]

    def work(self, subject: Any, node: Node) -> RecordWork | None:
        """One publication; one without a title is left out with a warning."""
        origin = self.at(subject)
        title = _first(node, "title", "label")
        if title and title.endswith(".") and not title.endswith(".."):
            title = title[:-1]
        if not title:
            self.reader.warn(origin, f"a dblp publication without a title ({subject}) is left out")
            return None
        authors = self.signed(node, origin) if node.get("hasSignature") else self.listed(subject, node, origin)
        record = from_iri(str(subject))
        ids = [ExternalId(*record)] if record and record[0] == "dblp-record" else []
        links = [v for t in ("doi", "wikidata", "sameAs", "primaryElectronicEdition", "otherElectronicEdition")
                 for v in node.get(t, [])]
        ids += [i for i in _link_ids(links, origin, WORK_ID_SCHEMES, self.reader) if i not in ids]
        kinds = sorted(_types(node) - {"Publication", "Entity"})
        key = record[1] if record else str(subject)
        return RecordWork(key, title, tuple(authors), True, year_of(_first(node, "yearOfPublication")),
                          _first(node, *VENUE_TERMS), kinds[0].lower() if kinds else None, tuple(ids), origin)

    def person(self, subject: Any, node: Node, works: dict[Any, RecordWork]) -> RecordPerson | None:
        """One creator; an ambiguous creator gets no dblp id and no works."""
        origin = self.at(subject)
        names = [plain_name(n) for t in NAME_TERMS for v in node.get(t, []) if (n := clean(str(v)))]
        if not names:
            self.reader.warn(origin, f"a dblp creator without a name ({subject}) is left out")
            return None
        bucket = "AmbiguousCreator" in _types(node)
        ids = []
        if bucket:
            self.reader.warn(origin, f"{subject} is a dblp disambiguation creator: it names several people, so it is "
                                     "not merged with anyone by its pid")
        else:
            is_pid = looks_like(str(subject)) == "dblp"
            ids = list(self.reader.identifiers([("dblp", str(subject), origin)] if is_pid else []))
            ids += [ExternalId("orcid", i.value) for o in node.get("orcid", [])
                    if (i := self.reader.identifier("orcid", str(o), origin))]
        links = [v for t in ("wikidata", "sameAs") for v in node.get(t, [])]
        ids += _link_ids(links, origin, PERSON_ID_SCHEMES, self.reader)
        urls = [str(v) for t in ("primaryHomepage", "homepage", "webpage") for v in node.get(t, [])
                if looks_like(str(v)) is None]
        roles = tuple(RecordRole("affiliation", RecordOrg(a), None, None, None, None, origin)
                      for t in ("primaryAffiliation", "affiliation") for v in node.get(t, []) if (a := clean(str(v))))
        own = () if bucket else tuple(w for s, w in works.items() if self._created(s, subject))
        others = tuple(dict.fromkeys(n for n in names[1:] if n != names[0]))
        return RecordPerson(names[0], None, None, others, tuple(dict.fromkeys(ids)), tuple(dict.fromkeys(urls)),
                            tuple(dict.fromkeys(roles)), own, (), origin)

    def _created(self, work: Any, subject: Any) -> bool:
        node = self.nodes.get(work, {})
        if subject in node.get("authoredBy", []) + node.get("editedBy", []) + node.get("createdBy", []):
            return True
        return any(subject in self.nodes.get(s, {}).get("signatureCreator", []) for s in node.get("hasSignature", []))

    def read(self) -> tuple[list[RecordPerson], list[RecordWork]]:
        """The creators and publications of the file."""
        works = {s: w for s, n in self.nodes.items() if _types(n) & WORK_CLASSES or "title" in n
                 if (w := self.work(s, n))}
        people = [p for s, n in self.nodes.items() if _types(n) & PERSON_CLASSES or "primaryCreatorName" in n
                  if (p := self.person(s, n, works))]
        if self.unordered:
            self.reader.warn(self.reader.at(), "this dblp RDF uses dblp:authoredBy, which states no author order; "
                                               "authors are in the order the file writes them")
        return people, list(works.values())


def read(document: Any, reader: RecordReader) -> tuple[list[RecordPerson], list[RecordWork]]:
    """The people and works of a dblp RDF text."""
    return _Reading(document, reader).read()


SHAPES: list[Shape] = [("dblp", "dblp RDF N-Triples", is_ntriples, read), ("dblp", "dblp RDF Turtle", is_turtle, read)]
