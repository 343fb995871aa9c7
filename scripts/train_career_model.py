"""Train the career model (src/kg/importers/pipeline/careers.crfsuite) on synthetic CV sections.

    python scripts/train_career_model.py [--sections 5000] [--seed 7] [--harvest] [--out PATH]

Sections come from scripts/cv_synth.py, which draws entries from the harvested CV facts (with --harvest:
training/harvest/cv.jsonl.gz, development rows only; the shipped model was trained without them, which scored
better on the development pages and the invented-people corpus), the real-world development pages'
annotations and its own pools, and from the development pages themselves (scripts/cv_align.py). Held-out
pages and held-out harvest rows are never read. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import pycrfsuite  # noqa: E402
from cv_align import dev_sections  # noqa: E402
from cv_synth import HARVEST, real_entries, synth_section  # noqa: E402

from kg.importers.pipeline.career_features import token_features, tokens_of  # noqa: E402
from kg.importers.pipeline.careers import MODEL  # noqa: E402
from kg.importers.records import Line  # noqa: E402


def examples(count: int, seed: int) -> list[tuple[list[dict[str, float]], list[str]]]:
    """Features and labels of `count` synthetic sections, half experience and half education."""
    rng = random.Random(seed)
    positions, degrees = real_entries()
    out = []
    for n in range(count):
        education = n % 2 == 1
        texts, indents, labels = synth_section(rng, education, positions, degrees)
        lines = [Line(i, i + 1, text, indent) for i, (text, indent) in enumerate(zip(texts, indents, strict=True))]
        tokens = tokens_of(lines)
        flat = [label for row in labels for label in row]
        if len(flat) != len(tokens):
            raise ValueError(f"labels and tokens differ in section {n}: {texts}")
        if tokens:
            out.append((token_features(lines, tokens, education if rng.random() < 0.85 else None), flat))
    return out


def train(out: Path, count: int, seed: int, dev_weight: int = 3) -> Path:
    """Train on `count` synthetic sections and the development pages' sections (each `dev_weight` times) and write
    the model to `out`."""
    trainer = pycrfsuite.Trainer(verbose=False)
    for features, labels in examples(count, seed):
        trainer.append(features, labels)
    for lines, labels, education in dev_sections():
        features = token_features(lines, tokens_of(lines), education)
        for _ in range(dev_weight):
            trainer.append(features, labels)
    trainer.set_params({"c1": 0.05, "c2": 0.01, "max_iterations": 150, "feature.possible_transitions": True})
    out.parent.mkdir(parents=True, exist_ok=True)
    trainer.train(str(out))
    return out


def main() -> None:
    """Train and report the time taken and the model's size."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--harvest", action="store_true", help="also draw entries from the harvested CV facts")
    args = parser.parse_args()
    if args.harvest:
        os.environ["KG_CV_HARVEST"] = str(HARVEST)
    began = time.time()
    path = train(args.out, args.sections, args.seed)
    sys.stdout.write(f"{path}: {path.stat().st_size / 1e6:.2f} MB in {time.time() - began:.0f} s\n")


if __name__ == "__main__":
    main()
