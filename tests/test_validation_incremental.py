"""Incremental validation equals a full validation after random edits (differential), and is used when it can be."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from kg.config import Config
from kg.errors import ValidationFailed
from kg.pipeline import build, map_data
from kg.turtle_files import load_turtle_dir
from kg.validation import ValidationReport, validate_graphs

from .conftest import PROJECT_ROOT
from .repo_data import copy_repo_data

SEED = 20261201


def full_report(config: Config) -> ValidationReport:
    """A full validation of the data as it is now (no cache involved)."""
    _, mapped = map_data(config)
    return validate_graphs(mapped, load_turtle_dir(config.shapes), load_turtle_dir(config.ontology))


def built(config: Config) -> tuple[ValidationReport, str]:
    """Build (a violation stops the build but still gives its report) and say how validation ran."""
    lines: list[str] = []
    try:
        report = build(config, progress=lines.append).report
    except ValidationFailed as failed:
        report = failed.report
    how = next(line for line in lines if line.startswith("validate"))
    return report, how


def same(a: ValidationReport, b: ValidationReport) -> bool:
    """Whether two reports hold the same results (located the same way) and the same verdicts."""
    return (set(a.violations), a.conforms, a.passes) == (set(b.violations), b.conforms, b.passes)


def edit(data: Path, rng: random.Random) -> str:
    """One random edit of a profile: a title, a year, an email, a removed publication or author; its name."""
    path = rng.choice(sorted((data / "profiles").glob("*.yaml")))
    profile = yaml.safe_load(path.read_text(encoding="utf-8"))
    works = profile.get("publications") or []
    kind = rng.choice(["title", "year", "email", "drop-work", "drop-author", "new-work"])
    if kind == "title" and works:
        works[rng.randrange(len(works))]["title"] += f" (edit {rng.randrange(1000)})"
    elif kind == "year" and works:
        works[rng.randrange(len(works))]["year"] = rng.choice([1999, 2015, 2024])
    elif kind == "email":
        profile["email"] = rng.choice(["someone@example.org", "not-an-email"])
    elif kind == "drop-work" and len(works) > 1:
        works.pop(rng.randrange(len(works)))
    elif kind == "drop-author" and works:
        authors = works[0].get("authors") or []
        if len(authors) > 1:
            authors.pop()
    elif kind == "new-work":
        works.append({"title": f"A New Study Number {rng.randrange(10**6)}", "year": 2023,
                      "authors": [profile["name"]]})
    path.write_text(yaml.safe_dump(profile, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return f"{kind} in {path.name}"


def synthetic(root: Path, triples: int) -> Path:
    """A generated data folder (benchmarks/generate.py)."""
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from generate import generate

    generate(triples, root)
    return root


@pytest.mark.parametrize("corpus", ["repository", "synthetic"])
@pytest.mark.slow
def test_incremental_validation_equals_full_validation_after_random_edits(corpus: str, tmp_path: Path) -> None:
    data = copy_repo_data(tmp_path / "data") if corpus == "repository" else synthetic(tmp_path / "data", 8000)
    config = Config(data=data, store=tmp_path / "store")
    rng = random.Random(SEED)
    report, how = built(config)
    assert "(full)" in how
    incremental = 0
    for number in range(8):
        change = edit(data, rng)
        report, how = built(config)
        assert same(report, full_report(config)), f"edit {number} ({change}): {how}"
        incremental += "incremental" in how
    assert incremental >= 4, "incremental validation should serve most one-profile edits"


def test_a_changed_shapes_file_validates_everything_again(tmp_path: Path) -> None:
    data = copy_repo_data(tmp_path / "data")
    shapes = tmp_path / "shapes"
    shutil.copytree(PROJECT_ROOT / "shapes", shapes)
    config = Config(data=data, store=tmp_path / "store", shapes=shapes)
    built(config)
    edit(data, random.Random(SEED))
    assert "incremental" in built(config)[1]
    (shapes / "kg-shapes.ttl").write_text((shapes / "kg-shapes.ttl").read_text(encoding="utf-8") + "\n",
                                          encoding="utf-8")
    edit(data, random.Random(SEED + 1))
    report, how = built(config)
    assert "(full)" in how and same(report, full_report(config))
