"""Copies of the repository's data/ for tests that change it or build from it."""

from __future__ import annotations

import shutil
from pathlib import Path

from kg.config import Config
from kg.pipeline import build

REPO_DATA = Path(__file__).resolve().parents[1] / "data"


def copy_repo_data(target: Path, *, edits: bool = True) -> Path:
    """Copy data/ to target (without data/edits/ unless edits); returns target."""
    shutil.copytree(REPO_DATA, target, ignore=None if edits else shutil.ignore_patterns("edits"))
    return target


def copy_site(root: Path) -> Config:
    """A copy of the repository's data (without edits) and a store built from it, under root."""
    copy_repo_data(root / "data", edits=False)
    config = Config(data=root / "data", store=root / "kg" / "store")
    build(config)
    return config
