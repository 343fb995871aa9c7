"""The result of kg explain: a triple's status, each derived triple's rule instance, and its renderings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..iris import GraphNames

Fact = tuple[Any, Any, Any]


@dataclass(frozen=True)
class Step:
    """One rule instance: the rule's name and its premises (T-box axioms first), in the rule's order."""

    rule: str
    premises: tuple[Fact, ...]


@dataclass
class Explanation:
    """Whether a triple is asserted (and where), derived (every step), or not entailed.

    "unexplained": the store's inferred graph holds the triple, but the one-step rules do not derive it (the
    build fell back to owlrl for axioms or equalities the rule engine does not implement).
    """

    triple: Fact
    status: str  # "asserted", "inferred", "not entailed" or "unexplained"
    steps: dict[Fact, Step]
    graphs: dict[Fact, tuple[str, ...]]  # named graphs asserting each triple the explanation mentions

    def tree(self, show: Any = str, sources: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The derivation as nested dicts: triple, where asserted, rule, premises (each triple expanded once)."""
        shown: set[Fact] = set()

        def node(fact: Fact, path: frozenset[Fact]) -> dict[str, Any]:
            s, p, o = fact
            terms = [show(term) for term in fact]
            out: dict[str, Any] = {"triple": {"s": str(s), "p": str(p), "o": str(o)}, "terms": terms,
                                   "text": " ".join(terms)}
            if self.graphs.get(fact):
                out["asserted_in"] = [{"graph": g, "source": (sources or {}).get(g)} for g in self.graphs[fact]]
                return out
            step = self.steps.get(fact)
            if step is None:
                out["status"] = self.status if fact == self.triple else "not entailed"
                return out
            out["rule"] = step.rule
            if fact in path:
                out["cycle"] = True
            elif fact in shown:
                out["shown_above"] = True
            else:
                shown.add(fact)
                out["premises"] = [node(premise, path | {fact}) for premise in step.premises]
            return out

        return node(self.triple, frozenset())

    def as_json(self, show: Any = str, sources: Mapping[str, str] | None = None) -> dict[str, Any]:
        """{status, triple, text, derivation}: the derivation tree, null when the triple is not entailed."""
        tree = self.tree(show, sources)
        return {"status": self.status, "triple": tree["triple"], "text": tree["text"],
                "derivation": tree if self.status in ("asserted", "inferred") else None}

    def text(self, show: Any = str, sources: Mapping[str, str] | None = None) -> str:
        """The derivation tree as indented lines, one triple each, with its rule or where it is asserted."""
        lines: list[str] = []

        def walk(entry: dict[str, Any], depth: int) -> None:
            if "asserted_in" in entry:
                where = ", ".join(g["graph"] + (f" ({g['source']})" if g["source"] else "")
                                  for g in entry["asserted_in"])
                note = f"asserted in {where}"
            elif "rule" in entry:
                extra = " (cycle)" if entry.get("cycle") else " (shown above)" if entry.get("shown_above") else ""
                note = f"inferred by {entry['rule']}{extra}"
            elif entry["status"] == "unexplained":
                note = "unexplained: in the inferred graph, but derived by rules kg explain does not reproduce (owlrl)"
            else:
                note = "not entailed: asserted in no graph, and no OWL 2 RL rule derives it from the asserted graphs"
            lines.append(f"{'    ' * depth}{entry['text']}  [{note}]")
            for premise in entry.get("premises", ()):
                walk(premise, depth + 1)

        walk(self.tree(show, sources), 0)
        return "\n".join(lines)


def source_files(metadata: Mapping[str, Any], base: str) -> dict[str, str]:
    """Each named graph's source file, from a store's build metadata (the ontology graph: the ontology/ folder)."""
    found = {str(graph): str(path) for graph, path in (metadata.get("sources") or {}).items()}
    found.setdefault(GraphNames(base).ontology, "ontology/")
    return found


__all__ = ["Explanation", "Fact", "Step", "source_files"]
