"""The store stage: the embedded pyoxigraph store (kg.store.embedded) or a remote SPARQL 1.1 store
(kg.store.remote, client, push) behind the same interface; open_store picks the configured one."""

from __future__ import annotations

from ..config import Config
from .embedded import (
    METADATA_FILE,
    OPTIMIZE_KEY,
    Store,
    derive_version,
    fsync_tree,
    is_log_graph,
    log_graph_names_of,
    log_graphs,
    rdflib_graph_of,
    store_versions,
    write_store,
)
from .protocol import GraphResult, GraphStore, Queryable, QueryResult, metadata_text, solutions, triple_counts


def open_store(config: Config) -> GraphStore:
    """The configured store: the remote one when KG_STORE_URL is set (kg.store.remote), else the embedded one."""
    if config.remote:
        from .remote import RemoteStore

        return RemoteStore.open(config)
    return Store.open(config.store)


__all__ = ["METADATA_FILE", "OPTIMIZE_KEY", "GraphResult", "GraphStore", "QueryResult", "Queryable", "Store",
           "derive_version", "fsync_tree", "is_log_graph", "log_graph_names_of", "log_graphs",
           "metadata_text", "open_store", "rdflib_graph_of", "solutions", "store_versions", "triple_counts",
           "write_store"]
