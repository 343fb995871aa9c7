"""kg import: turn a homepage (plain text, saved HTML) or a BibTeX file into a draft profile YAML."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import Location, SourceError
from ..iris import slugify
from ..parsing import parse_profile
from ..sources import parse_yaml
from .detect import BIBTEX, HTML, detect_kind, read_input
from .orgs import unknown_organizations
from .owner import pin_owner
from .records import Draft
from .venues import Reference
from .writer import data_of, render

__all__ = ["ImportResult", "import_file"]


@dataclass(frozen=True)
class ImportResult:
    """An imported profile: the YAML text, the draft it came from, the input kind, a suggested profile id and the
    organisations it names that data/organizations.yaml does not know (name, and ', parent' when stated)."""

    yaml_text: str
    draft: Draft
    kind: str
    profile_id: str
    unknown_organizations: tuple[str, ...] = ()


def import_file(path: Path, name: str | None = None, data: Path = Path("data")) -> ImportResult:
    """Import one file; bad input (empty, binary, not UTF-8, no person) raises SourceError."""
    text = read_input(path)
    kind = detect_kind(path, text)
    ref = Reference.load(data)
    if kind == BIBTEX:
        from .bibtex import parse_bibtex

        draft = parse_bibtex(text, ref, name, path)
    else:
        from .pipeline.page import page_lines
        from .text import parse_lines

        lines = page_lines(text, kind == HTML)
        if not any(line.text for line in lines):
            raise SourceError(Location(path), "no visible text in the page; nothing to import")
        draft = parse_lines(lines, ref, name, path)
    profile_id = slugify(str(draft.value("name"))) or "imported"
    pin_owner(draft, profile_id)  # the owner's name as written in its own author lists is the profile's person
    draft.header = [f"# Imported by `kg import` from {path.name} ({kind}). Values are as the page states them;",
                    "# '# review:' marks what to check, and notes at the end keep what was not imported.",
                    f"# Save as data/profiles/{profile_id}.yaml once reviewed."]
    yaml_text = render(draft)
    _check(yaml_text, draft, path, profile_id)
    return ImportResult(yaml_text, draft, kind, profile_id, tuple(unknown_organizations(draft, ref)))


def _check(yaml_text: str, draft: Draft, path: Path, profile_id: str) -> None:
    """The written YAML must read back to the draft and load as a profile; anything else is a bug to report."""
    document = parse_yaml(yaml_text, Path(f"{profile_id}.yaml"))  # read as kg build reads it
    if document.data != data_of(draft):
        raise SourceError(Location(path), "internal error: the generated YAML does not read back unchanged; "
                                          "please report this input")
    parse_profile(document)
