"""Shared fixtures: the seed corpus, mapped graphs, a built store, the app; and the no-network guard."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from rdflib import Graph
from rdflib.compare import graph_diff, to_isomorphic

from kg.config import PROJECT_ROOT, Config
from kg.iris import Minter

REPO_DATA = PROJECT_ROOT / "data"
SEEDS = PROJECT_ROOT.parent / "shared" / "seeds"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any outbound connection that is not to this machine."""
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in LOCAL_HOSTS:
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

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
def corpus():  # type: ignore[no-untyped-def]
    """The repository's data/ parsed into the profile model."""
    from kg.parsing import parse_corpus
    from kg.sources import read_data_dir

    return parse_corpus(read_data_dir(REPO_DATA))


@pytest.fixture(scope="session")
def mapped(corpus, minter):  # type: ignore[no-untyped-def]
    """The asserted graphs of the repository's data."""
    from kg.mapping import map_corpus

    return map_corpus(corpus, minter)


@pytest.fixture(scope="session")
def asserted(mapped) -> Graph:  # type: ignore[no-untyped-def]
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
def store(built_store_dir: Path):  # type: ignore[no-untyped-def]
    """The built store, opened read-only."""
    from kg.store import Store

    return Store.open(built_store_dir)


@pytest.fixture()
def app(built_store_dir: Path):  # type: ignore[no-untyped-def]
    """The Flask app over the built store."""
    from kg.server import create_app

    application = create_app(Config(data=REPO_DATA, store=built_store_dir, query_workers=0))
    application.config["TESTING"] = True
    return application


@pytest.fixture()
def client(app):  # type: ignore[no-untyped-def]
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
