"""The `kg import` command: a homepage text, saved HTML page or BibTeX file in, draft profile YAML out."""

from __future__ import annotations

import re
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import click

from ..atomic_files import write_atomically
from ..config import Config
from ..errors import KgError, Location, OutputExists
from ..records.bounds import too_slow


def _write(path: Path, text: str) -> None:
    """Write the file whole or not at all (a temporary file renamed into place)."""
    write_atomically(path, text)


HELP = """Import a homepage (plain text or saved HTML) or a BibTeX file as a draft profile; or preview a
downloaded record (ORCID, dblp, Wikidata, OpenAlex, Crossref, DataCite) and draft a profile from a person record.

Prints the YAML, or writes it to -o OUT.yaml. Nothing is invented: what the input does not state
stays empty; '# review:' comments mark what to check; unparsed parts are kept as comments at the end.

FILE must be a regular file (a symlink to one is fine) of at most KG_MAX_IMPORT_BYTES bytes (default
5000000, 5 MB); a larger file, a device, FIFO or socket is refused with exit code 2.

Example: kg import homepage.txt -o data/profiles/ada-lovelace.yaml
"""


def _emit(text: str, output: Path | None) -> None:
    """Print the YAML, or write it to the output file."""
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        _write(output, text)
    except OSError as exc:
        click.echo(f"error: {output}: cannot write: {exc.strerror}", err=True)
        sys.exit(1)
    click.echo(f"wrote {output}", err=True)


def _import_record(file: Path, output: Path | None, data: Path) -> bool:
    """Preview a downloaded record (and draft a profile from a person record); False when FILE is no record."""
    from .detect import read_input
    from .from_record import import_record, read_as_record
    from .venues import Reference

    record = read_as_record(read_input(file).encode("utf-8"), file)
    if record is None:
        return False
    result = import_record(record, Reference.load(data), file)
    if result.yaml_text is not None:
        _emit(result.yaml_text, output)
    for line in result.preview:
        click.echo(line, err=True)
    if result.profile_id is not None:
        click.echo(f"suggested file data/profiles/{result.profile_id}.yaml; keep the record in data/records/ too",
                   err=True)
    else:
        click.echo(f"no single person to draft a profile from; copy {file.name} into data/records/ and kg build "
                   "merges what it describes by identifier", err=True)
    return True


@contextmanager
def time_limit(file: Path, seconds: float) -> Iterator[None]:
    """Stop the import with a SourceError (exit 2) once it has run for seconds: a timer signal, so that every step
    of reading a page is covered, not only the loops that check a deadline (the CLI's main thread only)."""
    def expired(signum: int, frame: FrameType | None) -> None:
        raise too_slow(Location(file), seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _person_in(path: Path) -> str:
    """Who an existing profile file describes (its 'name'), for the refusal to overwrite it."""
    try:
        match = re.search(r"^name:\s*(.+?)\s*$", path.read_text(encoding="utf-8", errors="replace"), re.M)
    except OSError:
        return "an unreadable file"
    return f"the profile of {match.group(1).strip(chr(34) + chr(39))}" if match else "a file without a 'name:'"


def refuse_overwrite(output: Path | None, force: bool) -> None:
    """Raise OutputExists when output is an existing file and --force was not given."""
    if output is not None and output.exists() and not force:
        raise OutputExists(f"{output} already exists ({_person_in(output)}); nothing was written. Choose another "
                           "file with -o, or pass --force to replace it")


def _import(file: Path, output: Path | None, name: str | None, data: Path, force: bool) -> None:
    """Run the import (within KG_MAX_PARSE_SECONDS) and print or write the YAML; errors exit with the error's code."""
    from . import import_file

    try:
        refuse_overwrite(output, force)
        with time_limit(file, Config.from_env().max_parse_seconds):
            if _import_record(file, output, data):
                return
            result = import_file(file, name=name, data=data)
    except KgError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    reviews = len(re.findall(r"^\s*# review:", result.yaml_text, re.M))
    _emit(result.yaml_text, output)
    click.echo(f"imported {result.kind}: {len(result.draft.items('publications'))} publications, "
               f"{len(result.draft.items('experience'))} positions, {len(result.draft.items('education'))} "
               f"degrees; {reviews} to review; suggested file data/profiles/{result.profile_id}.yaml", err=True)
    if result.unknown_organizations:
        count = len(result.unknown_organizations)
        click.echo(f"{count} organisation{'' if count == 1 else 's'} not in {data / 'organizations.yaml'} (kg build "
                   "accepts them by name, with a warning; add them there to give them ids, aliases and parents):",
                   err=True)
        for line in result.unknown_organizations:
            click.echo(f"  {line}", err=True)


import_command = click.command(name="import", help=HELP)(
    click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))(
        click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Write the YAML here [default: stdout].")(
            click.option("--name", default=None, help="The person's full name, when the page does not make it "
                                                       "clear.")(
                click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
                             show_default=True, help="Data directory with organizations.yaml and venues.yaml.")(
                    click.option("--force", is_flag=True, help="Replace the -o file when it already exists.")(
                        _import))))))
