"""The docs stay true: docs/cli.md documents every command and option, docs/http.md every route,
docs/configuration.md every setting; every example in docs/queries.md answers as written; the README keeps the
quick start and stays a newcomer's read; __all__ is complete."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import click
import pytest
from flask import Flask

import kg
from kg.cli import main
from kg.config import PROJECT_ROOT, settings_table
from kg.store import Store

DOCS = PROJECT_ROOT / "docs"
README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
CLI = (DOCS / "cli.md").read_text(encoding="utf-8")
HTTP = (DOCS / "http.md").read_text(encoding="utf-8")
SETTINGS = (DOCS / "configuration.md").read_text(encoding="utf-8")
QUERIES = (DOCS / "queries.md").read_text(encoding="utf-8")
README_LINES = 200  # a newcomer's five minutes; the reference lives in docs/


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_is_documented(name: str) -> None:
    assert f"kg {name}" in CLI


@pytest.mark.parametrize(("command", "option"), [
    (name, opt) for name, cmd in sorted(main.commands.items()) for param in cmd.params
    if isinstance(param, click.Option) for opt in param.opts if opt.startswith("--")])
def test_every_option_is_documented(command: str, option: str) -> None:
    assert option in CLI, f"kg {command} {option} is not in docs/cli.md"


def test_every_route_is_documented(app: Flask) -> None:
    routes = {re.sub(r"<[^>]+>", "…", rule.rule) for rule in app.url_map.iter_rules() if rule.endpoint != "static"}
    missing = [r for r in sorted(routes) if f"`{r.split('…')[0]}" not in HTTP]
    assert not missing, f"routes missing from docs/http.md: {missing}"


@pytest.mark.parametrize("variable", [row[0] for row in settings_table()])
def test_every_setting_is_documented(variable: str) -> None:
    assert variable in SETTINGS


def test_quick_start_commands_are_in_ci() -> None:
    ci = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = ci.strip().splitlines()[-1]
    assert test_command in README


def test_readme_is_short_and_links_every_doc() -> None:
    assert len(README.splitlines()) <= README_LINES
    missing = [d.name for d in sorted(DOCS.glob("*.md")) if f"(docs/{d.name})" not in README
               and d.name != "benchmarks-http.md"]
    assert not missing, f"docs the README does not link: {missing}"


def test_docs_links_resolve() -> None:
    """Every relative link in README.md and docs/*.md names a file that exists."""
    broken = []
    for page in [PROJECT_ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            local = not target.startswith(("http://", "https://", "mailto:")) and ("/" in target or "." in target)
            if local and not (page.parent / target).exists():
                broken.append(f"{page.name}: {target}")
    assert not broken, broken


def test_public_api_is_complete() -> None:
    """__all__ lists exactly the lazily exported names (and __version__), each resolving to a real object
    defined where the export table says; the TYPE_CHECKING block imports the same names."""
    assert set(kg.__all__) == set(kg.EXPORTS) | {"__version__"}
    for name, (module, attribute) in kg.EXPORTS.items():
        assert getattr(kg, name) is getattr(importlib.import_module(module), attribute)
    source = (PROJECT_ROOT / "src" / "kg" / "__init__.py").read_text(encoding="utf-8")
    typed = source.split("if TYPE_CHECKING:", 1)[1].split("\n\n", 1)[0]
    names = [part.split(" as ")[-1].strip() for line in re.findall(r"import (.+)", typed) for part in line.split(",")]
    assert sorted(names) == sorted(kg.EXPORTS)
    with pytest.raises(AttributeError):
        kg.no_such_name  # noqa: B018


def _readme_queries() -> list[str]:
    blocks = re.findall(r"```sparql\n(.*?)```", QUERIES, flags=re.S)
    prefixes, queries = blocks[0], blocks[1:]
    return [prefixes + q for q in queries]


def _readme_answers() -> list[tuple[list[str], list[list[str]]]]:
    """The documented answer after each example query: its columns and rows (empty cells are unbound)."""
    section = QUERIES
    answers = []
    for block in re.split(r"```sparql\n.*?```", section, flags=re.S)[2:]:
        count = re.search(r"Answer \((\d+) rows?\):", block)
        assert count, "an example query in docs/queries.md has no documented answer"
        lines = [line for line in block.splitlines() if line.startswith("|")]
        cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
        columns, rows = cells[0], cells[2:]
        assert len(rows) == int(count.group(1)), "docs/queries.md's row count does not match its table"
        answers.append((columns, rows))
    return answers


@pytest.mark.parametrize("number", range(1, len(_readme_queries()) + 1), ids=lambda n: f"q{n}")
def test_readme_example_queries_answer_exactly(store: Store, number: int) -> None:
    """Each example in docs/queries.md returns exactly its documented rows (in order when the query orders them)."""
    query = _readme_queries()[number - 1]
    columns, expected = _readme_answers()[number - 1]
    result = store.query(query)
    assert [v.value for v in result.variables] == columns
    rows = [["" if row[c] is None else str(row[c].value) for c in columns] for row in result]
    if "ORDER BY" not in query:
        rows, expected = sorted(rows), sorted(expected)
    assert rows == expected


def test_readme_walkthrough_works(tmp_path: Path) -> None:
    """The walkthrough's profile builds beside the seed data, and its query finds the work, as the README says."""
    from kg.config import Config
    from kg.pipeline import build
    from kg.query.results import run_query
    from kg.store import Store

    from .repo_data import copy_repo_data

    profile = re.search(r"cat > data/profiles/(\S+) <<'YAML'\n(.*?)\nYAML\n", README, flags=re.S)
    query = re.search(r'`kg query "(.*?)"`', README, flags=re.S)
    assert profile and query
    data = copy_repo_data(tmp_path / "data", edits=False)
    (data / "profiles" / profile.group(1)).write_text(profile.group(2) + "\n", encoding="utf-8")
    config = Config(data=data, store=tmp_path / "store")
    build(config)
    text = " ".join(query.group(1).split())
    rows = list(run_query(Store.open(config.store), text, base_iri=config.base))
    assert [str(row["title"].value) for row in rows] == ["A Worked Example of a Knowledge Graph"]
    assert "/page/person/ada-example" in README and profile.group(1) == "ada-example.yaml"
