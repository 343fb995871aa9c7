"""Terms as people write them for kg explain and GET /explain: Turtle syntax with the project's prefixes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pyoxigraph as ox

from ..errors import BadTerm
from ..namespaces import RDF, XSD

TYPE = ox.NamedNode(str(RDF.type))
XSD_STRING = str(XSD.string)
BARE_SCHEMES = ("urn", "mailto", "tag")  # absolute IRIs accepted without <…> besides scheme://…


def parse_term(text: str, position: str, prefixes: Mapping[str, str]) -> Any:
    """One term as written in Turtle (<IRI>, a bare absolute IRI, prefix:name, "literal"@en, 5, _:b, or a for
    rdf:type as predicate), checked for its position ("subject", "predicate" or "object").

    Raises:
        BadTerm: the text is not one term, or not a kind the position allows.
    """
    text = text.strip()
    if not text:
        raise BadTerm(f"the {position} is empty: give an IRI (<…> or prefix:name), a literal (\"…\") or _:label")
    bare = re.fullmatch(r"([A-Za-z][A-Za-z0-9+.-]*):(//)?[^\s<>\"{}|\\^`]*", text)
    if bare and bare.group(1) not in prefixes and (bare.group(2) or bare.group(1) in BARE_SCHEMES):
        text = f"<{text}>"
    document = "".join(f"@prefix {name}: <{iri}> .\n" for name, iri in prefixes.items())
    try:
        quads = list(ox.parse((document + f"<urn:kg:s> <urn:kg:p> {text} .\n").encode("utf-8"),
                              format=ox.RdfFormat.TURTLE))
    except SyntaxError as error:
        known = ", ".join(f"{name}:" for name in prefixes)
        reason = re.sub(r"^Parser error at line \d+ between columns \d+ and \d+: | \(line \d+\)$", "", str(error))
        raise BadTerm(f"the {position} {text!r} is not an RDF term ({reason}); known prefixes: {known}") from None
    if len(quads) != 1:
        raise BadTerm(f"the {position} {text!r} is not one RDF term")
    term = quads[0].object
    if isinstance(term, ox.BlankNode) and not text.startswith("_:"):
        raise BadTerm(f"the {position} {text!r} is an anonymous blank node; name one as _:label")
    if position != "object" and isinstance(term, ox.Literal):
        raise BadTerm(f"the {position} {text!r} is a literal; only an object can be a literal")
    if position == "predicate" and not isinstance(term, ox.NamedNode):
        raise BadTerm(f"the predicate {text!r} must be an IRI")
    return term


def parse_triple(s: str, p: str, o: str, prefixes: Mapping[str, str]) -> tuple[Any, Any, Any]:
    """Subject, predicate and object as written (see parse_term) into a triple of pyoxigraph terms."""
    predicate = TYPE if p.strip() == "a" else parse_term(p, "predicate", prefixes)
    return parse_term(s, "subject", prefixes), predicate, parse_term(o, "object", prefixes)


def compact_term(term: Any, prefixes: Mapping[str, str]) -> str:
    """A term as short Turtle: prefix:name for IRIs in a known namespace, N-Triples otherwise."""
    if isinstance(term, ox.NamedNode):
        for name, iri in prefixes.items():
            local = term.value[len(iri):]
            if term.value.startswith(iri) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", local):
                return f"{name}:{local}"
        return str(term)
    if isinstance(term, ox.Literal) and not term.language and term.datatype.value != XSD_STRING:
        return f"{str(ox.Literal(term.value))}^^{compact_term(term.datatype, prefixes)}"
    return str(term)


__all__ = ["compact_term", "parse_term", "parse_triple"]
