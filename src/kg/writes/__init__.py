"""Guarded writes: a change applied to a copy of the store, validated, re-reasoned, persisted and swapped in atomically.

kg.writes.writer holds the write path (its docstring lists the steps); kg.writes.worker runs it in a process of its
own, bounded in time and memory and without network access, and kg.writes.client is the web process's end of that.
The heavy modules (validation, reasoning) load on first use of what needs them: a read-only server never loads them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .result import RenderedReport, WriteResult

if TYPE_CHECKING:
    from ..errors import DiskFull, GraphNotFound, WriteBusy, WriteRejected
    from .consistency import inferred_matches
    from .snapshot import Snapshot, WriteForbidden, reconcile, violation_key
    from .writer import Writer

LAZY = {"Writer": ".writer", "inferred_matches": ".consistency", "Snapshot": ".snapshot", "WriteForbidden": ".snapshot",
        "reconcile": ".snapshot", "violation_key": ".snapshot", "WriteBusy": "..errors", "DiskFull": "..errors",
        "GraphNotFound": "..errors", "WriteRejected": "..errors"}


def __getattr__(name: str) -> Any:
    """The write stack's names, imported when first asked for."""
    module = LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


__all__ = ["DiskFull", "GraphNotFound", "RenderedReport", "Snapshot", "WriteBusy", "WriteForbidden", "WriteRejected",
           "WriteResult", "Writer", "inferred_matches", "reconcile", "violation_key"]
