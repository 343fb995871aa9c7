"""Contact parts of a header line: email, profile links (labels, bare URLs), homepage, ORCID, a place."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .places import is_address, is_place
from .prose import PROFILE_LINKS, find_email

SEGMENT = re.compile(r"\s+[|·•]\s+|\s*[｜]\s*|\s{2,}")
_URL = re.compile(r"^(?:https?://)?(?:www\.)?((?:[\w-]+\.)+[a-z]{2,})(/\S*)?$", re.I)
_ORCID = re.compile(r"^(?:ORCID(?:\s*iD)?\s*[:：]?\s*)?(?:https?://orcid\.org/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", re.I)
_LABELLED = re.compile(r"^(?:web(?:site)?|homepage|home page|url|web page)\s*[:：]\s*", re.I)
SERVICES = {"scholar.google.com": "Google Scholar", "github.com": "GitHub", "linkedin.com": "LinkedIn",
            "twitter.com": "Twitter", "x.com": "X", "dblp.org": "DBLP", "dblp.uni-trier.de": "DBLP",
            "orcid.org": "ORCID", "semanticscholar.org": "Semantic Scholar", "researchgate.net": "ResearchGate",
            "bsky.app": "Bluesky", "openreview.net": "OpenReview", "youtube.com": "YouTube", "zhihu.com": "Zhihu",
            "gitlab.com": "GitLab", "huggingface.co": "Hugging Face"}
_EMOJI = re.compile(r"^[\U0001F300-\U0001FAFF\u2600-\u27BF\u2709\uFE0F\s]+")


@dataclass
class Contact:
    """What the contact segments of one line hold, and the rest of the line."""

    email: str | None = None
    obfuscated: bool = False
    links: list[tuple[str, str | None]] = field(default_factory=list)
    homepage: str | None = None
    orcid: str | None = None
    places: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)

    def found(self) -> bool:
        """Whether the line held any contact detail."""
        return bool(self.email or self.links or self.homepage or self.orcid or self.places)


def service_url(text: str) -> tuple[str, str] | None:
    """(label, absolute URL) for an address of a known profile service ('github.com/ada' -> GitHub)."""
    match = _URL.match(text.strip().rstrip(".,;"))
    if match is None or "@" in text:
        return None
    host = match.group(1).lower()
    label = next((name for domain, name in SERVICES.items() if host == domain or host.endswith("." + domain)),
                 None)
    if label is None:
        return None
    url = text.strip().rstrip(".,;")
    return label, url if re.match(r"https?://", url, re.I) else "https://" + url


def web_address(text: str) -> str | None:
    """A full http(s) address written on its own ('https://www.example.edu/~ada/', 'Homepage: https://...')."""
    text = _LABELLED.sub("", text.strip()).rstrip(".,;")
    return text if re.fullmatch(r"https?://[^\s<>\"]+", text) else None


def labels_of(segment: str) -> list[str] | None:
    """Profile link labels in a segment: 'Google Scholar', '[CV] [GitHub]'; bracketed labels of other kinds
    ('[English]', '[中文主页]') are passed over when the segment is only brackets."""
    bracketed = re.fullmatch(r"(?:\s*\[[^\[\]]+\])+\s*", segment) is not None
    pieces = [p.strip(" []()") for p in re.split(r"\]\s*\[|\s*/\s*|,\s*", segment) if p.strip(" []()")]
    labels = [PROFILE_LINKS.get(p.lower()) for p in pieces]
    if not pieces or (not bracketed and any(label is None for label in labels)):
        return None
    found = [label for label in labels if label]
    return found or None


def read_contact(text: str, urls: dict[str, str], org_like: Callable[[str], bool] | None = None) -> Contact:
    """Split a header line at '·', '|' and wide gaps and take what each segment holds."""
    out = Contact()
    if is_address(text, org_like or (lambda _: False)):
        out.places.append(text)
        return out
    for segment in [s for s in SEGMENT.split(text) if s and s.strip()]:
        segment = segment.strip()
        bare = _EMOJI.sub("", segment).strip()
        email, obfuscated = find_email(segment)
        if email and not out.email and len(segment.split()) <= 10:
            out.email, out.obfuscated = email, obfuscated
            continue
        service = service_url(bare)
        orcid = _ORCID.match(bare)
        if service:
            out.links.append(service)
        elif orcid:
            out.orcid = f"https://orcid.org/{orcid.group(1)}"
        elif web_address(bare):
            out.homepage = out.homepage or web_address(bare)
        elif labels_of(bare):
            for label in labels_of(bare) or []:
                url = urls.get(label.lower()) or urls.get("scholar" if label == "Google Scholar" else label.lower())
                out.links.append((label, url))
        elif is_place(bare, org_like or (lambda _: False)):
            out.places.append(bare)
        else:
            out.rest.append(segment)
    return out
