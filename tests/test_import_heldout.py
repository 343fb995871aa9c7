"""A held-out set (tests/data/import_heldout2), written without looking at the importer, guards against
regressions in how `kg import` generalises. Never tune the importer on these files: when they are used to
fix a failure, move them into the development corpus and write a fresh held-out set.

Measured when the set was added: publications F1 0.81 (precision 0.96, recall 0.70), positions 0.86,
degrees 0.67; the floors below are those minus 0.05. Positions since the career model replaced the rules in
Experience sections: 0.786 (11 of 15 found, 2 wrong), floor 0.73; the rules had been shaped on layouts like this
set's. On the real-world held-out pages the model's positions are 0.455 (text, rules 0.467) and 0.240 (HTML,
rules 0.128), its degrees 0.737 and 0.612 (rules 0.566 and 0.553).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from kg.config import PROJECT_ROOT

HELDOUT = PROJECT_ROOT / "tests" / "data" / "import_heldout2"
FLOORS = {"publication title": 0.76, "authors in order": 0.76, "venue": 0.76, "year": 0.76, "positions": 0.73,
          "degrees": 0.61}


@pytest.fixture(scope="module")
def table() -> dict[str, tuple[float, ...]]:
    """The evaluation table over the held-out set."""
    spec = importlib.util.spec_from_file_location("import_eval", PROJECT_ROOT / "benchmarks" / "import_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result, _, rejected = module.evaluate(HELDOUT, PROJECT_ROOT / "data")
    assert not rejected
    return result


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_heldout_f1_stays_above_the_floor(table: dict[str, tuple[float, ...]], field: str) -> None:
    precision, recall, f1, *_ = table[field]
    assert f1 >= FLOORS[field], f"{field}: F1 {f1:.3f} (P {precision:.3f}, R {recall:.3f})"


def test_heldout_precision_stays_high(table: dict[str, tuple[float, ...]]) -> None:
    assert table["publication title"][0] >= 0.9


def test_heldout_inputs_are_not_in_the_development_corpus() -> None:
    corpus = {p.name for p in (PROJECT_ROOT / "tests" / "data" / "import_corpus").iterdir()}
    assert not corpus & {p.name for p in HELDOUT.iterdir()}
    assert Path(HELDOUT).is_dir()
