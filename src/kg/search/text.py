"""Search text: words folded as FTS5's unicode61 tokenizer folds them, match expressions, edit distance."""

from __future__ import annotations

import re
import unicodedata

TOKENIZER = "unicode61 remove_diacritics 2"
_WORD = re.compile(r"[^\W_]+")
MIN_PREFIX = 2  # a shorter last word is matched whole, not as a prefix (one letter would match most of the index)


def fold(text: str) -> str:
    """Text lower-cased with its diacritics removed, as the index folds it.

    >>> fold("José Müller-Øster")
    'jose muller-øster'
    """
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The folded words of a text (letters and digits; punctuation and FTS5 syntax separate words).

    >>> words('ML "compilers" AND José*')
    ['ml', 'compilers', 'and', 'jose']
    """
    return _WORD.findall(fold(text))


def word_count(text: str) -> int:
    """How many words a text holds (as FTS5 counts them for bm25's length; nothing is folded).

    >>> word_count("TVM: An End-to-End Compiler")
    6
    """
    return len(_WORD.findall(text))


def phrase(word: str, prefix: bool = False) -> str:
    """One word as an FTS5 string (quoted, so no word is read as an operator), optionally as a prefix."""
    return '"' + word.replace('"', '""') + '"' + ("*" if prefix and len(word) >= MIN_PREFIX else "")


def match_expression(terms: list[list[str]], any_term: bool = False) -> str:
    """An FTS5 MATCH expression: each inner list is one word (matched as a prefix) and its corrections (matched
    whole), OR-ed; the words are AND-ed, or OR-ed with any_term.

    >>> match_expression([["ml"], ["compilres", "compilers"]])
    '"ml"* AND ("compilres"* OR "compilers")'
    """
    parts = []
    for alternatives in terms:
        options = [phrase(alternatives[0], True)] + [phrase(word) for word in alternatives[1:]]
        parts.append(options[0] if len(options) == 1 else "(" + " OR ".join(options) + ")")
    return (" OR " if any_term else " AND ").join(parts)


def trigrams(word: str) -> set[str]:
    """The three-letter pieces of a word padded with one space each side (a short word still has some).

    >>> sorted(trigrams("gpu"))
    [' gp', 'gpu', 'pu ']
    """
    padded = f" {word} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


def edit_distance(a: str, b: str, bound: int) -> int:
    """The optimal-string-alignment distance (insert, delete, substitute, swap two neighbours) between two words,
    or bound + 1 once it is sure to exceed bound.

    >>> edit_distance("compilres", "compilers", 2), edit_distance("jose", "jesus", 1)
    (1, 2)
    """
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    before: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if before is not None and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        before, previous = previous, current
    return min(previous[-1], bound + 1)


def typo_bound(word: str) -> int:
    """How many edits a word may be from the indexed word it is taken for: none under 4 letters, 1 under 8, else 2."""
    return 0 if len(word) < 4 else 1 if len(word) < 8 else 2
