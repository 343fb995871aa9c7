"""Shared fixtures: the seed corpus, mapped graphs, a built store, the app; and the no-network guard."""

from __future__ import annotations

import inspect
import socket
import types
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from rdflib import Graph
from rdflib.compare import graph_diff, to_isomorphic

from kg.config import PROJECT_ROOT, Config
from kg.iris import Minter

from .shared import shared_path

if TYPE_CHECKING:
    from flask import Flask
    from flask.testing import FlaskClient

    from kg.mapping import MappedGraphs
    from kg.model import Corpus
    from kg.store import Store

REPO_DATA = PROJECT_ROOT / "data"
SEEDS = shared_path("seeds")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any outbound connection that is not to this machine."""
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: Any) -> object:
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in LOCAL_HOSTS:
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)


def count_store_calls(app: Any, methods: tuple[str, ...] = ("quads_for_pattern", "query")) -> dict[str, int]:
    """Count the calls the app makes from now on to the given methods of its current store."""
    store = app.extensions["kg"].get()
    calls = {"n": 0}
    for name in methods:
        original = getattr(store, name)

        def wrapped(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            calls["n"] += 1
            return _original(*args, **kwargs)
        setattr(store, name, wrapped)
    return calls


def assert_isomorphic(actual: Graph, expected: Graph) -> None:
    """Assert two graphs are isomorphic, printing the triples only in one of them."""
    if to_isomorphic(actual) == to_isomorphic(expected):
        return
    _, only_actual, only_expected = graph_diff(actual, expected)
    lines = ["graphs differ", "only in actual:"] + sorted(f"  {t}" for t in only_actual)
    lines += ["only in expected:"] + sorted(f"  {t}" for t in only_expected)
    raise AssertionError("\n".join(lines))


@pytest.fixture(scope="session")
def minter() -> Minter:
    """The default IRI minter."""
    return Minter()


@pytest.fixture(scope="session")
def config() -> Config:
    """Default configuration pointing at the repository's data."""
    return Config(data=REPO_DATA)


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """The repository's data/ parsed into the profile model."""
    from kg.parsing import parse_corpus
    from kg.sources import read_data_dir

    return parse_corpus(read_data_dir(REPO_DATA))


@pytest.fixture(scope="session")
def mapped(corpus: Corpus, minter: Minter) -> MappedGraphs:
    """The asserted graphs of the repository's data."""
    from kg.mapping import map_corpus

    return map_corpus(corpus, minter)


@pytest.fixture(scope="session")
def asserted(mapped: MappedGraphs) -> Graph:
    """All asserted triples of the repository's data in one graph."""
    merged = Graph()
    for graph in mapped.graphs.values():
        merged += graph
    return merged


@pytest.fixture(scope="session")
def ontology(config: Config) -> Graph:
    """The project ontology."""
    from kg.turtle_files import load_turtle_dir

    return load_turtle_dir(config.ontology)


@pytest.fixture(scope="session")
def shapes(config: Config) -> Graph:
    """The SHACL shapes."""
    from kg.turtle_files import load_turtle_dir

    return load_turtle_dir(config.shapes)


@pytest.fixture(scope="session")
def built_store_dir(tmp_path_factory: pytest.TempPathFactory, config: Config) -> Path:
    """A store built once from the repository's data (do not modify it)."""
    from kg.pipeline import build

    store_dir = tmp_path_factory.mktemp("built") / "store"
    build(Config(data=REPO_DATA, store=store_dir))
    return store_dir


@pytest.fixture(scope="session")
def store(built_store_dir: Path) -> Store:
    """The built store, opened read-only."""
    from kg.store import Store

    return Store.open(built_store_dir)


@pytest.fixture()
def app(built_store_dir: Path) -> Flask:
    """The Flask app over the built store."""
    from kg.server import create_app

    application = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0))
    application.config["TESTING"] = True
    return application


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    """A test client for the app."""
    return app.test_client()


@pytest.fixture()
def store_free_data() -> Path:
    """The repository's data directory (for commands that need no store)."""
    return REPO_DATA
from .engines import oxigraph_engine, virtuoso_engine  # noqa: E402,F401 (external SPARQL engine fixtures for all tests)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many W3C SHACL Core tests the Oxigraph engine ran natively, when they ran."""
    from .shacl_suite import NATIVE

    total = sum(NATIVE.values())
    if total:
        terminalreporter.write_line(f"W3C SHACL Core suite: {NATIVE['oxigraph']} of {total} tests ran natively "
                                    f"(the Oxigraph engine), {NATIVE['pyshacl']} fell back to pyshacl")


# --- the `real` tier ------------------------------------------------------------------------------------------------
# A test is `real` when it starts real processes: a `kg serve` (tests/server_process.py), Chromium (playwright),
# Virtuoso or Oxigraph (tests/engines.py), a subprocess CLI run, or a kill -9. `pytest -m "not real"` leaves them out
# for quick iteration; plain `pytest` (scripts/test.sh, CI) runs everything. The mark is applied here, from the code
# a test and its fixtures run, so that a new test using these helpers cannot forget it; a module may also say
# `pytestmark = pytest.mark.real`. Tests marked `slow` (a real-size workload in this process: many builds of the
# repository, training the line model; 5 s or more each) are `real` too, so that `not real` stays quick.

TESTS_DIR = Path(__file__).resolve().parent
# Names whose use (a global, or an attribute such as subprocess.run or os.killpg) means a process is started or killed.
REAL_NAMES = frozenset({
    "subprocess", "Popen", "kg_serve", "kg_serve_process", "sync_playwright", "async_playwright",
    "start_oxigraph", "start_virtuoso", "oxigraph", "virtuoso", "kill", "killpg",
    "QueryPool",  # the query worker processes (python -m kg.query.worker)
})
# Fixtures that start processes (tests/engines.py's engines; playwright's browser in tests/test_browser.py).
REAL_FIXTURES = frozenset({"oxigraph_engine", "virtuoso_engine", "browser"})


def _in_tests(func: Callable[..., Any]) -> bool:
    """Whether the function is defined in tests/ (only that code is read for process starts)."""
    code = getattr(func, "__code__", None)
    return code is not None and Path(code.co_filename).resolve().is_relative_to(TESTS_DIR)


def _code_starts_processes(code: types.CodeType, namespace: dict[str, Any], seen: set[types.CodeType]) -> bool:
    """Whether the code (its nested functions, and the tests/ functions it names, transitively) uses REAL_NAMES."""
    if code in seen:
        return False
    seen.add(code)
    for name in code.co_names:
        if name in REAL_NAMES:
            return True
        target = namespace.get(name)
        if callable(target) and _starts_processes(target, seen):  # a helper in tests/ (seen through decorators)
            return True
    return any(isinstance(const, types.CodeType) and _code_starts_processes(const, namespace, seen)
               for const in code.co_consts)


def _starts_processes(func: Callable[..., Any], seen: set[types.CodeType]) -> bool:
    """Whether the function, when defined in tests/, starts processes (see _code_starts_processes)."""
    try:
        func = inspect.unwrap(func)
    except ValueError:  # a cycle of __wrapped__
        return False
    if not inspect.isfunction(func) or not _in_tests(func):
        return False
    return _code_starts_processes(func.__code__, func.__globals__, seen)


def is_real(item: pytest.Item) -> bool:
    """Whether the test, or a fixture it uses, starts real processes."""
    fixturenames = set(getattr(item, "fixturenames", ()))
    if fixturenames & REAL_FIXTURES:
        return True
    seen: set[types.CodeType] = set()
    function = getattr(item, "function", None)
    if function is not None and _starts_processes(function, seen):
        return True
    fixtureinfo = getattr(item, "_fixtureinfo", None)
    definitions = fixtureinfo.name2fixturedefs if fixtureinfo is not None else {}
    return any(name in fixturenames and _starts_processes(fixturedef.func, seen)
               for name, fixturedefs in definitions.items() for fixturedef in fixturedefs)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that starts real processes `real` (see above)."""
    for item in items:
        if item.get_closest_marker("real") is None and (item.get_closest_marker("slow") is not None or is_real(item)):
            item.add_marker(pytest.mark.real)
