"""The views of person and publication pages: what each shows, in words a reader knows (no RDF terms)."""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox

from ...namespaces import FOAF_IRIS as F
from ...namespaces import KG_IRIS as K
from ...namespaces import SCHEMA_IRIS as S
from .entries import and_list, by_year, coauthor_list
from .organizations import by_years, links, role_row
from .pictures import pictures, publication, publications
from .resources import Reader, compact
from .weblinks import links_out, load_links, orcid

RDF_PREDICATE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate"
RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"
# What a kind of organisation is called on its page (the first of its types found, most specific first).
ORGANIZATION_KINDS = ((S.Project, "Project"), (S.CollegeOrUniversity, "University"),
                      (S.ResearchOrganization, "Research organisation"), (S.Corporation, "Company"))


def base_view(r: Reader, node: Any) -> dict[str, Any]:
    """What every page shows: name, other names, types, links out."""
    return {"name": r.label(node), "other_names": other_names(r.label(node), r.values(node, S.alternateName)),
            "types": sorted(compact(t) for t in r.types(node)), "same_as": [
                v.value for prop in (S.sameAs, S.url, F.homepage) for v in r.values(node, prop)]}


def organization_kind(r: Reader, node: Any) -> str:
    """What an organisation is, in words ("University", "Company"), from its types."""
    types = r.types(node)
    return next((label for iri, label in ORGANIZATION_KINDS if iri in types), "Organisation")


def other_names(name: str, values: list[Any]) -> list[dict[str, Any]]:
    """The alternate names worth showing: a case variant of the name or of an earlier one is not another name."""
    seen, shown = {name.casefold()}, []
    for value in values:
        if value.value.casefold() not in seen:
            seen.add(value.value.casefold())
            shown.append({"value": value.value, "lang": value.language})
    return shown


def education_rows(r: Reader, person: Any, typed: dict[Any, set[str]]) -> list[dict[str, Any]]:
    """Study roles with their partners, advisor label and degrees (name, level, field) when completed."""
    education = []
    for role in r.values(person, S.alumniOf):
        if S.OrganizationRole not in typed[role]:
            continue
        row = role_row(r, role, S.alumniOf)
        row["partners"] = links(r, role, K.programPartner)
        row["advisor_label"] = r.text(role, K.advisorLabel)
        row["credentials"] = [credential(r, c) for c in r.values(person, S.hasCredential)
                              if c.value.startswith(role.value + "/")]
        row["completed"] = bool(row["credentials"])
        if row["completed"]:  # a degree received: "Ph.D.", not "Ph.D. student"
            row["role"] = row["credentials"][0]["level"] or row["credentials"][0]["name"] or row["role"]
        education.append(row)
    return education


def credential(r: Reader, node: Any) -> dict[str, Any]:
    """A degree: its name, level and field (the field only when the name does not say it already)."""
    name, field = r.text(node, S.name), r.text(node, S.about)
    shown = field if field and field.casefold() not in (name or "").casefold() else None
    return {"name": name, "path": r.href(node), "level": r.text(node, S.educationalLevel), "field": shown}


def person_view(r: Reader, person: Any) -> dict[str, Any]:
    """Names, title, positions, education with advisors, advisees, projects, metrics, publications, pictures."""
    view = base_view(r, person)
    typed = {role: r.types(role) for prop in (S.worksFor, S.alumniOf, S.memberOf)
             for role in r.values(person, prop)}
    employments = [role_row(r, role, S.worksFor) for role in r.values(person, S.worksFor)
                   if S.EmployeeRole in typed[role]]
    education = education_rows(r, person, typed)
    advisors = links(r, person, K.advisor)
    for advisor in advisors:
        advisor["honorific"] = r.text(advisor["iri"], S.honorificPrefix)
        advisor["affiliations"] = links(r, ox.NamedNode(advisor["iri"]), S.affiliation)
    labelled = [row for row in education if row["advisor_label"]]
    for row in labelled[:1]:
        row["advisors"] = advisors
    records = publications(r, person)
    network, line = pictures(r, person, records)
    maybe = {a["iri"]: links(r, ox.NamedNode(a["iri"]), K.possibleSameAs) for p in records for a in p["authors"]
             if a["iri"]}
    load_links(r, [person])
    badge = orcid(r, person)
    view.update({
        "honorific": r.text(person, S.honorificPrefix), "title": r.text(person, S.jobTitle),
        "summary": r.text(person, S.description), "areas": r.texts(person, S.knowsAbout),
        "email": r.text(person, S.email), "affiliations": links(r, person, S.affiliation),
        "positions": by_years(employments), "education": by_years(education),
        "advisors": [] if labelled else advisors, "advisees": links(r, person, K.advisee),
        "colleagues": links(r, person, K.workedWith),
        "projects": [dict(p, status="current" if p["iri"] in _iris(r, person, F.currentProject) else
                          "past" if p["iri"] in _iris(r, person, F.pastProject) else None)
                     for p in links(r, person, S.memberOf) if S.Project in typed[ox.NamedNode(p["iri"])]],
        "groups": [g for g in links(r, person, S.memberOf) if not {S.Project, S.Role} & typed[
            ox.NamedNode(g["iri"])]],
        "metrics": [{"name": r.text(m, S.name) or r.text(m, S.propertyID), "path": r.href(m),
                     "value": r.text(m, K.valueAsWritten) or r.text(m, S.value) or r.text(m, S.minValue)}
                    for m in r.values(person, S.additionalProperty)],
        "orcid": badge, "links_out": links_out(r, person, [badge["url"]] if badge else []),
        "possible_same": links(r, person, K.possibleSameAs),
        "publications": records, "years": by_year(records), "network": network, "timeline": line,
        "coauthors": coauthor_list(records, maybe),
    })
    return view


def _iris(r: Reader, node: Any, prop: str) -> set[str]:
    return {v.value for v in r.values(node, prop) if isinstance(v, ox.NamedNode)}


def work_view(r: Reader, work: Any) -> dict[str, Any]:
    """Title, ordered authors with marks, venue and year, notes, awards, status, links with their labels."""
    view = base_view(r, work)
    view.update(publication(r, work))
    identifiers = [view["doi"]["url"]] if view["doi"] else []
    view.update({"venue_as_written": r.text(work, K.venueAsWritten),
                 "links_out": links_out(r, work, identifiers),
                 "author_sentence": and_list([a["label"] for a in view["authors"]]),
                 "equal_marks": any(a["equal"] for a in view["authors"]),
                 "other_values": other_values(r, work)})
    return view


def other_values(r: Reader, node: Any) -> list[dict[str, str]]:
    """Values less preferred sources give for single-valued properties (kg:otherValue), for the conflict mark."""
    rows = []
    for cell in r.values(node, K.otherValue):
        predicates, values = r.values(cell, RDF_PREDICATE), r.values(cell, RDF_VALUE)
        if predicates and values:
            rows.append({"property": compact(predicates[0].value), "value": values[0].value})
    return sorted(rows, key=lambda row: (row["property"], row["value"]))


__all__ = ["base_view", "organization_kind", "other_names", "other_values", "person_view", "work_view"]
