"""The load side of the HTTP benchmark: one request (urllib) and wrk runs with their percentiles."""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JSON_RESULTS = "application/sparql-results+json"
WRK_SCRIPT = HERE / "wrk_percentiles.lua"


def http_query(url: str, query: str, timeout: float) -> tuple[int, bytes, float]:
    """GET url?query=..., SPARQL JSON results; (status, body, seconds)."""
    full = url + "?" + urllib.parse.urlencode({"query": query})
    request = urllib.request.Request(full, headers={"Accept": JSON_RESULTS})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        body, status = error.read(), error.code
    return status, body, time.perf_counter() - started


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def parse_duration_ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise ValueError(f"cannot read wrk duration {text!r}")
    return float(match.group(1)) * UNITS[match.group(2)]


def run_wrk(url: str, query: str, clients: int, duration: float, timeout: float,
            headers: tuple[str, ...] = ()) -> dict[str, Any]:
    """One wrk run of a SPARQL query (GET, SPARQL JSON results, any extra "Name: value" headers)."""
    return run_wrk_url(url + "?" + urllib.parse.urlencode({"query": query}), JSON_RESULTS, clients, duration,
                       timeout, headers)


def run_wrk_url(full: str, accept: str, clients: int, duration: float, timeout: float,
                headers: tuple[str, ...] = ()) -> dict[str, Any]:
    """One wrk run against a full URL; requests/s counts only 2xx answers; percentiles from wrk_percentiles.lua."""
    extra = [arg for header in headers for arg in ("-H", header)]
    command = ["wrk", "-t", str(min(clients, 2)), "-c", str(clients), "-d", f"{duration:g}s",
               "--timeout", f"{timeout:g}s", "-s", str(WRK_SCRIPT), "-H", f"Accept: {accept}", *extra, full]
    out = subprocess.run(command, capture_output=True, text=True, timeout=duration + timeout + 30).stdout
    match = re.search(r"^WRK_JSON (\{.*\})\s*$", out, re.M)
    if not match:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    stats = json.loads(match.group(1))
    requests, seconds = stats["requests"], stats["duration_us"] / 1e6
    non2xx = stats["status"]
    socket_errors = stats["connect"] + stats["read"] + stats["write"] + stats["timeout"]
    ok = max(0, requests - non2xx)
    latency = {f"p{p}_ms": round(stats[f"p{p}_us"] / 1e3, 3) if ok else None for p in (50, 75, 90, 95, 99)}
    return {"requests": requests, "ok": ok, "non2xx": non2xx, "socket_errors": socket_errors,
            "seconds": seconds, "rps": ok / seconds if seconds else 0.0, "bytes": stats["bytes"], **latency}


def run_capped(url: str, query: str, duration: float, cap: float) -> dict[str, Any]:
    """For a very slow server: sequential requests for at most `duration` s (at least one, each <= cap s)."""
    latencies, errors, started = [], 0, time.monotonic()
    while not latencies or time.monotonic() - started < duration:
        try:
            status, _, seconds = http_query(url, query, timeout=cap)
        except OSError:
            errors += 1
            break
        if status != 200:
            errors += 1
            break
        latencies.append(seconds * 1e3)
        if len(latencies) >= 3:
            break
    elapsed = time.monotonic() - started
    return {"requests": len(latencies) + errors, "ok": len(latencies), "non2xx": errors, "socket_errors": 0,
            "seconds": elapsed, "rps": len(latencies) / elapsed if elapsed else 0.0,
            "p50_ms": statistics.median(latencies) if latencies else None,
            "p95_ms": max(latencies) if latencies else None,
            "p99_ms": max(latencies) if latencies else None, "capped": True}


# ---------------------------------------------------------------------------------------------------------------
# preparation


def fetch(url: str, accept: str, timeout: float) -> tuple[int, str, int, float]:
    """GET url: (status, content type, body bytes, seconds)."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept}), timeout=timeout) as r:
            body, status, kind = r.read(), r.status, r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        body, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, kind, len(body), time.perf_counter() - started


