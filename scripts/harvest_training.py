"""Publication facts from the structured sources of public academic GitHub Pages sites, for training the importer.

    python scripts/harvest_training.py collect MIRROR_GIT_DIR... --cache DIR
    python scripts/harvest_training.py build --cache DIR [--out training/harvest]

`collect` reads each mirror (a git directory under /work/.mirror/owner+name/) and saves, per repository, the inputs
(repo, commit, path, text): the newest version in the history of every al-folio `_bibliography/*.bib`, academicpages
`_publications/*.md`, Hugo Academic / Wowchemy `content/publication/*/index.md` and `_data/*pub*.yml` file, with the
theme files that say how they render (`_config.yml`, `content/authors/*/_index.md`). The cache is not committed.
`build` turns the inputs into facts deterministically: it filters the repositories and people listed in
import-exclusions.txt, the theme template repositories and their placeholder entries, de-duplicates publications
and assigns each repository to the dev or held-out side by the fixed rule in `split_of`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import html
import json
import re
import subprocess
import sys
import tomllib
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bibtexparser
import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "training" / "harvest"
EXCLUSIONS = (ROOT.parent / "shared" / "import-exclusions.txt", ROOT.parent.parent / "shared" / "import-exclusions.txt")

KINDS = {
    "al-folio": re.compile(r"(?:^|/)_bibliography/papers\.bib$"),
    "academicpages": re.compile(r"(?:^|/)_publications/[^/]+\.(?:md|markdown)$"),
    "wowchemy": re.compile(r"(?:^|/)content/(?:[a-z]{2}(?:-[a-z]{2})?/)?publications?/[^/]+/index\.md$"),
    "data-yml": re.compile(r"(?:^|/)_data/[^/]*(?:pub|paper|citation)[^/]*\.ya?ml$", re.I),
}
SIDE = re.compile(r"^_config\.yml$|(?:^|/)content/(?:[a-z]{2}/)?authors/[^/]+/_index\.md$")
# CV sources for positions and degrees: al-folio `_data/cv.yml` and JSON Resume files, academicpages Markdown CVs,
# Hugo Academic / Wowchemy experience widgets and pages of blocks (author `_index.md` education is in SIDE).
CV = re.compile(r"^_data/cv\.(?:ya?ml|json)$|^assets/json/resume\.json$|^_pages/cv[^/]*\.(?:md|markdown)$|"
                r"^content/(?:[a-z]{2}/)?(?:home/experience\.md|_index\.md)$|^data/authors/[^/]+\.ya?ml$")
# The theme template repositories themselves, whatever else they hold.
TEMPLATES = {
    "alshedivat/al-folio", "academicpages/academicpages.github.io", "wowchemy/starter-hugo-academic",
    "wowchemy/starter-academic", "gcushen/hugo-academic", "sourcethemes/academic-kickstart",
    "hugoblox/theme-academic-cv", "hugoblox/hugo-blox-builder", "wowchemy/wowchemy-hugo-themes",
    "wowchemy/wowchemy-hugo-modules", "wowchemy/starter-hugo-research-group", "hugoblox/theme-research-group",
    "mpa139/allanlab", "greenelab/lab-website-template",
}
# Placeholder entries the templates ship: titles, and authors whose presence marks a placeholder.
PLACEHOLDER_TITLE = re.compile(
    r"^(?:paper title number \d+\b.*|my first paper|"
    r"an example (?:journal article|conference paper|preprint|book|thesis|report)\b.*|"
    r"person re-identification system for mobile devices|mobile visual clothing search)$", re.I)
PLACEHOLDER_AUTHOR = re.compile(r"\b(?:einstein|cushen)\b|^(?:john|jane) doe$|^doe, (?:john|jane)$", re.I)
PLACEHOLDER_TEXT = re.compile(r"your name, you|paper title number \d|^journal \d+$|^github journal of bugs$", re.I)
# A title seen in this many repositories or more is a template's, not an owner's.
TEMPLATE_REPEATS = 10
SETTINGS = ("max_author_limit", "more_authors_animation_delay", "scholar.style", "scholar.last_name",
            "scholar.first_name", "scholar.sort_by", "scholar.order", "scholar.group_by", "scholar.bibliography")
BIB_TYPES = {
    "article": "article", "inproceedings": "conference", "conference": "conference", "proceedings": "conference",
    "book": "book", "incollection": "chapter", "inbook": "chapter", "phdthesis": "thesis",
    "mastersthesis": "thesis", "thesis": "thesis", "techreport": "report", "report": "report", "patent": "patent",
    "unpublished": "preprint", "misc": "other", "online": "other",
}
WOWCHEMY_TYPES = {"1": "conference", "2": "article", "3": "preprint", "4": "report", "5": "book", "6": "chapter",
                  "7": "thesis", "8": "patent", "paper-conference": "conference", "article-journal": "article",
                  "article": "preprint", "report": "report", "book": "book", "chapter": "chapter",
                  "thesis": "thesis", "patent": "patent"}
WORD_TYPES = (("conference", "conference"), ("proceeding", "conference"), ("workshop", "conference"),
              ("journal", "article"), ("article", "article"), ("manuscript", "article"), ("preprint", "preprint"),
              ("book", "book"), ("chapter", "chapter"), ("thesis", "thesis"), ("dissertation", "thesis"),
              ("report", "report"), ("patent", "patent"))
VENUE_KEYS = ("venue", "journal", "booktitle", "conference", "publication", "published_in", "pub", "where",
              "reference", "source", "howpublished", "school", "institution", "publisher", "PublicationInformation",
              "publication_info")
# Given-name initials standing alone after a surname in "Wong, S.L.A., Chen, Y.W." ("P.", "M. A.", "E-J", "L. (*)").
INITIALS = re.compile(r"^(?:[A-Z]{1,2}[a-z]?\.?[\s-]*){1,4}(?:\(\*?\)|\*)?$")
# Link labels that name no venue (the Allan lab template puts the venue in `link.display`).
LINK_LABELS = re.compile(r"^\W*(?:pdf|link|paper|abstract|html|url|doi|web|website|page|project|code|preprint|"
                         r"full text|download|here|arxiv)\W*$", re.I)


@dataclass(frozen=True)
class Source:
    """One input file: the repository, the commit it was read at, its path and its text."""

    repo: str
    commit: str
    path: str
    text: str


@dataclass
class Exclusions:
    """The repositories, their owners and the people import-exclusions.txt keeps out."""

    repos: set[str] = field(default_factory=set)
    owners: set[str] = field(default_factory=set)
    people: list[tuple[str, ...]] = field(default_factory=list)


def read_exclusions(path: Path) -> Exclusions:
    """Parse import-exclusions.txt: `owner/name` lines, and comma-separated people after the people heading."""
    out = Exclusions()
    people = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            people = "people" in line.lower()
            continue
        if not people and re.fullmatch(r"[A-Za-z0-9][\w-]*/[\w.-]+", line):
            out.repos.add(line.lower())
            out.owners.add(line.split("/")[0].lower())
            continue
        if people:
            for name in re.sub(r"\([^)]*\)", "", line).split(","):
                name = name.strip()
                if name and not name.lower().startswith("the owners"):
                    out.people.append(name_tokens(name))
    return out


def exclusions_path() -> Path:
    """The import-exclusions.txt beside the checkout (../shared), else beside its parent."""
    return next((path for path in EXCLUSIONS if path.exists()), EXCLUSIONS[0])


def fold(text: str) -> str:
    """Lower case without accents."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(ch))


def name_tokens(name: str) -> tuple[str, ...]:
    """A person's name as lower-case word tokens, given names first ("Wu, Kan" -> ("kan", "wu"))."""
    name = re.sub(r"[*†‡#^\d]", "", name)
    if "," in name:
        last, _, first = name.partition(",")
        name = f"{first} {last}"
    return tuple(token for token in re.split(r"[\s.\-]+", fold(name)) if token)


def same_person(author: tuple[str, ...], person: tuple[str, ...]) -> bool:
    """True when an author's name is the person's, in full or with given names as initials."""
    if not author or not person or author[-1] != person[-1] and author[0] != person[-1]:
        return False
    if sorted(author) == sorted(person):
        return True
    given = [token for token in author if token not in (person[-1],)]
    wanted = person[:-1]
    if not given or not wanted or len(given) > len(wanted):
        return False
    return all(a == w or (len(a) == 1 and w.startswith(a)) for a, w in zip(given, wanted, strict=False)) and (
        len(given[0]) == 1 or given[0] == wanted[0])


def excluded_person(authors: Iterable[str], exclusions: Exclusions) -> tuple[str, ...] | None:
    """The first excluded person among the authors, if any."""
    for author in authors:
        tokens = name_tokens(author)
        for person in exclusions.people:
            if same_person(tokens, person):
                return person
    return None


def split_of(repo: str) -> str:
    """The fixed split: held-out when the first hex digit of sha256(repository, lower case) is 0, 1 or 2."""
    return "heldout" if hashlib.sha256(repo.lower().encode("utf-8")).hexdigest()[0] in "012" else "dev"


def kind_of(path: str) -> str | None:
    """The kind of structured source a path is, or None."""
    return next((kind for kind, pattern in KINDS.items() if pattern.search(path)), None)


# ---- collect ------------------------------------------------------------------------------------------------

def _git(git_dir: Path, *args: str) -> bytes:
    """Run git on a mirror and return its output."""
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True).stdout


def collect(git_dir: Path, repo: str) -> list[Source]:
    """The newest version of every wanted file in a mirror's history (newest commit first)."""
    log = _git(git_dir, "log", "--all", "--format=@%H", "--name-only", "--diff-filter=AMR", "--no-renames")
    newest: dict[str, str] = {}
    commit = ""
    for line in log.decode("utf-8", "replace").splitlines():
        if line.startswith("@"):
            commit = line[1:]
        elif line and line not in newest and (kind_of(line) or SIDE.search(line) or CV.search(line)):
            newest[line] = commit
    out = []
    for path, at in sorted(newest.items()):
        try:
            blob = _git(git_dir, "show", f"{at}:{path}")
        except subprocess.CalledProcessError:
            continue
        if len(blob) < 2_000_000:
            out.append(Source(repo, at, path, blob.decode("utf-8", "replace")))
    return out


def repo_of_mirror(git_dir: Path) -> str:
    """owner/name from a mirror path /work/.mirror/owner+name/repo[/.git]."""
    part = next(p for p in git_dir.parts if "+" in p)
    return part.replace("+", "/", 1)


def save_cache(cache: Path, sources: list[Source]) -> None:
    """Write one repository's inputs to the cache directory as gzip'd JSON Lines."""
    if not sources:
        return
    cache.mkdir(parents=True, exist_ok=True)
    name = sources[0].repo.replace("/", "+")
    with gzip.open(cache / f"{name}.jsonl.gz", "wt", encoding="utf-8") as out:
        for source in sources:
            out.write(json.dumps(source.__dict__, ensure_ascii=False) + "\n")


def load_cache(cache: Path) -> Iterator[Source]:
    """Every input saved in the cache directory, repositories in name order."""
    for path in sorted(cache.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                yield Source(**json.loads(line))


# ---- parse --------------------------------------------------------------------------------------------------

def detex(text: str) -> str:
    """Plain text of a BibTeX value: LaTeX accents and commands decoded, braces and extra spaces removed."""
    text = str(text).replace("\ufeff", "")
    if "\\" in text or "{" in text or "$" in text:
        try:
            from pylatexenc.latex2text import LatexNodes2Text

            text = LatexNodes2Text(math_mode="verbatim").latex_to_text(text)
        except Exception:  # noqa: BLE001 - any LaTeX it cannot read is kept with only braces removed
            text = text.replace("{", "").replace("}", "")
    return " ".join(text.replace("~", " ").split())


def clean(value: Any) -> str:
    """A scalar front-matter or YAML value as one line of text, Markdown emphasis removed."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    text = re.sub(r"<[^>]{1,80}>", "", html.unescape(str(value))).replace("\ufeff", "").replace("\u200b", "")
    text = re.sub(r"(?<!\w)[*_]{1,2}([^*_]+?)[*_]{1,2}(?!\w)", r"\1", text)
    return " ".join(text.split())


def year_of(value: Any) -> int | None:
    """The four-digit year in a date or year value."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.year
    match = re.search(r"\b(1[89]\d\d|20\d\d)\b", str(value or ""))
    return int(match.group(1)) if match else None


def doi_of(*values: Any) -> str:
    """The first DOI among the values, without a resolver prefix."""
    for value in values:
        match = re.search(r"\b(10\.\d{4,9}/[^\s\"<>]+)", str(value or ""))
        if match:
            return match.group(1).rstrip(".,;)}'\"")
    return ""


def type_from_words(*values: Any) -> str:
    """A publication type from category or section words ("conferences" -> conference)."""
    text = " ".join(fold(str(v)) for v in values if v)
    return next((kind for word, kind in WORD_TYPES if word in text), "other" if text else "")


def authors_list(value: Any) -> list[str]:
    """Author names as written, in order, from a list or an "A, B and C" / "A and B" string."""
    if isinstance(value, list):
        listed = [clean(v if not isinstance(v, dict) else v.get("name", "")) for v in value]
        return [name for name in listed if name]
    text = clean(value)
    if not text:
        return []
    halves = [part.strip() for part in re.split(r"\s+and\s+", text) if part.strip()]
    if len(halves) > 1 and all(half.count(",") == 0 for half in halves):
        return halves
    if len(halves) > 1 and all(half.count(",") == 1 for half in halves):
        return halves
    names: list[str] = []
    for part in re.split(r"\s*(?:,|;|&|\band\b)\s*", text):
        if not part:
            continue
        if names and INITIALS.match(part) and "." not in names[-1] and not INITIALS.match(names[-1]):
            names[-1] = f"{names[-1]}, {part}"
        else:
            names.append(part)
    return names


def front_matter(text: str) -> dict[str, Any]:
    """A Markdown file's YAML (---) or TOML (+++) front matter."""
    text = text.lstrip("\ufeff")
    for fence, load in (("---", yaml.safe_load), ("+++", tomllib.loads)):
        if text.startswith(fence):
            end = text.find("\n" + fence, len(fence))
            if end < 0:
                return {}
            try:
                data = load(text[len(fence):end])
            except Exception:  # noqa: BLE001 - an unreadable front matter is no entry
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def fact(source: Source, kind: str, **values: Any) -> dict[str, Any]:
    """One facts record."""
    return {"repo": source.repo, "commit": source.commit, "path": source.path, "kind": kind,
            "title": values.get("title", ""), "authors": values.get("authors", []), "venue": values.get("venue", ""),
            "year": values.get("year"), "type": values.get("type", ""), "doi": values.get("doi", ""),
            "citation": values.get("citation", "")}


def parse_bib(source: Source) -> list[dict[str, Any]]:
    """The entries of an al-folio BibTeX file."""
    text = re.sub(r"\A\s*---.*?---\s*", "", source.text, flags=re.S)
    try:
        library = bibtexparser.parse_string(text)
    except Exception:  # noqa: BLE001 - a file bibtexparser cannot read gives no entries
        return []
    out = []
    for entry in library.entries:
        fields = {f.key.lower(): f.value for f in entry.fields}
        title = detex(fields.get("title", ""))
        authors = [detex(name) for name in re.split(r"\s+and\s+", str(fields.get("author", ""))) if name.strip()]
        venue = next((detex(fields[key]) for key in VENUE_KEYS if fields.get(key)), "")
        kind = BIB_TYPES.get(entry.entry_type.lower(), "other")
        if kind == "other" and re.search(r"arxiv|biorxiv|medrxiv|preprint", f"{venue} {fields.get('eprint', '')}",
                                         re.I):
            kind = "preprint"
        out.append(fact(source, "al-folio", title=title, authors=authors, venue=venue,
                        year=year_of(fields.get("year") or fields.get("date")), type=kind,
                        doi=doi_of(fields.get("doi"), fields.get("url"), fields.get("html"))))
    return out


def parse_academicpages(source: Source) -> list[dict[str, Any]]:
    """The publication of one academicpages `_publications/*.md` file."""
    meta = front_matter(source.text)
    title = clean(meta.get("title"))
    if not title:
        return []
    return [fact(source, "academicpages", title=title, authors=authors_list(meta.get("authors") or meta.get("author")),
                 venue=clean(meta.get("venue")), year=year_of(meta.get("date") or meta.get("year")),
                 type=type_from_words(meta.get("category"), meta.get("pubtype"), meta.get("type")),
                 doi=doi_of(meta.get("doi"), meta.get("paperurl"), meta.get("citation")),
                 citation=clean(meta.get("citation")))]


def parse_wowchemy(source: Source, people: dict[str, str]) -> list[dict[str, Any]]:
    """The publication of one Hugo Academic / Wowchemy `content/publication/*/index.md` file."""
    meta = front_matter(source.text)
    title = clean(meta.get("title"))
    if not title:
        return []
    authors = [people.get(name, name) for name in authors_list(meta.get("authors"))]
    types = meta.get("publication_types") or meta.get("publication_type") or []
    kind = next((WOWCHEMY_TYPES.get(str(t).strip('"'), "") for t in (types if isinstance(types, list) else [types])),
                "")
    return [fact(source, "wowchemy", title=title, authors=authors,
                 venue=clean(meta.get("publication") or meta.get("publication_short")),
                 year=year_of(meta.get("date") or meta.get("publishDate")), type=kind or "other",
                 doi=doi_of(meta.get("doi"), meta.get("url_pdf")))]


def _records(node: Any, section: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every mapping with a title in a YAML data file, with the nearest enclosing section key."""
    if isinstance(node, dict):
        if isinstance(node.get("title"), str):
            yield node, section
            return
        for key, value in node.items():
            yield from _records(value, str(key))
    elif isinstance(node, list):
        for item in node:
            yield from _records(item, section)


def parse_data_yml(source: Source) -> list[dict[str, Any]]:
    """The publications of a `_data/*pub*.yml` file: every mapping with a title."""
    try:
        data = yaml.safe_load(source.text)
    except Exception:  # noqa: BLE001 - an unreadable data file gives no entries
        return []
    out = []
    for item, section in _records(data, ""):
        venue = next((clean(item[key]) for key in VENUE_KEYS if clean(item.get(key))), "")
        link: dict[str, Any] = item["link"] if isinstance(item.get("link"), dict) else {}
        if not venue and clean(link.get("display")) and not LINK_LABELS.match(clean(link.get("display"))):
            venue = clean(link.get("display"))
        out.append(fact(source, "data-yml", title=clean(item.get("title")),
                        authors=authors_list(item.get("authors") or item.get("author")), venue=venue,
                        year=year_of(item.get("year") or item.get("date") or venue),
                        type=type_from_words(item.get("type"), item.get("category"), section),
                        doi=doi_of(item.get("doi"), item.get("id"), item.get("url"), link.get("url"), item.get("link")),
                        citation=clean(item.get("citation"))))
    return out


def _dig(data: dict[str, Any], dotted: str) -> Any:
    """A nested value by dotted key."""
    value: Any = data
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def settings_of(source: Source) -> list[tuple[str, str]]:
    """The al-folio rendering settings a `_config.yml` states."""
    try:
        data = yaml.safe_load(source.text)
    except Exception:  # noqa: BLE001 - an unreadable config states nothing
        return []
    if not isinstance(data, dict):
        return []
    values = [(key, _dig(data, key)) for key in SETTINGS]
    return [(key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str))
            for key, value in values if value not in (None, "", [])]


# ---- build --------------------------------------------------------------------------------------------------

def title_key(title: str) -> str:
    """A title folded to letters and digits, for de-duplication."""
    return re.sub(r"[^0-9a-z]+", "", fold(title))


def is_placeholder(record: dict[str, Any]) -> bool:
    """True for a template's placeholder entry."""
    return bool(PLACEHOLDER_TITLE.match(record["title"].strip())) or any(
        PLACEHOLDER_AUTHOR.search(name) for name in record["authors"]) or any(
        PLACEHOLDER_TEXT.search(record[key]) for key in ("citation", "venue"))


@dataclass
class Harvest:
    """What `build` produces: the kept records, the manifest rows, the settings rows and counts of what was left out."""

    records: list[dict[str, Any]]
    manifest: list[tuple[str, str, str, str, int]]
    settings: list[tuple[str, str, str, str, str]]
    dropped: Counter[str]


def build(sources: Iterable[Source], exclusions: Exclusions) -> Harvest:
    """Parse, filter, de-duplicate and split the inputs."""
    by_repo: dict[str, list[Source]] = defaultdict(list)
    for source in sources:
        by_repo[source.repo].append(source)
    dropped: Counter[str] = Counter()
    raw: list[dict[str, Any]] = []
    settings: list[tuple[str, str, str, str, str]] = []
    for repo in sorted(by_repo, key=str.lower):
        low = repo.lower()
        if low in exclusions.repos or low.split("/")[0] in exclusions.owners or low in TEMPLATES:
            dropped["excluded or template repository"] += 1
            continue
        files = sorted(by_repo[repo], key=lambda s: s.path)
        people = {}
        for source in files:
            match = re.search(r"authors/([^/]+)/_index\.md$", source.path)
            if match:
                name = clean(front_matter(source.text).get("title"))
                if name:
                    people[match.group(1)] = name
        repo_settings = [(repo, s.commit, s.path, key, value) for s in files if s.path == "_config.yml"
                         for key, value in settings_of(s)]
        owner_names = [value for *_, key, value in repo_settings if key in ("scholar.first_name", "scholar.last_name")]
        owners = [" ".join(owner_names)] if len(owner_names) == 2 else []
        owners += [people["admin"]] if "admin" in people else []
        if excluded_person(owners, exclusions):
            dropped["excluded person's repository"] += 1
            continue
        entries = []
        for source in files:
            kind = kind_of(source.path)
            if kind == "al-folio":
                entries += parse_bib(source)
            elif kind == "academicpages":
                entries += parse_academicpages(source)
            elif kind == "wowchemy":
                entries += parse_wowchemy(source, people)
            elif kind == "data-yml":
                entries += parse_data_yml(source)
        hits = Counter(excluded_person(e["authors"], exclusions) for e in entries)
        hits.pop(None, None)
        if entries and hits and hits.most_common(1)[0][1] >= max(2, 0.3 * len(entries)):
            dropped["excluded person's repository"] += 1
            continue
        settings += repo_settings
        raw += entries
    repeats: Counter[str] = Counter()
    seen_in: dict[str, set[str]] = defaultdict(set)
    for record in raw:
        seen_in[title_key(record["title"])].add(record["repo"].lower())
    for key, repos in seen_in.items():
        repeats[key] = len(repos)
    kept: dict[str, dict[str, Any]] = {}
    for record in raw:
        key = title_key(record["title"])
        if len(key) < 8 or len(key) > 400:
            dropped["no usable title"] += 1
        elif is_placeholder(record) or repeats[key] >= TEMPLATE_REPEATS:
            dropped["template placeholder"] += 1
        elif excluded_person(record["authors"], exclusions):
            dropped["excluded person among the authors"] += 1
        else:
            record["split"] = split_of(record["repo"])
            old = kept.get(key)
            if old is None or (old["split"] == "dev" and record["split"] == "heldout"):
                if old is not None:
                    dropped["duplicate"] += 1
                kept[key] = record
            else:
                dropped["duplicate"] += 1
    records = sorted(kept.values(), key=lambda r: (r["repo"].lower(), r["path"], title_key(r["title"])))
    counts = Counter((r["repo"], r["commit"], r["path"], r["kind"]) for r in records)
    manifest = sorted(((repo, commit, path, kind, n) for (repo, commit, path, kind), n in counts.items()),
                      key=lambda row: (row[0].lower(), row[2]))
    return Harvest(records, manifest, settings, dropped)


def write(harvest: Harvest, out: Path) -> None:
    """Write publications.jsonl.gz, manifest.tsv and settings.tsv under out."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "publications.jsonl.gz", "wb") as raw, gzip.GzipFile(
            fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        for record in harvest.records:
            gz.write((json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    rows = ["repository\tcommit\tpath\tkind\tentries\tsplit"]
    rows += [f"{repo}\t{commit}\t{path}\t{kind}\t{n}\t{split_of(repo)}" for repo, commit, path, kind, n in
             harvest.manifest]
    (out / "manifest.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = ["repository\tcommit\tpath\tsetting\tvalue"]
    rows += ["\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row) for row in harvest.settings]
    (out / "settings.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def summary(harvest: Harvest) -> str:
    """Counts per kind and per split, and what was left out."""
    lines = []
    for split in ("dev", "heldout"):
        part = [r for r in harvest.records if r["split"] == split]
        lines.append(f"{split}: {len(part)} publications from {len({r['repo'] for r in part})} repositories")
    for kind in KINDS:
        part = [r for r in harvest.records if r["kind"] == kind]
        lines.append(f"{kind}: {len(part)} publications from {len({r['repo'] for r in part})} repositories")
    lines += [f"left out, {why}: {n}" for why, n in sorted(harvest.dropped.items())]
    return "\n".join(lines)


def _cells(records: list[dict[str, Any]]) -> str:
    """`| publications | repositories |` cells for some records."""
    return f"{len(records):,} | {len({r['repo'] for r in records})}"


def tables(harvest: Harvest) -> str:
    """The README's Markdown tables of publications and repositories per kind and per split."""
    records = harvest.records
    by_kind = {kind: [r for r in records if r["kind"] == kind] for kind in KINDS}
    lines = ["| kind | publications | repositories |", "| --- | --- | --- |"]
    lines += [f"| `{kind}` | {_cells(part)} |" for kind, part in by_kind.items()]
    lines += [f"| all | {_cells(records)} |", "", "| split | publications | repositories |", "| --- | --- | --- |"]
    lines += [f"| {name} | {_cells([r for r in records if r['split'] == split])} |"
              for split, name in (("dev", "dev"), ("heldout", "held-out"))]
    lines += ["", "| kind | dev publications | dev repositories | held-out publications | held-out repositories |",
              "| --- | --- | --- | --- | --- |"]
    for kind, part in by_kind.items():
        dev = _cells([r for r in part if r["split"] == "dev"])
        held = _cells([r for r in part if r["split"] == "heldout"])
        lines.append(f"| `{kind}` | {dev} | {held} |")
    with_ = {key: sum(1 for r in records if r[key]) for key in ("authors", "venue", "year", "doi", "citation")}
    lines += ["", f"Of these, {with_['authors']:,} have authors, {with_['venue']:,} a venue, {with_['year']:,} a year, "
              f"{with_['doi']:,} a DOI and {with_['citation']:,} a citation string. Left out: "
              + ", ".join(f"{n:,} {why}" for why, n in sorted(harvest.dropped.items())) + "."]
    return "\n".join(lines)


def update_readme(readme: Path, text: str) -> None:
    """Replace what stands between the harvest-tables markers in the README."""
    begin, end = "<!-- harvest-tables:begin -->", "<!-- harvest-tables:end -->"
    old = readme.read_text(encoding="utf-8")
    head, _, rest = old.partition(begin)
    _, _, tail = rest.partition(end)
    readme.write_text(f"{head}{begin}\n{text}\n{end}{tail}", encoding="utf-8")


def main(argv: list[str]) -> int:
    """Collect inputs from mirrors, or build the facts from the collected inputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    grab = commands.add_parser("collect", help="save the wanted files of mirrors to the cache")
    grab.add_argument("mirrors", nargs="+", type=Path)
    grab.add_argument("--cache", type=Path, required=True)
    make = commands.add_parser("build", help="write the facts from the cache")
    make.add_argument("--cache", type=Path, required=True)
    make.add_argument("--out", type=Path, default=OUT)
    make.add_argument("--readme", type=Path, help="rewrite the tables between the harvest-tables markers of this file")
    args = parser.parse_args(argv)
    if args.command == "collect":
        for git_dir in args.mirrors:
            sources = collect(git_dir, repo_of_mirror(git_dir))
            save_cache(args.cache, sources)
            print(f"{repo_of_mirror(git_dir)}\t{len(sources)} files")
        return 0
    harvest = build(load_cache(args.cache), read_exclusions(exclusions_path()))
    write(harvest, args.out)
    if args.readme:
        update_readme(args.readme, tables(harvest))
    print(summary(harvest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
