"""Organisations a draft names that data/organizations.yaml does not know: their review mark and the list to curate."""

from __future__ import annotations

import re

from ..resolution import normalize_name
from .records import Draft
from .venues import Reference

# a unit that only makes sense with the institution after it ('Department of Physics')
SUBUNIT = re.compile(r"^(?:the\s+)?(?:department|dept\.?|school|faculty|division|chair)\s+(?:of|for)\b|"
                     r"\b(?:department|dept\.?|division)$", re.I)


def unknown_organizations(draft: Draft, ref: Reference) -> list[str]:
    """The unknown organisations a draft writes, once each in file order: the name, then ', parent' when the page
    names the unit beside its institution ('Department of Physics, University of Nowhere')."""
    found: dict[str, str] = {}

    def note(text: object, parent: object = None) -> None:
        if not isinstance(text, str) or ref.org(text) is not None:
            return
        key = normalize_name(text)
        line = f"{text}, {parent}" if isinstance(parent, str) else text
        if key not in found or (parent and found[key] == text):
            found[key] = line

    note(draft.value("affiliation"))
    for item in draft.items("experience"):
        orgs = list(item.value.get("organizations") or [])
        for i, text in enumerate(orgs):
            later = [o for o in orgs[i + 1:] if not SUBUNIT.search(str(o))]
            note(text, later[0] if later and SUBUNIT.search(str(text)) else None)
    for item in draft.items("education"):
        value = item.value
        for key in ("department", "lab"):
            note(value.get(key), value.get("institution"))
        for key in ("institution", "partner"):
            note(value.get(key))
        for advisor in value.get("advisors") or []:
            note(advisor.get("affiliation"))
    return list(found.values())
