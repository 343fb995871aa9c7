"""The resident builder's last outcome, kept beside the store (``STORE.watch.json``) for /health and the log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

from ..atomic_files import write_atomically


class BuildStatus(TypedDict):
    """What the last rebuild of a resident builder did: ok or failed, when, the version served, the errors."""

    state: str
    at: str
    served: str
    errors: list[str]


def status_file(store: Path) -> Path:
    """Where a resident builder records its last rebuild: beside the store link."""
    store = store.absolute()
    return store.with_name(f"{store.name}.watch.json")


def write_status(store: Path, status: BuildStatus) -> None:
    """Record a rebuild's outcome atomically."""
    write_atomically(status_file(store), json.dumps(status, indent=1))


def read_status(store: Path) -> BuildStatus | None:
    """The last recorded rebuild, or None when no resident builder has written one (or it is unreadable)."""
    try:
        found = json.loads(status_file(store).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(found, dict) or not isinstance(found.get("errors"), list):
        return None
    return BuildStatus(state=str(found.get("state", "")), at=str(found.get("at", "")),
                       served=str(found.get("served", "")), errors=[str(e) for e in found["errors"]])


def clear_status(store: Path) -> None:
    """Forget the record (the resident builder stopped: /health no longer reports its rebuilds)."""
    status_file(store).unlink(missing_ok=True)
