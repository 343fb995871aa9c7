"""Full-text search: an SQLite FTS5 index per store version (``index``), read by the web process (``reader``).

``documents`` says what is indexed per entity, ``text`` how words are folded and matched, ``matches`` rewrites
SPARQL's ``?x kg:matches "text"`` into a VALUES block from the index before the engine runs.
"""

from __future__ import annotations

from .index import INDEX_FILE, INDEX_KEY, derive_index, derived_index_step, index_step, write_index
from .matches import MATCHES, expand_matches, uses_matches
from .reader import Filters, Found, Hit, SearchIndex

__all__ = ["INDEX_FILE", "INDEX_KEY", "MATCHES", "Filters", "Found", "Hit", "SearchIndex", "derive_index",
           "derived_index_step", "expand_matches", "index_step", "uses_matches", "write_index"]
