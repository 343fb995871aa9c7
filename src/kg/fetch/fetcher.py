"""What one kg fetch run shares: settings, HTTP client, record files, run state, what it did, where it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..config import Config
from .client import Client, Response, validators
from .state import FLUSH_EVERY, Entry, Records, RunState
from .targets import Target

Say = Callable[[str], None]


def quiet(_: str) -> None:
    """Say nothing."""


@dataclass
class Outcome:
    """What a run did: the files written, and how many an interrupted run had written already."""

    written: list[Entry] = field(default_factory=list)
    skipped: int = 0
    resumed: bool = False
    requests: int = 0


class Fetcher:
    """The shared parts of a run: settings, HTTP client, record files, run state, and where to report."""

    def __init__(self, config: Config, client: Client | None = None, report: Say = quiet,
                 progress: Say = quiet) -> None:
        self.config = config
        self.client = client or Client(config)
        self.records = Records(config.data)
        self.state = RunState(config.data)
        self.report, self.progress = report, progress
        self.outcome = Outcome(resumed=self.state.resumed)
        self.unflushed = 0
        self.touched: list[tuple[str, str]] = []  # (source, file name) of every record written or found done

    def done(self, source: str, name: str) -> bool:
        """Whether an interrupted run already wrote this file (then it is not fetched again)."""
        finished = self.state.is_done(f"{source}/{name}") and self.records.path(source, name).is_file()
        if finished:
            self.outcome.skipped += 1
            self.touched.append((source, name))
        return finished

    def save(self, source: str, name: str, body: bytes, target: Target, url: str, modified: str | None,
             via: str = "", response: Response | None = None) -> None:
        """Write a record, note its provenance and that it is done; flush every FLUSH_EVERY files."""
        entry = self.records.save(source, name, body, str(target), url, modified, via, validators(response))
        self.state.mark(f"{source}/{name}")
        self.outcome.written.append(entry)
        self.touched.append((source, name))
        self.report(f"wrote {self.records.path(source, name)} ({len(body):,} bytes) from {url}")
        self.progress(f"{target}: {len(self.outcome.written)} files written")
        self.unflushed += 1
        if self.unflushed >= FLUSH_EVERY:
            self.checkpoint()

    def note(self, message: str) -> None:
        """A line for the user that is not a written file (a warning)."""
        self.report(message)

    def checkpoint(self) -> None:
        """Write the manifests and the run state, so that an interruption loses nothing finished."""
        self.records.flush()
        self.state.flush()
        self.unflushed = 0
