"""What kg serve checks and starts: the port is free, the store was built under this base and is not older than
data/, and granian's options."""

from __future__ import annotations

import errno
import socket
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from .config import Config
from .errors import PortInUse, SettingError
from .sources import changed_since

ACCESS_LOG_FORMAT = '%(addr)s - [%(time)s] "%(method)s %(path)s %(protocol)s" %(status)d %(dt_ms).1f ms'
STOP_SECONDS = 10  # how long a graceful stop (SIGTERM, SIGINT) waits for requests in flight


def check_base(config: Config, metadata: Mapping[str, object]) -> None:
    """Raise SettingError when the store was minted under another base than the server's (every page would 404)."""
    built_base = metadata.get("base")
    if built_base and built_base != config.base:
        raise SettingError(f"the store was built with base {built_base}, but kg serve uses {config.base}, so every "
                           f"page would be 404; serve it with --base {built_base} (or KG_BASE), or rebuild it with "
                           f"kg build --base {config.base}")


def stale_source(config: Config, metadata: Mapping[str, object]) -> tuple[Path, str] | None:
    """The newest file under data/ changed after the store was built, with the build time, or None."""
    built_at = str(metadata.get("built_at") or "")
    if not built_at or not config.data.is_dir():
        return None
    version = config.store.resolve()  # the version folder's own time is precise; built_at counts whole seconds
    moment = version.stat().st_mtime if not config.remote and version.is_dir() else \
        datetime.fromisoformat(built_at.replace("Z", "+00:00")).timestamp() + 1
    changed = changed_since(config.data, moment)
    return None if changed is None else (changed, built_at)


def check_port(host: str, port: int) -> None:
    """Raise PortInUse when another process listens on host:port (or the port may not be used)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortInUse(f"cannot listen on {host}: {exc.strerror}; use --host 127.0.0.1 or an address of this "
                        "machine") from None
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is free
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise PortInUse(f"port {port} is in use on {host} (another kg serve, or another server); "
                                    f"stop it, or use --port to choose another port") from None
                if exc.errno == errno.EACCES:
                    raise PortInUse(f"port {port} may not be used by this user (ports below 1024 need privileges); "
                                    f"use --port with a port above 1023") from None


STOP_SECONDS = 10  # how long a graceful stop (SIGTERM, SIGINT) waits for requests in flight


def server_arguments(config: Config, host: str, port: int, workers: int, threads: int) -> list[str]:
    """granian's options for kg serve: WSGI, the header read timeout, a graceful stop that waits at most
    STOP_SECONDS for requests in flight before it kills the workers (their query and write workers exit with them),
    and (KG_ACCESS_LOG) an access log with escaped paths; without it, no access log at all (it cost about 11 % of
    a cheap query's CPU)."""
    header_ms = max(1, min(60_000, int(config.header_timeout * 1000)))
    log = ["--access-log", "--access-log-fmt", ACCESS_LOG_FORMAT] if config.access_log else ["--no-access-log"]
    return ["--interface", "wsgi", "--host", host, "--port", str(port), "--workers", str(workers),
            "--blocking-threads", str(threads), "--no-ws", "--http", "1",
            "--http1-header-read-timeout", str(header_ms), "--respawn-failed-workers",
            "--workers-kill-timeout", str(STOP_SECONDS), *log]


__all__ = ["ACCESS_LOG_FORMAT", "STOP_SECONDS", "check_base", "check_port", "server_arguments", "stale_source"]
