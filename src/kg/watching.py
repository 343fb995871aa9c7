"""kg build --watch and kg serve --watch: a resident builder (kg.pipeline.resident) that rebuilds on every save,
alone or beside the web server it feeds."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from types import FrameType

import click

from .config import Config
from .pipeline.resident import Outcome, ResidentBuilder, watch


def describe(outcome: Outcome, shown: set[str] | None = None) -> tuple[list[str], list[str]]:
    """The lines to print for a rebuild: (for stdout, for stderr); errors name file:line and go to stderr. Warnings
    already in shown (those of the rebuilds before) are counted, not repeated; shown is updated."""
    cause = f" after {', '.join(outcome.changed[:3])}{' …' if len(outcome.changed) > 3 else ''} changed" \
        if outcome.changed else ""
    if outcome.result is None:
        head = f"rebuild failed in {outcome.seconds:.2f} s{cause}; the previous version keeps serving:"
        return [], [head, *outcome.errors]
    result = outcome.result
    stages = ", ".join(f"{name} {seconds:.2f}" for name, seconds in result.seconds.items())
    lines = [f"rebuilt in {outcome.seconds:.2f} s (CPU {outcome.cpu:.2f} s; {stages}){cause}: {result.location} "
             f"({sum(result.triples.values())} triples)"]
    warnings = [str(w) for w in result.warnings] + [v.text() for v in result.report.warnings]
    known = shown if shown is not None else set()
    lines += [w for w in warnings if w not in known]
    if len(warnings) > len(lines) - 1:
        lines.append(f"warnings: {len(warnings)} ({len(warnings) - len(lines) + 1} printed before)")
    known.clear()
    known.update(warnings)
    lines += list(result.changes.lines()) if result.changes else []
    return lines, []


class _Stop:
    """Set by SIGTERM or SIGINT: the watch loop ends after the rebuild in progress."""

    def __init__(self) -> None:
        self.asked = False
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self.ask)

    def ask(self, number: int, frame: FrameType | None) -> None:
        """The signal handler."""
        self.asked = True


def _printer(to_stderr: bool) -> Callable[[Outcome], None]:
    shown: set[str] = set()

    def report(outcome: Outcome) -> None:
        out, err = describe(outcome, shown)
        for line in out:
            click.echo(line, err=to_stderr)
        for line in err:
            click.echo(line, err=True)
    return report


def watch_build(config: Config, reasoner: str, timings: bool) -> None:
    """kg build --watch: build, then rebuild on every change under data/ until stopped (Ctrl-C)."""
    stop = _Stop()
    click.echo(f"watching {config.data} (Ctrl-C to stop)", err=True)
    watch(ResidentBuilder(config, reasoner), _printer(False), lambda: stop.asked,
          progress=(lambda message: click.echo(message)) if timings else None)


def serve_watching(config: Config, command: list[str], env: dict[str, str]) -> None:
    """kg serve --watch: run the web server as a child process and rebuild beside it; each swap is served at once
    (the server follows the store link); stopping either stops both."""
    stop = _Stop()
    server = subprocess.Popen(command, env=env)
    click.echo(f"watching {config.data}: a saved change is rebuilt and served (Ctrl-C to stop)", err=True)
    try:
        watch(ResidentBuilder(config), _printer(True), lambda: stop.asked or server.poll() is not None)
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    if server.returncode not in (0, -signal.SIGTERM) and not stop.asked:
        sys.exit(server.returncode or 1)
