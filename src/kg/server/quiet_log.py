"""granian's log configuration for kg serve: its own, less the start-up note on the thread count kg chooses on purpose.

kg serve runs requests on many blocking threads because they mostly wait for query worker processes, which do the
CPU work; granian warns about any thread count above twice the cores on every start, which reads like a fault.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

THREAD_NOTE = "Python threads, which seems quite high"


class WithoutThreadNote(logging.Filter):
    """Drop granian's warning about the number of blocking threads; pass every other record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """True unless the record is the thread-count note."""
        return THREAD_NOTE not in record.getMessage()


def log_config() -> dict[str, Any]:
    """granian's default logging configuration with the filter on its console handler."""
    from granian.log import LOGGING_CONFIG

    config: dict[str, Any] = json.loads(json.dumps(LOGGING_CONFIG))
    config["filters"] = {"without_thread_note": {"()": f"{__name__}.WithoutThreadNote"}}
    config["handlers"]["console"]["filters"] = ["without_thread_note"]
    return config


def write_log_config(folder: Path) -> Path:
    """Write the configuration as JSON into folder (granian's --log-config reads a file) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "granian-log.json"
    path.write_text(json.dumps(log_config(), indent=1), encoding="utf-8")
    return path
