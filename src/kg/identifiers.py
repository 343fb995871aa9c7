"""External identifiers (DOI, ORCID, dblp, Wikidata, OpenAlex, ROR, ...): normalised, checked, and their IRIs.

Each scheme has one normal form, and two identifiers are the same thing exactly when their normal forms are
equal: a DOI lower-cased without any resolver prefix, an ORCID iD as four groups of digits with an upper-case
X check character (MOD 11-2 checked), a dblp person id as `95/7448-1`, a Wikidata item as `Q42`, an OpenAlex
id as `A5044224796` (letter upper-case), a ROR id as its 9-character suffix.

>>> normalize("doi", "https://doi.org/10.7554/eLife.01567")
'10.7554/elife.01567'
>>> normalize("orcid", "https://orcid.org/0000-0002-1694-233x")
'0000-0002-1694-233X'
>>> normalize("orcid", "0000-0002-1694-2338") is None
True
>>> iri("wikidata", "Q44782775")
'http://www.wikidata.org/entity/Q44782775'
>>> from_iri("https://dblp.org/pid/95/7448-1")
('dblp', '95/7448-1')
"""

from __future__ import annotations

import re
from collections.abc import Callable

SCHEMES = ("doi", "orcid", "dblp", "dblp-record", "wikidata", "openalex", "ror", "isni", "grid", "scholar", "arxiv",
           "pmid", "pmcid", "ringgold", "issn")
SCHEME_LABELS = {"doi": "DOI", "orcid": "ORCID iD", "dblp": "dblp person id", "dblp-record": "dblp record key",
                 "wikidata": "Wikidata item", "openalex": "OpenAlex id", "ror": "ROR id", "isni": "ISNI",
                 "grid": "GRID id", "scholar": "Google Scholar id", "arxiv": "arXiv id", "pmid": "PubMed id",
                 "pmcid": "PubMed Central id", "ringgold": "Ringgold id", "issn": "ISSN"}
IRI_PREFIXES = {  # the outward IRI of an identifier is prefix + normal form
    "doi": "https://doi.org/",
    "orcid": "https://orcid.org/",
    "dblp": "https://dblp.org/pid/",
    "dblp-record": "https://dblp.org/rec/",
    "wikidata": "http://www.wikidata.org/entity/",
    "openalex": "https://openalex.org/",
    "ror": "https://ror.org/",
    "isni": "https://isni.org/isni/",
    "grid": "https://www.grid.ac/institutes/",
    "scholar": "https://scholar.google.com/citations?user=",
    "arxiv": "https://arxiv.org/abs/",
    "pmid": "https://pubmed.ncbi.nlm.nih.gov/",
    "pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/",
}
_IRI_FORMS = (  # other IRIs that name the same identifiers
    ("doi", ("http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:")),
    ("orcid", ("http://orcid.org/", "https://sandbox.orcid.org/", "http://sandbox.orcid.org/")),
    ("dblp", ("http://dblp.org/pid/", "https://dblp.uni-trier.de/pid/", "https://dblp.org/pers/")),
    ("dblp-record", ("http://dblp.org/rec/", "https://dblp.uni-trier.de/rec/")),
    ("wikidata", ("https://www.wikidata.org/entity/", "https://www.wikidata.org/wiki/", "http://wikidata.org/entity/")),
    ("openalex", ("http://openalex.org/", "https://api.openalex.org/", "https://openalex.org/authors/",
                  "https://openalex.org/works/", "https://openalex.org/institutions/")),
    ("ror", ("http://ror.org/",)),
    ("isni", ("http://isni.org/isni/", "https://isni.org/", "http://www.isni.org/isni/")),
)


def orcid_check_character(digits: str) -> str:
    """The ISO 7064 MOD 11-2 check character of the first 15 digits of an ORCID iD."""
    total = 0
    for digit in digits:
        total = (total + int(digit)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def _doi(text: str) -> str | None:
    text = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", text.strip(), flags=re.I)
    return text.lower() if re.fullmatch(r"10\.\d{4,9}/\S+", text) else None


def _orcid(text: str) -> str | None:
    text = re.sub(r"^https?://(?:sandbox\.)?orcid\.org/", "", text.strip(), flags=re.I)
    compact = text.replace("-", "").upper()
    if not re.fullmatch(r"\d{15}[\dX]", compact) or orcid_check_character(compact[:15]) != compact[15]:
        return None
    return "-".join(compact[i:i + 4] for i in range(0, 16, 4))


def _dblp(text: str) -> str | None:
    text = re.sub(r"^https?://dblp\.(?:org|uni-trier\.de)/pid/", "", text.strip())
    text = re.sub(r"\.(?:html|xml|rdf|nt|ttl)$", "", text)
    return text if re.fullmatch(r"(?:[0-9a-z]+/[0-9A-Za-z_-]+(?:-\d+)?|[a-z]/[A-Za-z0-9_=:.-]+)", text) else None


def _dblp_record(text: str) -> str | None:
    text = re.sub(r"^https?://dblp\.(?:org|uni-trier\.de)/rec/", "", text.strip())
    text = re.sub(r"\.(?:html|xml|rdf|nt|ttl|bib)$", "", text)
    return text if re.fullmatch(r"[A-Za-z]+(?:/[\w.+-]+){1,3}", text) else None


def _wikidata(text: str) -> str | None:
    text = re.sub(r"^https?://(?:www\.)?wikidata\.org/(?:entity|wiki)/", "", text.strip())
    return text.upper() if re.fullmatch(r"[Qq][1-9]\d*", text) else None


def _openalex(text: str) -> str | None:
    text = re.sub(r"^https?://(?:api\.)?openalex\.org/(?:(?:authors|works|institutions|sources|funders)/)?", "",
                  text.strip(), flags=re.I)
    return text.upper() if re.fullmatch(r"[WwAaIiSsFfPpCcTt]\d+", text) else None


def _ror(text: str) -> str | None:
    text = re.sub(r"^https?://ror\.org/", "", text.strip(), flags=re.I).lower()
    return text if re.fullmatch(r"0[a-hj-km-np-tv-z0-9]{6}\d{2}", text) else None


def _isni(text: str) -> str | None:
    text = re.sub(r"^https?://(?:www\.)?isni\.org/(?:isni/)?", "", text.strip(), flags=re.I)
    compact = re.sub(r"[\s-]", "", text).upper()
    return compact if re.fullmatch(r"\d{15}[\dX]", compact) else None


def _pattern(regex: str, strip: str = "", upper: bool = False) -> Callable[[str], str | None]:
    def normal(text: str) -> str | None:
        text = re.sub(strip, "", text.strip(), flags=re.I) if strip else text.strip()
        text = text.upper() if upper else text
        return text if re.fullmatch(regex, text) else None
    return normal


_NORMALIZERS: dict[str, Callable[[str], str | None]] = {
    "doi": _doi, "orcid": _orcid, "dblp": _dblp, "dblp-record": _dblp_record, "wikidata": _wikidata,
    "openalex": _openalex, "ror": _ror, "isni": _isni,
    "grid": _pattern(r"grid\.\d+\.[0-9a-f]+", r"^https?://(?:www\.)?grid\.ac/institutes/"),
    "scholar": _pattern(r"[\w-]{12}", r"^https?://scholar\.google\.[a-z.]+/citations\?(?:.*&)?user="),
    "arxiv": _pattern(r"(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", r"^(?:https?://arxiv\.org/abs/|arxiv:)"),
    "pmid": _pattern(r"\d{1,9}", r"^https?://pubmed\.ncbi\.nlm\.nih\.gov/|/$"),
    "pmcid": _pattern(r"PMC\d+", r"^https?://www\.ncbi\.nlm\.nih\.gov/pmc/articles/|/$", upper=True),
    "ringgold": _pattern(r"\d{1,8}"),
    "issn": _pattern(r"\d{4}-\d{3}[\dX]", upper=True),
}


def normalize(scheme: str, text: str) -> str | None:
    """The normal form of an identifier of a scheme, or None when the text is not a valid one."""
    if scheme not in _NORMALIZERS:
        raise ValueError(f"unknown identifier scheme {scheme!r}")
    return _NORMALIZERS[scheme](text) if isinstance(text, str) else None


def iri(scheme: str, value: str) -> str | None:
    """The outward IRI of a normalised identifier (None for schemes without one, such as ISSN)."""
    prefix = IRI_PREFIXES.get(scheme)
    return prefix + value if prefix else None


def from_iri(text: str) -> tuple[str, str] | None:
    """(scheme, normal form) of an identifier IRI such as https://orcid.org/…, or None for any other IRI."""
    text = text.strip()
    for scheme, prefix in IRI_PREFIXES.items():
        if text.startswith(prefix):
            value = normalize(scheme, text[len(prefix):])
            return (scheme, value) if value else None
    for scheme, prefixes in _IRI_FORMS:
        for prefix in prefixes:
            if text.lower().startswith(prefix.lower()):
                value = normalize(scheme, text[len(prefix):])
                return (scheme, value) if value else None
    return None


def looks_like(text: str) -> str | None:
    """The scheme an identifier IRI claims to be of (by its prefix), valid or not; None for other IRIs."""
    lowered = text.strip().lower()
    for scheme, prefix in IRI_PREFIXES.items():
        if lowered.startswith(prefix.lower()):
            return scheme
    for scheme, prefixes in _IRI_FORMS:
        if any(lowered.startswith(p.lower()) for p in prefixes):
            return scheme
    return None
