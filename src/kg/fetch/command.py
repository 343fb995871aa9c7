"""The `kg fetch` command: identifiers (or a profile's) in, record files under data/records/ out."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..config import Config
from ..errors import BadIdentifier, DiskFull, KgError
from .refresh import parse_age, refresh
from .run import fetch, fetch_record
from .targets import Target, parse_target, profile_targets

HELP = """Download standard records by identifier into data/records/<source>/ (the only command that reaches the
network).

IDENTIFIERS are orcid:0000-…, dblp:95/7448-1, openalex:A…/W…, doi:10.…, wikidata:Q…, ror:0… (several at once),
or their IRIs. A person's works are followed (ORCID full works, OpenAlex works, the dblp page); --dois also fetches
each DOI those records name (Crossref, else DataCite). --profile FILE adds the ORCID, dblp, Wikidata and OpenAlex
identifiers in the profile's same_as. A run that stops resumes where it
stopped when run again. --refresh fetches again what kg fetch wrote (--older-than 30d: only records fetched
longer ago) and prints what changed, as kg diff does. Settings: KG_CONTACT_EMAIL (please set it), KG_OPENALEX_KEY,
KG_ORCID_API and the other base URLs, KG_FETCH_*.

Example: kg fetch orcid:0000-0002-1825-0097 doi:10.7554/elife.01567
"""


def _progress() -> Callable[[str], None]:
    """A one-line status on stderr when it is a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        return lambda _: None

    def show(message: str) -> None:
        sys.stderr.write("\r\033[K" + message[:150])
        sys.stderr.flush()
    return show


def _clear() -> None:
    """Clear the progress line."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def _say(line: str) -> None:
    """Print a line on stdout, clearing the progress line first."""
    _clear()
    click.echo(line)


def _targets(identifiers: tuple[str, ...], profiles: tuple[Path, ...]) -> list[Target]:
    """The targets named, each once, in order."""
    found: list[Target] = []
    for profile in profiles:
        found.extend(t for t in profile_targets(profile) if t not in found)
    found.extend(t for text in identifiers if (t := parse_target(text)) not in found)
    return found


@click.command(name="fetch", help=HELP)
@click.argument("identifiers", nargs=-1)
@click.option("--profile", "profiles", multiple=True, type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A profile YAML whose same_as identifiers (ORCID, dblp, Wikidata, OpenAlex) to fetch.")
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="Data directory [default: data, or $KG_DATA].")
@click.option("--dois", is_flag=True,
              help="Also fetch the Crossref (else DataCite) record of every DOI the fetched records name.")
@click.option("--refresh", "again", is_flag=True, help="Fetch again the records kg fetch wrote; print what changed.")
@click.option("--older-than", default=None, metavar="AGE",
              help="With --refresh: only records fetched longer ago than AGE (30d, 12h, 90m, 2w).")
def fetch_command(identifiers: tuple[str, ...], profiles: tuple[Path, ...], data: Path | None, dois: bool,
                  again: bool, older_than: str | None) -> None:
    """Run kg fetch; errors are one line on stderr and the error's exit code."""
    config = Config.from_env(data=data)
    progress = _progress()
    if not config.contact_email:
        click.echo("note: KG_CONTACT_EMAIL is not set; set it so that the sources can reach you (it goes in the "
                   "User-Agent, and Crossref serves requests with a contact from its polite pool)", err=True)
    try:
        if again:
            _refresh(config, identifiers, profiles, older_than, dois, progress)
        else:
            _fetch(config, identifiers, profiles, older_than, dois, progress)
    except KgError as exc:
        _clear()
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except OSError as exc:
        _clear()
        full = DiskFull.caused(exc)
        click.echo(f"error: cannot write {exc.filename or config.data}: {exc.strerror or exc}; "
                   + ("free space and " if full else "check the folder's permissions and ")
                   + "run kg fetch again (it resumes where it stopped)", err=True)
        sys.exit(DiskFull.exit_code if full else 1)
    except KeyboardInterrupt:
        _clear()
        click.echo("interrupted: what was written is kept; run the same kg fetch again to continue", err=True)
        sys.exit(130)
    _clear()


def _fetch(config: Config, identifiers: tuple[str, ...], profiles: tuple[Path, ...], older_than: str | None,
           dois: bool, progress: Callable[[str], None]) -> None:
    """Fetch the targets named and print a summary."""
    if older_than is not None:
        raise BadIdentifier("--older-than goes with --refresh")
    targets = _targets(identifiers, profiles)
    if not targets:
        raise BadIdentifier("name identifiers to fetch (e.g. kg fetch orcid:0000-0002-1825-0097), or --profile "
                            "FILE, or --refresh")
    outcome = fetch(config, targets, report=_say, progress=progress, dois=dois)
    _clear()
    resumed = f"; {outcome.skipped} already written by the interrupted run were skipped" if outcome.skipped else ""
    click.echo(f"fetched {len(outcome.written)} records for {len(targets)} identifiers in {outcome.requests} "
               f"requests{resumed}; kg build reads them")


def _refresh(config: Config, identifiers: tuple[str, ...], profiles: tuple[Path, ...], older_than: str | None,
             dois: bool, progress: Callable[[str], None]) -> None:
    """Refresh what kg fetch wrote and print a summary."""
    if dois:
        raise BadIdentifier("--dois goes with identifiers to fetch; --refresh fetches again the DOIs it fetched before")
    if identifiers or profiles:
        raise BadIdentifier("--refresh fetches again what kg fetch wrote; give it no identifiers (use --older-than "
                            "to choose by age)")
    age = parse_age(older_than) if older_than is not None else None
    result = refresh(config, age, report=_say, progress=progress)
    _clear()
    click.echo(f"refreshed: {len(result.changed)} changed, {result.unchanged} unchanged, {len(result.gone)} gone, "
               f"{result.not_due} fetched more recently than --older-than")


def _fetch_for_import(text: str, data: Path | None) -> Path:
    """Fetch an identifier's records into data/records/ (kg fetch) and return its own record's file."""
    target = parse_target(text)
    if target.scheme == "ror":
        raise BadIdentifier(f"{text}: kg import drafts profiles from person and work records, and a ROR record is an "
                            "organisation; kg fetch ror:… keeps it in data/ror/ for organizations.yaml")
    config = Config.from_env(data=data)
    click.echo(f"fetching {target} into {config.data / 'records'} (kg fetch)", err=True)
    return fetch_record(config, target, report=lambda line: click.echo(line, err=True))


def with_identifiers(command: click.Command) -> click.Command:
    """kg import that also takes an identifier: kg fetch downloads its records first, then its own record is read."""
    existing = click.Path(exists=True, dir_okay=False, path_type=Path)
    argument = click.Argument(["file"], metavar="FILE|IDENTIFIER")
    params = [argument if p.name == "file" else p for p in command.params]
    callback = command.callback
    if callback is None:
        raise TypeError(f"kg {command.name} has no callback")

    def run(file: str, **options: Any) -> Any:
        if not Path(file).exists() and re.match(r"^(?:[a-z]+:[^/]|https?://)", file, flags=re.I):
            try:
                path = _fetch_for_import(file, options.get("data"))
            except KgError as exc:
                click.echo(f"error: {exc}", err=True)
                sys.exit(exc.exit_code)
        else:
            path = existing.convert(file, argument, click.get_current_context())
        return callback(file=path, **options)

    help_text = (command.help or "") + (
        "\n\nFILE may also be an identifier (orcid:0000-…, dblp:95/7448-1, openalex:A…, wikidata:Q…, doi:10.…): kg "
        "fetch downloads its records into data/records/ (the network, only then), and its own record is imported. "
        "Example: kg import orcid:0000-0002-1825-0097 -o data/profiles/josiah-carberry.yaml")
    return click.Command(command.name, params=params, callback=run, help=help_text,
                         context_settings=command.context_settings)
