"""Where fetched records go, their provenance, and the state that lets an interrupted kg fetch resume.

Each record is one file under `data/records/<source>/`, written atomically. Its provenance (the URL without
secrets, the retrieval time, the source's own modified date, the SHA-256 and the identifier asked for) is kept in
a manifest beside it, `data/records/<source>/.fetched.json`: a hidden file, which the build's record reader skips
as it skips every hidden file. ROR records, which the build does not read, go to `data/ror/`.

A run keeps what it has finished in `data/records/.fetch-state.json` (records written, works lists paged through,
an OpenAlex cursor); a rerun skips what is listed there, and a run that completes deletes it. Both files are
flushed every FLUSH_EVERY records and when the run stops for any reason.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..atomic_files import write_atomically
from ..errors import Location, SourceError

MANIFEST = ".fetched.json"
STATE = ".fetch-state.json"
FLUSH_EVERY = 20
OUTSIDE_RECORDS = {"ror": "ror"}  # sources whose records the build does not read: kept beside records/


def now_utc() -> str:
    """The current UTC time as ISO 8601 with seconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(frozen=True)
class Entry:
    """The provenance of one fetched file."""

    file: str  # relative to the source's folder
    source: str
    identifier: str
    url: str  # the URL that fetches this record alone (no secrets)
    retrieved: str
    modified: str | None
    sha256: str
    via: str = ""  # the URL it actually came from, when that was a list (ORCID bulk works, OpenAlex pages)
    etag: str = ""  # the response's ETag and Last-Modified, for a conditional request on --refresh
    http_modified: str = ""


FIELDS = set(Entry.__dataclass_fields__)
REQUIRED = FIELDS - {"via", "etag", "http_modified"}


def _read_json(path: Path) -> Any:
    """A JSON file kg fetch wrote; a damaged one names the file and the fix."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError):
        raise SourceError(Location(path), "kg fetch's own file is damaged; delete it (kg fetch then starts afresh "
                                          "or forgets the provenance of these records)") from None


class Records:
    """The fetched record files of a data directory and their manifests."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.manifests: dict[str, dict[str, dict[str, Any]]] = {}
        self.dirty: set[str] = set()

    def folder(self, source: str) -> Path:
        """The folder a source's records go to."""
        outside = OUTSIDE_RECORDS.get(source)
        return self.data / outside if outside else self.data / "records" / source

    def path(self, source: str, name: str) -> Path:
        """A record file's path."""
        return self.folder(source) / name

    def manifest(self, source: str) -> dict[str, dict[str, Any]]:
        """The provenance of a source's fetched files, by file name."""
        if source not in self.manifests:
            loaded = _read_json(self.folder(source) / MANIFEST)
            self.manifests[source] = loaded.get("records", {}) if isinstance(loaded, dict) else {}
        return self.manifests[source]

    def save(self, source: str, name: str, body: bytes, identifier: str, url: str, modified: str | None,
             via: str = "", validators: tuple[str, str] = ("", "")) -> Entry:
        """Write one record atomically and note its provenance (flushed with flush())."""
        write_atomically(self.path(source, name), body)
        entry = Entry(name, source, identifier, url, now_utc(), modified, hashlib.sha256(body).hexdigest(), via,
                      *validators)
        self.manifest(source)[name] = asdict(entry)
        self.dirty.add(source)
        return entry

    def touch(self, entry: Entry) -> None:
        """Note that a record was found unchanged now (its retrieval time), the file left as it is."""
        self.manifest(entry.source)[entry.file] = asdict(replace(entry, retrieved=now_utc()))
        self.dirty.add(entry.source)

    def entries(self) -> list[Entry]:
        """Every fetched file with its provenance, by source and file name."""
        sources = sorted({p.parent.name for p in (self.data / "records").glob(f"*/{MANIFEST}")} |
                         {s for s in OUTSIDE_RECORDS if (self.folder(s) / MANIFEST).exists()})
        found = []
        for source in sources:
            for name, value in sorted(self.manifest(source).items()):
                if not isinstance(value, dict) or name.startswith("/") or ".." in Path(name).parts:
                    continue
                fields = {**{k: v for k, v in value.items() if k in FIELDS}, "file": name, "source": source}
                if REQUIRED <= set(fields):  # a hand-edited entry without its URL cannot be refreshed
                    found.append(Entry(**fields))
        return found

    def flush(self) -> None:
        """Write the changed manifests."""
        for source in sorted(self.dirty):
            document = {"about": "provenance of the records kg fetch wrote here (kg reads the records, not this "
                                 "file)", "records": dict(sorted(self.manifest(source).items()))}
            write_atomically(self.folder(source) / MANIFEST, json.dumps(document, indent=1, ensure_ascii=False))
        self.dirty.clear()


class RunState:
    """What an interrupted run finished: done keys and OpenAlex cursors; deleted when a run completes."""

    def __init__(self, data: Path) -> None:
        self.path = data / "records" / STATE
        loaded = _read_json(self.path)
        loaded = loaded if isinstance(loaded, dict) else {}
        self.resumed = bool(loaded)
        self.done: set[str] = set(loaded.get("done", []))
        self.cursors: dict[str, str] = dict(loaded.get("cursors", {}))
        self.started = str(loaded.get("started") or now_utc())
        self.changes = 0

    def is_done(self, key: str) -> bool:
        """Whether an earlier, interrupted run finished this."""
        return key in self.done

    def mark(self, key: str) -> None:
        """Note a finished record or list."""
        self.done.add(key)
        self.changes += 1

    def cursor(self, key: str) -> str | None:
        """Where paging through a list stopped."""
        return self.cursors.get(key)

    def set_cursor(self, key: str, cursor: str | None) -> None:
        """Note where paging through a list is (None: finished)."""
        if cursor is None:
            self.cursors.pop(key, None)
        else:
            self.cursors[key] = cursor
        self.changes += 1

    def flush(self) -> None:
        """Write the state file."""
        if self.done or self.cursors:
            write_atomically(self.path, json.dumps({"started": self.started, "done": sorted(self.done),
                                                    "cursors": self.cursors}, indent=1))

    def finish(self) -> None:
        """The run completed: nothing to resume."""
        self.path.unlink(missing_ok=True)
