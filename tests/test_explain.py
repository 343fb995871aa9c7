"""kg explain and GET /explain: every inferred triple of the seed graph has a derivation that an independent
checker accepts rule by rule; asserted, inferred and not entailed triples on the command line and over HTTP."""

from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import FOAF, OWL, RDF, RDFS

from kg.cli import main
from kg.errors import BadTerm, TooManyResults
from kg.iris import Minter
from kg.namespaces import KG, PREFIXES, SDO
from kg.reasoning import inferred_triples
from kg.reasoning.explain import Explainer, explain
from kg.reasoning.terms import parse_term, parse_triple
from kg.store import Store
from kg.terms import to_ox

BASE = Minter().base
INFERRED, ONTOLOGY = str(Minter().graph("inferred")), str(Minter().graph("ontology"))


def nt(term: Any) -> str:
    """An rdflib term as pyoxigraph writes it in N-Triples (what the explanation's JSON holds)."""
    return str(to_ox(term))


def iri(term: Any) -> str:
    return f"<{term}>"


TYPE, SAME = iri(RDF.type), iri(OWL.sameAs)
RULES: dict[str, tuple[list[tuple[str, str, str]], tuple[str, str, str]]] = {
    "cax-sco": ([("?c1", iri(RDFS.subClassOf), "?c2"), ("?x", TYPE, "?c1")], ("?x", TYPE, "?c2")),
    "cax-eqc1": ([("?c1", iri(OWL.equivalentClass), "?c2"), ("?x", TYPE, "?c1")], ("?x", TYPE, "?c2")),
    "cax-eqc2": ([("?c1", iri(OWL.equivalentClass), "?c2"), ("?x", TYPE, "?c2")], ("?x", TYPE, "?c1")),
    "prp-spo1": ([("?p1", iri(RDFS.subPropertyOf), "?p2"), ("?x", "?p1", "?y")], ("?x", "?p2", "?y")),
    "prp-eqp1": ([("?p1", iri(OWL.equivalentProperty), "?p2"), ("?x", "?p1", "?y")], ("?x", "?p2", "?y")),
    "prp-eqp2": ([("?p1", iri(OWL.equivalentProperty), "?p2"), ("?x", "?p2", "?y")], ("?x", "?p1", "?y")),
    "prp-inv1": ([("?p1", iri(OWL.inverseOf), "?p2"), ("?x", "?p1", "?y")], ("?y", "?p2", "?x")),
    "prp-inv2": ([("?p1", iri(OWL.inverseOf), "?p2"), ("?x", "?p2", "?y")], ("?y", "?p1", "?x")),
    "prp-symp": ([("?p", TYPE, iri(OWL.SymmetricProperty)), ("?x", "?p", "?y")], ("?y", "?p", "?x")),
    "prp-trp": ([("?p", TYPE, iri(OWL.TransitiveProperty)), ("?x", "?p", "?y"), ("?y", "?p", "?z")],
                ("?x", "?p", "?z")),
    "prp-dom": ([("?p", iri(RDFS.domain), "?c"), ("?x", "?p", "?y")], ("?x", TYPE, "?c")),
    "prp-rng": ([("?p", iri(RDFS.range), "?c"), ("?x", "?p", "?y")], ("?y", TYPE, "?c")),
    "eq-sym": ([("?x", SAME, "?y")], ("?y", SAME, "?x")),
    "eq-trans": ([("?x", SAME, "?y"), ("?y", SAME, "?z")], ("?x", SAME, "?z")),
    "eq-rep-s": ([("?s", SAME, "?s2"), ("?s", "?p", "?o")], ("?s2", "?p", "?o")),
    "eq-rep-p": ([("?p", SAME, "?p2"), ("?s", "?p", "?o")], ("?s", "?p2", "?o")),
    "eq-rep-o": ([("?o", SAME, "?o2"), ("?s", "?p", "?o")], ("?s", "?p", "?o2")),
}


def _unify(pattern: tuple[str, ...], fact: tuple[str, ...], binding: dict[str, str]) -> bool:
    for slot, value in zip(pattern, fact, strict=True):
        if slot.startswith("?"):
            if binding.setdefault(slot, value) != value:
                return False
        elif slot != value:
            return False
    return True


def _chain_holds(premises: list[tuple[str, str, str]], conclusion: tuple[str, str, str]) -> bool:
    """prp-spo2: (p owl:propertyChainAxiom list), the list's cells, then a path u1 p1 u2 … pn un+1."""
    head, axiom_p, node = premises[0]
    if axiom_p != iri(OWL.propertyChainAxiom) or head != conclusion[1]:
        return False
    cells = {(s, p): o for s, p, o in premises[1:] if p in (iri(RDF.first), iri(RDF.rest))}
    links = []
    while node != iri(RDF.nil):
        links.append(cells[node, iri(RDF.first)])
        node = cells[node, iri(RDF.rest)]
    path = premises[1 + 2 * len(links):]
    return (len(path) == len(links) and [p for _, p, _ in path] == links and path[0][0] == conclusion[0]
            and path[-1][2] == conclusion[2] and all(a[2] == b[0] for a, b in zip(path, path[1:], strict=False)))


def rule_holds(rule: str, premises: list[tuple[str, str, str]], conclusion: tuple[str, str, str]) -> bool:
    """Whether the named OWL 2 RL rule, applied to exactly these premises, gives the conclusion."""
    if rule == "prp-spo2":
        return _chain_holds(premises, conclusion)
    patterns, result = RULES[rule]
    binding: dict[str, str] = {}
    return (len(premises) == len(patterns)
            and all(_unify(p, f, binding) for p, f in zip(patterns, premises, strict=True))
            and _unify(result, conclusion, binding))


def _fact(node: dict[str, Any]) -> tuple[str, str, str]:
    return node["triple"]["s"], node["triple"]["p"], node["triple"]["o"]


def check_derivation(tree: dict[str, Any], asserted: dict[str, set[tuple[str, str, str]]]) -> set[str]:
    """Check every step of a JSON derivation; returns the rules used. Leaves must be asserted where they say."""
    expanded: set[tuple[str, str, str]] = set()
    rules: set[str] = set()

    def visit(node: dict[str, Any], path: frozenset[tuple[str, str, str]]) -> None:
        fact = _fact(node)
        assert fact not in path, f"cycle through {node['text']}"
        if "asserted_in" in node:
            for where in node["asserted_in"]:
                assert fact in asserted[where["graph"]], f"{node['text']} is not in {where['graph']}"
            return
        assert "rule" in node, f"{node['text']} is neither asserted nor derived"
        if node.get("shown_above"):
            assert fact in expanded
            return
        premises = [_fact(p) for p in node["premises"]]
        assert rule_holds(node["rule"], premises, fact), f"{node['rule']} does not give {node['text']}"
        expanded.add(fact)
        rules.add(node["rule"])
        for premise in node["premises"]:
            visit(premise, path | {fact})

    visit(tree, frozenset())
    return rules


def asserted_by_graph(graphs: dict[Any, Graph]) -> dict[str, set[tuple[str, str, str]]]:
    return {str(name): {(nt(s), nt(p), nt(o)) for s, p, o in graph} for name, graph in graphs.items()}


def _asserted_leaves(node: dict[str, Any]) -> Any:
    yield from node.get("asserted_in", ())
    for premise in node.get("premises", ()):
        yield from _asserted_leaves(premise)


def test_the_checker_refuses_wrong_steps() -> None:
    x, c, d = "<urn:x>", "<urn:C>", "<urn:D>"
    axiom = (c, iri(RDFS.subClassOf), d)
    assert rule_holds("cax-sco", [axiom, (x, TYPE, c)], (x, TYPE, d))
    assert not rule_holds("cax-sco", [axiom, (x, TYPE, d)], (x, TYPE, c))
    assert not rule_holds("cax-eqc1", [axiom, (x, TYPE, c)], (x, TYPE, d))
    assert not rule_holds("cax-sco", [(x, TYPE, c)], (x, TYPE, d))
    with pytest.raises(AssertionError, match="is not in"):
        check_derivation({"triple": {"s": x, "p": TYPE, "o": c}, "text": "x", "asserted_in": [{"graph": "g"}]},
                         {"g": set()})


def test_every_inferred_triple_of_the_seed_graph_is_explained(store: Store, mapped: Any, ontology: Graph) -> None:
    expected = {(nt(s), nt(p), nt(o)) for s, p, o in inferred_triples(mapped.graphs.values(), ontology)}
    stored = [q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(INFERRED))]
    assert {(str(t.subject), str(t.predicate), str(t.object)) for t in stored} == expected
    asserted = asserted_by_graph({**mapped.graphs, URIRef(ONTOLOGY): ontology})
    sources = {str(k): v for k, v in mapped.sources.items()}
    used: set[str] = set()
    for triple in stored:
        found = explain(store, tuple(triple), BASE).as_json(str, dict(sources, **{ONTOLOGY: "ontology/"}))
        assert found["status"] == "inferred", found["text"]
        used |= check_derivation(found["derivation"], asserted)
        leaves = list(_asserted_leaves(found["derivation"]))
        assert leaves and all(where["source"] == sources.get(where["graph"], "ontology/") for where in leaves)
    assert {"cax-sco", "cax-eqc1", "prp-inv1", "prp-inv2", "prp-spo1", "prp-symp", "prp-eqp2"} <= used


def _store_of(data: Graph, ontology: Graph) -> tuple[Store, dict[str, set[tuple[str, str, str]]]]:
    inferred = Graph()
    for triple in inferred_triples([data], ontology):
        inferred.add(triple)
    graphs = {Minter().graph("profile/x"): data, URIRef(ONTOLOGY): ontology, URIRef(INFERRED): inferred}
    return Store.in_memory(graphs, {"base": BASE}), asserted_by_graph(graphs)


def _walk_all(store: Store, asserted: dict[str, set[tuple[str, str, str]]]) -> set[str]:
    used: set[str] = set()
    triples = [q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(INFERRED))]
    assert triples
    for triple in triples:
        found = explain(store, tuple(triple), BASE).as_json()
        assert found["status"] == "inferred", found["text"]
        used |= check_derivation(found["derivation"], asserted)
    return used


def test_equality_rules_are_explained_step_by_step(ontology: Graph) -> None:
    ex = "https://example.org/"
    a, b, c, d = (URIRef(ex + n) for n in "abcd")
    data = Graph()
    for triple in [(a, OWL.sameAs, b), (c, OWL.sameAs, b), (a, RDF.type, SDO.Person), (c, KG.advisor, d),
                   (d, SDO.name, Literal("D"))]:
        data.add(triple)
    store, asserted = _store_of(data, ontology)
    used = _walk_all(store, asserted)
    assert {"eq-sym", "eq-trans", "eq-rep-s", "eq-rep-o", "cax-eqc1"} <= used


def test_transitive_properties_chains_domains_and_ranges_are_explained() -> None:
    ex = "https://example.org/"
    part, near, link, thing, place = (URIRef(ex + n) for n in ("partOf", "near", "link", "Thing", "Place"))
    ontology = Graph()
    ontology.add((part, RDF.type, OWL.TransitiveProperty))
    ontology.add((part, RDFS.domain, thing))
    ontology.add((part, RDFS.range, place))
    chain = BNode("chain")
    Collection(ontology, chain, [link, part])
    ontology.add((near, OWL.propertyChainAxiom, chain))
    data = Graph()
    nodes = [URIRef(f"{ex}n{i}") for i in range(5)]
    for x, y in zip(nodes, nodes[1:], strict=False):
        data.add((x, part, y))
    data.add((URIRef(ex + "m"), link, nodes[0]))
    store, asserted = _store_of(data, ontology)
    assert {"prp-trp", "prp-spo2", "prp-dom", "prp-rng"} <= _walk_all(store, asserted)


def test_a_stored_inference_the_rules_do_not_derive_is_unexplained(ontology: Graph) -> None:
    x = URIRef("https://example.org/x")
    data, inferred = Graph(), Graph()
    data.add((x, RDF.type, SDO.Person))
    inferred.add((x, RDF.type, FOAF.Agent))  # as owlrl would add for an axiom the rule engine does not implement
    store = Store.in_memory({Minter().graph("profile/x"): data, URIRef(ONTOLOGY): ontology,
                             URIRef(INFERRED): inferred}, {"base": BASE})
    found = explain(store, (to_ox(x), to_ox(RDF.type), to_ox(FOAF.Agent)), BASE)
    assert found.status == "unexplained" and "unexplained: in the inferred graph" in found.text()
    assert found.as_json()["derivation"] is None
    assert explain(store, (to_ox(x), to_ox(RDF.type), to_ox(SDO.Organization)), BASE).status == "not entailed"


def test_work_is_bounded(store: Store) -> None:
    person = ox.NamedNode(f"{BASE}/id/person/ziheng-jiang")
    with pytest.raises(TooManyResults, match="more than 3"):
        Explainer(store, BASE, limit=3).explain((person, ox.NamedNode(str(RDF.type)), ox.NamedNode(str(FOAF.Person))))


def test_terms_as_written() -> None:
    assert parse_term("schema:Person", "object", PREFIXES) == ox.NamedNode(str(SDO.Person))
    assert parse_term("https://example.org/x", "subject", PREFIXES) == ox.NamedNode("https://example.org/x")
    assert parse_term('"Ada"@en', "object", PREFIXES) == ox.Literal("Ada", language="en")
    assert parse_term("5", "object", PREFIXES).datatype == ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
    assert parse_term("_:b0", "subject", PREFIXES) == ox.BlankNode("b0")
    assert parse_triple("<urn:x:a>", "a", "foaf:Person", PREFIXES)[1] == ox.NamedNode(str(RDF.type))
    for text, position, message in [('"x"', "subject", "is a literal"), ("_:b", "predicate", "must be an IRI"),
                                    ("nope:x", "object", "known prefixes"), ("[]", "subject", "anonymous"),
                                    ("<urn:a> . <urn:b> <urn:c> <urn:d>", "object", "not one RDF term"),
                                    (" ", "object", "is empty")]:
        with pytest.raises(BadTerm, match=re.escape(message)):
            parse_term(text, position, PREFIXES)


ZIHENG = f"<{BASE}/id/person/ziheng-jiang>"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_cli_explains_asserted_inferred_and_not_entailed(built_store_dir: Path) -> None:
    store = ("--store", str(built_store_dir))
    code, out, _ = run("explain", *store, ZIHENG, "a", "schema:Person")
    assert code == 0 and "[asserted in" in out and "data/profiles/ziheng-jiang.yaml)" in out
    code, out, _ = run("explain", *store, ZIHENG, "rdf:type", "http://xmlns.com/foaf/0.1/Person")
    assert code == 0 and "[inferred by cax-eqc1]" in out
    assert "schema:Person owl:equivalentClass foaf:Person  [asserted in " + ONTOLOGY + " (ontology/)]" in out
    code, out, _ = run("explain", *store, "--format", "json", ZIHENG, "a", "foaf:Person")
    assert code == 0 and json.loads(out)["derivation"]["rule"] == "cax-eqc1"
    code, out, _ = run("explain", *store, ZIHENG, "a", "bibo:Document")
    assert code == 1 and "not entailed" in out
    code, _, err = run("explain", *store, ZIHENG, '"p"', "foaf:Person")
    assert code == 6 and "the predicate" in err and "literal" in err


def _explain_url(s: str, p: str, o: str, **extra: str) -> str:
    return "/explain?" + urllib.parse.urlencode({"s": s, "p": p, "o": o, **extra})


def test_http_json(client: FlaskClient) -> None:
    response = client.get(_explain_url(ZIHENG, "a", "foaf:Person"), headers={"Accept": "application/json"})
    assert response.status_code == 200 and response.mimetype == "application/json"
    body = response.get_json()
    assert body["status"] == "inferred" and body["derivation"]["rule"] == "cax-eqc1"
    asserted = client.get(_explain_url(ZIHENG, "a", "schema:Person", format="json")).get_json()
    assert asserted["status"] == "asserted"
    assert asserted["derivation"]["asserted_in"][0]["source"].endswith("data/profiles/ziheng-jiang.yaml")
    missing = client.get(_explain_url(ZIHENG, "a", "bibo:Document"), headers={"Accept": "application/json"})
    assert missing.status_code == 404 and missing.get_json()["status"] == "not entailed"


def test_http_html(client: FlaskClient) -> None:
    response = client.get(_explain_url(ZIHENG, "a", "foaf:Person"), headers={"Accept": "text/html"})
    text = response.get_data(as_text=True)
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert "cax-eqc1" in text and 'href="/page/person/ziheng-jiang"' in text and "ontology/" in text
    missing = client.get(_explain_url(ZIHENG, "a", "bibo:Document"), headers={"Accept": "text/html"})
    assert missing.status_code == 404 and "not entailed" in missing.get_data(as_text=True)


def test_pages_link_inferred_statements_to_their_explanation(client: FlaskClient) -> None:
    page = client.get("/page/person/ziheng-jiang").get_data(as_text=True)
    links = re.findall(r'<a class="badge inferred" href="([^"]+)"', page)
    assert links and all(link.startswith("/explain?") for link in links)
    for link in links:
        response = client.get(link.replace("&amp;", "&"), headers={"Accept": "application/json"})
        assert response.status_code == 200 and response.get_json()["status"] == "inferred", link


@pytest.mark.parametrize(("query", "message"), [
    ({"s": ZIHENG, "p": "a"}, "missing parameter o (object)"),
    ({}, "missing parameters s (subject) and p (predicate) and o (object)"),
    ({"s": '"lit"', "p": "a", "o": "foaf:Person"}, "the subject '\"lit\"' is a literal"),
    ({"s": ZIHENG, "p": "a", "o": "nope:x"}, "The prefix nope: has not been declared"),
    ({"s": ZIHENG, "p": "a", "o": "<urn:x> . <urn:a> <urn:b> <urn:c>"}, "is not one RDF term"),
])
def test_http_bad_parameters_are_400(client: FlaskClient, query: dict[str, str], message: str) -> None:
    response = client.get("/explain?" + urllib.parse.urlencode(query), headers={"Accept": "application/json"})
    assert response.status_code == 400 and message in response.get_json()["message"]


def test_http_repeated_parameter_format_and_budget(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    twice = client.get(_explain_url(ZIHENG, "a", "foaf:Person") + "&s=" + urllib.parse.quote(ZIHENG))
    assert twice.status_code == 400 and "parameter s given 2 times" in twice.get_data(as_text=True)
    assert client.get(_explain_url(ZIHENG, "a", "foaf:Person", format="png")).status_code == 406
    assert client.get(_explain_url(ZIHENG, "a", "foaf:Person"), headers={"Accept": "image/png"}).status_code == 406
    monkeypatch.setattr("kg.server.pages.explain.EXPLAIN_LIMIT", 2)
    bounded = client.get(_explain_url(ZIHENG, "a", "foaf:Person"), headers={"Accept": "application/json"})
    assert bounded.status_code == 400 and "more than 2" in bounded.get_json()["message"]
