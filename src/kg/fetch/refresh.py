"""kg fetch --refresh: fetch again the records kg fetch wrote (those older than an age), and say what changed.

Each record is fetched again from the URL its provenance names (one record alone, also for works that came in an
ORCID bulk answer or an OpenAlex page). A changed record is written over the old one, and what changed is said as
`kg diff` says it: the record's graph is built from the old file and from the new one, and compared per entity.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import pyoxigraph as ox

from ..changes import BuildChanges, precise_now
from ..changes.diff import Side, entity_changes
from ..config import Config
from ..errors import BadIdentifier, KgError, SourceError
from ..iris import Minter
from ..mapping import map_corpus
from ..model import Corpus
from ..records import parse_record, record_slug
from .client import Client, validators
from .sources import modified, parse_json, xml_complete
from .state import Entry, Records

AGE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw]?)")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "": 86400}
Say = Callable[[str], None]


def parse_age(text: str) -> float:
    """Seconds of an age such as 30d, 12h, 90m, 2w (a bare number is days)."""
    match = AGE.fullmatch(text.strip().lower())
    if not match:
        raise BadIdentifier(f"--older-than {text!r}: write an age such as 30d, 12h, 90m or 2w")
    return float(match.group(1)) * UNITS[match.group(2)]


def _age(entry: Entry) -> float:
    """Seconds since the record was fetched (infinite when the time cannot be read)."""
    try:
        when = datetime.strptime(entry.retrieved, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=None)
    except ValueError:
        return float("inf")
    return time.time() - (when - datetime(1970, 1, 1)).total_seconds()


def record_triples(body: bytes, relative: str, base: str) -> set[ox.Triple]:
    """The triples of the named graph a record file becomes (as kg build maps it)."""
    record = parse_record(body, relative, relative)
    minter = Minter(base)
    mapped = map_corpus(Corpus((), (), (), (record,)), minter)
    graph = mapped.graphs[minter.record_graph(record_slug(record))]
    text = graph.serialize(format="nt", encoding="utf-8")
    return {quad.triple for quad in ox.parse(text, format=ox.RdfFormat.N_TRIPLES)}


def record_changes(old: bytes | None, new: bytes, relative: str, base: str, since: str) -> BuildChanges:
    """What changed between two versions of a record file, per entity, as kg diff reports it."""
    before = record_triples(old, relative, base) if old is not None else set()
    after = record_triples(new, relative, base)
    entities, added, removed = entity_changes(Side(None, extra=before), Side(None, extra=after), [before], [after],
                                              base)
    stamp = precise_now()
    return BuildChanges("refresh", stamp, stamp, since if old is not None else None, entities, added, removed,
                        versions=(f"the copy fetched {since}", "now") if old is not None else ("", ""))


@dataclass
class Refreshed:
    """What a refresh did: records changed, unchanged, gone (404) and not yet due."""

    changed: list[str] = field(default_factory=list)
    unchanged: int = 0
    gone: list[str] = field(default_factory=list)
    not_due: int = 0


def _normal(body: bytes, entry: Entry) -> bytes:
    """A body as kg fetch writes it: a work taken out of a list was written as indented JSON, so is this one."""
    if entry.via and entry.file.endswith(".json"):
        return json.dumps(parse_json(body), indent=1, ensure_ascii=False).encode("utf-8")
    return body


def refresh(config: Config, older_than: float | None = None, report: Say = print, progress: Say = print,
            client: Client | None = None) -> Refreshed:
    """Fetch again the records kg fetch wrote (older than older_than seconds); write and report the changed."""
    client = client or Client(config)
    records = Records(config.data)
    result = Refreshed()
    entries = records.entries()
    try:
        for number, entry in enumerate(entries, 1):
            if older_than is not None and _age(entry) < older_than:
                result.not_due += 1
                continue
            progress(f"refreshing {number}/{len(entries)}: {entry.identifier}")
            _one(config, client, records, entry, result, report)
    finally:
        records.flush()
    return result


def _one(config: Config, client: Client, records: Records, entry: Entry, result: Refreshed, report: Say) -> None:
    """Fetch one record again and report what changed."""
    path = records.path(entry.source, entry.file)
    check = xml_complete if entry.file.endswith(".xml") else parse_json
    accept = "application/xml" if entry.file.endswith(".xml") else (
        "application/vnd.orcid+json" if entry.source == "orcid" else "application/json")
    conditions = {"If-None-Match": entry.etag, "If-Modified-Since": entry.http_modified}
    response = client.get(entry.source, entry.url, accept=accept, check=check,
                          headers={k: v for k, v in conditions.items() if v and path.is_file()})
    if response.status == 304:  # the source says nothing changed, without sending the record again
        result.unchanged += 1
        records.touch(entry)
        return
    if response.status != 200:
        result.gone.append(str(path))
        report(f"gone: {path}: {entry.url} now answers {response.status}; the file is kept as it was (delete it "
               "if the record was withdrawn)")
        return
    body = _normal(response.body, entry)
    old = path.read_bytes() if path.is_file() else None
    kept = validators(response) if not entry.via else ("", "")
    if old == body:
        result.unchanged += 1
        records.save(entry.source, entry.file, body, entry.identifier, entry.url, entry.modified, entry.via, kept)
        return
    document = parse_json(body) if check is parse_json else None
    records.save(entry.source, entry.file, body, entry.identifier, entry.url,
                 modified(entry.source, document, response), entry.via, kept)
    result.changed.append(str(path))
    report(f"changed: {path} ({entry.identifier}; fetched before at {entry.retrieved})")
    if entry.source == "ror":
        report("  (ROR records are kept for curating organizations.yaml; kg build does not read them)")
        return
    relative = path.relative_to(config.data).as_posix()
    try:
        changes = record_changes(old, body, relative, config.base, entry.retrieved)
    except (SourceError, KgError) as error:
        report(f"  the new copy cannot be read as a record: {error}")
        return
    for line in changes.lines(limit=None):
        report(f"  {line}")
