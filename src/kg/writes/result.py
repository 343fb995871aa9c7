"""What a write answers: its summary, or the SHACL results that refused it, in forms that cross a process boundary."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class WriteResult:
    """What a write changed: asserted and inferred triples added and removed, the graphs touched, the version."""

    changed: bool
    version: str | None = None
    added: int = 0
    removed: int = 0
    inferred_added: int = 0
    inferred_removed: int = 0
    graphs: tuple[str, ...] = ()
    created: bool = False
    seconds: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    def text(self) -> str:
        """One line for people."""
        if not self.changed:
            return "No change: the data already says this.\n"
        return (f"Committed {self.version}: {self.added} triples added, {self.removed} removed in "
                f"{len(self.graphs)} graph(s); inferred +{self.inferred_added} -{self.inferred_removed}.\n")


@dataclass(frozen=True)
class RenderedReport:
    """A refused write's SHACL report, rendered where it was computed (the web process needs no validation stack)."""

    errors: tuple[str, ...]
    report_text: str
    report_turtle: str
    report_json: dict[str, Any]

    @classmethod
    def of(cls, report: Any) -> RenderedReport:
        """Render a kg.validation.ValidationReport."""
        return cls(tuple(v.text() for v in report.errors), report.text(), report.turtle(), report.as_json())

    def text(self) -> str:
        """The human report."""
        return self.report_text

    def turtle(self) -> str:
        """The standard SHACL validation report as Turtle."""
        return self.report_turtle

    def as_json(self) -> dict[str, Any]:
        """The JSON form of the report."""
        return self.report_json


@dataclass(frozen=True)
class Outcome:
    """What the write worker answers for one write: its result, the report that refused it, or an error."""

    result: WriteResult | None = None
    report: RenderedReport | None = None
    error_kind: str = ""
    status: int = 500
    message: str = ""
