"""Read data/ files: YAML with a line number for every field path; never touches the network."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.tokens import ScalarToken

from .errors import Location, SourceError
from .source_files import max_source_bytes, read_limited

FieldPath = tuple[str | int, ...]
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DEPTH = 64  # kg data nests about 5 levels; deeper input would exhaust the composer's recursion


def format_path(path: FieldPath) -> str:
    """Render a field path as publications[2].authors[0]."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


@dataclass
class YamlDocument:
    """A parsed YAML file: its data and the line of each field path."""

    path: Path
    data: Any
    lines: dict[FieldPath, int] = field(default_factory=dict)
    display_path: str = ""
    sha256: str = ""
    written: dict[FieldPath, str] = field(default_factory=dict)  # unquoted true/false words as written (no, on)

    def shown(self, path: FieldPath, value: Any) -> str:
        """A value as the file writes it, for messages: yes/no as written, text quoted, never a Python repr."""
        if isinstance(value, bool):
            return self.written.get(path, str(value).lower())
        if isinstance(value, str):
            return repr(value)
        if isinstance(value, (list, dict)):
            return "a list" if isinstance(value, list) else "a mapping"
        return "nothing" if value is None else str(value)

    def line_of(self, path: FieldPath) -> int | None:
        """Line of the field path, or of its nearest enclosing field."""
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.lines:
                return self.lines[path[:cut]]
        return None

    def location(self, path: FieldPath) -> Location:
        """Location of a field path in this file."""
        return Location(Path(self.display_path or self.path), self.line_of(path), format_path(path))

    def error(self, path: FieldPath, message: str) -> SourceError:
        """A SourceError at a field path of this file."""
        return SourceError(self.location(path), message)


_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_TAG = "tag:yaml.org,2002:"


class _Builder:
    """Turns a composed YAML node tree into Python data, recording lines and refusing duplicate keys.

    Unquoted scalars are typed by kg, not by YAML 1.1's implicit rules: null and true/false words keep their
    meaning and decimal whole numbers become int, while dates, times (12:30), floats, octal, hexadecimal and
    underscored numbers stay the text as written, so no value reaches a field as a date or a silently converted
    number; the typed fields (kg.fields) then say what they expected, with the fix.
    """

    def __init__(self, document: YamlDocument) -> None:
        self.document = document
        self.constructor = SafeConstructor()

    def build(self, node: Node, path: FieldPath) -> Any:
        self.document.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, MappingNode):
            return self._mapping(node, path)
        if isinstance(node, SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        if isinstance(node, ScalarNode):
            return self._scalar(node, path)
        raise self.document.error(path, f"unsupported YAML node {node.tag}")

    def _scalar(self, node: Node, path: FieldPath) -> Any:
        if not node.style and node.tag in (_TAG + "null", _TAG + "bool", _TAG + "int", _TAG + "float",
                                           _TAG + "timestamp", _TAG + "str"):
            kind = node.tag[len(_TAG):]
            if kind == "null":
                return None
            if kind == "bool":
                self.document.written[path] = node.value
                return self.constructor.construct_yaml_bool(node)
            if kind != "int" or not _PLAIN_INT.fullmatch(node.value):
                return str(node.value)
        try:
            if not node.style and node.tag == _TAG + "int":
                return int(node.value)  # a ValueError past Python's digit limit, as for a tagged value
            return self.constructor.construct_object(node, deep=True)
        except ConstructorError as exc:
            problem = f"YAML value refused: {exc.problem}; remove the tag or quote the value"
            raise self.document.error(path, problem) from None
        except ValueError as exc:
            raise self.document.error(path, f"cannot read this value ({exc}); quote it if it is text") from None

    def _mapping(self, node: MappingNode, path: FieldPath) -> dict[str, Any]:
        self.constructor.flatten_mapping(node)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self._scalar(key_node, path)
            key_path = path + (str(key_node.value if isinstance(key_node, ScalarNode) else key),)
            self.document.lines[key_path] = key_node.start_mark.line + 1
            if not isinstance(key, str):
                raise self.document.error(key_path, f"keys must be text, got {key_node.value}; quote it "
                                                    f"(\"{key_node.value}\")")
            if key in result:
                raise self.document.error(key_path, "duplicate key; remove one of the two entries")
            result[key] = self.build(value_node, key_path)
        return result


def _refuse_expansion(text: str, where: Path) -> None:
    """Scan the YAML events (no nodes are built): anchors, aliases and deep nesting are refused before composing."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=LOADER):
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                line = event.start_mark.line + 1
                kind = f"alias *{anchor}" if isinstance(event, AliasEvent) else f"anchor &{anchor}"
                raise SourceError(Location(where, line), f"YAML {kind}: anchors and aliases (&name, *name, "
                                  "<<: *name) are not allowed in kg data; write the value out in full")
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(where, event.start_mark.line + 1)
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:  # PyYAML >= 6.0.4's scanner stops deep flow collections itself, reading ahead
        mark = exc.problem_mark or exc.context_mark
        if "nesting depth" in str(exc.problem) and mark is not None:
            raise _too_deep(where, mark.line + 1) from None
        raise


def _too_deep(where: Path, line: int) -> SourceError:
    """The error for YAML nested past MAX_DEPTH levels."""
    return SourceError(Location(where, line), f"YAML nested more than {MAX_DEPTH} levels deep; kg data needs only a "
                       "few levels, so flatten it")


def _open_quote(exc: yaml.MarkedYAMLError, text: str) -> tuple[int, int] | None:
    """(line, column), 1-based, of the quote that opened a quoted value the error lies in or right after, or None.

    An unclosed quote makes the scanner read on to the next quote character, lines later, where the parser gives
    up: the quoted value it read then ends on the line of the error, but began lines earlier.
    """
    if exc.context == "while scanning a quoted scalar" and exc.context_mark is not None:
        return exc.context_mark.line + 1, exc.context_mark.column + 1
    problem = exc.problem_mark
    if problem is None:
        return None
    last = None
    try:
        for token in yaml.scan(text, Loader=LOADER):
            if (token.start_mark.line, token.start_mark.column) >= (problem.line, problem.column):
                break
            last = token
    except yaml.MarkedYAMLError:
        pass
    if isinstance(last, ScalarToken) and last.style in ('"', "'") and last.end_mark.line == problem.line \
            and last.start_mark.line < problem.line:
        return last.start_mark.line + 1, last.start_mark.column + 1
    return None


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, where: Path) -> SourceError:
    """A YAML syntax error at its line; for an unclosed quote, at the line where the quoted value began."""
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    problem = exc.problem or exc.context or "invalid YAML"
    opened = _open_quote(exc, text)
    if opened is not None:
        gave_up = f"line {line}" if line is not None else "the end of the file"
        return SourceError(Location(where, opened[0]), (
            f"YAML syntax error: the quoted value that begins here (line {opened[0]}, column {opened[1]}) is not "
            f"closed on its line, so YAML read on to {gave_up}, where it gave up ({problem}); close the quote "
            f"on line {opened[0]}, or remove it"))
    return SourceError(Location(where, line), f"YAML syntax error: {problem}; "
                       "check indentation and quote values containing ':' or '#'")


def parse_yaml(text: str, path: Path, display_path: str = "") -> YamlDocument:
    """Parse YAML text into a YamlDocument; syntax errors, aliases and anchors name file and line."""
    where = Path(display_path or path)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    document = YamlDocument(path=path, data=None, display_path=display_path, sha256=digest)
    try:
        _refuse_expansion(text, where)
        node = yaml.compose(text, Loader=LOADER)
        if node is not None:
            document.data = _Builder(document).build(node, ())
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text, where) from None
    except yaml.YAMLError as exc:
        raise SourceError(Location(where), f"YAML error: {exc}") from None
    return document


def read_yaml(path: Path, display_path: str = "", max_bytes: int | None = None) -> YamlDocument:
    """Read and parse one regular YAML file of at most max_bytes (default KG_MAX_SOURCE_BYTES), as UTF-8."""
    limit = max_source_bytes() if max_bytes is None else max_bytes
    raw = read_limited(path, limit, display_path or path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(Location(Path(display_path or path)),
                          f"not valid UTF-8 at byte {exc.start}; save the file as UTF-8") from None
    return parse_yaml(text, path, display_path)


def require_data_dir(root: Path, allow_empty: bool = True) -> None:
    """Raise SourceError when root is no directory, or (unless allow_empty) holds no profile and no record."""
    if not root.is_dir():
        raise SourceError(Location(root), "data directory not found; pass --data DIR")
    if allow_empty:
        return
    profiles = root / "profiles"
    records = root / "records"
    found = (profiles.is_dir() and any(p.suffix in (".yaml", ".yml") for p in profiles.iterdir())) or \
        (records.is_dir() and any(not p.name.startswith(".") and p.is_file() for p in records.rglob("*")))
    if not found:
        raise SourceError(Location(root), "no profiles (profiles/*.yaml) and no records (records/) here, so the build "
                          "would serve an empty graph; add a profile, check --data, or pass --allow-empty")


def changed_since(root: Path, moment: float) -> Path | None:
    """The most recently modified source file under root changed after moment (a POSIX time), or None."""
    newest: tuple[float, Path] | None = None
    candidates = [root / "organizations.yaml", root / "venues.yaml"]
    for folder in ("profiles", "records", "edits"):
        if (root / folder).is_dir():
            candidates.extend(p for p in (root / folder).rglob("*") if not p.name.startswith("."))
    for path in candidates:
        try:
            stamp = path.stat().st_mtime if path.is_file() else None
        except OSError:
            continue
        if stamp is not None and stamp > moment and (newest is None or stamp > newest[0]):
            newest = (stamp, path)
    return newest[1] if newest else None


@dataclass
class DataFiles:
    """The YAML documents of a data directory."""

    root: Path
    organizations: YamlDocument | None
    venues: YamlDocument | None
    profiles: list[YamlDocument]


PROFILE_PATTERNS = ("*.yaml", "*.yml")


def read_data_dir(root: Path, max_bytes: int | None = None) -> DataFiles:
    """Read organizations.yaml, venues.yaml and profiles/*.yaml and *.yml under root (sorted, deterministic).

    Messages name each file under root as the caller wrote root (data/profiles/x.yaml for --data data,
    /some/where/data/profiles/x.yaml for --data /some/where/data), so the path always opens the file meant.
    """
    limit = max_source_bytes() if max_bytes is None else max_bytes
    reference = read_reference(root, limit)
    profiles = [read_yaml(f, str(f), limit) for f in profile_files(root)]
    return DataFiles(root, reference["organizations"], reference["venues"], profiles)


def read_reference(root: Path, limit: int) -> dict[str, YamlDocument | None]:
    """organizations.yaml and venues.yaml under root, each None when absent (SourceError when root is missing)."""
    if not root.is_dir():
        raise SourceError(Location(root), "data directory not found; pass --data DIR")
    return {name: read_yaml(root / f"{name}.yaml", str(root / f"{name}.yaml"), limit)
            if (root / f"{name}.yaml").exists() else None for name in ("organizations", "venues")}


def profile_files(root: Path) -> list[Path]:
    """The profile files under root/profiles (*.yaml and *.yml, sorted); SourceError for x.yaml beside x.yml."""
    profile_dir = root / "profiles"
    files = sorted(f for pattern in PROFILE_PATTERNS for f in profile_dir.glob(pattern)) if profile_dir.is_dir() else []
    stems = [f.stem for f in files]
    for twin in sorted({f for f in files if stems.count(f.stem) > 1}, key=lambda f: f.suffix)[:1]:
        raise SourceError(Location(twin), f"{twin.stem}.yaml and {twin.stem}.yml are the same profile; keep one")
    return files
