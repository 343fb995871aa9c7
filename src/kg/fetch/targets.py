"""What kg fetch is asked for: identifiers written `scheme:value` (or as their IRIs), or those a profile names."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import BadIdentifier
from ..identifiers import SCHEME_LABELS, from_iri, normalize
from ..parsing import parse_profile
from ..sources import read_yaml

FETCHED = ("orcid", "dblp", "openalex", "doi", "wikidata", "ror")  # the schemes kg fetch can fetch
EXAMPLES = "orcid:0000-0002-1825-0097, dblp:95/7448-1, openalex:A5044224796, doi:10.7554/elife.01567, " \
           "wikidata:Q44782775, ror:02mhbdp94"
PROFILE_SCHEMES = ("orcid", "dblp", "wikidata", "openalex")  # followed from a profile's same_as


@dataclass(frozen=True, order=True)
class Target:
    """One identifier to fetch, in its normal form."""

    scheme: str
    value: str

    def __str__(self) -> str:
        return f"{self.scheme}:{self.value}"


def parse_target(text: str) -> Target:
    """A `scheme:value` identifier (or an identifier IRI such as https://orcid.org/…), checked."""
    raw = text.strip()
    found = from_iri(raw) if raw.startswith(("http://", "https://")) else None
    if found is not None and found[0] in FETCHED:
        return Target(*found)
    scheme, _, value = raw.partition(":")
    scheme = scheme.strip().lower()
    if not value or scheme not in FETCHED:
        raise BadIdentifier(f"{text!r} is not an identifier kg fetch can fetch; write scheme:value, such as "
                            f"{EXAMPLES}")
    normal = normalize(scheme, value)
    if normal is None:
        hint = " (its check digit is wrong)" if scheme == "orcid" else ""
        raise BadIdentifier(f"{text!r} is not a valid {SCHEME_LABELS.get(scheme, scheme)}{hint}; check it at the "
                            f"source, and write it as in {EXAMPLES}")
    if scheme == "openalex" and normal[0] not in "AW":
        raise BadIdentifier(f"{text!r}: kg fetch fetches OpenAlex authors (A…) and works (W…), not other entities")
    return Target(scheme, normal)


def profile_targets(path: Path) -> list[Target]:
    """The ORCID, dblp, Wikidata and OpenAlex identifiers in a profile's same_as, in order."""
    profile = parse_profile(read_yaml(path, str(path)))
    found: list[Target] = []
    for link in profile.same_as:
        ident = from_iri(link)
        if ident is not None and ident[0] in PROFILE_SCHEMES and Target(*ident) not in found:
            found.append(Target(*ident))
    if not found:
        raise BadIdentifier(f"{path}: same_as names no ORCID, dblp, Wikidata or OpenAlex identifier, so there is "
                            "nothing to fetch; add one (e.g. https://orcid.org/0000-…), or name identifiers on the "
                            "command line")
    return found
