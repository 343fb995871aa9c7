"""GET /explain?s=…&p=…&o=…: why a triple holds (kg.reasoning.explain), as JSON or as an HTML page.

Terms are written as in Turtle (<IRI>, prefix:name, "literal"@en, _:label; a for rdf:type). The work per request
is bounded (``EXPLAIN_LIMIT`` triples or look-ups, else 400): 200 for an asserted or inferred triple, 404 for one
that is not entailed, 400 for a missing, repeated or malformed term. The page shows each term as a bounded
excerpt (kg.server.floor.errorpages.excerpt), and so does the JSON of a 404, which only echoes the request.
"""

from __future__ import annotations

import functools
from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response, jsonify, render_template, request, url_for

from ...errors import BadTerm
from ...namespaces import PREFIXES
from ...reasoning.explain import EXPLAIN_LIMIT, explain
from ...reasoning.explanation import source_files
from ...reasoning.terms import compact_term, parse_triple
from ...store import metadata_text
from ..floor.errorpages import EXCERPT, excerpt
from ..floor.handle import get_config, get_store
from ..floor.links import path_for
from ..floor.offers import wants_json
from .resources import Reader

bp = Blueprint("explain", __name__)
PARAMETERS = {"s": "subject", "p": "predicate", "o": "object"}
RULES_SPEC = "https://www.w3.org/TR/owl2-profiles/#Reasoning_in_OWL_2_RL_and_RDF_Graphs_using_Rules"
LINKED = 1000  # characters of the longest IRI linked to its page (no minted IRI is longer)
USAGE = "/explain?s=SUBJECT&p=PREDICATE&o=OBJECT, each an <IRI>, a prefix:name, a literal or _:label"


def triple_arguments() -> tuple[str, str, str]:
    """The s, p and o parameters, each given exactly once."""
    missing = [name for name in PARAMETERS if name not in request.args]
    if missing:
        names = " and ".join(f"{n} ({PARAMETERS[n]})" for n in missing)
        raise BadTerm(f"missing parameter{'s' if len(missing) > 1 else ''} {names}: {USAGE}")
    repeated = [name for name in PARAMETERS if len(request.args.getlist(name)) > 1]
    if repeated:
        raise BadTerm(f"parameter {repeated[0]} given {len(request.args.getlist(repeated[0]))} times; give it once")
    return request.args["s"], request.args["p"], request.args["o"]


def _annotate(node: dict[str, Any], reader: Reader) -> dict[str, Any]:
    """The tree node with minted IRIs named and linked to their pages, and a link to each inferred step's own
    explanation."""
    triple = node["triple"]
    links = []
    for key, text in zip(("s", "p", "o"), node["terms"], strict=True):
        written = triple[key]
        path = path_for(reader.base, written[1:-1]) if written.startswith("<") and len(written) <= LINKED else None
        links.append({"text": excerpt(reader.label(ox.NamedNode(written[1:-1])) if path else text),
                      "full": excerpt(written),
                      "href": url_for("pages.page", path=path) if path else None})
    out = dict(node, links=links, premises=[_annotate(p, reader) for p in node.get("premises", ())])
    if "rule" in node:
        out["explain_href"] = url_for("explain.explain_route", **triple)
    return out


@bp.route("/explain", methods=["GET"])
def explain_route() -> Response:
    """The derivation of the triple s p o: its rule and premises, recursively, with their graphs and files."""
    as_json = wants_json("/explain")
    s, p, o = triple_arguments()
    fact = parse_triple(s, p, o, PREFIXES)
    store = get_store()
    base = metadata_text(store, "base") or get_config().base
    found = explain(store, fact, base, EXPLAIN_LIMIT)
    show, sources = functools.partial(compact_term, prefixes=PREFIXES), source_files(store.metadata, base)
    status = 404 if found.status == "not entailed" else 200
    if as_json:
        answer = found.as_json(show, sources)
        if status == 404:  # the triple is only the request's own, echoed back
            answer = dict(answer, triple={k: excerpt(v) for k, v in answer["triple"].items()},
                          text=excerpt(answer["text"], 3 * EXCERPT))
        response = jsonify(answer)
    else:
        tree = _annotate(found.tree(show, sources), Reader(store, base))
        title = f"Why: {excerpt(tree['text'], 3 * EXCERPT)}"
        response = Response(render_template("explain.html", title=title, explanation=found,
                                            tree=tree, rules_spec=RULES_SPEC), content_type="text/html; charset=utf-8")
    response.status_code = status
    response.vary.add("Accept")
    return response


__all__ = ["bp"]
