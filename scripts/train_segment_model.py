"""Train the entry segmenter (src/kg/importers/pipeline/segment.crfsuite), or measure it.

    python scripts/train_segment_model.py [--variants 3] [--seed 0] [--out PATH]
    python scripts/train_segment_model.py --evaluate heldout [--model PATH]
    python scripts/train_segment_model.py --check

Training writes the model and, when it replaces the shipped one, its record (training/models/segment.json: the
model's sha256, the settings, and the sha256 of a sample of the training items, which the tests recompute
cheaply); --check retrains in full and compares.

Training data: theme renderings (scripts/render_pages.py) of the harvested development repositories, each in
its own theme and in `variants - 1` others, as copied text and as HTML, every line's tag known by
construction; and the publication sections of the real-world development pages (tests/data/import_realworld/
dev, labelled by scripts/line_align.py). Held-out repositories are only read by --evaluate, which prints
aggregate figures: line tag accuracy and entry boundary F1 (an entry counts when its lines are exactly a
rendered publication's lines). Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import pycrfsuite  # noqa: E402
from render_pages import Rendering, Site, load_sites, render, themes_for  # noqa: E402
from render_tree import TruthLine  # noqa: E402

from kg.importers.names import person_keys  # noqa: E402
from kg.importers.pipeline.page import page_lines  # noqa: E402
from kg.importers.pipeline.segment import MODEL, Entry, features, segment, tag_lines  # noqa: E402
from kg.importers.records import Line  # noqa: E402
from kg.importers.venues import Reference  # noqa: E402

DEV = ROOT / "tests" / "data" / "import_realworld" / "dev"
VARIANTS = 3
ROLE_TAGS = {"heading": "heading", "talk": "talk", "news": "news"}
MAIN = {"title", "authors", "venue"}
# the shipped model's training record: its sha256 and the digest of a sample of its training items
RECORD = ROOT / "training" / "models" / "segment.json"
SAMPLE_EVERY = 16
Item = tuple[list[dict[str, float]], list[str]]


def field_of(fields: tuple[str, ...]) -> str:
    """The line labeller's field for a rendered line holding these fields."""
    found = set(fields)
    if "citation" in found or len(found & MAIN) >= 2:
        return "citation"
    for name in ("title", "authors", "venue", "links", "award"):
        if name in found:
            return name
    return "venue" if found == {"year"} else "note"


Truth = list[tuple[int | None, str, str]]


def truth_of(kept: list[Line], truth: tuple[TruthLine, ...]) -> Truth:
    """(entry, role, field) of each importer line, found by its text in the rendering's copied text, in order."""
    stream = ""
    owners: list[tuple[int, TruthLine]] = []
    for shown in truth:
        if shown.text:
            owners.append((len(stream), shown))
            stream += "".join(shown.text.split())
    starts = [start for start, _ in owners]
    out: Truth = []
    cursor = 0
    for line in kept:
        needle = "".join((line.raw or line.text).removeprefix("• ").split())
        at = stream.find(needle, cursor) if needle else -1
        if at < 0:
            out.append((None, "prose", ""))
            continue
        cursor = at + len(needle)
        owner = owners[max(0, bisect_right(starts, at) - 1)][1]
        out.append((owner.entry, owner.role, field_of(owner.fields)))
    return out


def tags_of(truth: Truth) -> list[str]:
    """Segmentation tags from each line's (entry, role, field)."""
    tags: list[str] = []
    previous: int | None = None
    for entry, role, fld in truth:
        if role == "entry" and entry is not None:
            tags.append(("B-" if entry != previous else "I-") + fld)
        else:
            tags.append(ROLE_TAGS.get(role, "other"))
        previous = entry if role == "entry" else None
    return tags


def rendered(sites: list[Site], seed: int, variants: int) -> Iterator[tuple[Rendering, bool, set[str]]]:
    """Every rendering of the sites, as text and as HTML, with the owner's name keys."""
    from render_pages import owner_of

    for site in sites:
        keys = person_keys(" ".join(owner_of(site)))
        for k, theme in enumerate(themes_for(site, seed, variants)):
            rendering = render(site, theme, seed + k)
            for html in (False, True):
                yield rendering, html, keys


def labelled(rendering: Rendering, html: bool, keys: set[str], ref: Reference
             ) -> tuple[list[Line], list[dict[str, float]], list[str], Truth]:
    """A rendering's non-blank importer lines, their features, their tags and their truth."""
    lines = page_lines(rendering.html if html else rendering.text, html)
    kept, feats = features(lines, ref, keys)
    truth = truth_of(kept, rendering.lines)
    return kept, feats, tags_of(truth), truth


def dev_sections(ref: Reference) -> Iterator[Item]:
    """The real-world development pages' publication sections with segmentation tags."""
    from line_align import labelled_sections

    for path in sorted(DEV.glob("*.txt")) + sorted(DEV.glob("*.html")):
        for rows in labelled_sections(path):
            lines = [Line(i, i + 1, text.strip(), heading=label == "heading" and not text[:1].isdigit())
                     for i, (text, label) in enumerate(rows)]
            labels = [label for text, label in rows if text.strip()]
            _, feats = features(lines, ref, set())
            yield feats, labels


def site_items(site: Site, ref: Reference, seed: int, variants: int) -> Iterator[Item]:
    """A site's renderings as training items: each line's features and its tag."""
    for rendering, html, keys in rendered([site], seed, variants):
        _, feats, tags, _ = labelled(rendering, html, keys, ref)
        yield feats, tags


def item_bytes(item: Item) -> bytes:
    """One training item in a canonical form, for the digests."""
    return json.dumps(item, sort_keys=True, separators=(",", ":")).encode()


def sample_digest(seed: int, variants: int, every: int = SAMPLE_EVERY) -> str:
    """The sha256 of every `every`-th development site's items and of the dev sections, as train() records it."""
    ref = Reference.load(ROOT / "data")
    digest = hashlib.sha256()
    for site in (site for n, site in enumerate(dev_sites()) if in_sample(n, every)):
        for item in site_items(site, ref, seed, variants):
            digest.update(item_bytes(item))
    for item in dev_sections(ref):
        digest.update(item_bytes(item))
    return digest.hexdigest()


def in_sample(n: int, every: int = SAMPLE_EVERY) -> bool:
    """Whether the n-th development site's items go into the recorded sample."""
    return n % every == 0


def dev_sites() -> list[Site]:
    """The harvested development sites that list publications, in the harvest's order."""
    return [s for s in load_sites() if s.split == "dev" and s.pubs]


def fit(items: Iterable[Item], out: Path) -> None:
    """Train a model on the items with the shipped parameters and write it to `out`."""
    trainer = pycrfsuite.Trainer(verbose=False)
    for feats, tags in items:
        trainer.append(feats, tags)
    trainer.set_params({"c1": 0.1, "c2": 0.01, "max_iterations": 120, "feature.possible_transitions": True})
    trainer.train(str(out))


def train(seed: int, variants: int, out: Path, dev_weight: int = 2) -> dict[str, object]:
    """Train on the development renderings and pages, write the model file and return its training record."""
    ref = Reference.load(ROOT / "data")
    started = time.monotonic()
    sample = hashlib.sha256()
    counts = {"renderings": 0, "sections": 0}

    def items() -> Iterator[Item]:
        for n, site in enumerate(dev_sites()):
            for item in site_items(site, ref, seed, variants):
                counts["renderings"] += 1
                if in_sample(n):
                    sample.update(item_bytes(item))
                yield item
        sections = list(dev_sections(ref))  # after the renderings, in the order the shipped model saw them
        counts["sections"] = len(sections)
        for item in sections:
            sample.update(item_bytes(item))
        yield from sections * dev_weight

    fit(items(), out)
    pages, sections = counts["renderings"], counts["sections"]
    print(f"trained on {pages} renderings and {sections} dev sections in {time.monotonic() - started:.0f} s"
          f" -> {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return {"model_sha256": hashlib.sha256(out.read_bytes()).hexdigest(), "seed": seed, "variants": variants,
            "dev_weight": dev_weight, "renderings": pages, "dev_sections": sections,
            "sample_every": SAMPLE_EVERY, "sample_sha256": sample.hexdigest()}


def entry_sets(kept: list[Line], entries: list[Entry]) -> set[tuple[int, ...]]:
    """The line indexes of each publication segment."""
    return {tuple(line.index for line in e.lines) for e in entries if e.kind == "publication"}


def true_sets(kept: list[Line], truth: Truth) -> set[tuple[int, ...]]:
    """The line indexes of each rendered publication."""
    groups: dict[int, list[int]] = {}
    for line, (entry, role, _) in zip(kept, truth, strict=True):
        if role == "entry" and entry is not None:
            groups.setdefault(entry, []).append(line.index)
    return {tuple(v) for v in groups.values()}


def evaluate(split: str, model: Path, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Per rendering (txt, html): line tag accuracy and entry boundary F1 over the split's own-theme renderings."""
    ref = Reference.load(ROOT / "data")
    sites = [s for s in load_sites() if s.split == split and s.pubs]
    sums = {"txt": [0, 0, 0, 0, 0], "html": [0, 0, 0, 0, 0]}
    for rendering, html, keys in rendered(sites, seed, 1):
        kept, _, tags, truth = labelled(rendering, html, keys, ref)
        lines = page_lines(rendering.html if html else rendering.text, html)
        found = segment(lines, ref, keys, model) or []
        predicted = [tag for _, tag in tag_lines(lines, ref, keys, model) or []]
        want, got = true_sets(kept, truth), entry_sets(kept, found)
        s = sums["html" if html else "txt"]
        s[0] += sum(1 for a, b in zip(predicted, tags, strict=True) if a == b)
        s[1] += len(tags)
        s[2] += len(want & got)
        s[3] += len(got)
        s[4] += len(want)
    return {k: (s[0] / max(1, s[1]), 2 * s[2] / max(1, s[3] + s[4])) for k, s in sums.items()}


def check() -> int:
    """Retrain with the recorded settings; 0 when the model is byte for byte the shipped one."""
    import tempfile

    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / MODEL.name
        made = train(int(recorded["seed"]), int(recorded["variants"]), out, int(recorded["dev_weight"]))
    same = made["model_sha256"] == recorded["model_sha256"] == hashlib.sha256(MODEL.read_bytes()).hexdigest()
    print("the shipped model is what this script makes" if same else "the shipped model differs: retrain")
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    """Train, or evaluate with --evaluate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=VARIANTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--evaluate", choices=("dev", "heldout"))
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--check", action="store_true",
                        help="retrain into a temporary file and compare it with the shipped model's record")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    if args.evaluate:
        for label, (accuracy, f1) in evaluate(args.evaluate, args.model).items():
            print(f"{args.evaluate} {label}: line tag accuracy {accuracy:.3f}, entry boundary F1 {f1:.3f}")
        return 0
    record = train(args.seed, args.variants, args.out)
    if args.out.resolve() == MODEL.resolve():
        RECORD.parent.mkdir(parents=True, exist_ok=True)
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
