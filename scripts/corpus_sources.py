"""Write tests/data/import_realworld/SOURCES.md from the `source:` block of each page's facts.yaml.

    python scripts/corpus_sources.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "import_realworld"


def rows() -> list[str]:
    """One Markdown table row per page: stem, split, repository, commit, path, kind."""
    out = []
    for split in ("dev", "heldout"):
        for path in sorted((CORPUS / split).glob("*.facts.yaml")):
            source = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("source") or {}
            cells = [path.name.removesuffix(".facts.yaml"), split] + [
                str(source.get(key) or "") for key in ("repository", "commit", "path", "kind")]
            out.append("| " + " | ".join(cells) + " |")
    return out


def main() -> int:
    """Write SOURCES.md."""
    body = rows()
    text = "\n".join([
        "# Sources of the real-world import corpus", "",
        "Each page's repository, the commit it was read at and the file it was rendered from. The facts (names,",
        "titles, author lists, venues, dates, affiliations, headings, link labels) are as the page states them;",
        "prose was replaced by our own words. Made by `python scripts/corpus_sources.py`.", "",
        f"{len(body)} pages.", "",
        "| stem | split | repository | commit | path | kind |", "| --- | --- | --- | --- | --- | --- |", *body, ""])
    (CORPUS / "SOURCES.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
