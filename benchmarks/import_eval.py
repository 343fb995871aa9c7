"""Precision, recall and F1 of `kg import` per field over the import test corpus.

    python benchmarks/import_eval.py [--corpus tests/data/import_corpus] [--realworld tests/data/import_realworld]
                                     [--harvested [--harvested-split dev]] [--data data] [--out FILE]

Each corpus input (<name>.txt, .html or .bib) is imported and compared with <name>.expected.yaml.
Fields: publication title; authors in order (with marks and elisions); venue id; year; status;
positions (role, organisations, start, end); degrees (degree, institution, start, end). An input the
importer rejects (kg import's exit code 2: no recognisable person, ...) counts as an empty import, so
all its expected facts are misses; the run goes on and the rejected inputs are listed. Prints the
table and writes it as Markdown to benchmarks/out/import_eval.md (or --out).

The real-world corpus (tests/data/import_realworld, see its README) is scored against its facts.yaml
annotations (benchmarks/facts_eval.py), its dev/ and heldout/ pages separately and its text and HTML
renderings separately. Held-out pages get aggregate figures only: reading their per-page failures would
be tuning on them.

--harvested renders every harvested held-out repository (training/harvest) in its theme, as text and as HTML,
and reports strict publication F1 and per-field F1 on them (benchmarks/harvested_eval.py); aggregates only.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections import Counter
from collections.abc import Hashable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

from facts_eval import FACT_FIELDS, Matcher, draft_facts, expected_facts, read_facts  # noqa: E402

from kg.errors import KgError  # noqa: E402
from kg.importers import import_file  # noqa: E402
from kg.importers.venues import Reference  # noqa: E402
from kg.importers.writer import data_of  # noqa: E402
from kg.model import Profile  # noqa: E402
from kg.parsing import parse_profile  # noqa: E402
from kg.resolution import normalize_name  # noqa: E402
from kg.sources import parse_yaml  # noqa: E402

INPUT_SUFFIXES = (".txt", ".html", ".htm", ".bib")
FIELDS = ["publication title", "authors in order", "venue", "year", "status", "positions", "degrees"]


def load_profile(text: str, stem: str) -> Profile:
    """A profile from YAML text, named as if it were data/profiles/<stem>.yaml."""
    return parse_profile(parse_yaml(text, Path(f"{stem}.yaml")))


def keys(profile: Profile) -> dict[str, Counter[Hashable]]:
    """The comparable facts of a profile, one multiset per field."""
    out: dict[str, Counter[Hashable]] = {f: Counter() for f in FIELDS}
    for pub in profile.publications:
        title = normalize_name(pub.title)
        authors = tuple((normalize_name(a.name), a.equal_contribution, a.is_elision) for a in pub.authors)
        out["publication title"][title] += 1
        out["authors in order"][(title, authors)] += 1
        out["venue"][(title, pub.venue)] += 1
        out["year"][(title, pub.year)] += 1
        out["status"][(title, pub.status)] += 1
    for exp in profile.experience:
        orgs = tuple(normalize_name(o) for o in exp.organizations)
        out["positions"][(normalize_name(exp.role), orgs, exp.start, exp.end, exp.current)] += 1
    for edu in profile.education:
        out["degrees"][(edu.degree, normalize_name(edu.institution), edu.start, edu.end)] += 1
    return out


def score(actual: Counter[Hashable], expected: Counter[Hashable]) -> tuple[int, int, int]:
    """(true positives, actual count, expected count) for one field."""
    return sum((actual & expected).values()), sum(actual.values()), sum(expected.values())


def prf(tp: int, n_actual: int, n_expected: int) -> tuple[float, float, float]:
    """Precision, recall and F1 (1.0 when both sides are empty)."""
    precision = tp / n_actual if n_actual else (1.0 if not n_expected else 0.0)
    recall = tp / n_expected if n_expected else (1.0 if not n_actual else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def corpus_inputs(corpus: Path) -> list[Path]:
    """Corpus inputs that have an expected YAML beside them."""
    return sorted(p for p in corpus.iterdir() if p.suffix in INPUT_SUFFIXES
                  and (corpus / f"{p.stem}.expected.yaml").exists())


Table = dict[str, tuple[float, float, float, int, int, int]]


def imported_keys(path: Path, data: Path) -> dict[str, Counter[Hashable]] | None:
    """The facts kg import gives for one input, or None when it rejects the input."""
    try:
        result = import_file(path, data=data)
    except KgError:
        return None
    return keys(load_profile(result.yaml_text, path.stem))


def evaluate(corpus: Path, data: Path) -> tuple[Table, dict[str, dict[str, float]], list[str]]:
    """Per-field (precision, recall, F1, tp, actual, expected) over the corpus, per-file F1 by field, and the
    inputs the importer rejected (scored as empty imports)."""
    totals = {f: [0, 0, 0] for f in FIELDS}
    per_file: dict[str, dict[str, float]] = {}
    rejected: list[str] = []
    for path in corpus_inputs(corpus):
        expected = keys(load_profile((corpus / f"{path.stem}.expected.yaml").read_text(encoding="utf-8"),
                                     path.stem))
        actual = imported_keys(path, data)
        if actual is None:
            rejected.append(path.name)
            actual = {f: Counter() for f in FIELDS}
        per_file[path.name] = tally(totals, actual, expected)
    return table_of(totals), per_file, rejected


def tally(totals: dict[str, list[int]], actual: dict[str, Counter[Hashable]],
          expected: dict[str, Counter[Hashable]]) -> dict[str, float]:
    """Add one input's matched, imported and expected counts to the totals; returns its F1 per field."""
    f1: dict[str, float] = {}
    for f, sums in totals.items():
        counts = score(actual[f], expected[f])
        for i, n in enumerate(counts):
            sums[i] += n
        f1[f] = prf(*counts)[2]
    return f1


def table_of(totals: dict[str, list[int]]) -> Table:
    """Precision, recall, F1 and the counts of each field, from its (matched, imported, expected) totals."""
    return {f: (*prf(tp, n_actual, n_expected), tp, n_actual, n_expected)
            for f, (tp, n_actual, n_expected) in totals.items()}


def evaluate_facts(folder: Path, suffix: str, data: Path, only: set[str] | None = None
                   ) -> tuple[Table, dict[str, dict[str, float]], list[str]]:
    """Per-field figures of the pages in one real-world folder rendered as `suffix` (.txt or .html); `only`
    limits them to some stems."""
    matcher = Matcher(Reference.load(data))
    totals = {f: [0, 0, 0] for f in FACT_FIELDS}
    per_file: dict[str, dict[str, float]] = {}
    failed: list[str] = []
    for facts_path in sorted(folder.glob("*.facts.yaml")):
        page = folder / (facts_path.name.removesuffix(".facts.yaml") + suffix)
        if not page.exists() or (only is not None and page.stem not in only):
            continue
        expected = expected_facts(read_facts(facts_path), matcher)
        try:
            result = import_file(page, data=data)
            actual = draft_facts(data_of(result.draft), matcher, expected)
        except KgError:
            failed.append(page.name)
            actual = {f: Counter() for f in FACT_FIELDS}
        per_file[page.name] = tally(totals, actual, expected)
    return table_of(totals), per_file, failed


def facts_markdown(results: dict[str, tuple[Table, dict[str, dict[str, float]], list[str]]]) -> str:
    """The real-world figures as Markdown: one table per split and rendering, per-page F1 for dev pages only."""
    lines = ["", "# kg import on real homepages (tests/data/import_realworld)", ""]
    for label, (table, per_file, failed) in results.items():
        zero = [name for name, scores in per_file.items() if scores["title"] == 0.0]
        rejected = ", ".join(failed) if label.startswith("dev") else str(len(failed))
        lines += [f"## {label}: {len(per_file)} pages", "",
                  f"Rejected by the importer: {rejected or 'none'}. "
                  f"Pages with no publication title right: {len(zero)}.", "",
                  "| field | precision | recall | F1 | matched | imported | expected |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {f} | {p:.3f} | {r:.3f} | {f1:.3f} | {tp} | {n_a} | {n_e} |"
                  for f, (p, r, f1, tp, n_a, n_e) in table.items()]
        lines.append("")
        if label.startswith("dev"):
            lines += ["| page | " + " | ".join(FACT_FIELDS) + " |", "|---|" + "---:|" * len(FACT_FIELDS)]
            lines += [f"| {name} | " + " | ".join(f"{scores[f]:.2f}" for f in FACT_FIELDS) + " |"
                      for name, scores in per_file.items()]
            lines.append("")
    return "\n".join(lines) + "\n"


def realworld(root: Path, data: Path, splits: tuple[str, ...] = ("dev", "heldout")
              ) -> dict[str, tuple[Table, dict[str, dict[str, float]], list[str]]]:
    """Figures for dev/ and heldout/, text and HTML renderings, each on its own."""
    return {f"{split} {suffix[1:]}": evaluate_facts(root / split, suffix, data)
            for split in splits for suffix in (".txt", ".html") if (root / split).is_dir()}


def cross_validated(root: Path, data: Path, folds: int
                    ) -> dict[str, tuple[Table, dict[str, dict[str, float]], list[str]]]:
    """Development figures with the line model trained without the pages it is scored on: the dev pages are
    split into `folds` by a hash of their stem, and each fold is read by a model trained on the others."""
    from train_line_model import train

    from kg.importers.labeller import using_model

    stems = sorted(p.name.removesuffix(".facts.yaml") for p in (root / "dev").glob("*.facts.yaml"))
    fold_of = {s: int(hashlib.sha256(s.encode()).hexdigest(), 16) % folds for s in stems}
    out: dict[str, tuple[Table, dict[str, dict[str, float]], list[str]]] = {}
    sums: dict[str, dict[str, list[int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(folds):
            held = frozenset(s for s in stems if fold_of[s] == k)
            model = Path(tmp) / f"fold{k}.crfsuite"
            train(800, 7, model, 8, leave_out=held, quiet=True)
            with using_model(model):
                for suffix in (".txt", ".html"):
                    label = f"dev {suffix[1:]} (cross-validated, {folds} folds)"
                    table, per_file, failed = evaluate_facts(root / "dev", suffix, data, set(held))
                    totals = sums.setdefault(label, {f: [0, 0, 0] for f in FACT_FIELDS})
                    for f in FACT_FIELDS:
                        for i in range(3):
                            totals[f][i] += table[f][3 + i]
                    previous = out.get(label, ({}, {}, []))
                    out[label] = (previous[0], {**previous[1], **per_file}, previous[2] + failed)
    for label, totals in sums.items():
        out[label] = (table_of(totals), out[label][1], out[label][2])
    return out


def _label(corpus: Path) -> str:
    """The corpus directory as written relative to the repository when it lies inside it."""
    try:
        return str(corpus.resolve().relative_to(ROOT))
    except ValueError:
        return str(corpus)


def markdown(table: Table, per_file: dict[str, dict[str, float]], corpus: Path, rejected: list[str] | None = None
             ) -> str:
    """The results as Markdown tables."""
    lines = ["# kg import: field accuracy on the test corpus", "",
             f"{len(per_file)} inputs ({_label(corpus)}).", "",
             f"Rejected by the importer (scored as empty imports): {', '.join(rejected) if rejected else 'none'}.",
             "",
             "| field | precision | recall | F1 | matched | imported | expected |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for f, (p, r, f1, tp, n_a, n_e) in table.items():
        lines.append(f"| {f} | {p:.3f} | {r:.3f} | {f1:.3f} | {tp} | {n_a} | {n_e} |")
    lines += ["", "F1 per input:", "", "| input | " + " | ".join(FIELDS) + " |",
              "|---|" + "---:|" * len(FIELDS)]
    for name, scores in per_file.items():
        lines.append(f"| {name} | " + " | ".join(f"{scores[f]:.2f}" for f in FIELDS) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Evaluate, print the table and write it as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "data" / "import_corpus")
    parser.add_argument("--realworld", type=Path, default=ROOT / "tests" / "data" / "import_realworld")
    parser.add_argument("--dev-only", action="store_true", help="leave the held-out pages out (for development)")
    parser.add_argument("--cross-validate", type=int, default=0, metavar="K",
                        help="also score the dev pages with line models trained without them, in K folds")
    parser.add_argument("--harvested", action="store_true",
                        help="also score theme renderings of the harvested held-out repositories")
    parser.add_argument("--harvested-split", default="heldout", choices=("dev", "heldout"),
                        help="the harvested split to render and score (dev for development)")
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "import_eval.md")
    args = parser.parse_args(argv)
    table, per_file, rejected = evaluate(args.corpus, args.data)
    text = markdown(table, per_file, args.corpus, rejected)
    if args.realworld.is_dir():
        splits = ("dev",) if args.dev_only else ("dev", "heldout")
        results = realworld(args.realworld, args.data, splits)
        if args.cross_validate:
            results.update(cross_validated(args.realworld, args.data, args.cross_validate))
        text += facts_markdown(results)
    if args.harvested:
        from harvested_eval import harvested, harvested_markdown

        text += harvested_markdown(harvested(args.harvested_split, args.data), args.harvested_split)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
