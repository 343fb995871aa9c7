"""What a query's answer is made of, shared by the /sparql view and the plain-GET fast path: checks, job, ETag."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ...config import Config
from ...formats import Format
from ...query.results import formats_for
from ...query.wire import QueryJob
from ...search.matches import Hits, expand_matches
from ...sparql_text import check_query, query_form, volatile
from ..floor.caches import QUERY_FORMS
from .operation import Operation

WIRE_FORMATS = {Format.HTML: Format.SPARQL_JSON, Format.JSON_LD: Format.N_TRIPLES}  # what a worker writes for them
NOT_KEPT = "no-store"  # Cache-Control of an answer that changes from run to run (RAND, NOW, UUID...)
# environ key: an error met before Flask ran (kg.server.layers.querypath), raised by the view
RAISED = "kg.sparql.raised"


@dataclass(frozen=True)
class Checked:
    """What the tokens of an accepted query say: its form, and whether its answer changes from run to run."""

    form: str
    volatile: bool


def checked_query(text: str) -> Checked:
    """Refuse what the guard refuses and read the query form and volatility from the tokens (nothing is
    evaluated; cached by the text's digest in a cache bounded in bytes)."""
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    cached = QUERY_FORMS.get(key)
    if cached is not None:
        return Checked(cached[:-1].decode("ascii"), cached.endswith(b"!"))
    check_query(text)
    found = Checked(query_form(text), volatile(text))
    QUERY_FORMS.put(key, found.form.encode("ascii") + (b"!" if found.volatile else b"."))
    return found


def answer_formats(form: str) -> tuple[Format, ...]:
    """The formats a query of this form can be answered in: its result formats, then the HTML query page."""
    return tuple(formats_for(form)) + (Format.HTML,)


def query_job(config: Config, operation: Operation, base_iri: str, fmt: Format, volatile: bool,
              hits: Hits | None = None) -> QueryJob:
    """The job that answers a query operation in a negotiated format (HTML: a preview of the first rows), each
    ``?x kg:matches "text"`` replaced by the search index's hits (kg.search.matches)."""
    return QueryJob(text=expand_matches(operation.text, hits), base_iri=base_iri,
                    default_graphs=operation.default_graphs,
                    named_graphs=operation.named_graphs, dataset=operation.has_dataset,
                    format=WIRE_FORMATS.get(fmt, fmt).name, max_results=config.max_results,
                    timeout=config.query_timeout, preview=config.html_rows if fmt is Format.HTML else 0,
                    volatile=volatile)


def answer_tag(job: QueryJob, version: str) -> str:
    """The strong ETag of a GET query's answer: the data version and a digest of everything else the answer
    depends on (query, dataset, base IRI, format)."""
    digest = hashlib.sha256(repr(job.cache_key("")).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{version}-q{digest}"


__all__ = ["NOT_KEPT", "RAISED", "WIRE_FORMATS", "Checked", "answer_formats", "answer_tag", "checked_query",
           "query_job"]
