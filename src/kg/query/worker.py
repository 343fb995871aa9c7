"""A query worker process: ``python -m kg.query.worker FD STORE IN_MEMORY MEMORY_MB``.

It opens the store read-only (or copies it into memory), caps its address space, installs the network filter
(kg.sandbox: no socket but AF_UNIX can be opened any more, so SERVICE cannot reach anything whatever the query
text says), says it is ready on the socket FD, then answers one job at a time until the socket closes or the
parent exits. It loads pyoxigraph and the few modules
that serialise results, nothing of the web app, rdflib, validation or reasoning.
"""

from __future__ import annotations

import logging
import resource
import sys
from multiprocessing.connection import Connection
from pathlib import Path

import pyoxigraph as ox

from ..errors import KgError, NetworkRefused, QueryMemoryLimit
from ..sandbox import SandboxUnavailable, deny_network, exit_with_parent
from .results import answer
from .wire import OK, READY, QueryJob, encode_error

PAGE_BYTES = resource.getpagesize()
MB = 1 << 20
ADDRESS_SPACE_FACTOR = 2


def open_store(path: str, in_memory: bool) -> ox.Store:
    """Open the built store version read-only, or copy it into memory (faster on aggregates)."""
    disk = ox.Store.read_only(str(Path(path).resolve()))
    if not in_memory:
        return disk
    memory = ox.Store()
    memory.bulk_load(disk.dump(format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)
    return memory


def cap_address_space(memory_mb: int) -> None:
    """Cap this process's address space at its current size plus a multiple of the per-query memory limit."""
    if memory_mb <= 0:
        return
    with open("/proc/self/statm", "rb") as statm:
        virtual = int(statm.read().split()[0]) * PAGE_BYTES
    limit = virtual + ADDRESS_SPACE_FACTOR * memory_mb * MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def memory_error(memory_mb: int) -> QueryMemoryLimit:
    """The error for a query stopped at the memory limit."""
    return QueryMemoryLimit(f"the query needed more than the memory limit of {memory_mb} MB and was stopped; "
                            "add a LIMIT, avoid ORDER BY or GROUP BY over large joins, or raise KG_QUERY_MEMORY_MB")


def serve(conn: Connection, store: ox.Store, memory_mb: int) -> None:
    """Answer jobs from the socket until it closes."""
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            reply = OK + answer(store, QueryJob.decode(data))
        except KgError as error:
            reply = encode_error(error.status, type(error).__name__, str(error))
        except PermissionError:  # only the network filter refuses anything here: SERVICE, however it was spelt
            refused = NetworkRefused()
            reply = encode_error(refused.status, type(refused).__name__, str(refused))
        except MemoryError:
            stopped = memory_error(memory_mb)
            reply = encode_error(stopped.status, type(stopped).__name__, str(stopped))
        except Exception:  # noqa: BLE001 - reported to the parent as a 500, never as a stack trace
            logging.getLogger(__name__).exception("query failed in worker")
            reply = encode_error(500, "InternalError", "internal error")
        conn.send_bytes(reply)


def confine() -> None:
    """Take this process off the network for good (kg.sandbox); where the platform cannot, say so in the log."""
    try:
        deny_network()
    except SandboxUnavailable as error:
        logging.getLogger(__name__).error("query worker runs without the network sandbox: %s", error)


def main(argv: list[str]) -> None:
    """Open the store, cap the address space, take the network away, say ready, serve."""
    fd, path, in_memory, memory_mb = int(argv[0]), argv[1], argv[2] == "1", int(argv[3])
    exit_with_parent()
    conn = Connection(fd)
    store = open_store(path, in_memory)
    cap_address_space(memory_mb)
    confine()
    conn.send_bytes(READY)
    serve(conn, store, memory_mb)


if __name__ == "__main__":
    main(sys.argv[1:])
