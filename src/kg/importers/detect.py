"""Read an input file and tell plain text, HTML and BibTeX apart by content and extension."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import Location, SourceError
from ..source_files import IMPORT_SETTING, max_import_bytes, read_limited

TEXT, HTML, BIBTEX = "text", "html", "bibtex"
HTML_EXTENSIONS = {".html", ".htm", ".xhtml"}
BIBTEX_EXTENSIONS = {".bib", ".bibtex"}
_HTML_SNIFF = re.compile(r"<\s*(?:!doctype\s+html|html|head|body|div|p|h1|ul|table|section)\b", re.I)
_BIB_ENTRY = re.compile(r"^\s*@\s*(?:article|inproceedings|conference|misc|book|incollection|phdthesis|"
                        r"mastersthesis|techreport|unpublished|online|proceedings|inbook|manual)\s*\{", re.I | re.M)


def read_input(path: Path, display: str | None = None, max_bytes: int | None = None) -> str:
    """The file's text; empty, binary, non-UTF-8, oversized and non-regular input are SourceErrors naming the file."""
    where = Path(display) if display else path
    limit = max_import_bytes() if max_bytes is None else max_bytes
    raw = read_limited(path, limit, where, IMPORT_SETTING)
    if not raw.strip():
        raise SourceError(Location(where), "the file is empty; nothing to import")
    if b"\x00" in raw[:65536]:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        raise SourceError(Location(where, line), "this looks like a binary file (it contains NUL bytes); "
                                                 "import plain text, HTML or BibTeX")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SourceError(Location(where, line), f"not valid UTF-8 at byte {exc.start}; "
                                                 "save the file as UTF-8 and import it again") from None
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f")
    if controls > max(8, len(text) // 100):
        raise SourceError(Location(where), "this looks like a binary file (many control characters); "
                                           "import plain text, HTML or BibTeX")
    return text


def detect_kind(path: Path, text: str) -> str:
    """'bibtex', 'html' or 'text': strong content signals first, then the extension."""
    head = text.lstrip()[:2000]
    bib_entries = len(_BIB_ENTRY.findall(text))
    if bib_entries and (head.startswith(("@", "%")) or path.suffix.lower() in BIBTEX_EXTENSIONS):
        return BIBTEX
    if _HTML_SNIFF.search(head) and (head.startswith("<") or path.suffix.lower() in HTML_EXTENSIONS):
        return HTML
    if path.suffix.lower() in BIBTEX_EXTENSIONS:
        return BIBTEX
    if path.suffix.lower() in HTML_EXTENSIONS and _HTML_SNIFF.search(text):
        return HTML
    return TEXT
