"""The house rules hold: import-linter's contracts, mypy --strict on the store seam, and a query worker that loads
only what it needs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("flask", "pyshacl", "owlrl", "kg.server", "kg.validation", "kg.reasoning", "kg.pipeline")
LIBRARIES = ("rdflib", "werkzeug", "jinja2", "granian")  # a worker serialises with pyoxigraph alone


def test_import_contracts_are_kept() -> None:
    linter = shutil.which("lint-imports")
    if linter is None:
        pytest.fail("lint-imports is not installed; pip install -e '.[test]'")
    done = subprocess.run([linter], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_store_seam_and_its_users_pass_mypy_strict() -> None:
    """kg.store, kg.query, kg.server and kg.pipeline type-check under mypy --strict (pyproject's overrides hold the
    per-module flags for plain mypy; this also checks the global ones, implicit re-exports included)."""
    packages = ["src/kg/store", "src/kg/query", "src/kg/server", "src/kg/pipeline"]
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", *packages], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def modules_after(statement: str) -> list[str]:
    """The modules a fresh interpreter holds after one import statement (as a spawned worker starts)."""
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_a_query_worker_loads_neither_the_web_app_nor_validation_nor_reasoning() -> None:
    loaded = modules_after("import kg.query.worker")
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY + LIBRARIES)]
    assert heavy == [], heavy
    assert len([m for m in loaded if m == "kg" or m.startswith("kg.")]) <= 12


def test_the_records_model_loads_no_rdf_library() -> None:
    loaded = modules_after("import kg.model")
    assert not [m for m in loaded if m.split(".")[0] in ("rdflib", "pyoxigraph")]


def test_no_import_cycles() -> None:
    """No module imports itself through others, lazy imports inside functions included (grimp sees them)."""
    import grimp

    graph = grimp.build_graph("kg")
    cycles = [(a, b) for a in sorted(graph.modules) for b in graph.find_modules_directly_imported_by(a)
              if b != a and graph.chain_exists(importer=b, imported=a)]
    assert cycles == []


def test_every_blueprint_module_is_in_the_independence_contract() -> None:
    """A new blueprint cannot slip past the contract that keeps blueprint modules from importing each other."""
    import tomllib

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = settings["tool"]["importlinter"]["contracts"]
    listed = {m for c in contracts if c["type"] == "independence" for m in c["modules"]}
    server = ROOT / "src" / "kg" / "server"
    blueprints = {"kg.server." + ".".join(path.relative_to(server).with_suffix("").parts)
                  for path in server.rglob("*.py") if "Blueprint(" in path.read_text(encoding="utf-8")}
    assert blueprints and blueprints <= listed, sorted(blueprints - listed)


def test_builds_imports_queries_and_the_server_never_load_kg_fetch() -> None:
    """Only an explicit kg fetch reaches the network: the rest of kg does not even load the code that could."""
    loaded = modules_after("import kg.pipeline, kg.importers, kg.importers.command, kg.query.worker, kg.server")
    assert not [m for m in loaded if m == "kg.fetch" or m.startswith("kg.fetch.")]
