"""Real external SPARQL 1.1 stores for the tests: the Oxigraph server and OpenLink Virtuoso.

Each engine runs as its own process on free 127.0.0.1 ports, with its own files in a temporary
directory, and is stopped by its PID (its own process group: SIGTERM, then SIGKILL after a timeout),
never by name. The session-scoped fixtures `oxigraph_engine` and `virtuoso_engine` yield a started
`Engine`; `clear(engine)` empties one between tests. Where an engine cannot be started (binary
missing, start-up failure) the fixture skips with the reason, except under CI=true where it fails.

Oxigraph (PyPI `oxigraph`, the `oxigraph` binary)::

    oxigraph serve --location DIR --bind 127.0.0.1:PORT

  query  http://127.0.0.1:PORT/query   update http://127.0.0.1:PORT/update
  GSP    http://127.0.0.1:PORT/store   (?graph=IRI or ?default); no authentication.
  The default graph is the real default graph (not the union of named graphs) unless the server
  runs with --union-default-graph or a query carries the `union-default-graph` URL parameter.

Virtuoso (Debian `virtuoso-opensource`, the `virtuoso-t` binary, 7.2.5 on Debian 12)::

    virtuoso-t +configfile DIR/virtuoso.ini +foreground

  with the virtuoso.ini written by `virtuoso_ini` (own database files in DIR, own free ISQL
  ServerPort and HTTP ServerPort on 127.0.0.1, DirsAllowed limited to DIR, no result-row or
  time limits), then the dba password is changed from the default "dba" to VIRTUOSO_PASSWORD with
  `isql-vt PORT dba dba exec="set password dba ...;"`.

  query  http://127.0.0.1:PORT/sparql                   (anonymous, read-only: the SPARQL user)
  update http://127.0.0.1:PORT/sparql-auth              (HTTP digest, realm "SPARQL", user dba)
  GSP    http://127.0.0.1:PORT/sparql-graph-crud-auth   (HTTP digest, user dba; ?graph=IRI)
  The anonymous /sparql endpoint refuses updates (HTTP 500, "SR186: SECURITY: No permission to
  execute procedure DB.DBA.SPARQL_INSERT_DICT_CONTENT"): no GRANT SPARQL_UPDATE TO "SPARQL" is done.
  Virtuoso keeps system graphs (http://www.openlinksw.com/schemas/virtrdf# holds its own
  quad-map metadata; http://www.w3.org/ns/ldp#, http://localuriqaserver/sparql, ...): `clear`
  drops only the graphs that were not there right after start-up, never DROP ALL / CLEAR ALL.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from requests.auth import AuthBase, HTTPBasicAuth, HTTPDigestAuth

from .server_process import free_port

VIRTUOSO_USER = "dba"
VIRTUOSO_PASSWORD = "kgtest8dba"  # not the default "dba"; set at start-up through isql
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0


@dataclass
class Engine:
    """Where and how to reach a running SPARQL 1.1 store."""

    name: str
    query_url: str
    update_url: str
    gsp_url: str
    user: str = ""
    password: str = ""
    auth: str = ""  # "" | "basic" | "digest"
    # Graphs present right after start-up that `clear` must leave alone (Virtuoso's system graphs).
    system_graphs: frozenset[str] = field(default_factory=frozenset)
    startup_seconds: float = 0.0

    def http_auth(self) -> AuthBase | None:
        """The requests auth object for the update and GSP endpoints, or None."""
        if self.auth == "basic":
            return HTTPBasicAuth(self.user, self.password)
        if self.auth == "digest":
            return HTTPDigestAuth(self.user, self.password)
        return None

    def session(self) -> requests.Session:
        """A requests session that authenticates to the update and GSP endpoints.

        Digest auth costs a 401 round trip on the first request of a connection; a session keeps
        the nonce and the keep-alive connection.
        """
        session = requests.Session()
        session.auth = self.http_auth()
        return session


def engine_unavailable(reason: str) -> None:
    """Skip the test with the reason, or fail it under CI=true where every engine must run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"SPARQL engine cannot run on CI: {reason}", pytrace=False)
    pytest.skip(reason)


def ask_ok(query_url: str, timeout: float = 2.0) -> bool:
    """Whether the endpoint answers `ASK {}` with a boolean result."""
    try:
        response = requests.get(query_url, params={"query": "ASK {}"},
                                headers={"Accept": "application/sparql-results+json"}, timeout=timeout)
        return response.status_code == 200 and "boolean" in response.json()
    except (requests.RequestException, ValueError):
        return False


def stop_process(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """Stop a process started in its own session by its PID: SIGTERM its group, SIGKILL after timeout."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until_ready(process: subprocess.Popen[bytes], query_url: str, log: Path, name: str,
                     timeout: float = START_TIMEOUT) -> None:
    """Poll ASK {} until the engine answers; raise with its log when it exits or times out."""
    deadline = time.monotonic() + timeout
    while not ask_ok(query_url):
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not answer ASK within {timeout}s:\n{log.read_text(errors='replace')}")
        time.sleep(0.1)


# --- Oxigraph ---------------------------------------------------------------------------------

def oxigraph_binary() -> str | None:
    """The `oxigraph` server binary (PyPI package `oxigraph`), or None."""
    return shutil.which("oxigraph")


@contextmanager
def oxigraph(workdir: Path) -> Iterator[tuple[Engine, int]]:
    """Run `oxigraph serve` on a free port with its store in workdir until the block ends."""
    binary = oxigraph_binary()
    if binary is None:
        raise FileNotFoundError("the oxigraph binary is missing (pip install oxigraph, in the test extra)")
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = workdir / "oxigraph.log"
    started = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen(
            # no --timeout-s: with it, Oxigraph 0.5.13 keeps a thread per query alive for the whole timeout
            # and fails every request after some 16,000 queries ("thread spawn error")
            [binary, "serve", "--location", str(workdir / "store"), "--bind", f"127.0.0.1:{port}"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until_ready(process, f"{base}/query", log, "oxigraph")
        engine = Engine(name="oxigraph", query_url=f"{base}/query", update_url=f"{base}/update",
                        gsp_url=f"{base}/store", startup_seconds=time.monotonic() - started)
        yield engine, process.pid
    finally:
        stop_process(process)


def start_oxigraph(workdir: Path) -> tuple[Engine, int]:
    """Start Oxigraph; returns the engine and its PID. Stop it with `stop_pid`."""
    return _start(oxigraph(workdir))


# --- Virtuoso ---------------------------------------------------------------------------------

def virtuoso_binaries() -> tuple[str, str] | None:
    """(virtuoso-t, isql) from Debian's virtuoso-opensource, or None when missing."""
    server = shutil.which("virtuoso-t")
    isql = shutil.which("isql-vt") or shutil.which("isql-v")
    if server is None or isql is None:
        return None
    return server, isql


def virtuoso_ini(workdir: Path, sql_port: int, http_port: int) -> str:
    """A virtuoso.ini confined to workdir and 127.0.0.1, with no SPARQL row or time limits."""
    d = workdir
    return f"""\
[Database]
DatabaseFile       = {d}/virtuoso.db
ErrorLogFile       = {d}/virtuoso.log
LockFile           = {d}/virtuoso.lck
TransactionFile    = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel      = 7
FileExtend         = 200
MaxCheckpointRemap = 2000
Striping           = 0
TempStorage        = TempDatabase

[TempDatabase]
DatabaseFile       = {d}/virtuoso-temp.db
TransactionFile    = {d}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping           = 0

[Parameters]
ServerPort               = 127.0.0.1:{sql_port}
DisableUnixSocket        = 1
DisableTcpSocket         = 0
MaxClientConnections     = 10
CheckpointInterval       = 60
O_DIRECT                 = 0
CaseMode                 = 2
MaxStaticCursorRows      = 5000
AllowOSCalls             = 0
DirsAllowed              = {d}
ThreadCleanupInterval    = 0
ThreadThreshold          = 10
ResourcesCleanupInterval = 0
NumberOfBuffers          = 20000
MaxDirtyBuffers          = 15000
MaxQueryMem              = 1G

[HTTPServer]
ServerPort                  = 127.0.0.1:{http_port}
ServerRoot                  = {d}/vsp
MaxClientConnections        = 10
DavRoot                     = DAV
EnabledDavVSP               = 0
HTTPProxyEnabled            = 0
ServerThreads               = 10
MaxKeepAlives               = 10
KeepAliveTimeout            = 10
Charset                     = UTF-8
EnabledGzipContent          = 0

[Client]
SQL_QUERY_TIMEOUT = 0
SQL_TXN_TIMEOUT   = 0

[SPARQL]
; Debian's defaults are ResultSetMaxRows = 10000 (SELECT results silently cut there, CONSTRUCT
; and INSERT/DELETE ... WHERE fail past it), MaxQueryCostEstimationTime = 400 and
; MaxQueryExecutionTime = 60 (partial "anytime" results). Generous limits for the tests:
ResultSetMaxRows           = 100000000
MaxConstructTriples        = 100000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime      = 600
"""


def isql(isql_binary: str, sql_port: int, password: str, statement: str) -> str:
    """Run one SQL statement through Virtuoso's isql as dba; raise on an error."""
    result = subprocess.run([isql_binary, f"127.0.0.1:{sql_port}", VIRTUOSO_USER, password, f"exec={statement}"],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    if result.returncode != 0 or "*** Error" in result.stdout + result.stderr:
        raise RuntimeError(f"isql {statement!r} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result.stdout


@contextmanager
def virtuoso(workdir: Path) -> Iterator[tuple[Engine, int]]:
    """Run our own virtuoso-t (own ini, database and ports) in the foreground until the block ends."""
    binaries = virtuoso_binaries()
    if binaries is None:
        raise FileNotFoundError("virtuoso-t or isql-vt is missing (apt-get install virtuoso-opensource)")
    server, isql_binary = binaries
    workdir = workdir.resolve()
    (workdir / "vsp").mkdir(parents=True, exist_ok=True)
    sql_port, http_port = free_port(), free_port()
    while http_port == sql_port:
        http_port = free_port()
    ini = workdir / "virtuoso.ini"
    ini.write_text(virtuoso_ini(workdir, sql_port, http_port))
    base = f"http://127.0.0.1:{http_port}"
    log = workdir / "virtuoso-stdout.log"
    started = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen([server, "+configfile", str(ini), "+foreground"], cwd=workdir,
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    try:
        wait_until_ready(process, f"{base}/sparql", log, "virtuoso-t")
        isql(isql_binary, sql_port, "dba", f"set password dba {VIRTUOSO_PASSWORD};")
        engine = Engine(name="virtuoso", query_url=f"{base}/sparql", update_url=f"{base}/sparql-auth",
                        gsp_url=f"{base}/sparql-graph-crud-auth", user=VIRTUOSO_USER,
                        password=VIRTUOSO_PASSWORD, auth="digest")
        engine.system_graphs = frozenset(graphs(engine))
        engine.startup_seconds = time.monotonic() - started
        yield engine, process.pid
    finally:
        stop_process(process)


def start_virtuoso(workdir: Path) -> tuple[Engine, int]:
    """Start Virtuoso; returns the engine and its PID. Stop it with `stop_pid`."""
    return _start(virtuoso(workdir))


# --- plain start/stop by PID for callers that do not use the context managers -------------------

_RUNNING: dict[int, AbstractContextManager[tuple[Engine, int]]] = {}


def _start(manager: AbstractContextManager[tuple[Engine, int]]) -> tuple[Engine, int]:
    engine, pid = manager.__enter__()
    _RUNNING[pid] = manager
    return engine, pid


def stop_pid(pid: int) -> None:
    """Stop an engine started by `start_oxigraph` / `start_virtuoso` (by its PID)."""
    manager = _RUNNING.pop(pid)
    manager.__exit__(None, None, None)


# --- helpers on a running engine --------------------------------------------------------------

def graphs(engine: Engine) -> set[str]:
    """The IRIs of the non-empty named graphs of the engine."""
    # GROUP BY, not DISTINCT: on Virtuoso 7.2.5 `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }` scans
    # slowly (12 s at 30,000 triples) while the GROUP BY form answers in milliseconds.
    response = requests.post(engine.query_url, data={"query": "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"},
                             headers={"Accept": "application/sparql-results+json"}, timeout=60)
    response.raise_for_status()
    return {row["g"]["value"] for row in response.json()["results"]["bindings"]}


def update(engine: Engine, text: str, session: requests.Session | None = None) -> requests.Response:
    """POST a SPARQL Update (form-encoded `update=`) with the engine's credentials; raise on an error."""
    poster = session or engine.session()
    response = poster.post(engine.update_url, data={"update": text}, timeout=120)
    if response.status_code >= 300:
        raise RuntimeError(f"{engine.name} update failed ({response.status_code}): {response.text[:2000]}")
    return response


def clear(engine: Engine) -> None:
    """Empty the engine between tests.

    Oxigraph: `DROP ALL` (the default graph and every named graph). Virtuoso: `DROP SILENT GRAPH`
    for every graph that was not there right after start-up (its system graphs stay), then
    `CLEAR DEFAULT` is not needed: Virtuoso has no separate default graph, its default graph is
    the union of all graphs.
    """
    if engine.name == "virtuoso":
        doomed = sorted(graphs(engine) - engine.system_graphs)
        if doomed:
            update(engine, " ;\n".join(f"DROP SILENT GRAPH <{g}>" for g in doomed))
    else:
        update(engine, "DROP ALL")


# --- pytest fixtures (registered for all tests through tests/conftest.py) -------------------------

@pytest.fixture(scope="session")
def oxigraph_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A running Oxigraph server for the whole session (skips locally, fails on CI, when missing)."""
    if oxigraph_binary() is None:
        engine_unavailable("the oxigraph binary is missing (pip install oxigraph, in the test extra)")
    try:
        manager = oxigraph(tmp_path_factory.mktemp("oxigraph"))
        engine, _ = manager.__enter__()
    except Exception as error:  # noqa: BLE001 - reported as the skip/fail reason
        engine_unavailable(f"oxigraph did not start: {error}")
    try:
        yield engine
    finally:
        manager.__exit__(None, None, None)


@pytest.fixture(scope="session")
def virtuoso_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A running Virtuoso for the whole session (skips locally, fails on CI, when it cannot start)."""
    if virtuoso_binaries() is None:
        engine_unavailable("virtuoso-t/isql-vt are missing (apt-get install virtuoso-opensource; "
                           "scripts/test.sh does so as root)")
    try:
        manager = virtuoso(tmp_path_factory.mktemp("virtuoso"))
        engine, _ = manager.__enter__()
    except Exception as error:  # noqa: BLE001 - reported as the skip/fail reason
        engine_unavailable(f"virtuoso-t did not start: {error}")
    try:
        yield engine
    finally:
        manager.__exit__(None, None, None)
