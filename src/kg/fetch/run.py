"""One kg fetch run: the targets in order, each record written once, progress reported, resumable."""

from __future__ import annotations

from collections.abc import Iterable

from ..config import Config
from .client import Client
from .fetcher import Fetcher, Outcome, Say, quiet
from .sources import FETCHERS
from .targets import Target


def run(fetcher: Fetcher, targets: Iterable[Target]) -> Outcome:
    """Fetch every target; the state file goes once all succeeded, and stays (for a rerun) otherwise."""
    completed = False
    try:
        for target in targets:
            fetcher.progress(f"{target}: fetching")
            FETCHERS[target.scheme](fetcher, target)
        completed = True
    finally:
        fetcher.records.flush()
        if completed:
            fetcher.state.finish()
        else:
            fetcher.state.flush()
        fetcher.outcome.requests = fetcher.client.requests
    return fetcher.outcome


def fetch(config: Config, targets: Iterable[Target], report: Say = quiet, progress: Say = quiet,
          client: Client | None = None) -> Outcome:
    """Fetch the records of the identifiers into data/records/ (kg fetch)."""
    return run(Fetcher(config, client, report, progress), targets)
