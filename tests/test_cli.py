"""The command line, driven with click's CliRunner; exit codes come from the error classes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kg.cli import main

from .conftest import REPO_DATA
from .repo_data import copy_repo_data


def run(*args: str) -> tuple[int, str, str]:
    """Run the CLI and return exit code, stdout and stderr."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_help_lists_every_command() -> None:
    code, out, _ = run("--help")
    assert code == 0
    for command in ("build", "validate", "query", "export", "serve"):
        assert command in out


def test_build_prints_a_summary(tmp_path: Path) -> None:
    code, out, err = run("build", "--data", str(REPO_DATA), "--store", str(tmp_path / "store"))
    assert code == 0, err
    assert "graph/profile/ziheng-jiang" in out and "violations: 0" in out
    assert err == ""  # stage lines only with --timings (issue 32: quiet builds unless asked)


def test_build_timings_print_one_line_per_stage(tmp_path: Path) -> None:
    code, out, _ = run("build", "--data", str(REPO_DATA), "--store", str(tmp_path / "store"), "--timings")
    assert code == 0
    stages = [line.split()[0] for line in out.splitlines() if line.endswith(" MB")]
    assert stages == ["map", "validate", "reason", "store"]


def test_build_with_bad_yaml_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    copy_repo_data(data)
    (data / "profiles" / "broken.yaml").write_text("name: Broken Person\npublications:\n  - title: [unclosed\n")
    code, _, err = run("build", "--data", str(data), "--store", str(tmp_path / "store"))
    assert code == 2
    assert "profiles/broken.yaml:" in err and "YAML syntax error" in err


def test_validate_formats(store_free_data: Path) -> None:
    code, out, _ = run("validate", "--data", str(store_free_data), "--format", "json")
    answer = json.loads(out)
    assert code == 0 and answer["passes"] is True and answer["conforms"] is (answer["counts"]["warnings"] == 0)
    code, out, _ = run("validate", "--data", str(store_free_data), "--format", "turtle")
    assert code == 0 and "ValidationReport" in out


def test_query_formats(built_store_dir: Path) -> None:
    query = 'SELECT ?n WHERE { ?p <http://schema.org/email> "ziheng.misc@gmail.com" ; <http://schema.org/name> ?n }'
    code, out, _ = run("query", "--store", str(built_store_dir), query)
    assert code == 0 and "Ziheng Jiang" in out and out.splitlines()[0].strip() == "n"
    code, out, _ = run("query", "--store", str(built_store_dir), "--format", "json", query)
    assert json.loads(out)["results"]["bindings"][0]["n"]["value"] == "Ziheng Jiang"
    code, out, _ = run("query", "--store", str(built_store_dir), "--format", "csv", query)
    assert out.splitlines() == ["n", "Ziheng Jiang"]


def test_query_from_file_and_construct(built_store_dir: Path, tmp_path: Path) -> None:
    rq = tmp_path / "q.rq"
    rq.write_text("CONSTRUCT { ?p <http://schema.org/name> ?n } WHERE { ?p <http://schema.org/givenName> ?n }")
    code, out, _ = run("query", "--store", str(built_store_dir), f"@{rq}")
    assert code == 0 and '"Wencong"' in out


def test_malformed_query_exits_6_with_position(built_store_dir: Path) -> None:
    code, _, err = run("query", "--store", str(built_store_dir), "SELECT ?x WHERE { ?x ?y }")
    assert code == 6 and "malformed query" in err


def test_query_without_store_exits_5(tmp_path: Path) -> None:
    code, _, err = run("query", "--store", str(tmp_path / "none"), "ASK {}")
    assert code == 5 and "kg build" in err


def test_export_to_file_is_deterministic(built_store_dir: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.nq", tmp_path / "b.nq"
    assert run("export", "--store", str(built_store_dir), "--format", "nq", "-o", str(first))[0] == 0
    assert run("export", "--store", str(built_store_dir), "--format", "nq", "-o", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes() and first.stat().st_size > 0
