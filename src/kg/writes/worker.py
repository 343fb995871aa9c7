"""The write worker process: ``python -m kg.writes.worker FD``, its settings as KG_* variables in its environment.

It loads the write stack (validation, reasoning) once, takes itself off the network (kg.sandbox; with a remote
store it keeps the network, since it must reach that store), says it is ready on the socket FD, then applies one
write at a time: a pickled (operation, arguments) from the web process, answered with a pickled outcome. The web
process (kg.writes.client) stops it when a write passes its time or memory limit; the write lock is a file lock,
so the kernel releases it with the process, and a write cut short leaves the current store version serving.
"""

from __future__ import annotations

import logging
import pickle
import sys
from multiprocessing.connection import Connection

from ..config import Config
from ..errors import KgError, WriteRejected
from ..query.wire import READY
from ..sandbox import SandboxUnavailable, deny_network, exit_with_parent
from .result import Outcome, RenderedReport
from .writer import Writer

OPERATIONS = frozenset({"update_operations", "put", "post", "delete"})
logger = logging.getLogger(__name__)


def outcome(writer: Writer, job: bytes) -> Outcome:
    """Apply one write (a pickled operation name, arguments and keyword arguments) and say how it went."""
    operation, args, options = pickle.loads(job)  # noqa: S301 - the job comes from the web process that started us
    if operation not in OPERATIONS:
        return Outcome(error_kind="KgError", message=f"unknown write operation {operation!r}")
    try:
        return Outcome(result=getattr(writer, operation)(*args, **options))
    except WriteRejected as rejected:
        return Outcome(report=RenderedReport.of(rejected.report))
    except KgError as error:
        return Outcome(error_kind=type(error).__name__, status=error.status, message=str(error))
    except MemoryError:
        return Outcome(error_kind="WriteLimit", status=503,
                       message="the write ran out of memory and was stopped; nothing was changed")
    except Exception:  # noqa: BLE001 - reported to the web process as a 500, never as a stack trace
        logger.exception("write failed in the write worker")
        return Outcome(error_kind="KgError", message="internal error")


def confine(config: Config) -> None:
    """Take this process off the network unless it writes to a remote store."""
    if config.remote:
        logger.warning("the write worker keeps network access to reach the remote store %s", config.store_url)
        return
    try:
        deny_network()
    except SandboxUnavailable as error:
        logger.error("the write worker runs without the network sandbox: %s", error)


def main(argv: list[str]) -> None:
    """Load the write stack, take the network away, say ready, apply writes until the socket closes."""
    exit_with_parent()
    conn = Connection(int(argv[0]))
    writer = Writer(Config.from_env())
    confine(writer.config)
    conn.send_bytes(READY)
    while True:
        try:
            job = conn.recv_bytes()
        except (EOFError, OSError):
            return
        conn.send_bytes(pickle.dumps(outcome(writer, job)))


if __name__ == "__main__":
    main(sys.argv[1:])
