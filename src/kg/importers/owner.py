"""The page's owner in its own author lists: variants of the name pinned to the profile's person (same_as)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .names import _reorder, script_lang, split_marks
from .records import Draft, Item

FULL, INITIALS = "full name", "initials"
_TRANSLITERATION = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe", "å": "aa"})


def _foldings(text: str) -> set[str]:
    """Case-folded forms of a name without diacritics, one per transliteration ('José' -> 'jose'; 'Jürgen' ->
    'jurgen', 'juergen')."""
    out = set()
    for form in (text.casefold(), text.casefold().translate(_TRANSLITERATION)):
        plain = "".join(ch for ch in unicodedata.normalize("NFKD", form) if not unicodedata.combining(ch))
        out.add(" ".join(re.sub(r"[^\w\s]|_", " ", plain).split()))
    return out


def _given_match(written: list[str], given: list[str]) -> str | None:
    """FULL when the given names as written are the owner's (a middle name may be left out), INITIALS when they
    are only initials of them, else None."""
    if written == given or "".join(written) == "".join(given):
        return FULL
    if len(written) == 1 and 2 <= len(written[0]) <= 3 and written[0] == "".join(g[0] for g in given):
        return INITIALS  # 'MK' in 'Okonkwo-Lindqvist MK'
    if not written or len(written) > len(given):
        return None
    for token, owner in zip(written, given, strict=False):
        if token != owner and not (len(token) == 1 and owner.startswith(token)):
            return None
    return FULL if any(len(t) > 1 and t == g for t, g in zip(written, given, strict=False)) else INITIALS


def owner_form(author: str, name: str, family: str | None, other_names: list[str]) -> str | None:
    """How an author entry (marks removed) names the owner: FULL, INITIALS or None.

    >>> owner_form("M. Okonkwo-Lindqvist", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [])
    'initials'
    >>> owner_form("Zhang Wei", "Wei Zhang", None, []), owner_form("张伟", "Wei Zhang", None, ["张伟"])
    ('full name', 'full name')
    >>> owner_form("Mira Okonkwo", "Mira Okonkwo-Lindqvist", "Okonkwo-Lindqvist", [])
    """
    if script_lang(author):
        return FULL if author.replace(" ", "") in {o.replace(" ", "") for o in other_names} else None
    if "," in author:
        author = _reorder(author)
    tokens = name.split()
    family = family or (tokens[-1] if len(tokens) >= 2 else None)
    if family is None or not name.endswith(family):
        return None
    given_text = name[: -len(family)].strip()
    best = None
    for written in _foldings(author):
        words = written.split()
        for owner_family in _foldings(family):
            fam = owner_family.split()
            for given in _foldings(given_text):
                given_words = given.split()
                n = len(fam)
                for rest in ((words[:-n] if words[-n:] == fam else None), (words[n:] if words[:n] == fam else None)):
                    form = _given_match(rest, given_words) if rest is not None else None
                    if form == FULL:
                        return FULL
                    best = best or form
    return best


def pin_owner(draft: Draft, profile_id: str) -> None:
    """Write the owner's entry of each author list as {name: <as written>, same_as: <profile id>} when it is not
    the profile's name as written; at most one per publication, review-marked when unsure."""
    name = " ".join(str(draft.value("name") or "").split())
    if not name:
        return
    family = draft.value("family_name")
    others = [str(item.value.get("name")) for item in draft.items("other_names") if isinstance(item.value, dict)]
    for item in draft.items("publications"):
        authors = item.value.get("authors") if isinstance(item.value, dict) else None
        if authors:
            _pin(item, authors, name, family, others, profile_id)


def _pin(item: Item, authors: list[Any], name: str, family: str | None, others: list[str], profile_id: str) -> None:
    matches: list[tuple[int, str, str]] = []  # (index, form, name as written)
    for index, entry in enumerate(authors):
        if not isinstance(entry, str):
            continue
        bare = " ".join(split_marks(entry)[0].split())
        form = "same" if bare == name else owner_form(bare, name, family, others)
        if form:
            matches.append((index, form, bare))
    if not matches:
        return
    exact = [m for m in matches if m[1] == "same"]
    if exact:
        if len(matches) > 1:
            rest = ", ".join(f"'{m[2]}'" for m in matches if m is not exact[0])
            item.reviews.append(f"{rest} also looks like the profile's person, who is '{name}' in this author list; "
                                "check that these are different people")
        return
    best = min(matches, key=lambda m: (m[1] != FULL, m[0]))
    index, form, bare = best
    authors[index] = {"name": authors[index], "same_as": profile_id}
    if len(matches) > 1:
        rest = ", ".join(f"'{m[2]}'" for m in matches if m is not best)
        item.reviews.append(f"author '{bare}' is pinned to the profile's person (same_as), but {rest} looks like "
                            "them too; keep same_as on the right one (at most one author per publication)")
    elif form == INITIALS:
        item.reviews.append(f"author '{bare}' is pinned to the profile's person (same_as) on initials and family "
                            "name only; if it is someone else, write it as a plain name")
