"""The resident builder (kg build --watch, kg serve --watch): a save is rebuilt and swapped in; a bad save keeps the
previous version, with its errors (file:line) on the outcome, in the status file and in /health."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kg.config import Config
from kg.pipeline.resident import Outcome, ResidentBuilder, changed_files, snapshot, watch
from kg.server import create_app
from kg.store import Store
from kg.store.status import read_status, status_file
from kg.watching import describe

from .conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow  # a few builds of a 3,000-triple corpus


class _Watcher:
    """watch() in a thread, its outcomes collected."""

    def __init__(self, config: Config) -> None:
        self.outcomes: list[Outcome] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=watch, args=(ResidentBuilder(config), self.outcomes.append,
                                                           self.done.is_set, 0.02), daemon=True)
        self.thread.start()

    def next(self, count: int, seconds: float = 120) -> Outcome:
        """The count-th outcome, waiting for it."""
        deadline = time.monotonic() + seconds
        while len(self.outcomes) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.outcomes) >= count, f"no rebuild {count} within {seconds} s"
        return self.outcomes[count - 1]

    def stop(self) -> None:
        """Stop after the build in progress."""
        self.done.set()
        self.thread.join(timeout=120)


@pytest.fixture
def config(tmp_path: Path) -> Config:
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(3000, tmp_path / "data")
    return Config(data=tmp_path / "data", store=tmp_path / "work" / "store", query_workers=0)


@pytest.fixture
def watcher(config: Config) -> Iterator[_Watcher]:
    running = _Watcher(config)
    yield running
    running.stop()


def _retitle(path: Path, suffix: str, text: str | None = None) -> str:
    """Retitle the first work in one write (of text, when given, else of the file's content); the new title."""
    data: Any = yaml.safe_load(text if text is not None else path.read_text(encoding="utf-8"))
    data["publications"][0]["title"] += suffix
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return str(data["publications"][0]["title"])


def _has_title(store: Path, title: str) -> bool:
    found = Store.open(store).query(f'ASK {{ ?w <http://schema.org/name> "{title}" }}')
    return bool(found)


def test_a_save_is_rebuilt_and_a_bad_save_keeps_the_previous_version(config: Config, watcher: _Watcher) -> None:
    first = watcher.next(1)
    assert first.result is not None and not first.errors and first.changed == []
    profile = sorted((config.data / "profiles").glob("*.yaml"))[1]
    title = _retitle(profile, " Watched")
    second = watcher.next(2)
    assert second.result is not None and second.changed == [str(profile)]
    assert _has_title(config.store, title)
    served = config.store.resolve()
    good = profile.read_text(encoding="utf-8")
    profile.write_text(good.replace("publications:", "publications: [", 1), encoding="utf-8")
    third = watcher.next(3)
    assert third.result is None and third.errors[0].startswith(f"{profile}:")
    assert re.match(rf"{re.escape(str(profile))}:\d+: YAML syntax error", third.errors[0])
    assert config.store.resolve() == served and _has_title(config.store, title)
    status = read_status(config.store)
    assert status is not None and status["state"] == "failed" and status["errors"] == third.errors
    assert status["served"] == served.name
    health: Any = create_app(config).test_client().get("/health").get_json()
    assert health["status"] == "ok" and health["rebuild"]["errors"] == third.errors
    out, err = describe(third)
    assert out == [] and err[1:] == third.errors and "previous version keeps serving" in err[0]
    title = _retitle(profile, " Fixed", good)
    fourth = watcher.next(4)
    assert fourth.result is not None and config.store.resolve() != served and _has_title(config.store, title)
    status = read_status(config.store)
    assert status is not None and (status["state"], status["served"], status["errors"]) == \
        ("ok", config.store.resolve().name, [])
    watcher.stop()
    assert not status_file(config.store).exists()


def test_snapshots_see_added_changed_and_removed_files(config: Config) -> None:
    before = snapshot(config)
    profiles = sorted((config.data / "profiles").glob("*.yaml"))
    added = config.data / "profiles" / "someone-new.yaml"
    added.write_text(profiles[0].read_text(encoding="utf-8"), encoding="utf-8")
    _retitle(profiles[0], " Changed")
    profiles[1].unlink()
    assert changed_files(before, snapshot(config)) == sorted(map(str, (added, profiles[0], profiles[1])))


def test_a_later_build_reuses_what_the_first_kept_in_memory(config: Config) -> None:
    builder = ResidentBuilder(config)
    builder.build()

    def kept() -> dict[str, Any]:
        return dict(builder.caches.mapped.memory or {})

    entries = kept()
    profile = sorted((config.data / "profiles").glob("*.yaml"))[0]
    _retitle(profile, " Again")
    lines: list[str] = []
    builder.build(lines.append)
    assert builder.caches.parsed.stats.parsed == 1
    now = kept()
    assert len(set(now) - set(entries)) == 1 and len(now) == len(entries)
    assert all(now[key] is entries[key] for key in set(now) & set(entries))  # the very objects: nothing unpickled
