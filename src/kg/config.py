"""Settings: one table of (name, default, help), read from KG_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BASE = "https://kg.example.org"  # the base IRI entity IRIs are minted under, unless KG_BASE says otherwise


def _resource(name: str) -> Path:
    """A project resource folder (ontology/, shapes/) beside src/, or under the working directory."""
    beside = PROJECT_ROOT / name
    return beside if beside.is_dir() else Path(name)


@dataclass(frozen=True)
class Config:
    """Runtime settings; every field can be set by the environment variable KG_<NAME>."""

    base: str = field(default=DEFAULT_BASE, metadata={"help": "Base IRI under which entity IRIs are minted"})
    data: Path = field(default=Path("data"), metadata={"help": "Data directory (profiles/, organizations.yaml, venues.yaml)"})
    store: Path = field(default=Path(".kg/store"), metadata={"help": "Store location (a symlink to the current version)"})
    store_url: str = field(default="", metadata={"help": "SPARQL query URL of a remote store to build into and serve from (empty: the embedded store)"})
    store_update_url: str = field(default="", metadata={"help": "SPARQL Update URL of the remote store (default: KG_STORE_URL)"})
    store_gsp_url: str = field(default="", metadata={"help": "Graph Store Protocol URL of the remote store (empty: upload with SPARQL Update)"})
    store_user: str = field(default="", metadata={"help": "User name for the remote store"})
    store_password: str = field(default="", repr=False, metadata={"help": "Password for the remote store"})
    store_auth: str = field(default="basic", metadata={"help": "HTTP authentication of the remote store: basic, digest, or bearer (KG_STORE_PASSWORD is the token)"})
    ontology: Path = field(default_factory=lambda: _resource("ontology"), metadata={"help": "Ontology directory (*.ttl)"})
    shapes: Path = field(default_factory=lambda: _resource("shapes"), metadata={"help": "SHACL shapes directory (*.ttl)"})
    query_timeout: float = field(default=30.0, metadata={"help": "Seconds a SPARQL query may run"})
    max_results: int = field(default=100_000, metadata={"help": "Most rows or triples a query may return"})
    max_request_bytes: int = field(default=1_000_000, metadata={"help": "Largest accepted request body or query"})
    max_source_bytes: int = field(default=16_000_000, metadata={"help": "Largest data/ file kg build reads (profiles, organizations.yaml, venues.yaml)"})
    max_import_bytes: int = field(default=5_000_000, metadata={"help": "Largest input file kg import reads"})
    max_record_bytes: int = field(default=32_000_000, metadata={"help": "Largest downloaded record kg build reads (data/records/)"})
    max_field_chars: int = field(default=100_000, metadata={"help": "Longest single text (a title, a name, any JSON string, BibTeX field or XML element text) a record or imported BibTeX file may hold"})
    max_authors: int = field(default=1_000, metadata={"help": "Most authors kept per work of a record or imported BibTeX entry; the rest are left out with a warning"})
    max_parse_seconds: float = field(default=30.0, metadata={"help": "Seconds kg build may spend reading one record file (and kg import one BibTeX file) before refusing it"})
    source_precedence: str = field(default="profile,orcid,dblp,crossref,datacite,openalex,wikidata,bibtex,ris,csl", metadata={"help": "Which source's value the default graph shows where sources disagree, first wins"})
    cors_origins: str = field(default="*", metadata={"help": "Access-Control-Allow-Origin for query endpoints ('' disables CORS)"})
    public_hosts: str = field(default="", metadata={"help": "Host names this server answers as, comma-separated (host, host:port, or .domain for its subdomains); a request naming another Host gets 400 (empty: any well-formed host). Absolute URLs (sitemap, robots.txt, VoID) are built from Host"})
    query_workers: int = field(default=2, metadata={"help": "Worker processes that run queries (0: run in the web thread, no time limit)"})
    store_in_memory: bool = field(default=False, metadata={"help": "Query workers copy the store into memory (about 1.3x on joins, 700 MB each at 1M triples)"})
    max_pending: int = field(default=16, metadata={"help": "Queries running or waiting at once before 503 Retry-After"})
    query_allocator: str = field(default="auto", metadata={"help": "Memory allocator preloaded into query workers: auto (jemalloc when installed, about 5-10 % faster joins and aggregates), system, or a library path"})
    query_memory_mb: int = field(default=1024, metadata={"help": "Megabytes a query may add to its worker process before it is stopped (0: no limit)"})
    queue_wait: float = field(default=5.0, metadata={"help": "Seconds a query waits for a free query worker before 503 Retry-After"})
    fast_lane_timeout: float = field(default=1.0, metadata={"help": "Seconds a query may run on the reserve worker when every other worker is busy (0: no reserve worker)"})
    html_rows: int = field(default=1000, metadata={"help": "Most rows or triples shown on an HTML results page (the full result by format links)"})
    header_timeout: float = field(default=10.0, metadata={"help": "Seconds a client may take to send its request headers (kg serve)"})
    access_log: bool = field(default=False, metadata={"help": "Write an access log line per request (kg serve; off by default, it cost about 11 % of a cheap query)"})
    cache_bytes: int = field(default=64_000_000, metadata={"help": "Bytes of query results kept in the result cache (0 disables it)"})
    page_cache_bytes: int = field(default=32_000_000, metadata={"help": "Bytes of rendered pages and RDF documents kept per web worker, keyed by data version (0 disables it)"})
    gzip_min_bytes: int = field(default=1024, metadata={"help": "Smallest text response body sent gzip-compressed to clients that send Accept-Encoding: gzip (0: never compress)"})
    response_cache_bytes: int = field(default=32_000_000, metadata={"help": "Bytes of whole responses to repeat GETs of /sparql, /page/ and /data/ kept per web worker and answered before Flask runs (0 disables it)"})
    search_index: bool = field(default=True, metadata={"help": "Write a full-text search index (SQLite FTS5) into every local store version: builds and HTTP writes; /search and kg:matches use it"})
    search_max_results: int = field(default=1000, metadata={"help": "Most matches one search ranks and counts in its facets, and the most IRIs one kg:matches pattern puts in a SPARQL query"})
    search_max_chars: int = field(default=200, metadata={"help": "Longest search text accepted by /search, /search/suggest and kg:matches (400 beyond)"})
    search_timeout: float = field(default=1.0, metadata={"help": "Seconds one search may read the index before it is stopped (503)"})
    write_token: str = field(default="", repr=False, metadata={"help": "Bearer token that enables writes (SPARQL Update, Graph Store PUT/POST/DELETE); empty: read-only"})
    write_timeout: float = field(default=120.0, metadata={"help": "Seconds one write may take (waiting for the write lock included) before its worker process is stopped; nothing is changed, 503"})
    write_memory_mb: int = field(default=2048, metadata={"help": "Megabytes one write may add to its worker process before it is stopped; nothing is changed, 503 (0: no limit)"})
    max_update_operations: int = field(default=64, metadata={"help": "Most operations (joined by ';') one SPARQL Update request may hold (413 beyond)"})
    max_update_triples: int = field(default=20_000, metadata={"help": "Most asserted triples one write may add and remove together (413 beyond; bulk changes belong in data/ and kg build)"})
    contact_email: str = field(default="", metadata={"help": "Contact e-mail kg fetch sends in its User-Agent (and as Crossref's mailto, for the polite pool)"})
    openalex_key: str = field(default="", repr=False, metadata={"help": "OpenAlex API key (api_key); kg fetch needs it for openalex: identifiers"})
    orcid_api: str = field(default="https://pub.orcid.org/v3.0", metadata={"help": "Base URL of the ORCID public API v3.0 (kg fetch)"})
    openalex_api: str = field(default="https://api.openalex.org", metadata={"help": "Base URL of the OpenAlex API (kg fetch)"})
    dblp_api: str = field(default="https://dblp.org", metadata={"help": "Base URL of dblp (kg fetch reads /pid/{pid}.xml)"})
    crossref_api: str = field(default="https://api.crossref.org", metadata={"help": "Base URL of the Crossref REST API (kg fetch)"})
    datacite_api: str = field(default="https://api.datacite.org", metadata={"help": "Base URL of the DataCite REST API (kg fetch, for DOIs Crossref does not know)"})
    wikidata_api: str = field(default="https://www.wikidata.org/wiki/Special:EntityData", metadata={"help": "Base URL of Wikidata's entity data (kg fetch reads /Q….json)"})
    ror_api: str = field(default="https://api.ror.org/v2", metadata={"help": "Base URL of the ROR API v2 (kg fetch)"})
    fetch_timeout: float = field(default=30.0, metadata={"help": "Seconds kg fetch waits to connect, and for the whole of one response"})
    fetch_retries: int = field(default=5, metadata={"help": "Times kg fetch retries one request after a 429, a 5xx, a timeout or a cut-off body"})
    fetch_backoff: float = field(default=1.0, metadata={"help": "Seconds kg fetch waits before its first retry; each further retry waits twice as long, up to KG_FETCH_MAX_WAIT"})
    fetch_max_wait: float = field(default=120.0, metadata={"help": "Longest wait kg fetch accepts before a retry (backoff cap, and the longest Retry-After it honours)"})
    fetch_max_bytes: int = field(default=32_000_000, metadata={"help": "Largest response kg fetch reads (as KG_MAX_RECORD_BYTES for the build)"})
    orcid_rate: float = field(default=12.0, metadata={"help": "Requests per second kg fetch sends to the ORCID API (a token bucket)"})
    orcid_burst: int = field(default=40, metadata={"help": "Requests kg fetch may send to the ORCID API at once before KG_ORCID_RATE applies"})

    @property
    def precedence(self) -> tuple[str, ...]:
        """The source systems in order of preference (KG_SOURCE_PRECEDENCE; 'profile' is curated YAML)."""
        return tuple(s.strip() for s in self.source_precedence.split(",") if s.strip())

    @property
    def remote(self) -> bool:
        """Whether a remote SPARQL store is configured (KG_STORE_URL): the one place embedded vs remote is decided."""
        return bool(self.store_url)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Config:
        """Defaults, overridden by KG_* environment variables, overridden by explicit values."""
        environ = dict(os.environ) if environ is None else environ
        defaults = cls()
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = environ.get(f"KG_{f.name.upper()}")
            if raw is not None:
                values[f.name] = _convert(raw, getattr(defaults, f.name))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)


    def environment(self) -> dict[str, str]:
        """These settings as KG_* environment variables, which from_env reads back as they are (for child processes)."""
        return {f"KG_{f.name.upper()}": str(getattr(self, f.name)) for f in fields(self)}


def _convert(raw: str, default: Any) -> Any:
    """An environment string converted to the type of a setting's default."""
    if isinstance(default, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    return type(default)(raw)


def settings_table() -> list[tuple[str, str, str]]:
    """(environment variable, default, help) for every setting, for the docs."""
    defaults = Config()
    return [(f"KG_{f.name.upper()}", str(getattr(defaults, f.name)), f.metadata["help"]) for f in fields(Config)]
