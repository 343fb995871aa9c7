"""A resident builder: one process that rebuilds a data directory on every save, keeping parsed profiles and mapped
graphs in memory between builds, and a polling watcher that drives it (kg build --watch, kg serve --watch).

Each rebuild is an ordinary build (kg.pipeline.build: validation before the swap, atomic swap, change record);
only the caches differ: they live in this process, so an unchanged profile is neither read from disk nor
unpickled. A failed rebuild leaves the previous version serving; its errors (file:line) are returned to the caller
and recorded beside the store (kg.store.status) for /health.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from ..errors import KgError, SourceError, SourceErrors, ValidationFailed
from ..mapping.cache import MapCache
from ..store.status import BuildStatus, clear_status, write_status
from . import BuildCaches, BuildResult, Progress, build, build_cache
from .parsed import ParseCache

Snapshot = dict[str, tuple[int, int, int]]
POLL_SECONDS = 0.05


@dataclass
class Outcome:
    """One rebuild: its result, or the errors that stopped it (each one line, file:line first)."""

    result: BuildResult | None
    errors: list[str]
    seconds: float
    changed: list[str] = field(default_factory=list)  # the files that triggered it (empty for the first build)
    cpu: float = 0.0  # this process's CPU seconds in the rebuild (wall seconds overstate it on a busy machine)


def error_lines(error: KgError | OSError) -> list[str]:
    """A failed build's errors, one per line, as kg build prints them."""
    if isinstance(error, SourceErrors):
        return [str(e) for e in error.errors]
    if isinstance(error, SourceError):
        return [str(error)]
    if isinstance(error, ValidationFailed):
        return [v.text() for v in error.report.errors]
    return [f"error: {error}"]


class ResidentBuilder:
    """Builds one configuration again and again, with the parse and map caches held in memory."""

    def __init__(self, config: Config, reasoner: str = "rules") -> None:
        self.config, self.reasoner = config, reasoner
        folder = build_cache(config) if not config.remote else None
        self.caches = BuildCaches(ParseCache(folder / "parsed" if folder else None, memory={}),
                                  MapCache(folder / "map" if folder else None, resident=True))

    def build(self, progress: Progress | None = None) -> BuildResult:
        """One build with the resident caches (raises what kg.pipeline.build raises)."""
        self.caches.parsed.next_build()
        self.caches.mapped.used.clear()
        return build(self.config, progress, self.reasoner, self.caches)

    def attempt(self, changed: list[str], progress: Progress | None = None) -> Outcome:
        """One build that reports instead of raising a build error; the outcome is recorded beside the store."""
        started, cpu = time.perf_counter(), time.process_time()
        try:
            result, errors = self.build(progress), []
        except (KgError, OSError) as error:
            result, errors = None, error_lines(error)
        outcome = Outcome(result, errors, time.perf_counter() - started, changed, time.process_time() - cpu)
        if not self.config.remote:
            served = self.config.store.resolve().name if self.config.store.is_symlink() else ""
            write_status(self.config.store, BuildStatus(state="failed" if errors else "ok", at=_now(),
                                                        served=served, errors=errors))
        return outcome


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _files(config: Config) -> Iterator[Path]:
    root = config.data
    yield root / "organizations.yaml"
    yield root / "venues.yaml"
    for folder in (root / "profiles", root / "records", root / "edits", config.shapes, config.ontology):
        if folder.is_dir():
            yield from (p for p in folder.rglob("*") if not p.name.startswith("."))


def snapshot(config: Config) -> Snapshot:
    """(mtime_ns, size, inode) of every file a build reads: data/, the shapes and the ontology."""
    found: Snapshot = {}
    for path in _files(config):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not os.path.isdir(path):
            found[str(path)] = (info.st_mtime_ns, info.st_size, info.st_ino)
    return found


def changed_files(before: Snapshot, after: Snapshot) -> list[str]:
    """The files added, removed or changed between two snapshots, sorted."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def watch(builder: ResidentBuilder, report: Callable[[Outcome], None], stop: Callable[[], bool] = lambda: False,
          interval: float = POLL_SECONDS, progress: Progress | None = None) -> None:
    """Build now, then rebuild whenever a file changes (polled every interval seconds) until stop() is true."""
    seen = snapshot(builder.config)
    try:
        report(builder.attempt([], progress))
        while not stop():
            time.sleep(interval)
            now = snapshot(builder.config)
            if now == seen:
                continue
            changed = changed_files(seen, now)
            while True:  # a save in several writes: wait until one poll sees nothing new
                time.sleep(min(interval, 0.02))
                settled = snapshot(builder.config)
                if settled == now:
                    break
                changed, now = sorted(set(changed) | set(changed_files(now, settled))), settled
            seen = now
            report(builder.attempt(changed, progress))
    finally:
        if not builder.config.remote:
            clear_status(builder.config.store)
