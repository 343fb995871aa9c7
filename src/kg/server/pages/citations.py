"""BibTeX for reference managers: /bib/person/… (the person's publications, newest first) and /bib/work/… (one),
built from the records their pages show (kg.server.pages.pictures), LaTeX-encoded, capitals in titles braced."""

from __future__ import annotations

import re
from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response as BaseResponse

from ...iris import ascii_folded
from ...namespaces import BIBO_IRIS as B
from ...namespaces import KG_IRIS as K
from ...namespaces import SCHEMA_IRIS as S
from ..floor.caches import versioned
from ..floor.handle import get_config, get_store
from ..floor.links import iri_for
from .entries import entry_kind
from .moved import missing
from .pictures import publication, publications
from .prefetch import prefetch
from .resources import BIBTEX_TYPE, Reader

bp = Blueprint("citations", __name__)
STOPWORDS = frozenset("a an the on of in for to and with at by from towards toward via".split())
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")


def citation_key(record: dict[str, Any], taken: set[str]) -> str:
    """The first author's last name, the year, the first title word that is not a stop word (chen2018tvm); a
    letter added while the key is taken."""
    names = record["authors"][0]["label"].split() if record["authors"] else []
    family = ascii_folded(names[-1]).lower() if names else "anon"
    words = [w for w in (ascii_folded(m).lower() for m in _WORD.findall(record["label"]))
             if w not in STOPWORDS and any(c.isalpha() for c in w)]
    stem = re.sub(r"[^a-z0-9]", "", family) + str(record["year"] or "") + re.sub(r"[^a-z]", "", words[0] if words
                                                                                else "")
    key, suffix = stem or "untitled", ord("a")
    while key in taken:
        key, suffix = f"{stem}{chr(suffix)}", suffix + 1
    taken.add(key)
    return key


def _braced(title: str) -> str:
    """Brace the words whose capitals a bibliography style must keep (TVM, MegaScale, GPUs)."""
    return _WORD.sub(lambda m: f"{{{m.group(0)}}}" if any(c.isupper() for c in m.group(0)[1:]) else m.group(0), title)


def entry_fields(reader: Reader, record: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    """The entry type and fields of one publication record."""
    names = [a["label"] for a in record["authors"]]
    if not record["complete"] or any(a["elided_before"] for a in record["authors"]):
        names.append("others")
    fields = [("title", record["label"])] + ([("author", " and ".join(names))] if names else [])  # a reference entry
    if record["year"]:
        fields.append(("year", str(record["year"])))
    venue = record["venue"]
    preprint = record["status"].casefold() == "preprint"
    kind = entry_kind(record)
    if venue is not None:
        fields.append(({"misc": "howpublished", "inproceedings": "booktitle", "article": "journal"}[kind],
                       venue["label"]))
    if record.get("doi"):
        fields.append(("doi", record["doi"]["value"]))
    if record.get("url"):
        fields.append(("url", record["url"]))
    if preprint:
        fields.append(("note", "Preprint"))
    return kind, fields


def bibtex(reader: Reader, records: list[dict[str, Any]]) -> str:
    """The records as a BibTeX file."""
    from bibtexparser import middlewares, model  # the import costs the web workers memory only when asked for BibTeX
    from bibtexparser.entrypoint import write_string
    from bibtexparser.library import Library

    library = Library()
    taken: set[str] = set()
    for record in records:
        kind, fields = entry_fields(reader, record)
        library.add(model.Entry(kind, citation_key(record, taken), [model.Field(k, v) for k, v in fields]))
    library = middlewares.LatexEncodingMiddleware().transform(library)
    for entry in library.entries:
        entry["title"] = _braced(entry["title"])
    return str(write_string(library))


@bp.route("/bib/<path:path>", methods=["GET"])
@versioned(lambda path: ("bib", False))
def citations(path: str) -> BaseResponse:
    """BibTeX of a person's publications or of one work (kept per data version with the pages, ETag and 304)."""
    config = get_config()
    reader = Reader(get_store(), config.base)
    iri = iri_for(config.base, path)
    prefetch(reader, iri)
    if not reader.exists(iri):
        return missing(reader.store, config.base, path)
    node, types = ox.NamedNode(iri), reader.types(iri)
    if S.Person in types:
        records = publications(reader, node)
    elif S.ScholarlyArticle in types or B.AcademicArticle in types or K.UnattributedWork in types:
        records = [publication(reader, node)]
    else:
        raise NotFound(f"<{iri}> is neither a person nor a publication; /bib/ serves those two")
    response = Response(bibtex(reader, records), content_type=f"{BIBTEX_TYPE}; charset=utf-8")
    response.headers["Content-Disposition"] = f'inline; filename="{path.rsplit("/", 1)[-1]}.bib"'
    return response


__all__ = ["bibtex", "bp", "citation_key"]
