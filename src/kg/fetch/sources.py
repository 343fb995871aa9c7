"""One fetcher per kind of identifier: which URLs to ask, which files to write, and which works to follow.

- `orcid:` the full record (`/v3.0/{iD}/record`), then the person's works in full, for their contributor lists:
  one work per group of the record's work summaries (the first, preferred summary, as the record reader takes it),
  and one per DOI across groups, read through the bulk endpoint (`/v3.0/{iD}/works/{put-code,…}`, at most
  BULK put-codes per call); each full work is its own file, `orcid/{iD}/{put-code}.json`.
- `openalex:` an author (`/authors/A…`) and their works (`/works?filter=author.id:A…`, cursor paging), or one
  work (`/works/W…`); each work is its own file, `openalex/W….json`. Needs KG_OPENALEX_KEY.
- `dblp:` the person page XML (`/pid/{pid}.xml`), `dblp/{pid}.xml`.
- `doi:` Crossref (`/works/{doi}`, with KG_CONTACT_EMAIL as mailto), else DataCite (`/dois/{doi}`) on a 404.
- `wikidata:` the entity JSON (`Special:EntityData/Q….json`); `ror:` the ROR v2 organisation (kept in data/ror/).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..errors import RecordNotFound, SettingError
from ..identifiers import normalize
from .client import Response, shown
from .targets import Target

if TYPE_CHECKING:
    from .fetcher import Fetcher

BULK = 100  # put-codes per ORCID bulk request (the API's limit)
PAGE = 100  # works per OpenAlex page
ORCID_JSON = "application/vnd.orcid+json"


def _millis(value: Any) -> str | None:
    """ORCID's `{"value": epoch milliseconds}` as an ISO 8601 time."""
    found = value.get("value") if isinstance(value, dict) else None
    if not isinstance(found, int):
        return None
    return datetime.fromtimestamp(found / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _dig(document: Any, *keys: str | int) -> Any:
    """The value at a path of keys and indexes, or None."""
    for key in keys:
        if isinstance(key, int):
            document = document[key] if isinstance(document, list) and len(document) > key else None
        else:
            document = document.get(key) if isinstance(document, dict) else None
    return document


def modified(source: str, document: Any, response: Response) -> str | None:
    """The source's own last-modified date of a record, else the response's Last-Modified header."""
    found: Any = None
    if source == "orcid":
        found = _millis(_dig(document, "history", "last-modified-date")) or _millis(
            _dig(document, "last-modified-date"))
    elif source == "openalex":
        found = _dig(document, "updated_date")
    elif source == "crossref":
        found = _dig(document, "message", "deposited", "date-time") or _dig(document, "message", "indexed",
                                                                            "date-time")
    elif source == "datacite":
        found = _dig(document, "data", "attributes", "updated")
    elif source == "wikidata":
        entities = _dig(document, "entities")
        found = next((e.get("modified") for e in entities.values() if isinstance(e, dict)), None) \
            if isinstance(entities, dict) else None
    elif source == "ror":
        found = _dig(document, "admin", "last_modified", "date")
    return str(found) if isinstance(found, str) and found else response.headers.get("last-modified")


def parse_json(body: bytes) -> Any:
    """A JSON body (ValueError when it is cut off or malformed)."""
    return json.loads(body.decode("utf-8"))


def xml_complete(body: bytes) -> None:
    """Refuse an XML body that stops before its root element closes (a cut-off download)."""
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(body, True)
    except xml.parsers.expat.ExpatError as error:
        raise ValueError(f"XML: {xml.parsers.expat.ErrorString(error.code)} at line {error.lineno}") from None


def _missing(target: Target, url: str, fix: str) -> RecordNotFound:
    """The error for a 404: the identifier, the URL and the fix."""
    return RecordNotFound(f"{target}: {url} answers 404 Not Found; {fix}")


# --- ORCID ------------------------------------------------------------------------------------------------------


def orcid(fetcher: Fetcher, target: Target) -> None:
    """The ORCID record, then the full works of its work groups (one per DOI) through the bulk endpoint."""
    api = fetcher.config.orcid_api.rstrip("/")
    name = f"{target.value}.json"
    if fetcher.done("orcid", name):
        record = parse_json(fetcher.records.path("orcid", name).read_bytes())
    else:
        url = f"{api}/{target.value}/record"
        response = fetcher.client.get("orcid", url, accept=ORCID_JSON, check=parse_json)
        if response.status != 200:
            raise _missing(target, url, "check the iD (a deactivated or unclaimed iD has no public record)")
        record = parse_json(response.body)
        fetcher.save("orcid", name, response.body, target, url, modified("orcid", record, response),
                     response=response)
    codes = [c for c in preferred_works(record) if not fetcher.done("orcid", f"{target.value}/{c}.json")]
    for start in range(0, len(codes), BULK):
        chunk = codes[start:start + BULK]
        url = f"{api}/{target.value}/works/{','.join(chunk)}"
        response = fetcher.client.get("orcid", url, accept=ORCID_JSON, check=parse_json)
        if response.status != 200:
            raise _missing(target, url, "the record changed while it was read; run kg fetch again")
        for item in _dig(parse_json(response.body), "bulk") or []:
            work = item.get("work") if isinstance(item, dict) else None
            code = str(_dig(work, "put-code"))
            if code not in chunk:  # an error entry, or a put-code not asked for (never a file name from elsewhere)
                fetcher.note(f"warning: {shown(url)}: ORCID answered an error or an unasked work: "
                             f"{json.dumps(item)[:200]}; it is left out")
                continue
            body = json.dumps(work, indent=1, ensure_ascii=False).encode("utf-8")
            fetcher.save("orcid", f"{target.value}/{code}.json", body, target, f"{api}/{target.value}/work/{code}",
                         _millis(_dig(work, "last-modified-date")), via=url)


def _dois(node: Any) -> list[str]:
    """The normalised DOIs among the `self` external ids of a group or summary."""
    found = []
    for ext in _dig(node, "external-ids", "external-id") or []:
        if (str(_dig(ext, "external-id-type")).lower() == "doi"
                and str(_dig(ext, "external-id-relationship")).lower() == "self"
                and (doi := normalize("doi", str(_dig(ext, "external-id-value"))))):
            found.append(doi)
    return found


def preferred_works(record: Any) -> list[str]:
    """The put-codes of an ORCID record's works: each group's first summary, and one per DOI across groups."""
    seen: set[str] = set()
    codes: list[str] = []
    for group in _dig(record, "activities-summary", "works", "group") or _dig(record, "group") or []:
        summary = _dig(group, "work-summary", 0)
        code = _dig(summary, "put-code")
        if not isinstance(code, int | str) or not str(code).isdigit():
            continue
        dois = set(_dois(group)) | set(_dois(summary))
        if dois & seen:
            continue
        seen |= dois
        codes.append(str(code))
    return codes


# --- OpenAlex ---------------------------------------------------------------------------------------------------


def openalex(fetcher: Fetcher, target: Target) -> None:
    """An OpenAlex work, or an author and all their works (cursor paging)."""
    if not fetcher.config.openalex_key:
        raise SettingError(f"{target}: OpenAlex needs an API key since February 2026; set KG_OPENALEX_KEY (free, "
                           "from https://openalex.org/settings/api) and run kg fetch again")
    api = fetcher.config.openalex_api.rstrip("/")
    kind = "works" if target.value.startswith("W") else "authors"
    name = f"{target.value}.json"
    if not fetcher.done("openalex", name):
        url = f"{api}/{kind}/{target.value}"
        response = fetcher.client.get("openalex", url, check=parse_json)
        if response.status != 200:
            raise _missing(target, url, "check the id (a merged OpenAlex id redirects; an unknown one does not)")
        fetcher.save("openalex", name, response.body, target, url,
                     modified("openalex", parse_json(response.body), response), response=response)
    if kind == "authors":
        _openalex_works(fetcher, target, api)


def _openalex_works(fetcher: Fetcher, target: Target, api: str) -> None:
    """Every work of an OpenAlex author, page by page; the cursor is kept so that a rerun continues."""
    key = f"openalex/{target.value}/works"
    if fetcher.state.is_done(key):
        return
    cursor = fetcher.state.cursor(key) or "*"
    url = f"{api}/works"
    while True:
        params = {"filter": f"author.id:{target.value}", "per-page": str(PAGE), "cursor": cursor}
        response = fetcher.client.get("openalex", url, params=params, check=parse_json)
        if response.status != 200:
            raise _missing(target, shown(url, params), "check the author id")
        page = parse_json(response.body)
        results = [w for w in _dig(page, "results") or [] if isinstance(w, dict) and isinstance(w.get("id"), str)]
        for work in results:
            ident = normalize("openalex", work["id"])
            if ident is None:
                continue
            body = json.dumps(work, indent=1, ensure_ascii=False).encode("utf-8")
            fetcher.save("openalex", f"{ident}.json", body, target, f"{api}/works/{ident}", modified(
                "openalex", work, response), via=shown(url, {k: v for k, v in params.items() if k != "cursor"}))
        following = _dig(page, "meta", "next_cursor")
        if not results or not isinstance(following, str) or not following:
            break
        cursor = following
        fetcher.state.set_cursor(key, cursor)
        fetcher.checkpoint()
    fetcher.state.set_cursor(key, None)
    fetcher.state.mark(key)


# --- one record per identifier ----------------------------------------------------------------------------------


def _single(fetcher: Fetcher, target: Target, source: str, name: str, url: str, accept: str = "application/json",
            fix: str = "check the identifier") -> bool:
    """Fetch one record to one file; False on a 404 (the caller decides), True when written or done before."""
    if fetcher.done(source, name):
        return True
    check = xml_complete if accept.endswith("xml") else parse_json
    response = fetcher.client.get(source, url, accept=accept, check=check)
    if response.status != 200:
        if fix:
            raise _missing(target, url, fix)
        return False
    document = parse_json(response.body) if check is parse_json else None
    fetcher.save(source, name, response.body, target, url, modified(source, document, response), response=response)
    return True


def doi_name(doi: str) -> str:
    """A DOI's file name: its prefix as a folder, the suffix percent-encoded where it is not a plain character."""
    prefix, _, suffix = doi.partition("/")
    return f"{prefix}/{quote(suffix, safe='-._()')}.json"


def doi(fetcher: Fetcher, target: Target) -> None:
    """A DOI's metadata from Crossref, else DataCite."""
    name = doi_name(target.value)
    if fetcher.done("datacite", name):
        return
    crossref = f"{fetcher.config.crossref_api.rstrip('/')}/works/{quote(target.value, safe='/')}"
    if _single(fetcher, target, "crossref", name, crossref, fix=""):
        return
    datacite = f"{fetcher.config.datacite_api.rstrip('/')}/dois/{quote(target.value, safe='/')}"
    if not _single(fetcher, target, "datacite", name, datacite, fix=""):
        raise RecordNotFound(f"{target}: neither Crossref ({crossref}) nor DataCite ({datacite}) knows this DOI "
                             "(both answer 404); check it at https://doi.org/ — DOIs of other agencies (mEDRA, "
                             "JaLC, …) cannot be fetched")


def dblp(fetcher: Fetcher, target: Target) -> None:
    """A dblp person page as XML."""
    url = f"{fetcher.config.dblp_api.rstrip('/')}/pid/{target.value}.xml"
    _single(fetcher, target, "dblp", f"{target.value}.xml", url, "application/xml",
            "check the pid (the part after /pid/ in the person's dblp URL)")


def wikidata(fetcher: Fetcher, target: Target) -> None:
    """A Wikidata entity's JSON."""
    url = f"{fetcher.config.wikidata_api.rstrip('/')}/{target.value}.json"
    _single(fetcher, target, "wikidata", f"{target.value}.json", url, fix="check the QID")


def ror(fetcher: Fetcher, target: Target) -> None:
    """A ROR organisation (v2 schema), kept in data/ror/ for curating organizations.yaml."""
    url = f"{fetcher.config.ror_api.rstrip('/')}/organizations/{target.value}"
    _single(fetcher, target, "ror", f"{target.value}.json", url, fix="check the ROR id")


FETCHERS = {"orcid": orcid, "openalex": openalex, "dblp": dblp, "doi": doi, "wikidata": wikidata, "ror": ror}
