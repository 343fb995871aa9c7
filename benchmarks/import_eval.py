"""Precision, recall and F1 of `kg import` per field over the import test corpus.

    python benchmarks/import_eval.py [--corpus tests/data/import_corpus] [--data data] [--out FILE]

Each corpus input (<name>.txt, .html or .bib) is imported and compared with <name>.expected.yaml.
Fields: publication title; authors in order (with marks and elisions); venue id; year; status;
positions (role, organisations, start, end); degrees (degree, institution, start, end). Prints the
table and writes it as Markdown to benchmarks/out/import_eval.md (or --out).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Hashable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from kg.importers import import_file  # noqa: E402
from kg.model import Profile, parse_profile  # noqa: E402
from kg.resolve import normalize_name  # noqa: E402
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


def evaluate(corpus: Path, data: Path) -> tuple[dict[str, tuple[float, float, float, int, int, int]],
                                                 dict[str, dict[str, float]]]:
    """Per-field (precision, recall, F1, tp, actual, expected) over the corpus, and per-file F1 by field."""
    totals = {f: [0, 0, 0] for f in FIELDS}
    per_file: dict[str, dict[str, float]] = {}
    for path in corpus_inputs(corpus):
        expected = keys(load_profile((corpus / f"{path.stem}.expected.yaml").read_text(encoding="utf-8"),
                                     path.stem))
        result = import_file(path, data=data)
        actual = keys(load_profile(result.yaml_text, path.stem))
        per_file[path.name] = {}
        for f in FIELDS:
            tp, n_actual, n_expected = score(actual[f], expected[f])
            totals[f][0] += tp
            totals[f][1] += n_actual
            totals[f][2] += n_expected
            per_file[path.name][f] = prf(tp, n_actual, n_expected)[2]
    table = {f: (*prf(*totals[f]), *totals[f]) for f in FIELDS}  # type: ignore[misc]
    return table, per_file


def markdown(table: dict[str, tuple[float, float, float, int, int, int]], per_file: dict[str, dict[str, float]]
             ) -> str:
    """The results as Markdown tables."""
    lines = ["# kg import: field accuracy on the test corpus", "",
             f"{len(per_file)} inputs (tests/data/import_corpus).", "",
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
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "import_eval.md")
    args = parser.parse_args(argv)
    table, per_file = evaluate(args.corpus, args.data)
    text = markdown(table, per_file)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
