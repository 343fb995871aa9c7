"""Searching a version's index: ranked hits with facets, suggestions, and IRIs for SPARQL's ``kg:matches``.

Each search is a few SQLite reads of a file that never changes (opened read-only and immutable, one connection
per thread and version), bounded in text length, in the matches it ranks (``max_matches``) and in time (a
progress handler stops SQLite past ``timeout``: QueryTimeout). Words are matched as prefixes, AND-ed; a word
with no indexed word starting with it is also matched by its closest indexed words (trigram candidates, then
edit distance); when all words together match nothing, any of them does.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadQuery, QueryTimeout
from .text import edit_distance, match_expression, trigrams, typo_bound, words

WEIGHTS = (20.0, 8.0, 4.0, 1.0)  # bm25 weights of name, title, topics, context
KIND_ORDER = {"person": 0, "work": 1, "organization": 2, "venue": 3, "project": 4}
MAX_WORDS = 12
TYPO_CANDIDATES = 40  # indexed words sharing the most trigrams with a misspelt word, compared by edit distance
CORRECTIONS = 3  # closest indexed words tried for a misspelt one
FACET_ORGS = 10
PROGRESS_STEPS = 2000  # SQLite virtual-machine steps between two looks at the clock
_RANKED = ("SELECT d.iri, d.kind, d.path, d.label, d.detail, d.year, d.orgs, bm25(fts, {}) * d.lift AS score "
           "FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY score LIMIT ?"
           ).format(", ".join(map(str, WEIGHTS)))


@dataclass(frozen=True)
class Hit:
    """One matching entity, as a result list shows it."""

    iri: str
    kind: str
    path: str
    label: str
    detail: str
    year: int | None
    orgs: tuple[str, ...]
    score: float


@dataclass(frozen=True)
class Filters:
    """What a search is narrowed to (None: anything)."""

    kind: str | None = None
    year: int | None = None
    org: str | None = None


@dataclass
class Found:
    """A page of ranked hits, how many matched (at most the bound), facet counts and the corrections made."""

    hits: list[Hit]
    total: int
    capped: bool
    facets: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    corrections: dict[str, list[str]] = field(default_factory=dict)


def tier(hit: Hit, found: list[str]) -> int:
    """0 when every word starts a word of the hit's name (a person, organisation, venue or project), 1 of its
    title (a work), 2 otherwise: FTS5's bm25 saturates column weights, so names are put first here.

    >>> tier(Hit("i", "person", "person/a", "José Müller", "", None, (), -1.0), ["jose", "mull"])
    0
    """
    label = words(hit.label)
    if all(any(w.startswith(f) for w in label) for f in found):
        return 1 if hit.kind == "work" else 0
    return 2


class SearchIndex:
    """The read side of one version's index file."""

    def __init__(self, path: Path, timeout: float = 1.0, max_matches: int = 1000, max_chars: int = 200) -> None:
        self.path, self.timeout, self.max_matches, self.max_chars = path, timeout, max_matches, max_chars
        self._local = threading.local()

    def _connection(self) -> sqlite3.Connection:
        """This thread's read-only connection (the file is immutable once its version is current)."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            self._local.connection = connection
        return connection

    def _rows(self, sql: str, params: tuple[Any, ...], deadline: float) -> list[tuple[Any, ...]]:
        """Run one read, stopped past the deadline (QueryTimeout)."""
        connection = self._connection()
        connection.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_STEPS)
        try:
            return connection.execute(sql, params).fetchall()
        except sqlite3.OperationalError as error:
            if "interrupted" in str(error):
                raise QueryTimeout(f"the search took longer than {self.timeout:g} s; use longer words") from None
            raise BadQuery(f"the search cannot be run: {error}") from None
        finally:
            connection.set_progress_handler(None, 0)

    def words(self, text: str) -> list[str]:
        """The folded words of a search text (BadQuery past max_chars characters)."""
        if len(text) > self.max_chars:
            raise BadQuery(f"the search text has {len(text)} characters; at most {self.max_chars} are searched "
                           "(KG_SEARCH_MAX_CHARS)")
        return words(text)[:MAX_WORDS]

    def ranked(self, text: str, limit: int) -> tuple[list[Hit], dict[str, list[str]]]:
        """The best matches of a text, best first (at most limit), and the corrections tried for misspelt words."""
        found = self.words(text)
        if not found:
            return [], {}
        deadline = time.monotonic() + self.timeout
        rows = self._rows(_RANKED, (match_expression([[w] for w in found]), limit), deadline)
        corrections: dict[str, list[str]] = {}
        if not rows:
            corrections = {w: c for w in found if (c := self._corrections(w, deadline))}
            if corrections:
                terms = [[w, *corrections.get(w, [])] for w in found]
                rows = self._rows(_RANKED, (match_expression(terms), limit), deadline)
            if not rows and len(found) > 1:
                terms = [[w, *corrections.get(w, [])] for w in found]
                rows = self._rows(_RANKED, (match_expression(terms, any_term=True), limit), deadline)
        hits = [Hit(r[0], r[1], r[2], r[3], r[4], r[5], tuple(r[6].split("\n")) if r[6] else (), r[7]) for r in rows]
        hits.sort(key=lambda h: (tier(h, found), round(h.score, 6), KIND_ORDER.get(h.kind, 9), h.label.casefold(),
                                 h.iri))
        return hits, corrections

    def _corrections(self, word: str, deadline: float) -> list[str]:
        """The closest indexed words to a word that no indexed word starts with (none for short words)."""
        bound = typo_bound(word)
        if not bound or any(c.isdigit() for c in word):
            return []
        if self._rows("SELECT 1 FROM terms WHERE term >= ? AND term < ? LIMIT 1", (word, word + "\uffff"), deadline):
            return []
        grams = sorted(trigrams(word))
        marks = ", ".join("?" * len(grams))
        candidates = self._rows(
            f"SELECT term, COUNT(*) AS shared FROM grams WHERE gram IN ({marks}) AND length BETWEEN ? AND ? "
            "GROUP BY term ORDER BY shared DESC, term LIMIT ?",
            (*grams, len(word) - bound, len(word) + bound, TYPO_CANDIDATES), deadline)
        scored = sorted((edit_distance(word, term, bound), term) for term, _ in candidates)
        return [term for distance, term in scored if distance <= bound][:CORRECTIONS]

    def search(self, text: str, filters: Filters, page: int = 1, per: int = 20) -> Found:
        """A page of the ranked hits of a text narrowed by filters, with facet counts over all its matches."""
        hits, corrections = self.ranked(text, self.max_matches + 1)
        capped = len(hits) > self.max_matches
        hits = hits[:self.max_matches]
        facets = self._facets(hits)
        kept = [h for h in hits if (filters.kind is None or h.kind == filters.kind)
                and (filters.year is None or h.year == filters.year)
                and (filters.org is None or filters.org in h.orgs)]
        start = (max(page, 1) - 1) * per
        return Found(kept[start:start + per], len(kept), capped, facets, corrections)

    def _facets(self, hits: list[Hit]) -> dict[str, list[dict[str, Any]]]:
        """Counts by kind, year and organisation (the FACET_ORGS most frequent, with their labels)."""
        kinds = Counter(h.kind for h in hits)
        years = Counter(h.year for h in hits if h.year is not None)
        orgs = Counter(o for h in hits for o in h.orgs).most_common(FACET_ORGS)
        labels: dict[str, str] = {}
        if orgs:
            marks = ", ".join("?" * len(orgs))
            labels = dict(self._rows(f"SELECT iri, label FROM docs WHERE iri IN ({marks})", tuple(o for o, _ in orgs),
                                     time.monotonic() + self.timeout))
        return {"kind": [{"value": k, "count": n} for k, n in sorted(kinds.items(),
                                                                     key=lambda i: KIND_ORDER.get(i[0], 9))],
                "year": [{"value": y, "count": n} for y, n in sorted(years.items(), reverse=True)],
                "organization": [{"value": o, "label": labels.get(o, o), "count": n} for o, n in orgs]}

    def iris(self, text: str, limit: int) -> list[str]:
        """The IRIs of the best matches of a text, best first (kg:matches in SPARQL)."""
        return [h.iri for h in self.ranked(text, limit)[0]]

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
