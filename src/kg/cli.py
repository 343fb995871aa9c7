"""The kg command line: thin wrappers over library functions."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

from .changes.command import diff_command
from .config import Config
from .errors import DiskFull, KgError, StoreMissing, ValidationFailed
from .exports import EXPORT_FORMATS, Selection, export, export_to_file
from .fetch.command import fetch_command, with_identifiers
from .importers.command import import_command
from .serving import check_base, check_port, server_arguments, stale_source
from .store import metadata_text, open_store
from .terminal import text_table

F = TypeVar("F", bound=Callable[..., Any])
SUMMARY_GRAPHS = 12

DATA_OPTION = click.option("--data", type=click.Path(path_type=Path), default=None,
                           help="Data directory [default: data, or $KG_DATA].")
STORE_OPTION = click.option("--store", type=click.Path(path_type=Path), default=None,
                            help="Store location [default: .kg/store, or $KG_STORE].")
STORE_URL_OPTION = click.option("--store-url", default=None,
                                help="SPARQL query URL of a remote store to use instead of the embedded one "
                                     "[default: $KG_STORE_URL]; see KG_STORE_UPDATE_URL, KG_STORE_GSP_URL, "
                                     "KG_STORE_USER, KG_STORE_PASSWORD, KG_STORE_AUTH.")


def reports_errors(command: F) -> F:
    """Turn KgError into a message on stderr and the error's exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ValidationFailed as exc:
            click.echo(exc.report.text(), err=True)
            click.echo("build stopped: the data violates the shapes; the previous store is unchanged.", err=True)
            sys.exit(exc.exit_code)
        except KgError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except OSError as exc:
            if not DiskFull.caused(exc):
                raise
            full = DiskFull("the disk is full; nothing was changed (the previous store is untouched); free space "
                            "and retry")
            click.echo(f"error: {full}", err=True)
            sys.exit(full.exit_code)

    return wrapper  # type: ignore[return-value]


def _quarantined(entities: Any) -> str:
    """Print each quarantined record entity; the count to end the summary line with (empty when none)."""
    for entity in entities:
        click.echo(entity.text())
    return f", quarantined record entities: {len(entities)}" if entities else ""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kg")
def main() -> None:
    """Researcher profiles as a validated, reasoned knowledge graph with a SPARQL endpoint.

    Exit codes: 0 success, 1 unexpected error, 2 bad source data, 3 SHACL violations,
    4 build failure (or kg serve's port in use), 5 no store built yet, 6 bad query, 7 remote store error, 8 disk full,
    9 a record source could not be reached (kg fetch).
    """


def _build(config: Config, reasoner: str = "rules", timings: bool = False, allow_empty: bool = False) -> None:
    from .pipeline import build
    from .resolution import kept_apart_summary
    from .sources import require_data_dir

    require_data_dir(config.data, allow_empty)

    def progress(message: str) -> None:
        click.echo(message)

    result = build(config, progress=progress if timings else None, reasoner=reasoner)
    click.echo(f"built {result.location} ({sum(result.triples.values())} triples)")
    graphs = list(result.triples.items())
    shown = graphs if len(graphs) <= SUMMARY_GRAPHS else graphs[:SUMMARY_GRAPHS - 1]
    for graph, count in shown:
        click.echo(f"  {count:>8}  {graph}")
    if len(shown) < len(graphs):
        rest = graphs[len(shown):]
        click.echo(f"  {sum(c for _, c in rest):>8}  … in {len(rest)} more graphs")
    for warning in result.warnings:  # source data the build accepted but a curator should look at
        click.echo(str(warning))  # beside the count that follows, as kg validate prints them
    for violation in result.report.warnings:
        click.echo(violation.text())
    for conflict in result.conflicts:
        click.echo(f"conflict: {conflict}")
    if result.kept_apart:  # one line; kg conflicts lists each person
        click.echo(kept_apart_summary(list(result.kept_apart)))
    click.echo(f"violations: {len(result.report.errors)}, "
               f"warnings: {len(result.report.warnings) + len(result.warnings)}"
               + (f", conflicts between sources: {len(result.conflicts)} (kg conflicts)" if result.conflicts else "")
               + _quarantined(result.quarantined))
    for line in result.changes.lines() if result.changes else ():  # what changed since the previous version
        click.echo(line)


@main.command()
@DATA_OPTION
@STORE_OPTION
@STORE_URL_OPTION
@click.option("--base", default=None, help="Base IRI for minted IRIs [default: $KG_BASE or https://kg.example.org].")
@click.option("--reasoner", type=click.Choice(["rules", "owlrl"]), default="rules", show_default=True,
              help="OWL 2 RL engine: the project's rule engine, or owlrl (the reference, much slower).")
@click.option("--timings", is_flag=True, help="Print one line per stage (seconds, peak memory) on stdout.")
@click.option("--allow-empty", is_flag=True, help="Build even when --data holds no profile and no record.")
@click.option("--watch", is_flag=True, help="Stay running: rebuild on every saved change under --data, keeping "
                                            "unchanged profiles in memory (Ctrl-C to stop).")
@reports_errors
def build(data: Path | None, store: Path | None, store_url: str | None, base: str | None, reasoner: str,
          timings: bool, allow_empty: bool, watch: bool) -> None:
    """Map, resolve, validate, reason and store the data; swap the new store in atomically.

    With --store-url the graphs go to a remote SPARQL store (uploaded under staging names, then switched
    in one update). Example: kg build --data data --store .kg/store --timings
    """
    config = Config.from_env(data=data, store=store, store_url=store_url, base=base)
    if watch:
        from .sources import require_data_dir
        from .watching import watch_build

        require_data_dir(config.data, allow_empty)
        watch_build(config, reasoner, timings)
        return
    _build(config, reasoner, timings, allow_empty)


@main.command()
@DATA_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "turtle", "json"]), default="text",
              show_default=True, help="Report format.")
@reports_errors
def validate(data: Path | None, fmt: str) -> None:
    """Validate the data against the SHACL shapes without building.

    Example: kg validate --format json
    """
    from .pipeline import screen_data

    screened, warnings = screen_data(Config.from_env(data=data))
    report = screened.report
    if fmt == "turtle":
        click.echo(report.turtle())
    elif fmt == "json":
        click.echo(json.dumps({**report.as_json(), "source_warnings": [str(w) for w in warnings],
                               "quarantined": [q.as_json() for q in screened.quarantined]}, indent=2,
                              ensure_ascii=False))
    else:
        for warning in warnings:  # what kg build accepts with a warning (an organisation known only by name, ...)
            click.echo(str(warning))
        counted = _quarantined(screened.quarantined)  # listed before the report of the rest
        click.echo(report.text())
        if counted:
            click.echo(f"Quarantined: {len(screened.quarantined)} record entities (listed first), left out by kg "
                       "build.")
        if warnings:
            click.echo(f"Source data: {len(warnings)} warning{'s' if len(warnings) > 1 else ''} (listed first), "
                       "as kg build reports them.")
    if not report.passes:
        sys.exit(ValidationFailed.exit_code)


@main.command()
@click.argument("paths", metavar="DATA... [SHAPES]", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--shapes", "shapes_paths", multiple=True, type=click.Path(path_type=Path),
              help="A shapes file or folder (repeatable); without it, the last argument is the shapes.")
@click.option("--ontology", "ontology_paths", multiple=True, type=click.Path(path_type=Path),
              help="An ontology file or folder mixed into the data for sh:class and class targets (as pyshacl's "
                   "ont_graph; repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "turtle", "json"]), default="text",
              show_default=True, help="Report format.")
@click.option("--allow-warnings", is_flag=True, help="Exit 0 when every result is a warning or a note.")
@reports_errors
def shacl(paths: tuple[Path, ...], shapes_paths: tuple[Path, ...], ontology_paths: tuple[Path, ...], fmt: str,
          allow_warnings: bool) -> None:
    """Validate RDF files against SHACL shapes with kg's engine (a pyshacl-compatible report).

    Each path is a file or a folder of RDF files (read recursively, merged). Exit 0 when the data conforms, 3 when it
    does not (with --allow-warnings: only for violations), 2 when a file cannot be read.
    Examples: kg shacl people.ttl shapes.ttl --format turtle; kg shacl a.ttl b.nt --shapes shapes/
    """
    from .validation import validate_graph
    from .validation.files import read_rdf_paths

    data_paths = list(paths) if shapes_paths else list(paths[:-1])
    shapes_paths = shapes_paths or paths[-1:]
    if not data_paths:
        raise click.UsageError("give the data and the shapes: kg shacl DATA... SHAPES, or kg shacl DATA... --shapes "
                               "SHAPES")
    data, shapes = read_rdf_paths(data_paths), read_rdf_paths(list(shapes_paths))
    ontology = read_rdf_paths(list(ontology_paths)) if ontology_paths else None
    report = validate_graph(data, shapes, ontology, source=", ".join(map(str, data_paths)))
    if fmt == "turtle":
        click.echo(report.turtle())
    elif fmt == "json":
        click.echo(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.text())
        click.echo(f"engine: {report.engine}; SHACL conforms: {'yes' if report.conforms else 'no'}")
    if not (report.passes if allow_warnings else report.conforms):
        sys.exit(ValidationFailed.exit_code)


@main.command()
@DATA_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@reports_errors
def conflicts(data: Path | None, fmt: str) -> None:
    """List where profiles and downloaded records disagree (title, year, author count, a person's name).

    Each line names the entity, the property and every value with the files that give it; the first value is
    the one the default graph shows (KG_SOURCE_PRECEDENCE). Example: kg conflicts --format json
    """
    from .pipeline import read_linked, screen_data

    config = Config.from_env(data=data)
    linking = read_linked(config).linking
    found, kept = linking.conflicts, linking.kept_apart
    quarantined = screen_data(config)[0].quarantined  # a record and the shapes disagree: left out of the graph
    if fmt == "json":
        click.echo(json.dumps([{"kind": c.kind, "id": c.slug, "label": c.label, "property": c.property,
                                "values": [{"value": v, "sources": list(f)} for v, f in c.values]}
                               for c in found] + [{"kind": "kept-apart", **k.as_json()} for k in kept]
                              + [{"kind": "quarantined", **q.as_json()} for q in quarantined],
                              indent=2, ensure_ascii=False))
        return
    for conflict in [*found, *kept]:
        click.echo(str(conflict))
    click.echo(f"conflicts: {len(found)}" + (f", record people kept apart: {len(kept)}" if kept else "")
               + _quarantined(quarantined))


def _read_query(text: str) -> str:
    if text.startswith("@"):
        return Path(text[1:]).read_text(encoding="utf-8")
    return text


@main.command()
@STORE_OPTION
@STORE_URL_OPTION
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="Result format for SELECT and ASK; CONSTRUCT and DESCRIBE print Turtle.")
@click.argument("query")
@reports_errors
def query(store: Path | None, store_url: str | None, fmt: str, query: str) -> None:
    """Run a SPARQL query (text, or @file.rq) against the store.

    Example: kg query 'SELECT ?n WHERE { ?p a <http://schema.org/Person> ; <http://schema.org/name> ?n }'
    """
    import pyoxigraph as ox

    from .errors import BadQuery
    from .namespaces import PREFIXES
    from .sparql_syntax import explain

    config = Config.from_env(store=store, store_url=store_url)
    opened = open_store(config)
    text = _read_query(query)
    try:
        results = opened.query(text, base_iri=config.base, prefixes=PREFIXES)
    except SyntaxError as exc:
        raise BadQuery(f"malformed query: {explain(text, str(exc), PREFIXES)}") from None
    if not isinstance(results, (ox.QuerySolutions, ox.QueryBoolean)):
        click.echo(bytes(ox.serialize(list(results), format=ox.RdfFormat.TURTLE, prefixes=PREFIXES) or b"").decode(),
                   nl=False)
    elif isinstance(results, ox.QueryBoolean):
        click.echo(json.dumps({"boolean": bool(results)}) if fmt == "json" else str(bool(results)).lower())
    elif fmt in ("json", "csv"):
        result_format = ox.QueryResultsFormat.JSON if fmt == "json" else ox.QueryResultsFormat.CSV
        click.echo(bytes(results.serialize(format=result_format) or b"").decode(), nl=False)
    else:
        variables = [v.value for v in results.variables]
        rows = [[_cell(solution[v]) for v in variables] for solution in results]
        click.echo(text_table(variables, rows))


def _cell(term: Any) -> str:
    return "" if term is None else term.value


@main.command()
@STORE_OPTION
@STORE_URL_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@click.argument("subject")
@click.argument("predicate")
@click.argument("obj", metavar="OBJECT")
@reports_errors
def explain(store: Path | None, store_url: str | None, fmt: str, subject: str, predicate: str, obj: str) -> None:
    """Say why a triple holds: where it is asserted, or the OWL 2 RL derivation tree (rule, premises, their
    graphs and source files); exit 1 when it is not entailed.

    Terms are written as in Turtle: <IRI> or a bare https://… IRI, prefix:name with the project's prefixes,
    a literal ("text"@en, 5, "2020"^^xsd:gYear), _:label, and a for rdf:type.
    Example: kg explain '<https://kg.example.org/id/person/ziheng-jiang>' a foaf:Person
    """
    from .errors import NotFound
    from .namespaces import PREFIXES
    from .reasoning.explain import explain as explain_triple
    from .reasoning.explanation import source_files
    from .reasoning.terms import compact_term, parse_triple

    config = Config.from_env(store=store, store_url=store_url)
    opened = open_store(config)
    base = metadata_text(opened, "base") or config.base
    found = explain_triple(opened, parse_triple(subject, predicate, obj, PREFIXES), base)
    show, sources = functools.partial(compact_term, prefixes=PREFIXES), source_files(opened.metadata, base)
    if fmt == "json":
        click.echo(json.dumps(found.as_json(show, sources), indent=2, ensure_ascii=False))
    else:
        click.echo(found.text(show, sources))
    if found.status == "not entailed":
        sys.exit(NotFound.exit_code)


@main.command(name="export")
@STORE_OPTION
@STORE_URL_OPTION
@click.option("--format", "fmt", type=click.Choice(list(EXPORT_FORMATS)), required=True, help="Output format.")
@click.option("--graph", "selection", type=click.Choice([s.value for s in Selection]), default="all",
              show_default=True, help="Which graphs: all, asserted (not inferred), inferred, or build changes.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Output file [default: stdout].")
@reports_errors
def export_command(store: Path | None, store_url: str | None, fmt: str, selection: str,
                   output: Path | None) -> None:
    """Export the graph deterministically (same data, byte-identical output).

    Example: kg export --format nq -o kg.nq
    """
    opened = open_store(Config.from_env(store=store, store_url=store_url))
    if output is None:
        sys.stdout.buffer.write(export(opened, fmt, Selection(selection)))
    else:
        size = export_to_file(opened, fmt, Selection(selection), output)
        click.echo(f"wrote {output} ({size} bytes)", err=True)


@main.command()
@DATA_OPTION
@STORE_OPTION
@STORE_URL_OPTION
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (127.0.0.1: this machine only; 0.0.0.0 exposes it).")
@click.option("--port", default=5000, show_default=True, type=int, help="Port to listen on.")
@click.option("--workers", default=1, show_default=True, type=int,
              help="Web server worker processes (each adds about 60 MB and its own query workers).")
@click.option("--threads", default=32, show_default=True, type=int,
              help="Threads per worker that run requests (slow and idle connections use none).")
@click.option("--access-log/--no-access-log", "access_log", default=None,
              help="Log one line per request (default: KG_ACCESS_LOG, off).")
@click.option("--base", default=None, help="Base IRI the store was built with [default: $KG_BASE or "
                                           "https://kg.example.org].")
@click.option("--watch", is_flag=True, help="Rebuild on every saved change under --data and serve it at once (the "
                                            "builder keeps unchanged profiles in memory).")
@reports_errors
def serve(data: Path | None, store: Path | None, store_url: str | None, host: str, port: int, workers: int,
          threads: int, access_log: bool | None, base: str | None, watch: bool) -> None:
    """Serve the store with granian (builds it first if there is none).

    Example: kg serve --port 8080
    """
    config = Config.from_env(data=data, store=store, store_url=store_url, access_log=access_log, base=base)
    from .server.layers.hosts import PublicHosts  # the web app's modules, loaded only to serve

    PublicHosts.parse(config.public_hosts)  # a malformed KG_PUBLIC_HOSTS stops here, not in every worker
    check_port(host, port)  # before building: a second kg serve must not build, print "serving …" and then fail
    watching = watch and not config.remote
    try:
        metadata = open_store(config).metadata
        if watching:
            check_base(config, metadata)
        else:
            _check_served_store(config, metadata)
    except StoreMissing:
        if not watching:  # with --watch the resident builder's first build makes it, the server answers 503 till then
            click.echo(f"no store at {config.store_url or config.store}; building it from {config.data}", err=True)
            _build(config)
    env = dict(os.environ, KG_STORE=str(config.store.absolute()), KG_DATA=str(config.data.absolute()),
               KG_BASE=config.base, KG_STORE_URL=config.store_url)
    click.echo(f"serving http://{host}:{port}/ (SPARQL endpoint http://{host}:{port}/sparql; Ctrl-C to stop)", err=True)
    from .server.quiet_log import write_log_config

    log_config = write_log_config(config.store.absolute().parent)
    command = [sys.executable, "-m", "granian", *server_arguments(config, host, port, workers, threads),
               "--log-config", str(log_config), "kg.server.wsgi:app"]
    if watching:
        from .watching import serve_watching

        serve_watching(config, command, env)
        return
    os.execve(sys.executable, command, env)


def _check_served_store(config: Config, metadata: Mapping[str, object]) -> None:
    """Refuse a store minted under another base; rebuild (or, for a remote store, say) when data/ changed since."""
    check_base(config, metadata)
    stale = stale_source(config, metadata)
    if stale is None:
        return
    changed, built_at = stale
    if config.remote:
        click.echo(f"warning: {changed} changed after the store was built ({built_at}); the remote store serves the "
                   "older data until you run kg build", err=True)
        return
    click.echo(f"{changed} changed after the store was built ({built_at}); rebuilding", err=True)
    try:
        _build(config)
    except KgError as exc:
        click.echo(exc.report.text() if isinstance(exc, ValidationFailed) else f"error: {exc}", err=True)
        click.echo("the rebuild failed; serving the previous store (fix the data, then kg build)", err=True)


main.add_command(with_identifiers(import_command))
main.add_command(diff_command)
main.add_command(fetch_command)
