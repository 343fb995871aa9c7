"""What changed between two versions of the graph, per entity: people, works, organisations, venues and projects
added, removed or changed, with the asserted triples added and removed about each.

kg.changes.diff computes it (from the changed named graphs only), kg.changes.rdf keeps each build's record in the
store as one named graph (a PROV activity and one schema:UpdateAction per entity); ``kg build`` prints it,
``kg diff`` compares any two kept versions and ``/changes`` lists the recent builds.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

KINDS = ("person", "work", "organization", "venue", "project")
STATUSES = ("added", "removed", "changed")
NOUNS = {"person": ("person", "people"), "work": ("work", "works"), "organization": ("organisation", "organisations"),
         "venue": ("venue", "venues"), "project": ("project", "projects")}
SHOWN = 40  # entity lines kg build prints before "… and N more"


def precise_now() -> str:
    """The current UTC time as an xsd:dateTime with microseconds (builds within one second stay ordered)."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1_000_000):06d}Z"


@dataclass(frozen=True)
class EntityChange:
    """How one entity changed: its kind and status, a label, the asserted triples added and removed about it."""

    iri: str
    kind: str
    status: str
    label: str
    added: int
    removed: int

    def as_json(self) -> dict[str, Any]:
        """The change as a JSON object."""
        return {"iri": self.iri, "kind": self.kind, "status": self.status, "label": self.label,
                "triples_added": self.added, "triples_removed": self.removed}


def order(changes: Iterable[EntityChange]) -> list[EntityChange]:
    """Entity changes in display order: by kind, status, label, IRI."""
    return sorted(changes, key=lambda c: (KINDS.index(c.kind), STATUSES.index(c.status), c.label.casefold(), c.iri))


@dataclass
class BuildChanges:
    """What one build (or a comparison of two versions) changed."""

    build_id: str
    started_at: str
    ended_at: str
    previous: str | None  # the previous version's build id; None for a first build
    entities: list[EntityChange] = field(default_factory=list)
    triples_added: int = 0
    triples_removed: int = 0
    unlisted: int = 0  # changed entities counted but not listed (every entity of a first build)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # kind -> status -> entities, listed or not
    versions: tuple[str, str] = ("", "")  # the compared store versions' names, when known
    moved: dict[str, str] = field(default_factory=dict)  # removed entity IRI -> the added one replacing it (moves)

    def __post_init__(self) -> None:
        if not self.counts:
            for change in self.entities:
                by_status = self.counts.setdefault(change.kind, {})
                by_status[change.status] = by_status.get(change.status, 0) + 1

    @property
    def initial(self) -> bool:
        """Whether this is a first build (nothing to compare with)."""
        return self.previous is None

    def summary(self) -> str:
        """One line: how many entities of each kind were added, removed, changed, and the triples."""
        facts = f"{self.triples_added} triples added, {self.triples_removed} removed"
        if self.initial:
            parts = [_count(sum(self.counts[k].values()), k) for k in KINDS if self.counts.get(k)]
            whole = ", ".join(parts) or f"{self.unlisted} entities"
            return f"first build: {whole}; {self.triples_added} triples"
        parts = [f"{_count(n, kind)} {status}" for kind in KINDS for status in STATUSES
                 if (n := self.counts.get(kind, {}).get(status, 0))]
        if not parts:
            return f"no entity changed; {facts}" if self.triples_added or self.triples_removed else "nothing changed"
        return f"{', '.join(parts)}; {facts}"

    def lines(self, limit: int | None = SHOWN) -> list[str]:
        """A heading with the summary, then a line per entity (at most limit), as kg build and kg diff print them."""
        listed = order(self.entities)
        shown = listed if limit is None else listed[:limit]
        width = max([len(c.label) for c in shown] + [10])
        lines = [f"  {c.status:<8} {NOUNS[c.kind][0]:<13} {c.label:<{min(width, 60)}}  +{c.added} -{c.removed}  "
                 f"<{c.iri}>" for c in shown]
        lines += [f"  replaced <{old}> by <{new}> (the old IRI redirects)" for old, new in sorted(self.moved.items())]
        rest = len(listed) - len(shown) + (0 if self.initial else self.unlisted)
        if rest:
            lines.append(f"  … and {rest} more (kg diff lists them all)")
        old, new = self.versions
        since = f"from {old} to {new}" if old and new else f"since {old}" if old else "since the previous build"
        return [f"changes {since}: {self.summary()}" if not self.initial else f"changes: {self.summary()}"] + lines

    def as_json(self) -> dict[str, Any]:
        """The change record as a JSON object."""
        return {"build_id": self.build_id, "started_at": self.started_at, "ended_at": self.ended_at,
                "previous_build_id": self.previous, "first_build": self.initial,
                "from_version": self.versions[0] or None, "to_version": self.versions[1] or None,
                "triples_added": self.triples_added, "triples_removed": self.triples_removed,
                "counts": self.counts, "unlisted": self.unlisted, "summary": self.summary(),
                "entities": [c.as_json() for c in order(self.entities)], "replaced": dict(sorted(self.moved.items()))}

    def metadata(self) -> dict[str, Any]:
        """What a store version's metadata keeps of its build's change (the full record is in its change graph)."""
        return {"build_id": self.build_id, "previous_build_id": self.previous, "counts": self.counts,
                "triples_added": self.triples_added, "triples_removed": self.triples_removed,
                "summary": self.summary()}


def _count(n: int, kind: str) -> str:
    return f"{n} {NOUNS[kind][0 if n == 1 else 1]}"


__all__ = ["KINDS", "NOUNS", "STATUSES", "BuildChanges", "EntityChange", "order", "precise_now"]
