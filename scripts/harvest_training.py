"""Publication and CV facts from the structured sources of academic GitHub Pages sites, for training the importer.

    python scripts/harvest_training.py collect MIRROR_GIT_DIR... --cache DIR
    python scripts/harvest_training.py build --cache DIR [--out training/harvest] [--readme training/README.md]

`collect` reads each mirror (a git directory under /work/.mirror/owner+name/) and saves, per repository, the inputs
(repo, commit, path, text): the newest version in the history of every al-folio `_bibliography/papers.bib`,
academicpages `_publications/*.md`, Hugo Academic / Wowchemy `content/publication/*/index.md`, `_data/*pub*.yml` and
Greene-lab `_data/citations.yaml` file, the CV sources `harvest_cv.CV_PATH` names, and the theme files that say how
they render (`_config.yml`, `content/authors/*/_index.md`). The cache is not committed.
`build` turns the inputs into facts deterministically (parsers in harvest_parse.py and harvest_cv.py): it filters
the repositories and people listed in import-exclusions.txt, the theme template repositories and their placeholder
entries, de-duplicates publications and CV entries, and assigns each repository to the dev or held-out side by the
fixed rule in `split_of`.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harvest_cv import CV_PATH, cv_key, parse_cv, person_of
from harvest_cv import is_placeholder as is_cv_placeholder
from harvest_parse import (
    Source,
    clean,
    fold,
    front_matter,
    parse_academicpages,
    parse_bib,
    parse_data_yml,
    parse_wowchemy,
    settings_of,
)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "training" / "harvest"
EXCLUSIONS = (ROOT.parent / "shared" / "import-exclusions.txt", ROOT.parent.parent / "shared" / "import-exclusions.txt")

KINDS = {
    "al-folio": re.compile(r"(?:^|/)_bibliography/papers\.bib$"),
    "academicpages": re.compile(r"(?:^|/)_publications/[^/]+\.(?:md|markdown)$"),
    "wowchemy": re.compile(r"(?:^|/)content/(?:[a-z]{2}(?:-[a-z]{2})?/)?publications?/[^/]+/index\.md$"),
    # `citations.yaml` is the Greene-lab template's generated list; al-folio's `citations.yml` holds its sample
    # scholar's citation counts, not the owner's publications.
    "data-yml": re.compile(r"(?:^|/)_data/(?:[^/]*(?:pub|paper)[^/]*\.ya?ml|citations\.yaml)$", re.I),
}
SIDE = re.compile(r"^_config\.yml$|(?:^|/)content/(?:[a-z]{2}/)?authors/[^/]+/_index\.md$")
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
# A position or degree (title and organization) seen in this many repositories is a template's.
CV_TEMPLATE_REPEATS = 4
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
        elif line and line not in newest and (kind_of(line) or SIDE.search(line) or CV_PATH.search(line)):
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


# ---- build --------------------------------------------------------------------------------------------------

def title_key(title: str) -> str:
    """A title folded to letters and digits, for de-duplication."""
    return re.sub(r"[^0-9a-z]+", "", fold(title))


def is_placeholder(record: dict[str, Any]) -> bool:
    """True for a template's placeholder entry."""
    return bool(PLACEHOLDER_TITLE.match(record["title"].strip())) or any(
        PLACEHOLDER_AUTHOR.search(name) for name in record["authors"]) or any(
        PLACEHOLDER_TEXT.search(record[key]) for key in ("citation", "venue"))


def keep_cv(entries: list[dict[str, Any]], dropped: Counter[str]) -> list[dict[str, Any]]:
    """The positions and degrees left after placeholders, template repeats and duplicates (held-out wins)."""
    seen_in: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for entry in entries:
        seen_in[cv_key(entry)[:3]].add(entry["repo"].lower())
    kept: dict[tuple[str, str, str, int | None, int | None], dict[str, Any]] = {}
    for entry in entries:
        key = cv_key(entry)
        if is_cv_placeholder(entry) or len(seen_in[key[:3]]) >= CV_TEMPLATE_REPEATS:
            dropped["CV template placeholder"] += 1
            continue
        entry["split"] = split_of(entry["repo"])
        old = kept.get(key)
        if old is not None:
            dropped["CV duplicate"] += 1
        if old is None or (old["split"] == "dev" and entry["split"] == "heldout"):
            kept[key] = entry
    return sorted(kept.values(), key=lambda e: (e["repo"].lower(), e["path"], cv_key(e)[:3], e["start"]))


@dataclass
class Harvest:
    """What `build` produces: the kept records, the manifest rows, the settings rows and counts of what was left out."""

    records: list[dict[str, Any]]
    cv: list[dict[str, Any]]
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
    cv_raw: list[dict[str, Any]] = []
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
        for source in files:
            if CV_PATH.search(source.path):
                entries = parse_cv(source.path, source.text)
                if entries and excluded_person([person_of(source.path, source.text)], exclusions):
                    dropped["CV of an excluded person"] += len(entries)
                    continue
                cv_raw += [{"repo": repo, "commit": source.commit, "path": source.path, **e} for e in entries]
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
    cv = keep_cv(cv_raw, dropped)
    counts = Counter((r["repo"], r["commit"], r["path"], r["kind"]) for r in records)
    counts.update((r["repo"], r["commit"], r["path"], "cv") for r in cv)
    manifest = sorted(((repo, commit, path, kind, n) for (repo, commit, path, kind), n in counts.items()),
                      key=lambda row: (row[0].lower(), row[2]))
    return Harvest(records, cv, manifest, settings, dropped)


def write(harvest: Harvest, out: Path) -> None:
    """Write publications.jsonl.gz, cv.jsonl.gz, manifest.tsv and settings.tsv under out."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "publications.jsonl.gz", "wb") as raw, gzip.GzipFile(
            fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        for record in harvest.records:
            gz.write((json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    with open(out / "cv.jsonl.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        for entry in harvest.cv:
            gz.write((json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
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
    lines += ["", "| CV entry | dev | held-out | repositories |", "| --- | --- | --- | --- |"]
    for kind in ("position", "degree"):
        part = [e for e in harvest.cv if e["kind"] == kind]
        on_dev, on_held = (len([e for e in part if e["split"] == split]) for split in ("dev", "heldout"))
        lines.append(f"| {kind} | {on_dev:,} | {on_held:,} | {len({e['repo'] for e in part})} |")
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
