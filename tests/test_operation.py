"""Form decoding of protocol requests (kg.server.sparql.operation): the same pairs and errors as urllib's parse_qsl."""

from __future__ import annotations

import random
from urllib.parse import parse_qsl, quote

import pytest

from kg.errors import BadQuery
from kg.server.sparql.operation import MAX_FIELDS, form_pairs, parse_params

PIECES = ["%", "+", "\\", "x", "4", "1", "A", "f", "g", "é", "€", " ", "%2", "%4", "%C3%A9", "%E2%82%AC", "%FF",
          "\\x41", "\\\\", "&", "=", "%25", "%2B", "%26", "%3D", "%5C", "%5Cx41", "%00", "%0A", "\n"]


def urllib_pairs(text: str) -> list[tuple[str, str]] | str:
    try:
        return parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict", max_num_fields=MAX_FIELDS)
    except UnicodeDecodeError:
        return "invalid UTF-8"


def our_pairs(text: str) -> list[tuple[str, str]] | str:
    try:
        return form_pairs(text)
    except UnicodeDecodeError:
        return "invalid UTF-8"


def test_random_form_strings_decode_as_urllib_decodes_them() -> None:
    chooser = random.Random(18)
    for _ in range(20_000):
        text = "".join(chooser.choice(PIECES) for _ in range(chooser.randint(0, 16)))
        assert our_pairs(text) == urllib_pairs(text), repr(text)


def test_a_real_query_string_round_trips() -> None:
    query = 'PREFIX s: <http://schema.org/>\nSELECT ?p WHERE { ?p s:name "Zoë \\"Q\\" 100% + 1" } # & = ;'
    raw = f"query={quote(query)}&default-graph-uri={quote('http://e/g?a=1&b=2', safe='')}&format=json"
    assert parse_params(raw.encode(), "the query string") == {
        "query": [query], "default-graph-uri": ["http://e/g?a=1&b=2"], "format": ["json"]}


def test_errors_are_the_protocol_errors() -> None:
    with pytest.raises(BadQuery, match="not valid UTF-8 once percent-decoded"):
        parse_params(b"query=%FF", "the query string")
    with pytest.raises(BadQuery, match="cannot be read"):
        parse_params(b"&".join([b"a=1"] * (MAX_FIELDS + 1)), "the query string")
