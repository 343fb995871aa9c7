"""kg import on the real-world corpus (tests/data/import_realworld): every page imports without a crash and
builds as imported, and the held-out pages keep the figures measured on them.

The held-out pages were split off by a rule fixed before the importer was changed for this corpus (see the
corpus README); the importer was never tuned on them, and their floors below are what was measured on them,
rounded down. The development floors guard against regressions on the pages the importer was tuned on.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from kg.config import PROJECT_ROOT, Config
from kg.errors import KgError
from kg.importers import import_file
from kg.pipeline import build

from .repo_data import copy_repo_data
from .shared import require_shared

CORPUS = Path(__file__).parent / "data" / "import_realworld"
PAGES = sorted(p for split in ("dev", "heldout") for p in (CORPUS / split).iterdir() if p.suffix in (".txt", ".html"))
DATA = PROJECT_ROOT / "data"

# F1 floors per split and rendering: (publication (all four), positions, degrees), measured and rounded down.
# Positions and degrees are read by the career model (kg.importers.pipeline.careers) since these were raised.
# Held-out text positions went 0.467 -> 0.455 with it (15 of 39 right instead of 14, but 12 wrong instead of 7),
# so that floor is 0.45, one hundredth under the rules' 0.46; every other floor went up.
# The segmenter shipped before 2026-12-04 was trained before two importer fixes (the legend rule, long lines);
# retrained by its script on the current code, dev HTML publications measure 0.640 (just under 0.64): floor 0.63.
FLOORS = {
    "dev txt": (0.70, 0.69, 0.68),
    "dev html": (0.63, 0.64, 0.75),
    "heldout txt": (0.23, 0.45, 0.73),
    "heldout html": (0.17, 0.24, 0.61),
}


def _eval_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_eval", PROJECT_ROOT / "benchmarks" / "import_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sources() -> list[tuple[str, str]]:
    """(split, repository) of every page."""
    return [(split, str((yaml.safe_load(p.read_text(encoding="utf-8")).get("source") or {}).get("repository")))
            for split in ("dev", "heldout") for p in sorted((CORPUS / split).glob("*.facts.yaml"))]


def test_the_corpus_is_large_enough_and_split_by_its_rule() -> None:
    sources = _sources()
    assert len(sources) >= 40 and sum(1 for split, _ in sources if split == "heldout") >= 15
    for split, repository in sources:  # the README's rule, fixed before collection
        digit = hashlib.sha256(repository.lower().encode()).hexdigest()[0]
        assert (split == "heldout") == (digit in "012345"), repository


def test_no_page_comes_from_an_excluded_repository() -> None:
    exclusions = require_shared("import-exclusions.txt",
                                reason="../shared/import-exclusions.txt is not beside this checkout")
    excluded = {line.strip().lower() for line in exclusions.read_text(encoding="utf-8").splitlines()
                if "/" in line and not line.startswith("#")}
    assert not [r for _, r in _sources() if r.lower() in excluded]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_page_imports_without_a_crash(page: Path) -> None:
    try:
        import_file(page, data=DATA)
    except KgError as error:  # a rejection is a precise error, never a traceback
        assert str(error)


@pytest.mark.parametrize("suffix", [".txt", ".html"])
@pytest.mark.slow
def test_fresh_imports_build_without_edits_to_the_reference_data(tmp_path: Path, suffix: str) -> None:
    data = copy_repo_data(tmp_path / "data")
    written = 0
    for page in (p for p in PAGES if p.suffix == suffix):
        try:
            result = import_file(page, data=DATA)
        except KgError:
            continue
        target = data / "profiles" / f"{result.profile_id}.yaml"
        if target.exists():
            target = target.with_name(f"{result.profile_id}-{page.parent.name}.yaml")
        target.write_text(result.yaml_text, encoding="utf-8")
        written += 1
    assert written >= 20
    built = build(Config(data=data, store=tmp_path / "store"))  # a violation raises, naming the file and the fix
    assert sum(1 for graph in built.triples if "/graph/profile/" in graph) >= written


@pytest.fixture(scope="module")
def figures() -> dict[str, tuple[dict[str, tuple[float, ...]], dict[str, dict[str, float]], list[str]]]:
    return _eval_module().realworld(CORPUS, DATA)


@pytest.mark.parametrize("label", list(FLOORS))
def test_figures_hold_their_floors(figures: dict, label: str) -> None:
    table = figures[label][0]
    floors = dict(zip(("publication (all four)", "positions", "degrees"), FLOORS[label], strict=True))
    for field, floor in floors.items():
        assert table[field][2] >= floor, f"{label} {field}: F1 {table[field][2]:.3f} < {floor}"


@pytest.mark.slow
def test_the_shipped_line_model_is_what_the_training_script_makes(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(PROJECT_ROOT / "scripts"))
    try:
        from train_line_model import train
    finally:
        sys.path.remove(str(PROJECT_ROOT / "scripts"))
    from kg.importers.labeller import MODEL

    out = tmp_path / "lines.crfsuite"
    train(800, 7, out, 8, quiet=True)  # the script's defaults
    assert out.read_bytes() == MODEL.read_bytes(), "retrain with python scripts/train_line_model.py"
