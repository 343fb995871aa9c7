"""The one way tests find `shared/`: the data folder beside the checkout (../shared: seed texts, linked-record
samples, the W3C SHACL and SPARQL suites, import exclusions). It is not part of the project; tests that need it skip
when it is absent (each with its own message), except where a test says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.config import PROJECT_ROOT

# Beside the checkout (../shared, where CI and scripts put it), else beside the checkout's parent.
ROOTS = (PROJECT_ROOT.parent / "shared", PROJECT_ROOT.parent.parent / "shared")


def shared_path(*parts: str) -> Path:
    """shared/<parts> under the first root where it exists; else under ../shared (so a message names that place)."""
    candidates = [root.joinpath(*parts) for root in ROOTS]
    return next((path for path in candidates if path.exists()), candidates[0])


def require_shared(*parts: str, reason: str | None = None) -> Path:
    """shared/<parts>, or skip the calling test (with the reason, else a message naming the missing path)."""
    path = shared_path(*parts)
    if not path.exists():
        pytest.skip(reason or f"{path} is not present (shared/ beside the checkout is not part of the project)")
    return path
