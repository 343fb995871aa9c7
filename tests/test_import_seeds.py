"""kg import on the two seed homepages reproduces the curated profiles' publications, positions and degrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.config import PROJECT_ROOT
from kg.importers import import_file
from kg.model import Profile
from kg.parsing import parse_profile
from kg.sources import parse_yaml, read_yaml

from .shared import shared_path

SEEDS = shared_path("seeds")
DATA = PROJECT_ROOT / "data"
pytestmark = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"seed texts not available ({SEEDS} is missing; "
                                                           "they are not part of the project)")


def _seed_files() -> list[Path]:
    return sorted(SEEDS.glob("*.txt")) if SEEDS.is_dir() else []


def _curated(name: str) -> Profile:
    """The curated profile in data/profiles whose name is the imported name."""
    for path in sorted((DATA / "profiles").glob("*.yaml")):
        profile = parse_profile(read_yaml(path))
        if profile.name == name:
            return profile
    raise AssertionError(f"no curated profile named {name!r}")


def publications(profile: Profile) -> list[tuple]:
    """Title, authors in order with marks, venue id, year and status of each publication."""
    return [(p.title, [(a.name, a.equal_contribution, a.is_elision) for a in p.authors], p.venue, p.year, p.status)
            for p in profile.publications]


def positions(profile: Profile) -> list[tuple]:
    """Role, organisations, start and end of each position."""
    return [(e.role, e.organizations, e.start, e.end, e.current) for e in profile.experience]


def degrees(profile: Profile) -> list[tuple]:
    """Degree, institution, start and end of each degree."""
    return [(e.degree, e.institution, e.start, e.end) for e in profile.education]


@pytest.mark.parametrize("seed", _seed_files(), ids=lambda p: p.name[:3])
def test_seed_import_matches_curated_profile(seed: Path) -> None:
    result = import_file(seed, data=DATA)
    imported = parse_profile(parse_yaml(result.yaml_text, Path(f"{result.profile_id}.yaml")))
    curated = _curated(imported.name)
    assert publications(imported) == publications(curated)
    assert positions(imported) == positions(curated)
    assert degrees(imported) == degrees(curated)


def test_both_seeds_are_there() -> None:
    names = {parse_profile(parse_yaml(import_file(s, data=DATA).yaml_text, Path("x.yaml"))).name
             for s in _seed_files()}
    assert {"Ziheng Jiang", "Wencong Xiao"} <= names
