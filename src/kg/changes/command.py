"""The `kg diff` command: what changed, per entity, between two kept versions of the embedded store."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click
import pyoxigraph as ox

from ..config import Config
from ..errors import KgError, NotFound, StoreMissing
from ..store import store_versions
from .diff import Side, read_metadata, version_changes
from .moves import successors


def resolve_version(store_dir: Path, name: str) -> Path:
    """The kept version a name stands for: N, vN, STORE.vN, or (a prefix of) the build id in its metadata."""
    versions = store_versions(store_dir)
    number = re.fullmatch(r"(?:.*\.)?v?(\d+)", name)
    for found, path in versions:
        if number and int(number.group(1)) == found:
            return path
    if len(name) >= 4:
        for _, path in versions:
            if str(read_metadata(path).get("build_id", "")).startswith(name):
                return path
    kept = ", ".join(p.name for _, p in versions) or "none"
    raise NotFound(f"no kept version {name!r} of {store_dir} (kept: {kept}); give N, vN or a build id")


def default_pair(store_dir: Path) -> tuple[Path, Path]:
    """The version before the current one, and the current one."""
    if not store_dir.is_symlink():
        raise StoreMissing(f"no built store at {store_dir}; run 'kg build' first")
    current = store_dir.resolve()
    older = [path for _, path in store_versions(store_dir) if path.resolve() != current]
    numbers = {path: n for n, path in store_versions(store_dir)}
    before = [path for path in older if numbers[path] < numbers.get(current, 0)]
    if not before:
        raise NotFound(f"only {current.name} is kept: nothing to compare it with (kg diff FROM TO compares two kept "
                       "versions)")
    return before[-1], current


@click.command(name="diff")
@click.option("--store", type=click.Path(path_type=Path), default=None,
              help="Store location [default: .kg/store, or $KG_STORE].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@click.argument("from_version", metavar="[FROM]", required=False)
@click.argument("to_version", metavar="[TO]", required=False)
def diff_command(store: Path | None, fmt: str, from_version: str | None, to_version: str | None) -> None:
    """Say what changed between two kept store versions, per entity: people, works, organisations, venues and
    projects added, removed or changed, with the triples added and removed about each.

    FROM and TO name kept versions (N, vN, store.vN or a build id); the default compares the previous version with
    the current one. Example: kg diff --format json
    """
    try:
        _diff(store, fmt, from_version, to_version)
    except KgError as exc:  # as kg's other commands report errors (kg.cli.reports_errors)
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)


def _diff(store: Path | None, fmt: str, from_version: str | None, to_version: str | None) -> None:
    config = Config.from_env(store=store)
    store_dir = config.store.absolute()
    if from_version is None:
        old, new = default_pair(store_dir)
    else:
        old = resolve_version(store_dir, from_version)
        new = resolve_version(store_dir, to_version) if to_version else store_dir.resolve()
    base = str(read_metadata(new).get("base") or config.base)
    changes = version_changes(old, new, base)
    changes.moved = successors(Side(ox.Store.read_only(str(old))), Side(ox.Store.read_only(str(new))),
                               changes.entities)
    if fmt == "json":
        click.echo(json.dumps(changes.as_json(), indent=2, ensure_ascii=False))
    else:
        for line in changes.lines(limit=None):
            click.echo(line)
