"""The docs stay true: the README documents every command, option, route and setting; __all__ is complete."""

from __future__ import annotations

import importlib
import re

import click
import pytest

import kg
from kg.cli import main
from kg.config import PROJECT_ROOT, settings_table

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_is_documented(name: str) -> None:
    assert f"kg {name}" in README


@pytest.mark.parametrize(("command", "option"), [
    (name, opt) for name, cmd in sorted(main.commands.items()) for param in cmd.params
    if isinstance(param, click.Option) for opt in param.opts if opt.startswith("--")])
def test_every_option_is_documented(command: str, option: str) -> None:
    assert option in README, f"kg {command} {option} is not in the README"


def test_every_route_is_documented(app) -> None:  # type: ignore[no-untyped-def]
    routes = {re.sub(r"<[^>]+>", "…", rule.rule) for rule in app.url_map.iter_rules() if rule.endpoint != "static"}
    missing = [r for r in sorted(routes) if f"`{r.split('…')[0]}" not in README]
    assert not missing, f"routes missing from the README: {missing}"


@pytest.mark.parametrize("variable", [row[0] for row in settings_table()])
def test_every_setting_is_documented(variable: str) -> None:
    assert variable in README


def test_quick_start_commands_are_in_ci() -> None:
    ci = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = ci.strip().splitlines()[-1]
    assert test_command in README


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
    blocks = re.findall(r"```sparql\n(.*?)```", README, flags=re.S)
    prefixes, queries = blocks[0], blocks[1:]
    return [prefixes + q for q in queries]


def _readme_answers() -> list[tuple[list[str], list[list[str]]]]:
    """The documented answer after each example query: its columns and rows (empty cells are unbound)."""
    section = README.split("## Example queries", 1)[1].split("\n## ", 1)[0]
    answers = []
    for block in re.split(r"```sparql\n.*?```", section, flags=re.S)[2:]:
        count = re.search(r"Answer \((\d+) rows?\):", block)
        assert count, "an example query in the README has no documented answer"
        lines = [line for line in block.splitlines() if line.startswith("|")]
        cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
        columns, rows = cells[0], cells[2:]
        assert len(rows) == int(count.group(1)), "the README's row count does not match its table"
        answers.append((columns, rows))
    return answers


@pytest.mark.parametrize("number", range(1, len(_readme_queries()) + 1), ids=lambda n: f"q{n}")
def test_readme_example_queries_answer_exactly(store, number: int) -> None:  # type: ignore[no-untyped-def]
    """Each README example returns exactly its documented rows (in order when the query orders them)."""
    query = _readme_queries()[number - 1]
    columns, expected = _readme_answers()[number - 1]
    result = store.query(query)
    assert [v.value for v in result.variables] == columns
    rows = [["" if row[c] is None else str(row[c].value) for c in columns] for row in result]
    if "ORDER BY" not in query:
        rows, expected = sorted(rows), sorted(expected)
    assert rows == expected
