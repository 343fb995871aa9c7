"""What people run from a browser: the example queries of docs/queries.md, the query page, HTML results.

``EXAMPLES`` equals docs/queries.md's ```` ```sparql ```` blocks (a test keeps them equal); the query page offers each
one click away. ``render_results_html`` renders SPARQL JSON results (or a graph result as text, or an
error) as the query page with a results table, for browsers that send a query without JavaScript.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from flask import render_template, url_for

from ...formats import GRAPH_FORMATS, RESULTS_FORMATS, Format
from ...iris import Minter
from ...namespaces import PREFIXES
from ..floor.handle import get_config
from ..floor.links import FORMAT_LABELS, PREFIX_BLOCK, path_for

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Co-authors shared by Ziheng Jiang and Wencong Xiao", """SELECT DISTINCT ?name WHERE {
  ?z schema:name "Ziheng Jiang" . ?w schema:name "Wencong Xiao" .
  ?p1 schema:author ?z, ?c . ?p2 schema:author ?w, ?c .
  ?c schema:name ?name .
}
"""),
    ("The authors of a paper, in order (position = number of list cells before the author's)",
     """SELECT ?name (COUNT(?mid) AS ?position) WHERE {
  ?paper schema:name "TVM: An Automated End-to-End Optimizing Compiler for Deep Learning" ;
         bibo:authorList ?list .
  ?list rdf:rest* ?mid . ?mid rdf:rest* ?cell . ?cell rdf:first ?author .
  ?author schema:name ?name .
} GROUP BY ?cell ?name ORDER BY ?position
"""),
    ("Everyone working at ByteDance, including its sub-organisations", """SELECT DISTINCT ?name ?org WHERE {
  ?bytedance schema:name "ByteDance" .
  ?unit schema:parentOrganization* ?bytedance ; schema:name ?org .
  ?person schema:worksFor ?unit ; a schema:Person ; schema:name ?name .
}
"""),
    ("Advisors (and anyone else a person knows through a profile), with affiliations",
     """SELECT ?student ?advisor ?affiliation WHERE {
  ?s schema:name ?student ; foaf:knows ?a .
  FILTER EXISTS { ?s schema:alumniOf ?school }
  ?a schema:name ?advisor .
  OPTIONAL { ?a schema:affiliation/schema:name ?affiliation }
} ORDER BY ?student ?advisor
"""),
    ("Publications per venue and year", """SELECT ?venue ?year (COUNT(DISTINCT ?paper) AS ?papers) WHERE {
  ?paper bibo:presentedAt ?edition ; schema:datePublished ?year .
  ?edition schema:superEvent/schema:name ?venue .
} GROUP BY ?venue ?year ORDER BY DESC(?year) ?venue
"""),
    ("Employment history with dates", """SELECT ?name ?role ?org ?start ?end WHERE {
  ?p schema:name ?name ; schema:worksFor ?r .
  ?r a schema:EmployeeRole ; schema:roleName ?role ; schema:worksFor/schema:name ?org .
  OPTIONAL { ?r schema:startDate ?start } OPTIONAL { ?r schema:endDate ?end }
} ORDER BY ?name DESC(?start) ?org
"""),
    ("Award-winning papers and their authors' count", """SELECT ?title ?award (COUNT(?a) AS ?authors) WHERE {
  ?paper schema:award ?award ; schema:name ?title ; schema:author ?a .
} GROUP BY ?title ?award
"""),
    ("Citation counts stated on profiles (lower bounds)", """SELECT ?name ?atLeast WHERE {
  ?p schema:name ?name ; schema:additionalProperty ?m .
  ?m schema:propertyID "citations" ; schema:minValue ?atLeast .
}
"""),
    ("Names in other scripts", """SELECT ?name ?other (LANG(?other) AS ?lang) WHERE {
  ?p a foaf:Person ; schema:name ?name ; schema:alternateName ?other .
  FILTER(LANG(?other) != "")
}
"""),
    ("Every document, with its types from both vocabularies",
     """SELECT ?title WHERE { ?doc a bibo:Document, schema:CreativeWork ; schema:name ?title } ORDER BY ?title
"""),
)

DEFAULT_QUERY = PREFIX_BLOCK + """
SELECT ?person ?name WHERE {
  ?person a schema:Person ; schema:name ?name .
}
ORDER BY ?name
LIMIT 25
"""
XSD = "http://www.w3.org/2001/XMLSchema#"  # literals of XML Schema types show their value alone (the type on hover)


def example_queries() -> list[dict[str, str]]:
    """The examples of docs/queries.md, each with the shared prefixes, as title, text and a link that runs it."""
    return [{"title": title, "text": PREFIX_BLOCK + "\n" + body,
             "href": url_for("sparql.endpoint") + "?" + urlencode({"query": PREFIX_BLOCK + "\n" + body})}
            for title, body in EXAMPLES]


def format_links(query_text: str, formats: tuple[Format, ...]) -> list[dict[str, str]]:
    """Links to the same query in each format (format= wins over Accept at the endpoint)."""
    return [{"name": FORMAT_LABELS[f], "alias": f.aliases[0], "type": f.media_type,
             "href": url_for("sparql.endpoint") + "?" + urlencode({"query": query_text, "format": f.aliases[0]})}
            for f in formats]


def _cell(binding: dict[str, Any] | None, base: str) -> dict[str, Any] | None:
    if binding is None:
        return None
    value = str(binding.get("value", ""))
    if binding.get("type") == "uri":
        path = path_for(base, value)
        return {"kind": "iri", "value": value,
                "href": url_for("pages.page", path=path) if path is not None else None}
    if binding.get("type") == "bnode":
        return {"kind": "bnode", "value": f"_:{value}"}
    datatype = binding.get("datatype")
    return {"kind": "literal", "value": value, "lang": binding.get("xml:lang"),
            "datatype": None if datatype in (None, XSD + "string") else datatype,
            "builtin": isinstance(datatype, str) and datatype.startswith(XSD)}


def results_table(results_json: bytes | str | dict[str, Any]) -> dict[str, Any]:
    """SPARQL JSON results as columns and rows of cells (IRIs in the graph linked to their pages), or a boolean."""
    data = results_json if isinstance(results_json, dict) else json.loads(results_json)
    if "boolean" in data:
        return {"boolean": bool(data["boolean"]), "columns": [], "rows": []}
    columns = list(data.get("head", {}).get("vars", []))
    base = get_config().base
    rows = [[_cell(b.get(c), base) for c in columns] for b in data.get("results", {}).get("bindings", [])]
    return {"boolean": None, "columns": columns, "rows": rows}


def render_query_page(endpoint: str, query_text: str | None = None, *, table: dict[str, Any] | None = None,
                      graph_text: str | None = None, error: str | None = None, truncated: bool = False) -> str:
    """The query page: editor, examples, format links, and results (or their first rows) or an error if given."""
    text = query_text if query_text is not None else DEFAULT_QUERY
    more = Format.N_TRIPLES if graph_text is not None else Format.CSV
    alternates = [{"href": endpoint + "?" + urlencode({"format": f.aliases[0]}), "type": f.media_type,
                   "name": f"Service description {FORMAT_LABELS[f]}"} for f in (Format.TURTLE, Format.JSON_LD)]
    return render_template("query.html", title="SPARQL query", endpoint=endpoint, query_text=text,
                           examples=example_queries(), results_links=format_links(text, RESULTS_FORMATS),
                           graph_links=format_links(text, GRAPH_FORMATS), table=table, graph_text=graph_text,
                           error=error, alternates=alternates, id_space=Minter(get_config().base).id_space,
                           truncated=truncated, more_label=FORMAT_LABELS[more],
                           more_href=url_for("sparql.endpoint") + "?" + urlencode({"query": text,
                                                                                   "format": more.aliases[0]}),
                           page_root=url_for("pages.page", path="x")[:-1], predeclared=sorted(PREFIXES.items()))


def render_results_html(query_text: str, results_json: bytes | str | dict[str, Any] | None = None, *,
                        endpoint: str | None = None, graph_text: str | None = None, error: str | None = None,
                        truncated: bool = False) -> str:
    """The query page showing a query's results: SELECT/ASK as a table, CONSTRUCT/DESCRIBE as text, or an error.

    Args:
        query_text: the query as sent; it fills the editor.
        results_json: the SPARQL 1.1 JSON results (bytes, text or parsed) of a SELECT or ASK query.
        endpoint: the endpoint URL the form posts to (default: this app's /sparql, absolute).
        graph_text: the Turtle of a CONSTRUCT or DESCRIBE result, shown as text.
        error: a message to show in place of results (a bad query, a timeout).
        truncated: whether the results are only the first rows (the page then links to the full result).

    Returns:
        The HTML page (UTF-8 text). Must be called within a Flask request context.
    """
    table = results_table(results_json) if results_json is not None else None
    return render_query_page(endpoint or url_for("sparql.endpoint", _external=True), query_text, table=table,
                             graph_text=graph_text, error=error, truncated=truncated)
