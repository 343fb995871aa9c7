"""Render harvested publications as the pages their themes show, as copied text and as HTML, with the truth.

    python scripts/render_pages.py OUT [--split dev|heldout|all] [--seed N] [--variants K]

For each repository of training/harvest/publications.jsonl.gz (less every repository and person of
../shared/import-exclusions.txt) writes OUT/<split>/<owner>+<name>.<k>.txt and .html (k = 0..K-1, the first
in the repository's own theme, the others in themes drawn from the seed) and a .truth.json beside them: each
copied line's entry and role, and each entry's shown title, authors, venue and year. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from harvest_training import Exclusions, excluded_person, exclusions_path, read_exclusions  # noqa: E402
from harvest_training import name_tokens as name_tokens_of  # noqa: E402
from render_themes import LAYOUTS, MONTHS, Pub, Shown, Style  # noqa: E402
from render_tree import Node, TruthLine, el, text, text_lines, to_html  # noqa: E402

HARVEST = ROOT / "training" / "harvest"
NATIVE = {"al-folio": ("al-folio",), "academicpages": ("academicpages", "minimal-mistakes"),
          "wowchemy": ("wowchemy",), "data-yml": ("hand-written", "distill", "hand-written")}
HEADINGS = ("Publications", "Selected Publications", "📝 Publications", "Papers", "Research", "Publications 📚")
TYPE_HEADINGS = {"article": "Journal Articles", "conference": "Conference Papers", "preprint": "Preprints"}


@dataclass(frozen=True)
class Site:
    """A harvested repository: its kind, publications and al-folio settings."""

    repo: str
    kind: str
    split: str
    pubs: tuple[Pub, ...]
    settings: dict[str, str]


@dataclass(frozen=True)
class Rendering:
    """One rendered page: its copied text with per-line truth, its HTML, and the entries it shows."""

    theme: str
    lines: tuple[TruthLine, ...]
    html: str
    shown: tuple[Shown, ...]

    @property
    def text(self) -> str:
        """The copied text."""
        return "\n".join(line.text for line in self.lines) + "\n"


def visible(value: object) -> str:
    """A harvested value as a browser shows it: markup tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", str(value or ""))).split())


def load_sites(path: Path = HARVEST, exclusions: Exclusions | None = None) -> list[Site]:
    """The harvested repositories in name order, without excluded repositories and people."""
    exclusions = exclusions or read_exclusions(exclusions_path())
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)  # JSON records
    with gzip.open(path / "publications.jsonl.gz", "rt", encoding="utf-8") as handle:
        for raw in handle:
            record = json.loads(raw)
            repo = str(record["repo"])
            if repo.lower() in exclusions.repos or repo.split("/")[0].lower() in exclusions.owners:
                continue
            if excluded_person([str(a) for a in record["authors"]], exclusions):
                continue
            by_repo[repo].append(record)
    settings: dict[str, dict[str, str]] = defaultdict(dict)
    settings_path = path / "settings.tsv"
    if settings_path.exists():
        for row in settings_path.read_text(encoding="utf-8").splitlines()[1:]:
            cells = row.split("\t")
            if len(cells) >= 5:
                settings[cells[0]][cells[3]] = cells[4]
    sites = []
    for repo in sorted(by_repo):
        records = by_repo[repo]
        pubs = tuple(Pub(visible(r["title"]), tuple(a for a in (visible(x) for x in r["authors"]) if a),
                         visible(r["venue"]), int(str(r["year"])) if r.get("year") else None, str(r["type"] or ""),
                         str(r["doi"] or "")) for r in records if visible(r["title"]))
        sites.append(Site(repo, str(records[0]["kind"]), str(records[0]["split"]), pubs, settings.get(repo, {})))
    return sites


def owner_of(site: Site) -> tuple[str, ...]:
    """The owner's name tokens: al-folio's scholar name, else the most frequent author."""
    first = site.settings.get("scholar.first_name", "").strip('[]"\' ').split('", "')[0]
    last = site.settings.get("scholar.last_name", "").strip('[]"\' ').split('", "')[0]
    if first and last:
        return name_tokens_of(f"{first} {last}")
    counts = Counter(tokens for pub in site.pubs for a in pub.authors
                     if len(tokens := name_tokens_of(a)) >= 2 and not {"al", "others"} & set(tokens))
    return counts.most_common(1)[0][0] if counts else ("ada", "lovelace")


def style_of(site: Site, theme: str, rng: random.Random) -> Style:
    """The page's layout choices: the site's settings where they say, the seed elsewhere."""
    limit = site.settings.get("max_author_limit", "")
    max_authors = int(limit) if limit.isdigit() and theme == "al-folio" else (
        rng.choice((None, None, 3, 5, 8)) if theme in ("al-folio", "hand-written") else None)
    forms = {"hand-written": ("first-last", "initials", "vancouver", "as-written"), "al-folio": ("first-last",)}
    links = rng.choice(((), ("PDF",), ("PDF", "Code"), ("Abs", "PDF", "Bib"), ("Paper", "Code", "Slides")))
    return Style(owner_of(site), max_authors, rng.random() < (0.7 if theme == "al-folio" else 0.35),
                 rng.random() < 0.4, rng.choice(("b", "b", "em", "strong", "")), links, rng.randrange(12),
                 rng.choice(forms.get(theme, ("first-last", "as-written"))), rng.random() < 0.5)


def _noise(kind: str, site: Site, rng: random.Random) -> Node:
    """A news, talks or prose section (never a publication), built from the site's own titles and venues."""
    pubs = list(site.pubs)
    if kind == "news":
        items = el("ul")
        for pub in rng.sample(pubs, min(len(pubs), rng.randint(2, 5))):
            when = f"{rng.choice(MONTHS)[:3]} {pub.year or 2024}"
            venue = pub.venue.split("(")[0].strip() or "a workshop"
            line = rng.choice((f"{when}: Our paper \"{pub.title}\" was accepted to {venue}! 🎉",
                               f"[{when}] One paper accepted at {venue}.",
                               f"{when} — I presented our work at {venue}."))
            items.children.append(Node("li", [text(line)], role="news"))
        return el("section", Node("h2", [text(rng.choice(("News", "🔥 News", "Recent News")))], role="heading"),
                  items)
    if kind == "talks":
        items = el("ul")
        for pub in rng.sample(pubs, min(len(pubs), rng.randint(1, 4))):
            where = rng.choice(("University of Somewhere", "Research Seminar", pub.venue.split(",")[0] or "Workshop"))
            node = Node("li", [text(f"Invited talk: {pub.title}"), el("br"),
                               text(f"{where}, {rng.choice(MONTHS)} {pub.year or 2023}")], role="talk")
            items.children.append(node)
        return el("section", Node("h2", [text(rng.choice(("Talks", "Invited Talks", "Presentations")))],
                                  role="heading"), items)
    owner = " ".join(w.capitalize() for w in owner_of(site))
    prose = rng.choice((f"I am a researcher interested in {rng.choice(('learning', 'systems', 'biology', 'physics'))}"
                        f". Before that I studied at a university. Feel free to reach out by email.",
                        f"{owner} works on methods and applications; see the list below for recent papers.",
                        "For a complete list, see my Google Scholar profile. * denotes equal contribution."))
    return Node("p", [text(prose)], role="prose")


def render(site: Site, theme: str, seed: int) -> Rendering:
    """One page of a site in a theme: header, optional news, the publication list, optional talks, footer."""
    rng = random.Random(f"{seed}:{site.repo}:{theme}")
    style = style_of(site, theme, rng)
    layout = LAYOUTS[theme]
    owner = " ".join(w.capitalize() for w in style.owner)
    body = el("body", Node("header", [el("h1", owner), el("p", rng.choice(("PhD Student", "Assistant Professor",
                                                                            "Researcher", "Postdoctoral Fellow")))],
                           role="header"))
    if rng.random() < 0.5:
        body.children.append(Node("nav", [text("Home  Publications  CV  Contact")], role="nav"))
    body.children.append(_noise("prose", site, rng))
    if rng.random() < 0.4:
        body.children.append(_noise("news", site, rng))
    section = el("section", Node("h2", [text(rng.choice(HEADINGS))], role="heading"))
    group = site.settings.get("scholar.group_by", "year" if rng.random() < 0.5 else "none")
    by_type = theme in ("hand-written", "distill") and group != "year" and rng.random() < 0.3
    pubs = sorted(site.pubs, key=lambda p: -(p.year or 0))
    shown: list[Shown] = []
    current: object = object()
    container = el("ol" if theme in ("al-folio", "hand-written") else "div", cls="bibliography")
    for i, pub in enumerate(pubs):
        key: object = (pub.year or "Other") if group == "year" else (
            TYPE_HEADINGS.get(pub.type, "Other") if by_type else None)
        if key != current and key is not None:
            if container.children:
                section.children.append(container)
            label = str(key) if not isinstance(key, int) else rng.choice((str(key), f"{key}", f"— {key} —"))
            section.children.append(Node("h3", [text(label)], cls="year", role="heading"))
            container = el(container.tag, cls="bibliography")
        current = key
        node, facts = layout(pub, style, rng)
        node.entry, node.role = i, "entry"
        container.children.append(node)
        shown.append(facts)
    section.children.append(container)
    body.children.append(section)
    if rng.random() < 0.4:
        body.children.append(_noise("talks", site, rng))
    body.children.append(Node("footer", [text(f"© Copyright {rng.randint(2021, 2026)} {owner}. "
                                              "Powered by Jekyll.")], role="nav"))
    return Rendering(theme, tuple(text_lines(body)), to_html(body, owner), tuple(shown))


def themes_for(site: Site, seed: int, variants: int) -> list[str]:
    """The site's own theme first, then themes drawn from the seed."""
    rng = random.Random(f"{seed}:{site.repo}:themes")
    own = rng.choice(NATIVE.get(site.kind, ("hand-written",)))
    others = sorted(LAYOUTS)
    return [own] + [rng.choice(others) for _ in range(variants - 1)]


def truth_json(rendering: Rendering) -> str:
    """The truth of a rendering as JSON."""
    return json.dumps({"theme": rendering.theme,
                       "lines": [[line.entry, line.role, list(line.fields)] for line in rendering.lines],
                       "shown": [asdict(s) for s in rendering.shown]}, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    """Write the renderings of one split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--split", default="dev", choices=("dev", "heldout", "all"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", type=int, default=1)
    args = parser.parse_args(argv)
    count = 0
    for site in load_sites():
        if args.split != "all" and site.split != args.split:
            continue
        folder = args.out / site.split
        folder.mkdir(parents=True, exist_ok=True)
        for k, theme in enumerate(themes_for(site, args.seed, args.variants)):
            rendering = render(site, theme, args.seed + k)
            stem = f"{site.repo.replace('/', '+')}.{k}"
            (folder / f"{stem}.txt").write_text(rendering.text, encoding="utf-8")
            (folder / f"{stem}.html").write_text(rendering.html, encoding="utf-8")
            (folder / f"{stem}.truth.json").write_text(truth_json(rendering), encoding="utf-8")
            count += 1
    print(f"{count} pages written under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
