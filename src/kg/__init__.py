"""kg: researcher profiles as a validated, reasoned RDF knowledge graph with a SPARQL 1.1 endpoint."""

from __future__ import annotations

import importlib
from importlib.metadata import version
from typing import Any

__version__ = version("kg")

_EXPORTS = {
    "Config": "kg.config",
    "Store": "kg.store",
    "build": "kg.pipeline",
    "validate_data": "kg.pipeline",
    "infer": "kg.reasoning",
    "create_app": "kg.server",
}


def __getattr__(name: str) -> Any:
    """Import public names on first use, so `import kg` stays light (no pyshacl in server workers)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


__all__ = ["Config", "Store", "__version__", "build", "create_app", "infer", "validate_data"]
