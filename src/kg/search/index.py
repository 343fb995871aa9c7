"""Writing a version's search index: an SQLite file with an FTS5 table, built whole or derived from the last one.

The file, ``search.sqlite`` inside the store version directory, is written before the version becomes current
(kg.store's ``finish`` step, before the symlink swap) and never changed afterwards: a derived version (an
incremental build, an HTTP write) copies its source's file and re-indexes only the entities its change touched.

Tables: ``docs`` (one row per entity: IRI, kind, path, label, detail, year, organisations), ``fts`` (FTS5 over
name, title, topics and context, folded by ``unicode61 remove_diacritics 2``, with prefix indexes), ``terms`` and
``grams`` (the indexed words without digits and their trigrams, for typo correction), ``meta`` (format version).
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..errors import BuildError
from .documents import Document, Facts, affected, all_documents, document
from .text import TOKENIZER, trigrams, word_count

INDEX_FILE = "search.sqlite"
FORMAT = "1"
K1, B = 1.2, 0.75  # FTS5 bm25's constants
logger = logging.getLogger(__name__)

SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE docs(id INTEGER PRIMARY KEY, iri TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, path TEXT NOT NULL,
                  label TEXT NOT NULL, detail TEXT NOT NULL, year INTEGER, orgs TEXT NOT NULL, lift REAL NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(name, title, topics, context, tokenize='{TOKENIZER}', prefix='2 3');
CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, 'row');
CREATE TABLE terms(term TEXT PRIMARY KEY, length INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE grams(gram TEXT NOT NULL, length INTEGER NOT NULL, term TEXT NOT NULL,
                   PRIMARY KEY(gram, length, term)) WITHOUT ROWID;
"""


def counts(doc: Document) -> tuple[int, int]:
    """(words without the context, all words) of a document, as FTS5's bm25 counts a row's length."""
    core = sum(word_count(text) for text in (doc.name, doc.title, doc.topics))
    return core, core + word_count(doc.context)


def lift(core: int, total: int, average: float) -> float:
    """What undoes the context's share of bm25's length normalisation (FTS5 counts a row's words in all columns,
    so a person with many organisations and roles would rank below a bare co-author of the same name): the ratio
    of bm25's denominators for one occurrence with and without the context words."""
    average = max(average, 1.0)
    return (1 + K1 * (1 - B + B * total / average)) / (1 + K1 * (1 - B + B * core / average))


def _insert(connection: sqlite3.Connection, documents: Iterable[Document], average: float) -> int:
    """Add documents (docs and fts rows share the rowid); returns how many."""
    count = 0
    for doc in documents:
        cursor = connection.execute(
            "INSERT INTO docs(iri, kind, path, label, detail, year, orgs, lift) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (doc.iri, doc.kind, doc.path, doc.label, doc.detail, doc.year, "\n".join(doc.orgs),
             lift(*counts(doc), average)))
        connection.execute("INSERT INTO fts(rowid, name, title, topics, context) VALUES (?, ?, ?, ?, ?)",
                           (cursor.lastrowid, doc.name, doc.title, doc.topics, doc.context))
        count += 1
    return count


def _add_terms(connection: sqlite3.Connection) -> None:
    """Record the index's new words (without digits: numbers are not corrected) and their trigrams."""
    new = [row[0] for row in connection.execute(
        "SELECT term FROM vocab WHERE term NOT IN (SELECT term FROM terms)")
        if not any(c.isdigit() for c in row[0])]
    connection.executemany("INSERT INTO terms(term, length) VALUES (?, ?)", ((t, len(t)) for t in new))
    connection.executemany("INSERT OR IGNORE INTO grams(gram, length, term) VALUES (?, ?, ?)",
                           ((g, len(t), t) for t in new for g in trigrams(t)))


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(str(path), isolation_level=None)
    connection.execute("PRAGMA journal_mode=OFF")
    connection.execute("PRAGMA synchronous=OFF")  # the caller flushes the version directory before the swap
    return connection


def write_index(store: ox.Store, target: Path, id_space: str) -> int:
    """Write a fresh index of every entity of a store version into target; returns the documents indexed."""
    started = time.perf_counter()
    target.unlink(missing_ok=True)
    connection = _open(target)
    try:
        connection.executescript(SCHEMA)
        connection.execute("BEGIN")
        documents = list(all_documents(store, id_space))
        average = sum(counts(d)[1] for d in documents) / max(len(documents), 1)
        connection.execute("INSERT INTO meta VALUES ('format', ?), ('id_space', ?), ('average', ?)",
                           (FORMAT, id_space, str(average)))
        count = _insert(connection, documents, average)
        _add_terms(connection)
        connection.execute("COMMIT")
        connection.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    except sqlite3.Error as error:
        raise BuildError(f"cannot write the search index {target}: {error}") from error
    finally:
        connection.close()
    logger.info("search index: %d documents in %.2f s", count, time.perf_counter() - started)
    return count


def derive_index(source: Path, store: ox.Store, target: Path, id_space: str,
                 subjects: Iterable[Any]) -> int:
    """Write target as a copy of the source version's index with the entities the changed subjects touch
    re-indexed from the new store version (a fresh index when the source has none); returns the documents
    re-indexed."""
    known = _meta(source)
    if known.get("format") != FORMAT or known.get("id_space") != id_space:
        return write_index(store, target, id_space)
    shutil.copyfile(source, target)
    iris = sorted(affected(store, subjects, id_space))
    facts = Facts(store)
    connection = _open(target)
    try:
        connection.execute("BEGIN")
        for iri in iris:
            row = connection.execute("SELECT id FROM docs WHERE iri = ?", (iri,)).fetchone()
            if row is not None:
                connection.execute("DELETE FROM fts WHERE rowid = ?", row)
                connection.execute("DELETE FROM docs WHERE id = ?", row)
        count = _insert(connection, (d for d in (document(facts, ox.NamedNode(i), id_space) for i in iris) if d),
                        float(known.get("average", 1.0)))
        _add_terms(connection)
        connection.execute("COMMIT")
    except sqlite3.Error as error:
        raise BuildError(f"cannot write the search index {target}: {error}") from error
    finally:
        connection.close()
    return count


def _meta(path: Path) -> dict[str, str]:
    """An index's meta table (empty when there is no index or it cannot be read)."""
    if not path.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return dict(connection.execute("SELECT key, value FROM meta").fetchall())
        finally:
            connection.close()
    except sqlite3.Error:
        return {}


INDEX_KEY = "index_seconds"  # kg-build.json: the seconds the version's index took


def index_step(id_space: str, metadata: dict[str, object]) -> Callable[[ox.Store, Path], None]:
    """kg.store's finish step of a full version: index it whole, recording the seconds in metadata."""
    def finish(store: ox.Store, directory: Path) -> None:
        started = time.perf_counter()
        write_index(store, directory / INDEX_FILE, id_space)
        metadata[INDEX_KEY] = round(time.perf_counter() - started, 3)
    return finish


def derived_index_step(source: Path, id_space: str, subjects: Iterable[Any],
                       metadata: dict[str, object]) -> Callable[[ox.Store, Path], None]:
    """kg.store's finish step of a version derived from source: re-index what the changed subjects touch."""
    def finish(store: ox.Store, directory: Path) -> None:
        started = time.perf_counter()
        derive_index(source / INDEX_FILE, store, directory / INDEX_FILE, id_space, subjects)
        metadata[INDEX_KEY] = round(time.perf_counter() - started, 3)
    return finish
