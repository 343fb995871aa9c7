"""kg: researcher profiles as a validated, reasoned RDF knowledge graph with a SPARQL 1.1 endpoint.

The public API, imported on first use so that ``import kg`` stays light (a query worker loads no pySHACL,
owlrl or Flask)::

    import kg
    result = kg.build(kg.Config.from_env())          # read, map, validate, reason, store
    report = kg.validate(kg.Config.from_env())       # the SHACL report only
    report = kg.validate_graph(data, shapes)          # any rdflib graph against any shapes (pyshacl-compatible)
    store = kg.open_store(kg.Config.from_env())      # the embedded or the remote store
    data = kg.export(store, "nq")                    # a deterministic dump
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import Config
    from .errors import KgError
    from .exports import export
    from .formats import Format
    from .importers import import_file
    from .pipeline import BuildResult, build
    from .pipeline import validate_data as validate
    from .reasoning import infer
    from .server import create_app
    from .store import Store, open_store
    from .validation import ValidationReport, validate_graph

EXPORTS: dict[str, tuple[str, str]] = {
    "BuildResult": ("kg.pipeline", "BuildResult"),
    "Config": ("kg.config", "Config"),
    "Format": ("kg.formats", "Format"),
    "KgError": ("kg.errors", "KgError"),
    "Store": ("kg.store", "Store"),
    "ValidationReport": ("kg.validation", "ValidationReport"),
    "build": ("kg.pipeline", "build"),
    "create_app": ("kg.server", "create_app"),
    "export": ("kg.exports", "export"),
    "import_file": ("kg.importers", "import_file"),
    "infer": ("kg.reasoning", "infer"),
    "open_store": ("kg.store", "open_store"),
    "validate": ("kg.pipeline", "validate_data"),
    "validate_graph": ("kg.validation", "validate_graph"),
}


def __getattr__(name: str) -> Any:
    """Import a public name (or read the installed version) on first use."""
    if name == "__version__":
        from importlib.metadata import version

        return version("kg")
    if name in EXPORTS:
        module, attribute = EXPORTS[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


__all__ = ["BuildResult", "Config", "Format", "KgError", "Store", "ValidationReport", "__version__", "build",
           "create_app", "export", "import_file", "infer", "open_store", "validate",
           "validate_graph"]
