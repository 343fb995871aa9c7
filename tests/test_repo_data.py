"""Integration: the real data/ builds, and a consumer who knows only schema.org, FOAF and BIBO
can answer questions about both seed profiles through SPARQL."""

from __future__ import annotations

import pytest

from kg.store import Store

PREFIXES = """
PREFIX schema: <http://schema.org/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
PREFIX bibo: <http://purl.org/ontology/bibo/>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


def select(store: Store, query: str) -> list[dict[str, str]]:
    """Rows of a SELECT as dicts of plain values."""
    results = store.query(PREFIXES + query)
    names = [v.value for v in results.variables]
    return [{n: (s[n].value if s[n] is not None else None) for n in names} for s in results]


def ask(store: Store, query: str) -> bool:
    """Answer of an ASK query."""
    return bool(store.query(PREFIXES + query))


def values(store: Store, query: str, var: str = "x") -> list[str]:
    """One column of a SELECT."""
    return [row[var] for row in select(store, query)]


def test_q01_names_with_chinese_name_language_tagged(store: Store) -> None:
    rows = store.query(PREFIXES + 'SELECT ?alt WHERE { ?p schema:name "Wencong Xiao" ; schema:alternateName ?alt }')
    (row,) = list(rows)
    assert row["alt"].value == "肖文聪" and row["alt"].language == "zh"


def test_q02_email_both_ways(store: Store) -> None:
    assert values(store, 'SELECT ?x WHERE { ?p schema:name "Ziheng Jiang" ; schema:email ?x }') == [
        "ziheng.misc@gmail.com"]
    assert ask(store, 'ASK { ?p foaf:mbox <mailto:ziheng.misc@gmail.com> ; a foaf:Person }')


def test_q03_job_titles(store: Store) -> None:
    rows = select(store, "SELECT ?n ?x WHERE { ?p schema:name ?n ; schema:jobTitle ?x }")
    titles = {r["n"]: r["x"] for r in rows}
    assert titles["Ziheng Jiang"] == "Senior Staff Research Scientist"
    assert titles["Wencong Xiao"] == "AI Systems Researcher"


def test_q04_ten_publications_each(store: Store) -> None:
    rows = select(store, """SELECT ?n (COUNT(DISTINCT ?w) AS ?c) WHERE {
        ?p schema:name ?n ; ^schema:author ?w . ?w a schema:ScholarlyArticle .
        FILTER(?n IN ("Ziheng Jiang", "Wencong Xiao")) } GROUP BY ?n""")
    assert {r["n"]: int(r["c"]) for r in rows} == {"Ziheng Jiang": 10, "Wencong Xiao": 10}


def test_q05_exact_title_with_superscript(store: Store) -> None:
    assert ask(store, 'ASK { ?w dcterms:title "TuX²: Distributed Graph Computation for Machine Learning" ; '
                      'schema:name "TuX²: Distributed Graph Computation for Machine Learning" }')


def test_q06_ordered_authors_via_bibo_list(store: Store) -> None:
    rows = select(store, """SELECT ?name (COUNT(?mid) AS ?pos) WHERE {
        ?w schema:name "Learning to optimize tensor programs" ; bibo:authorList ?list .
        ?list rdf:rest* ?mid . ?mid rdf:rest* ?node . ?node rdf:first ?a . ?a schema:name ?name }
        GROUP BY ?node ?name ORDER BY ?pos""")
    assert [r["name"] for r in rows] == ["Tianqi Chen", "Lianmin Zheng", "Eddie Yan", "Ziheng Jiang",
                                         "Thierry Moreau", "Luis Ceze", "Carlos Guestrin", "Arvind Krishnamurthy"]


def test_q07_megascale_has_32_authors(store: Store) -> None:
    rows = select(store, """SELECT (COUNT(DISTINCT ?a) AS ?c) WHERE {
        ?w schema:name ?t ; schema:author ?a . FILTER(STRSTARTS(?t, "MegaScale: Scaling")) }""")
    assert int(rows[0]["c"]) == 32


def test_q08_venue_and_year(store: Store) -> None:
    rows = select(store, """SELECT ?acr ?y WHERE {
        ?w schema:name "Gandiva: Introspective Cluster Scheduling for Deep Learning" ;
           schema:datePublished ?y ; bibo:presentedAt/schema:superEvent/schema:alternateName ?acr }""")
    assert ("OSDI", "2018") in {(r["acr"], r["y"]) for r in rows}


def test_q09_nips_resolves_to_neurips(store: Store) -> None:
    names = values(store, """SELECT ?x WHERE { ?w schema:name "Learning to optimize tensor programs" ;
        bibo:presentedAt/schema:superEvent/schema:name ?x }""")
    assert names == ["Conference on Neural Information Processing Systems"]


def test_q10_award(store: Store) -> None:
    titles = values(store, 'SELECT ?x WHERE { ?w schema:award "Distinguished Paper Award" ; schema:name ?x }')
    assert titles == ["An Empirical Study on Program Failures of Deep Learning Jobs"]


def test_q11_employment_with_dates(store: Store) -> None:
    rows = select(store, """SELECT ?role ?org ?start ?end WHERE {
        ?p schema:name "Wencong Xiao" ; schema:worksFor ?r . ?r a schema:EmployeeRole ;
        schema:roleName ?role ; schema:worksFor/schema:name ?org ; schema:startDate ?start .
        OPTIONAL { ?r schema:endDate ?end } }""")
    found = {(r["role"], r["org"], r["start"], r["end"]) for r in rows}
    assert ("Seed Training Infra Lead", "ByteDance Seed", "2026", None) in found
    assert ("Research Intern", "Microsoft Research Asia", "2013", "2019") in found
    assert ("Research Intern", "Microsoft Research Redmond", "2013", "2019") in found


def test_q12_current_employer(store: Store) -> None:
    orgs = values(store, """SELECT ?x WHERE { ?p schema:name "Ziheng Jiang" ; schema:worksFor ?o .
        ?o a schema:Organization ; schema:name ?x }""")
    assert orgs == ["ByteDance"]


def test_q13_everyone_at_bytedance_including_sub_organisations(store: Store) -> None:
    people = set(values(store, """SELECT DISTINCT ?x WHERE { ?bd schema:name "ByteDance" .
        ?org schema:parentOrganization* ?bd . ?p schema:worksFor ?org ; a schema:Person ; schema:name ?x }"""))
    assert people == {"Ziheng Jiang", "Wencong Xiao"}


def test_q14_seed_part_of_bytedance_both_directions(store: Store) -> None:
    assert ask(store, 'ASK { ?s schema:name "ByteDance Seed" ; schema:parentOrganization ?b . '
                      '?b schema:name "ByteDance" ; schema:subOrganization ?s }')


def test_q15_degrees(store: Store) -> None:
    rows = select(store, """SELECT ?d ?inst WHERE { ?p schema:name "Wencong Xiao" ; schema:hasCredential ?c .
        ?c schema:name ?d ; schema:recognizedBy/schema:name ?inst }""")
    assert ("Doctor of Philosophy in Computer Science", "Beihang University") in {(r["d"], r["inst"]) for r in rows}


def test_q16_education_dates_and_chinese_institution_name(store: Store) -> None:
    rows = store.query(PREFIXES + """SELECT ?start ?end ?zh WHERE { ?p schema:name "Wencong Xiao" ;
        schema:alumniOf ?r . ?r schema:startDate ?start ; schema:endDate ?end ; schema:alumniOf ?u .
        ?u schema:alternateName ?zh . FILTER(LANG(?zh) = "zh") }""")
    found = {(r["start"].value, r["end"].value, r["zh"].value) for r in rows}
    assert ("2014", "2019", "北京航空航天大学") in found and ("2010", "2014", "北京航空航天大学") in found


def test_q17_advisor_is_the_coauthor_node(store: Store) -> None:
    assert ask(store, """ASK { ?z schema:name "Ziheng Jiang" ; foaf:knows ?t .
        ?t schema:name "Tianqi Chen" . ?w schema:author ?z, ?t }""")


def test_q18_supervisors_of_wencong(store: Store) -> None:
    names = set(values(store, """SELECT ?x WHERE { ?p schema:name "Wencong Xiao" ; foaf:knows ?a .
        ?a schema:name ?x ; schema:affiliation ?o }"""))
    assert names == {"Wei Li", "Lidong Zhou"}


def test_q19_coauthors_shared_by_both(store: Store) -> None:
    shared = set(values(store, """SELECT DISTINCT ?x WHERE {
        ?z schema:name "Ziheng Jiang" . ?w schema:name "Wencong Xiao" .
        ?p1 schema:author ?z, ?c . ?p2 schema:author ?w, ?c . ?c schema:name ?x }"""))
    assert "Xinyi Zhang" in shared and "Haoran Wei" not in shared


def test_q20_projects(store: Store) -> None:
    projects = set(values(store, """SELECT ?x WHERE { ?p schema:name "Ziheng Jiang" ; schema:memberOf ?pr .
        ?pr a schema:Project ; schema:name ?x }"""))
    assert projects == {"MegaScale", "Apache TVM", "Apache MXNet"}


def test_q21_citation_lower_bounds(store: Store) -> None:
    rows = select(store, """SELECT ?n ?min WHERE { ?p schema:name ?n ; schema:additionalProperty ?m .
        ?m schema:propertyID "citations" ; schema:minValue ?min }""")
    assert {r["n"]: int(r["min"]) for r in rows} == {"Ziheng Jiang": 4000, "Wencong Xiao": 4000}


def test_q22_every_person_is_a_foaf_person(store: Store) -> None:
    assert not ask(store, "ASK { ?p a schema:Person FILTER NOT EXISTS { ?p a foaf:Person } }")


def test_q23_every_paper_is_creative_work_and_document(store: Store) -> None:
    assert not ask(store, """ASK { ?w a schema:ScholarlyArticle
        FILTER NOT EXISTS { ?w a schema:CreativeWork, bibo:Document } }""")
    assert int(select(store, "SELECT (COUNT(DISTINCT ?w) AS ?c) WHERE { ?w a bibo:Document }")[0]["c"]) == 20


def test_q24_publications_per_venue_and_year(store: Store) -> None:
    rows = select(store, """SELECT ?acr ?y (COUNT(DISTINCT ?w) AS ?c) WHERE {
        ?w bibo:presentedAt ?e ; schema:datePublished ?y . ?e schema:superEvent ?s .
        ?s schema:alternateName ?acr . FILTER(?acr IN ("OSDI", "MLSys")) } GROUP BY ?acr ?y""")
    counts = {(r["acr"], r["y"]): int(r["c"]) for r in rows}
    assert counts[("OSDI", "2018")] == 2 and counts[("MLSys", "2025")] == 2


def test_q25_preprints_keep_their_status(store: Store) -> None:
    titles = set(values(store, 'SELECT ?x WHERE { ?w schema:creativeWorkStatus "Preprint" ; schema:name ?x }'))
    assert {t.split(":")[0] for t in titles} == {"FLUX", "Infinite-LLM"}


def test_q26_no_duplicate_rows_from_the_union(store: Store) -> None:
    names = values(store, 'SELECT ?x WHERE { ?p schema:name "Xinyi Zhang" ; schema:name ?x }')
    assert names == ["Xinyi Zhang"]


@pytest.mark.parametrize("slug", ["ziheng-jiang", "wencong-xiao"])
def test_profile_graph_holds_only_its_profile(store: Store, slug: str) -> None:
    rows = select(store, f"""SELECT (COUNT(*) AS ?c) WHERE {{ GRAPH <https://kg.example.org/graph/profile/{slug}>
        {{ ?s ?p ?o }} }}""")
    assert int(rows[0]["c"]) > 500
