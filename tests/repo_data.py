"""Copies of the repository's data/ for tests that change it or build from it."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO_DATA = Path(__file__).resolve().parents[1] / "data"


def copy_repo_data(target: Path, *, edits: bool = True) -> Path:
    """Copy data/ to target (without data/edits/ unless edits); returns target."""
    shutil.copytree(REPO_DATA, target, ignore=None if edits else shutil.ignore_patterns("edits"))
    return target
