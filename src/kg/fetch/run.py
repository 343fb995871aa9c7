"""One kg fetch run: the targets in order, each record written once, progress reported, resumable."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..config import Config
from ..errors import RecordNotFound, SourceError
from ..records import parse_record
from .client import Client
from .fetcher import Fetcher, Outcome, Say, quiet
from .sources import FETCHERS, doi, doi_name
from .targets import Target

NOT_FOLLOWED = ("crossref", "datacite", "ror")  # records whose DOIs are their own, or that name none


def run(fetcher: Fetcher, targets: Iterable[Target], dois: bool = False) -> Outcome:
    """Fetch every target (with dois, then the DOIs their records name); keep the resume state unless all went."""
    completed = False
    asked = list(targets)
    try:
        for target in asked:
            fetcher.progress(f"{target}: fetching")
            FETCHERS[target.scheme](fetcher, target)
        if dois:
            follow_dois(fetcher, asked)
        completed = True
    finally:
        fetcher.records.flush()
        if completed:
            fetcher.state.finish()
        else:
            fetcher.state.flush()
        fetcher.outcome.requests = fetcher.client.requests
    return fetcher.outcome


def named_dois(fetcher: Fetcher) -> list[str]:
    """The DOIs of the works in the person and work records this run touched, as the build reads them, once each."""
    found: dict[str, None] = {}
    for source, name in dict.fromkeys(fetcher.touched):
        if source in NOT_FOLLOWED:
            continue
        path = fetcher.records.path(source, name)
        try:
            record = parse_record(path.read_bytes(), str(path), name)
        except SourceError as error:
            fetcher.note(f"warning: {error}; its DOIs are not followed")
            continue
        works = [*record.works, *(w for p in record.people for w in p.works)]
        found.update((i.value, None) for w in works for i in w.ids if i.scheme == "doi")
    return list(found)


def follow_dois(fetcher: Fetcher, asked: list[Target]) -> None:
    """Fetch the Crossref (else DataCite) record of every DOI the fetched records name; unknown ones are warned of."""
    for value in named_dois(fetcher):
        target = Target("doi", value)
        if target in asked:
            continue
        fetcher.progress(f"{target}: fetching (named by a fetched record)")
        try:
            doi(fetcher, target)
        except RecordNotFound as missing:
            fetcher.note(f"warning: {missing}; skipped")


def fetch(config: Config, targets: Iterable[Target], report: Say = quiet, progress: Say = quiet,
          client: Client | None = None, dois: bool = False) -> Outcome:
    """Fetch the records of the identifiers into data/records/ (kg fetch)."""
    return run(Fetcher(config, client, report, progress), targets, dois)


def record_file(fetcher: Fetcher, target: Target) -> Path:
    """The file holding a target's own record (the person's, or the work's) once it is fetched."""
    if target.scheme == "doi":
        name = doi_name(target.value)
        crossref = fetcher.records.path("crossref", name)
        return crossref if crossref.is_file() else fetcher.records.path("datacite", name)
    source = "orcid" if target.scheme == "orcid" else target.scheme
    suffix = ".xml" if target.scheme == "dblp" else ".json"
    return fetcher.records.path(source, f"{target.value}{suffix}")


def fetch_record(config: Config, target: Target, report: Say = quiet, progress: Say = quiet) -> Path:
    """Fetch one identifier's records (a person's works too) and return the file of its own record (kg import)."""
    fetcher = Fetcher(config, None, report, progress)
    run(fetcher, [target])
    return record_file(fetcher, target)
