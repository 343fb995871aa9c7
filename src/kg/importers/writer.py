"""Write a draft profile as YAML in the data/profiles format, with source lines and review notes as comments."""

from __future__ import annotations

import json
import re
import textwrap
from functools import lru_cache
from typing import Any

import yaml

from .records import Draft, Item

PROFILE_KEYS = ["name", "given_name", "family_name", "other_names", "title", "affiliation", "email", "homepage",
                "same_as", "summary", "research_areas", "links", "projects", "experience", "education", "metrics",
                "publications"]
FLOW_ITEMS = {"other_names", "links", "projects", "metrics"}
ENTRY_KEYS = {
    "experience": ["role", "organizations", "start", "end", "current", "duration_as_written", "description"],
    "education": ["degree", "degree_name", "field", "focus", "institution", "department", "partner", "start", "end",
                  "completed", "advisors", "advisor_label", "lab", "worked_with"],
    "publications": ["title", "authors", "venue", "venue_as_written", "year", "status", "notes", "awards", "links"],
}
FLOW_LISTS = {"organizations", "notes", "awards", "worked_with", "links"}
WIDTH = 110


def scalar(value: Any, flow: bool = False) -> str:
    """A YAML scalar: plain when it reads back unchanged, else double-quoted.

    >>> scalar("TuX²: Distributed Graph Computation"), scalar("2024"), scalar("Ziheng Jiang*"), scalar(None)
    ('"TuX²: Distributed Graph Computation"', '"2024"', 'Ziheng Jiang*', 'null')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _text_scalar(str(value), flow)


_SURELY_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 .'()/&-]*[A-Za-z0-9.)]")  # no indicator, ': ', ' #' or ','
_YAML_WORDS = {"yes", "no", "y", "n", "on", "off", "true", "false", "null"}


@lru_cache(maxsize=4096)
def _text_scalar(text: str, flow: bool) -> str:
    """A text as a plain scalar when PyYAML's pure-Python loader (the strictest reader) reads it back unchanged
    (words, numbers inside and plain punctuation are known to without asking the loader)."""
    if _SURELY_PLAIN.fullmatch(text) and "  " not in text and text.lower() not in _YAML_WORDS:
        return text
    probe = f"k: [{text}]" if flow else f"k: {text}"
    try:
        expected = {"k": [text] if flow else text}
        if text and text == text.strip() and "#" not in text and yaml.safe_load(probe) == expected:
            return text
    except yaml.YAMLError:
        pass
    return json.dumps(text, ensure_ascii=False)


def _flow_map(mapping: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {scalar(v, flow=True)}" for k, v in mapping.items()) + "}"


def _flow_list(values: list[Any]) -> str:
    return "[" + ", ".join(_flow_map(v) if isinstance(v, dict) else scalar(v, flow=True) for v in values) + "]"


def _comments(indent: str, item: Item, with_span: bool = True) -> list[str]:
    out = []
    span = item.span()
    notes = item.notes
    if with_span and span:
        out.append(f"{indent}# {span}" + (f" ({'; '.join(notes)})" if notes else ""))
    elif notes:
        out.append(f"{indent}# {'; '.join(notes)}")
    out += [f"{indent}# review: {review}" for review in item.reviews]
    return [line for comment in out for line in _wrap(comment, indent)]


def _wrap(comment: str, indent: str) -> list[str]:
    if len(comment) <= WIDTH:
        return [comment]
    body = comment[len(indent) + 2:]
    return textwrap.wrap(body, WIDTH - len(indent) - 2, initial_indent=f"{indent}# ",
                         subsequent_indent=f"{indent}#   ", break_long_words=False, break_on_hyphens=False)


def _entry(key: str, value: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    order = ENTRY_KEYS[key] + [k for k in value if k not in ENTRY_KEYS[key]]
    first = True
    for field in order:
        if field not in value or value[field] is None or value[field] == []:
            continue
        lead = "  - " if first else "    "
        first = False
        data = value[field]
        if field == "authors":
            lines.append(f"{lead}authors:")
            lines += [f"      - {_flow_map(a) if isinstance(a, dict) else scalar(a)}" for a in data]
        elif field == "advisors":
            lines.append(f"{lead}advisors:")
            lines += [f"      - {_flow_map(a)}" for a in data]
        elif isinstance(data, list):
            lines.append(f"{lead}{field}: {_flow_list(data)}")
        else:
            lines.append(f"{lead}{field}: {scalar(data)}")
    return lines


def render(draft: Draft) -> str:
    """The YAML text of a draft: fields in the documented order, comments for provenance, notes at the end."""
    out = list(draft.header)
    for key in PROFILE_KEYS:
        if key in draft.fields:
            item = draft.fields[key]
            out += [line for r in item.reviews for line in _wrap(f"# review: {r}", "")]
            out += [line for n in item.notes for line in _wrap(f"# {n}", "")]
            span = item.span()
            out.append(f"{key}: {scalar(item.value)}" + (f"  # {span}" if span else ""))
        elif draft.lists.get(key):
            out.append(f"{key}:")
            for item in draft.lists[key]:
                if key in FLOW_ITEMS or not isinstance(item.value, dict):
                    out += _comments("  ", item, with_span=False)
                    text = _flow_map(item.value) if isinstance(item.value, dict) else scalar(item.value)
                    span = item.span()
                    out.append(f"  - {text}" + (f"  # {span}" if span else ""))
                else:
                    out += _comments("  ", item)
                    out += _entry(key, item.value)
    notes = [("left out", item) for item in draft.left_out] + [("", item) for item in draft.unparsed]
    if notes:
        out.append("")
    for label, item in notes:
        text = item.value if isinstance(item.value, str) else _describe(item)
        head = f"# {label} ({item.span()}): " if label else f"# {text.split(': ', 1)[0]} ({item.span()}): "
        body = text if label else text.split(": ", 1)[1] if ": " in text else text
        reasons = f" [{'; '.join(item.reviews)}]" if label and item.reviews else ""
        out += _wrap(head + body + reasons, "")
    return "\n".join(out) + "\n"


def _describe(item: Item) -> str:
    value = item.value or {}
    parts = []
    for key, data in value.items():
        if data:
            parts.append(f"{key}: {', '.join(map(str, data)) if isinstance(data, list) else data}")
    return "; ".join(parts) or "(nothing recognised)"


def data_of(draft: Draft) -> dict[str, Any]:
    """The plain data the YAML text holds, to check the text reads back to it."""
    data: dict[str, Any] = {}
    for key in PROFILE_KEYS:
        if key in draft.fields:
            data[key] = draft.fields[key].value
        elif draft.lists.get(key):
            data[key] = [item.value if key in FLOW_ITEMS else _drop_empty(item.value) for item in draft.lists[key]]
    return data


def _drop_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if v is not None and v != []}
    return value
