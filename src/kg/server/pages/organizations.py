"""The organisation page's view: parents, sub-organisations, and the people of the organisation and of every
sub-organisation below it (each such row names the unit it belongs to)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from ...namespaces import KG_IRIS as K
from ...namespaces import SCHEMA_IRIS as S

if TYPE_CHECKING:
    from .resources import Reader


def _link(r: Reader, node: Any) -> dict[str, Any]:
    return {"label": r.label(node), "path": r.href(node), "iri": node.value}


def _sorted_links(r: Reader, nodes: Any) -> list[dict[str, Any]]:
    return sorted((_link(r, n) for n in nodes if isinstance(n, ox.NamedNode)),
                  key=lambda link: (link["label"].casefold(), link["iri"]))


def links(r: Reader, node: Any, prop: str) -> list[dict[str, Any]]:
    """The IRIs node points to by prop, as labelled links (sorted by label)."""
    return _sorted_links(r, r.values(node, prop))


def children(r: Reader, org: Any) -> list[Any]:
    """The direct sub-organisations of an organisation (schema:subOrganization or their schema:parentOrganization)."""
    found = {v for v in r.values(org, S.subOrganization) if isinstance(v, ox.NamedNode)} | set(
        r.incoming(org, S.parentOrganization))
    return sorted(found, key=str)


def descendants(r: Reader, org: Any) -> list[Any]:
    """Every organisation below this one, nearest first (breadth first; cycles are cut)."""
    seen, order, pending = {org}, [], [org]
    while pending:
        for child in children(r, pending.pop(0)):
            if child not in seen:
                seen.add(child)
                order.append(child)
                pending.append(child)
    return order


def role_row(r: Reader, role: Any, place: str) -> dict[str, Any]:
    """A dated role: its name, places, years, description."""
    return {"role": r.text(role, S.roleName), "places": links(r, role, place), "path": r.href(role),
            "start": r.text(role, S.startDate), "end": r.text(role, S.endDate),
            "description": r.text(role, S.description), "duration": r.text(role, K.durationAsWritten)}


def by_years(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with open ends first, then by start year and end year, latest first."""
    return sorted(rows, key=lambda row: (row["end"] is not None, -int(row["start"] or 0), -int(row["end"] or 0)))


class People:
    """The people rows of an organisation page, gathered unit by unit (the organisation, then its sub-units)."""

    def __init__(self, r: Reader) -> None:
        self.r = r
        self.current: list[dict[str, Any]] = []
        self.past: list[dict[str, Any]] = []
        self.students: list[dict[str, Any]] = []
        self.members: list[dict[str, Any]] = []
        self.employed: set[Any] = set()
        self.listed_members: set[Any] = set()
        self.studied: dict[tuple[Any, Any], int] = {}  # (person, study role) -> its row in students

    def row(self, person: Any, role: Any | None, place: str, unit: dict[str, Any] | None) -> dict[str, Any]:
        """One person's row: the role (if any), the person, and the sub-organisation it is through (if any)."""
        base = role_row(self.r, role, place) if role is not None else {"role": None, "start": None, "end": None}
        return dict(base, person=_link(self.r, person), unit=unit)

    def gather(self, org: Any, unit: dict[str, Any] | None) -> None:
        """Add the people of one unit: employees by role, else by worksFor/affiliation; students; members."""
        r = self.r
        for node in r.incoming(org, S.worksFor):
            if S.EmployeeRole in r.types(node):
                for person in r.incoming(node, S.worksFor):
                    past = r.text(node, S.endDate) is not None
                    (self.past if past else self.current).append(self.row(person, node, S.worksFor, unit))
                    self.employed.add(person)
        for prop in (S.worksFor, S.affiliation):
            for person in r.incoming(org, prop):
                if S.Person in r.types(person) and person not in self.employed:
                    self.current.append(self.row(person, None, prop, unit))
                    self.employed.add(person)
        for node in r.incoming(org, S.alumniOf):
            if S.OrganizationRole in r.types(node):
                for person in r.incoming(node, S.alumniOf):
                    self.student(person, node, unit)
        for person in sorted(set(r.incoming(org, S.memberOf)) | set(r.values(org, S.member)), key=str):
            if S.Person in r.types(person) and person not in self.listed_members:
                self.members.append(self.row(person, None, S.memberOf, unit))
                self.listed_members.add(person)


    def student(self, person: Any, role: Any, unit: dict[str, Any] | None) -> None:
        """A study role once: the row of the most specific unit it names (units are gathered from the top down)."""
        row = self.row(person, role, S.alumniOf, unit)
        index = self.studied.get((person, role))
        if index is None:
            self.studied[(person, role)] = len(self.students)
            self.students.append(row)
        else:
            self.students[index] = row


def organization_view(r: Reader, org: Any, base: dict[str, Any]) -> dict[str, Any]:
    """Name, parent and sub-organisations, people now and before (sub-organisations' people marked), students,
    members."""
    people = People(r)
    people.gather(org, None)
    for unit in descendants(r, org):
        people.gather(unit, _link(r, unit))
    view = dict(base)
    view.update({"parents": _sorted_links(r, r.values(org, S.parentOrganization)),
                 "subs": _sorted_links(r, children(r, org)),
                 "current": by_years(people.current), "past": by_years(people.past),
                 "students": by_years(people.students), "members": people.members,
                 "partner_of": [role_row(r, x, S.alumniOf) for x in r.incoming(org, K.programPartner)]})
    return view
