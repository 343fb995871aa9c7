"""kg fetch: the one part of kg that reaches the network, and only when asked to.

It downloads standard records (ORCID, dblp, OpenAlex, Crossref, DataCite, Wikidata, ROR) by identifier into
`data/records/<source>/`, one file per record in the shapes kg.records reads, with their provenance beside them;
follows a person's works; is polite (User-Agent with a contact, rate limits, Retry-After, backoff); resumes after
an interruption; and with --refresh fetches the records again and says what changed. Builds, imports and the server
never import it (an import-linter contract).
"""

from __future__ import annotations

from .fetcher import Fetcher, Outcome
from .refresh import Refreshed, parse_age, refresh
from .run import fetch
from .targets import Target, parse_target, profile_targets

__all__ = ["Fetcher", "Outcome", "Refreshed", "Target", "fetch", "parse_age", "parse_target", "profile_targets",
           "refresh"]
